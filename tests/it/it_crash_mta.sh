#!/bin/bash
# Integration: spoolsim crash --mta postfix, the real Postfix under the
# recorder (root, /dev/fuse, loop devices, mkfs.ext4 and Postfix's tools
# from scripts/fetch-peer.sh; the usage errors run anywhere, the rest is
# skipped without them). About a minute.
#
# 1. Usage errors, exit 2 before anything is made: an MTA not yet
#    supported (exim, opensmtpd) and one unknown, and the relay's options with it
#    (--sync, --model, another --profile).
# 2. Postfix on ext4 (data=ordered) fsyncs each queue file before its
#    250: over 5 cuts, each judged by Postfix itself restarted on the
#    repaired spool and delivering to a fresh sink, nothing acknowledged
#    is lost (exit 0, "durable"), the report and the JSON name the real
#    MTA, and some cut's owed messages came back through that restart
#    (recovered > 0: the restart delivered, it was not the first sink's
#    deliveries alone).
# 3. A Postfix that does not start (a copy of the peer whose postfix
#    command fails): exit 3, naming it and what it said.
# 4. A Postfix that starts for the load but refuses every cut's spool:
#    a verdict, each cut counted as refused and recovering nothing.
# 5. SIGTERM while Postfix runs on a crash point: exit 143.
# 6. kill -9 then: nothing of it runs or is mounted; the next run removes
#    its work directory.
# After each: no mount, loop device or process of the run left (Postfix's
# daemons found by the MAIL_CONFIG in their environment), and its work
# directory removed.
. "${top_srcdir:-.}/tests/helpers/lib.sh"
. "$top_srcdir/tests/helpers/crash_lib.sh"

usage_error() {
    local want=$1
    shift
    "$RELAY" crash "$@" >"$WORK/usage.out" 2>&1
    [ $? = 2 ] && grep -q -- "$want" "$WORK/usage.out"
}
check "--mta exim: not yet supported, exit 2" usage_error "--mta exim: not yet supported" --mta exim
check "--mta opensmtpd: not yet supported, exit 2" usage_error "--mta opensmtpd: not yet supported" --mta opensmtpd
check "--mta sendmail: not yet supported, exit 2" usage_error "not yet supported" --mta sendmail
check "an unknown --mta: exit 2" usage_error 'unknown --mta "courier"' --mta courier
check "--mta postfix with --sync: exit 2" usage_error "are the relay's" --mta postfix --sync none
check "--mta postfix with --model: exit 2" usage_error "are the relay's" --mta postfix --model none
check "--mta postfix with another profile: exit 2" usage_error "not --profile qmail" \
    --mta postfix --profile qmail

if [ "$(id -u)" != 0 ] || [ ! -x "$top_builddir/spoolsim/crash/spoolsim-recorder" ] ||
    [ ! -c /dev/fuse ] || [ ! -e /dev/loop-control ] || ! command -v mkfs.ext4 >/dev/null ||
    ! command -v python3 >/dev/null; then
    skip_part "spoolsim crash needs root, spoolsim-recorder (libfuse3), /dev/fuse, loop devices, mkfs.ext4 and python3"
    finish
fi
if ! have_peer "Postfix" "run scripts/fetch-peer.sh postfix" \
    test -x "$PEER_POSTFIX/bin/postfix" -a -s "$PEER_POSTFIX/version"; then
    finish
fi
export SPOOLSIM_PEERS # never a fetch: the peer found above

# Postfix's daemons are not root: the work directory's parents must let them through.
chmod 711 "$WORK"
mkdir -m 755 "$WORK/w" || exit 1

# mta_left DIR: no process with a MAIL_CONFIG under DIR in its environment.
mta_left() {
    local p
    for p in /proc/[0-9]*; do
        if grep -qzE "^MAIL_CONFIG=$1/" "$p/environ" 2>/dev/null; then
            echo "# Postfix left: $(tr '\0' ' ' <"$p/cmdline")"
            return 0
        fi
    done
    return 1
}
nothing_left() {
    crash_nothing_left "$WORK/w" && ! mta_left "$WORK/w"
}
# all_gone: as nothing_left, but the work directory may stay.
all_gone() {
    ! mta_left "$WORK/w" && ! grep -q " $WORK/w/" /proc/self/mountinfo &&
        ! losetup -l -n -O BACK-FILE 2>/dev/null | grep -q "$WORK/w/" &&
        ! pgrep -f -- "$WORK/w/" >/dev/null
}

crash_run durable --mta postfix -t ext4 -O data=ordered --points 5 -s 2
check "the real postfix on ext4 data=ordered: exit 0" test "$(cat "$WORK/durable.rc")" = 0
check "... says durable" grep -q "^durable: 0 of [0-9,]* acknowledged messages lost over 5 power cuts" "$WORK/durable.out"
check "... names the real MTA" grep -q "^mta: *the real postfix, its own restart at every cut" "$WORK/durable.out"
check "... JSON: the MTA, durable, and messages the restarted Postfix delivered" python3 -c '
import json, sys
j = json.load(open(sys.argv[1]))
assert j["mta"] == "postfix" and j["profile"] == "postfix", j
assert j["durable"] is True and j["max_lost"] == 0 and j["acknowledged"] > 0, j
assert j["points"] == 5 and len(j["cuts"]) == 5, j
assert any(c["recovered"] > 0 for c in j["cuts"]), j["cuts"]
' "$WORK/durable.json"
check "... left nothing behind" nothing_left
[ "$(cat "$WORK/durable.rc")" = 0 ] || sed 's/^/# /' "$WORK/durable.err" | tail -20

# A Postfix that will not start: the peer copied, its postfix command failing.
broken=$WORK/peers/postfix
mkdir -p "$broken/bin" && cp -a "$PEER_POSTFIX/bin/." "$broken/bin/" || exit 1
for f in "$PEER_POSTFIX"/*; do
    [ "${f##*/}" = bin ] || ln -s "$f" "$broken/${f##*/}" || exit 1
done
printf '#!/bin/sh\necho "postfix: fatal: broken on purpose by it_crash_mta" >&2\nexit 1\n' \
    >"$broken/bin/postfix"
SPOOLSIM_PEERS=$WORK/peers crash_run broken --mta postfix -t ext4 --points 2
check "a Postfix that does not start: exit 3" test "$(cat "$WORK/broken.rc")" = 3
check "... saying so" grep -q "the real postfix did not start" "$WORK/broken.err"
check "... with what it said" grep -q "broken on purpose by it_crash_mta" "$WORK/broken.err"
check "... left nothing behind" nothing_left

# A Postfix that starts for the load but not on what a cut left (its
# postfix command refuses the restarts' instance, mta-restart/): a result,
# not a failed run. Each cut recovers nothing; the report counts the cuts
# refused and says why.
{
    echo '#!/bin/sh'
    echo 'case "$*" in'
    echo '*/mta-restart/*start*) echo "postfix: fatal: refuses the recovered spool, on purpose" >&2; exit 1 ;;'
    echo 'esac'
    echo "exec '$PEER_POSTFIX/bin/postfix' \"\$@\""
} >"$broken/bin/postfix"
SPOOLSIM_PEERS=$WORK/peers crash_run refused --mta postfix -t ext4 --points 4
check "a Postfix that refuses every cut's spool: a verdict (exit 0 or 1, got $(cat "$WORK/refused.rc"))" \
    grep -qx "[01]" "$WORK/refused.rc"
check "... the report counts the cuts refused" \
    grep -q "^restart: *the real MTA would not take the recovered spool at [1-9][0-9]* cuts" "$WORK/refused.out"
check "... and says why" grep -q "^note: .*would not start on the recovered spool: postfix start failed" "$WORK/refused.out"
check "... JSON: each cut with mail owed refused, recovering nothing; lost mail is exit 1" python3 -c '
import json, sys
j = json.load(open(sys.argv[1]))
assert j["refused_points"] == sum(c["refused"] for c in j["cuts"]) > 0, j["refused_points"]
for c in j["cuts"]:  # (a cut before the spool was made durable has nothing to restart)
    assert c["recovered"] == 0 and (c["refused"] or c["owed"] == 0), c
assert (j["max_lost"] > 0) == (open(sys.argv[2]).read().strip() == "1"), (j["max_lost"], sys.argv[2])
' "$WORK/refused.json" "$WORK/refused.rc"
check "... left nothing behind" nothing_left
[ "$(cat "$WORK/refused.rc")" = 1 ] || [ "$(cat "$WORK/refused.rc")" = 0 ] || sed 's/^/# /' "$WORK/refused.err" | tail -20

# SIGTERM while Postfix restarts on a crash point. timeout(1) with
# --foreground passes a signal to crash alone: without it, its SIGCONT to
# the group would reach crash's children too (in the sanitizer build, a
# child in its leak check would spin).
timeout --foreground 300 "$RELAY" crash -q -d 1 -s 2 --points 20 --seed 5 --work-dir "$WORK/w" \
    --mta postfix -t ext4 >"$WORK/term.out" 2>"$WORK/term.err" &
TPID=$!
PIDS="$PIDS $TPID"
restarting() { compgen -G "$WORK/w/spoolsim-crash.*/mta-restart.out" >/dev/null; }
if check "a crash point's Postfix starts" wait_until 240 restarting; then
    kill -TERM "$TPID"
    wait "$TPID"
    check "SIGTERM during the check: exit 143" test $? = 143
else
    kill -TERM "$TPID" 2>/dev/null
    wait "$TPID"
fi
check "... left nothing behind" wait_until 30 nothing_left

# kill -9 while Postfix restarts on a crash point: its daemons end with the
# run (a PID namespace), and the next run removes the work directory, which
# --mta opened to them (0711).
timeout --foreground 300 "$RELAY" crash -q -d 1 -s 2 --points 20 --seed 5 --work-dir "$WORK/w" \
    --mta postfix -t ext4 >"$WORK/kill.out" 2>"$WORK/kill.err" &
KPID=$!
PIDS="$PIDS $KPID"
# A build that cannot tie its children (the sanitizer's: platform.h) says so
# at once; a kill -9 would then leave them by design: stop it, skip the part.
restarting_or_untied() { grep -q "cannot tie" "$WORK/kill.err" || restarting; }
check "a crash point's Postfix starts, for the kill -9" wait_until 240 restarting_or_untied
if grep -q "cannot tie" "$WORK/kill.err"; then
    kill -TERM "$KPID" 2>/dev/null
    wait "$KPID"
    check "... untied, stopped: left nothing behind" wait_until 30 nothing_left
    skip_part "this build cannot tie its children: $(grep -m1 "cannot tie" "$WORK/kill.err")"
elif restarting; then
    pkill -KILL -P "$KPID" # timeout's child: spoolsim crash itself
    { wait "$KPID"; } 2>/dev/null # timeout dies of the same signal, which bash would announce
    check "kill -9: no Postfix of it left, nothing mounted" wait_until 30 all_gone
    crash_run next --mta postfix -t ext4 --points 1
    check "the next run: exit 0" test "$(cat "$WORK/next.rc")" = 0
    check "... it removed the killed run's work directory" grep -q "removed" "$WORK/next.err"
    check "... and left nothing behind" nothing_left
else
    kill -TERM "$KPID" 2>/dev/null
    wait "$KPID"
fi
finish
