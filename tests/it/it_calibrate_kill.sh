#!/bin/bash
# Integration: a kill -9 of spoolsim calibrate leaves no Postfix running and
# nothing mounted, and the next calibration removes what it did leave
# (root, Postfix's tools from scripts/fetch-peer.sh, cgroups; skipped
# elsewhere).
#
# 1. A calibration killed with SIGKILL once its private Postfix runs (its
#    master detached from the script, as daemons do). Within 10 s: no
#    process of that Postfix instance is left (MAIL_CONFIG naming its
#    configuration), nor any other process that was below the calibration
#    or names its directory; its tmpfs mounts are seen nowhere (not here,
#    and no process is left in the mount namespace it ran in).
# 2. The next calibration removes the dead one's directory and cgroup,
#    saying so, and then calibrates as ever: exit 0 and a model.
. "${top_srcdir:-.}/tests/helpers/lib.sh"

[ "$(id -u)" = 0 ] || skip "spoolsim calibrate needs root (Postfix, tmpfs mounts, cgroups)"
in_chroot && skip "in a chroot: the paths a private mount namespace shows (its loop devices' files, its descriptors) are the host's, so what a run left cannot be told here"
need_peer "Postfix's tools" "scripts/fetch-peer.sh postfix" test -s "$PEER_POSTFIX/version"
command -v flock >/dev/null || skip "no flock(1)"
export SPOOLSIM_PEERS # never a fetch: the peer found above

"$RELAY" calibrate postfix -m 200 -o "$WORK/model1.json" >"$WORK/cal1.out" 2>"$WORK/cal1.err" &
CPID=$!
PIDS="$PIDS $CPID"

# its directory: where the smtp-sink it started writes its errors
cal_dir() {
    local p
    for p in $(pgrep -P "$CPID"); do readlink "/proc/$p/fd/2"; done | sed -n 's|/sink\.err$||p' | head -1
}
# the processes of its Postfix instance
postfix_pids() {
    local p
    for p in /proc/[0-9]*; do
        grep -qzxF "MAIL_CONFIG=$DIR/conf" "$p/environ" 2>/dev/null && echo "${p#/proc/}"
    done
    return 0
}
postfix_up() { DIR=$(cal_dir) && [ -n "$DIR" ] && [ -n "$(postfix_pids)" ]; }
started_tied 120 "$WORK/cal1.err" "$CPID" "calibrate and its Postfix" postfix_up
KIDS="$(descendants "$CPID") $(postfix_pids)"
MNT_NS=$(readlink "/proc/$CPID/ns/mnt")
CG=""
for c in /sys/fs/cgroup/cpuacct/spoolsim-calibrate.$CPID /sys/fs/cgroup/spoolsim-calibrate.$CPID; do
    [ -d "$c" ] && CG=$c
done
echo "# calibrate $CPID in $DIR; processes:" $KIDS "; cgroup: ${CG:-none seen}"
kill -KILL "$CPID"
wait "$CPID" 2>/dev/null

postfix_gone() { [ -z "$(postfix_pids)" ]; }
check "kill -9: no process of its Postfix left, within 10 s" wait_until 10 postfix_gone
# shellcheck disable=SC2086 # one PID a word
check "kill -9: nothing else of it running" wait_until 10 none_left "$DIR" $KIDS
check "kill -9: its tmpfs mounts are gone" wait_until 10 mount_ns_gone "$MNT_NS" "$DIR"
for p in $KIDS; do kill -0 "$p" 2>/dev/null && echo "#   left: $(tr '\0' ' ' <"/proc/$p/cmdline")"; done

# what the test kills if the calibration did not: the instance, by its configuration
left_behind() {
    local m
    for p in $(postfix_pids) $(pgrep -f -- "$DIR/"); do kill -KILL "$p" 2>/dev/null; done
    for m in "$DIR/queue" "$DIR/spool"; do mountpoint -q "$m" && umount -l "$m"; done
    return 0
}
left_behind

timeout 300 "$RELAY" calibrate postfix -m 200 -o "$WORK/model2.json" >"$WORK/cal2.out" 2>"$WORK/cal2.err"
status=$?
sed 's/^/# /' "$WORK/cal2.err" | head -3
check "the next calibration works (exit 0) and writes a model" \
    test "$status" = 0 -a -s "$WORK/model2.json"
check "... it says it removed what the dead one left" \
    grep -q "calibrate: removed $DIR.*, left by calibration process $CPID, which is gone" "$WORK/cal2.err"
check "... its directory" test ! -e "$DIR"
if [ -n "$CG" ]; then
    check "... its cgroup" test ! -e "$CG"
else
    skip_part "the cgroup check: no cgroup of the calibration seen from here"
fi
[ -e "$DIR" ] && [ -z "${KEEP_WORK:-}" ] && rm -rf "$DIR"
[ -n "$CG" ] && [ -d "$CG" ] && rmdir "$CG"/*/ "$CG" 2>/dev/null
finish
