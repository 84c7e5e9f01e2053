#!/bin/bash
# Integration: spoolsim crash refuses what it cannot do, and an interrupt
# takes everything apart (root, /dev/fuse, loop devices; skipped elsewhere).
#
# 1. Bad input exits 2 before any work, naming the problem: not root (run
#    as nobody), no /dev/fuse (a private mount namespace with an empty
#    /dev), a filesystem type it does not make, an image too small for the
#    type, a mount option the kernel refuses, a profile the
#    relay does not have, a recorder it does not know, dm-log-writes on a
#    kernel without the device-mapper. Nothing is left in the work directory. The
#    same with --dry-run, which exits 0 where the machine can run it.
# 2. SIGINT during the load and during the check of crash points: exit
#    130, and no mount, loop device, process or file is left; the same
#    for SIGTERM during the load, exit 143. Each signal goes to the whole
#    process group (as Ctrl-C at a terminal, timeout(1) or a service
#    manager send it), so it reaches the recorder as well.
. "${top_srcdir:-.}/tests/helpers/lib.sh"
. "$top_srcdir/tests/helpers/crash_lib.sh"

crash_need_machine
mkdir -m 0777 "$WORK/w"

# bad NAME PATTERN ARGS...: exit 2, PATTERN in the message, nothing left
bad() {
    refused "$@"
    check "$1: nothing left" crash_nothing_left "$WORK/w"
}
C="$RELAY crash -q -d 1 --points 4 --work-dir $WORK/w"

if command -v setpriv >/dev/null; then
    bad not-root "needs root" setpriv --reuid=65534 --regid=65534 --clear-groups $C
else
    skip_part "not root, with and without --dry-run: acting as nobody needs setpriv (util-linux)"
fi
if command -v unshare >/dev/null && unshare -m true 2>/dev/null; then
    bad no-fuse "no /dev/fuse" unshare -m sh -c 'mount -t tmpfs none /dev && exec "$@"' sh $C
else
    skip_part "no /dev/fuse: an empty /dev needs a private mount namespace (unshare -m)"
fi
bad bad-type 'filesystem type "ntfs"' $C -t ntfs
bad small-image "needs at least" $C -t ext4 --image-size 1M
bad bad-option "will not mount ext4 with -o data=bogus" $C -t ext4 -o data=bogus
bad unknown-profile "unknown --profile" $C --profile courier
bad bad-points "points" $C --points 0
bad bad-recorder 'unknown --recorder "lvm"' $C --recorder lvm
if [ ! -e /dev/mapper/control ]; then
    bad no-dm "this kernel has no device-mapper" $C --recorder dm-log-writes
    bad dry-run-no-dm "this kernel has no device-mapper" $C --recorder dm-log-writes --dry-run
fi
bad dry-run-type 'filesystem type "tmpfs"' $C --dry-run -t tmpfs
if command -v setpriv >/dev/null; then
    bad dry-run-not-root "needs root" setpriv --reuid=65534 --regid=65534 --clear-groups $C --dry-run
fi
check "--dry-run on a machine that can: exit 0" $C --dry-run -t ext4
check "... and it made nothing" crash_nothing_left "$WORK/w"

# interrupt NAME FILE SIGNAL STATUS: SIGNAL once FILE (a glob under the
# work directory) exists; spoolsim crash exits STATUS. The signal goes to
# its whole process group: crash, its load and its recorder (setsid makes
# the group, whose ID is the PID `&' gives: an asynchronous command of a
# shell without job control leads no group, so setsid runs in place;
# timeout(1) with --foreground, which passes the signal to crash alone and
# sends no SIGCONT after it, as lib.sh's start_sink says).
interrupt() {
    local name=$1 file=$2 sig=$3 want=$4 pid rc
    setsid timeout --foreground 300 $RELAY crash -q -d 20 --points 200 --work-dir "$WORK/w" >"$WORK/$name.out" 2>"$WORK/$name.err" &
    pid=$!
    PIDS="$PIDS $pid"
    if ! wait_until 60 sh -c "ls $WORK/w/*/$file >/dev/null 2>&1"; then
        check "$name: reached $file" false
        return
    fi
    kill -"$sig" -- -"$pid"
    wait "$pid"
    rc=$?
    check "$name: exit $want (got $rc)" test $rc = "$want"
    check "$name: nothing left" crash_nothing_left "$WORK/w"
}
interrupt sigint-load source.log INT 130
interrupt sigterm-load source.log TERM 143
# the check phase: a load of a fraction of a second, then the points
setsid timeout --foreground 300 $RELAY crash -q -m 50 --points 400 --work-dir "$WORK/w" >"$WORK/sigint-check.out" 2>"$WORK/sigint-check.err" &
pid=$!
PIDS="$PIDS $pid"
if wait_until 120 sh -c "ls $WORK/w/*/crash.img >/dev/null 2>&1"; then
    kill -INT -- -"$pid"
    wait "$pid"
    rc=$?
    check "sigint-check: exit 130 (got $rc)" test $rc = 130
    check "sigint-check: nothing left" crash_nothing_left "$WORK/w"
else
    check "sigint-check: reached the check" false
fi
finish
