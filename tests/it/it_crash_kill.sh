#!/bin/bash
# Integration: a kill -9 of spoolsim crash leaves nothing running, mounted
# or attached, and the next run removes what it did leave (root, /dev/fuse,
# loop devices and mkfs.ext4; skipped elsewhere).
#
# 1. A run killed with SIGKILL in the middle of its load (its recorder,
#    sink, relay and smtp-source running, its image mounted on a loop
#    device in its own mount namespace). Within 10 s: none of its children
#    is left, by the PIDs they had or by its work directory in a command
#    line; no process is left in its mount namespace (so that namespace,
#    and its mounts, are gone) and nothing is mounted below its work
#    directory here; and none of the loop devices that served its files
#    during the run still serves them (looked at by device, and by the
#    file's device and inode: once its namespace is gone a loop device no
#    longer names its file by the path). The recorder runs in a mount
#    namespace of its own, so that it is never the process that unmounts
#    the image through itself.
# 2. The next run in the same parent directory removes the dead run's
#    work directory and its images, saying so, and leaves nothing itself.
# 3. Work directories a run finds beside its own: one marked as a dead
#    run's (an owner file nobody holds, as crash_leftover.h says) with a
#    loop device still on a file of it (a run killed in the moment before
#    that device's mount) goes, the device detached; one whose owner
#    lives (its owner file locked) and one without an owner file stay.
. "${top_srcdir:-.}/tests/helpers/lib.sh"
. "$top_srcdir/tests/helpers/crash_lib.sh"

crash_need_machine
in_chroot && skip "in a chroot: the paths a private mount namespace shows (its loop devices' files, its descriptors) are the host's, so what a run left cannot be told here"
command -v flock >/dev/null || skip "no flock(1)"

LOOPS_MADE=""
teardown() {
    local l
    [ "$BASHPID" = "$MAIN_PID" ] || return 0
    for l in $LOOPS_MADE; do losetup -d "$l" 2>/dev/null; done
    cleanup
}
trap teardown EXIT

W=$WORK/w
mkdir "$W"

# --- 1. kill -9 in the middle of the load
timeout --foreground 300 "$RELAY" crash -d 60 -s 4 --points 12 --seed 5 --work-dir "$W" >"$WORK/killed.out" 2>"$WORK/killed.err" &
CPID=$!
PIDS="$PIDS $CPID"
wd() { ls -d "$W"/spoolsim-crash.* 2>/dev/null | head -1; }
under_load() { WD=$(wd) && [ -n "$WD" ] && pgrep -f -- "smtp-source .*$WD/" >/dev/null; }
started_tied 60 "$WORK/killed.err" "$CPID" "spoolsim crash and its load" under_load
CRASH=$(pgrep -P "$CPID" -x spoolsim) # timeout's child
MNT_NS=$(readlink "/proc/$CRASH/ns/mnt")
# every process below it, and every loop device on a file of it (its file's device and inode)
CHILDREN=$(descendants "$CRASH")
# backing DEV: the device and inode of the file the loop device serves, "" if none
# (bounded: a device on a FUSE file whose daemon hangs would hang it)
backing() { timeout 5 losetup -l -n -O BACK-MAJ:MIN,BACK-INO "$1" 2>/dev/null | awk '{ print $1, $2 }'; }
: >"$WORK/loops"
for l in $(losetup -l -n -O NAME,BACK-FILE | awk -v d="$WD/" 'index($2, d) == 1 { print $1 }'); do
    echo "$l $(backing "$l")" >>"$WORK/loops"
done
echo "# crash $CRASH, children:" $CHILDREN "; loop devices:" $(cut -d' ' -f1 "$WORK/loops")
check "the run had children and a loop device to leave" test -n "$CHILDREN" -a -s "$WORK/loops"
# the recorder must not be the last process of the run's namespace, which unmounts the image
# through it: exiting, it would wait for its own answer for ever (a process in D state)
RECORDER_PID=$(pgrep -f -- "spoolsim-recorder .*$WD/")
check "the recorder has a mount namespace of its own" \
    test -n "$RECORDER_PID" -a "$(readlink "/proc/$RECORDER_PID/ns/mnt")" != "$MNT_NS"
kill -KILL "$CRASH"
wait "$CPID" 2>/dev/null

loops_released() {
    local dev id
    while read -r dev id; do
        [ "$(backing "$dev")" = "$id" ] && return 1
    done <"$WORK/loops"
    return 0
}
# shellcheck disable=SC2086 # one PID a word
check "kill -9: no child of it left, within 10 s" wait_until 10 none_left "$WD" $CHILDREN
check "kill -9: no process in its mount namespace, nothing mounted below its directory" \
    wait_until 10 mount_ns_gone "$MNT_NS" "$WD"
check "kill -9: no loop device left on its files" wait_until 10 loops_released
for p in $CHILDREN; do kill -0 "$p" 2>/dev/null && echo "#   left: $(tr '\0' ' ' <"/proc/$p/cmdline")"; done
losetup -l | sed 's/^/#   /'
check "kill -9: its work directory stays, for the next run" test -d "$WD"

# --- 3. directories beside a run's own (made before the next run, which finds them)
# dead: an owner file nobody holds, and a loop device on a file of it, listed
DEAD=$W/spoolsim-crash.dead01
mkdir -m 700 "$DEAD" && echo 999999999 >"$DEAD/owner" && truncate -s 16M "$DEAD/served.img"
LOOP=$(losetup --find --show "$DEAD/served.img") && LOOPS_MADE=$LOOP
echo "$LOOP $(stat -c '%d %i' "$DEAD/served.img")" >"$DEAD/loops"
LOOP_ID=$(backing "$LOOP")
# alive: its owner file held by a process of this test
LIVE=$W/spoolsim-crash.live01
mkdir -m 700 "$LIVE" && echo 1 >"$LIVE/owner"
(exec 9<"$LIVE/owner" && flock 9 && exec sleep 300) & # one process: stop_all ends it
PIDS="$PIDS $!"
wait_until 5 sh -c "! flock -n '$LIVE/owner' true"
# unmarked: no owner file
mkdir -m 700 "$W/spoolsim-crash.none01"

# --- 2. the next run
crash_run next -t ext4
check "the next run works (exit 0)" test "$(cat "$WORK/next.rc")" = 0
check "... says it removed the dead run's directory" \
    grep -q "removed $WD, left by spoolsim crash process $CRASH, which is gone" "$WORK/next.err"
check "... which is gone, images and all" test ! -e "$WD"
check "... the marked dead one too, its loop device detached" \
    sh -c "test ! -e '$DEAD' && grep -q 'removed $DEAD, .*: 0 mounts, 1 loop devices' '$WORK/next.err'"
check "... that loop device no longer serves the file" \
    test "$(backing "$LOOP")" != "$LOOP_ID"
check "... the one whose owner lives stays" test -f "$LIVE/owner"
check "... the unmarked one stays" test -d "$W/spoolsim-crash.none01"
stop_all
rm -rf "$LIVE" "$W/spoolsim-crash.none01"
check "... and the next run left nothing of its own" crash_nothing_left "$W"
finish
