#!/bin/bash
# Integration: spoolsim-recorder logs what a filesystem asks of its disk
# (root, /dev/fuse and loop devices; skipped elsewhere).
#
# An ext4 image behind the recorder and a loop device with direct I/O on
# (as spoolsim crash sets it up): a file written and fsynced must show up
# in the log as a write holding its bytes with a flush logged after it, in
# a log whose header names the image's size and whose times never go
# back. With SPOOLSIM_RECORDER_BREAK=drop-flush the same steps log no
# flush (the knob the crash tests use to break the recorder). A missing
# image or a log that exists is a usage error (exit 2).
. "${top_srcdir:-.}/tests/helpers/lib.sh"

RECORDER=$top_builddir/spoolsim/crash/spoolsim-recorder
[ "$(id -u)" = 0 ] || skip "the recorder and loop devices need root"
[ -x "$RECORDER" ] || skip "no spoolsim-recorder (configure found no libfuse3)"
[ -c /dev/fuse ] || skip "no /dev/fuse"
[ -e /dev/loop-control ] || skip "no loop devices"
command -v mkfs.ext4 >/dev/null || skip "no mkfs.ext4"
command -v python3 >/dev/null || skip "no python3"

LOOP=""
teardown() {
    [ "$BASHPID" = "$MAIN_PID" ] || return 0
    mountpoint -q "$WORK/mnt" && umount "$WORK/mnt"
    [ -n "$LOOP" ] && losetup -d "$LOOP" 2>/dev/null
    mountpoint -q "$WORK/fuse" && umount "$WORK/fuse"
    cleanup
}
trap teardown EXIT

# record TAG [ENV...]: one run: mkfs, the recorder, loop, mount, a file
# written and fsynced, and everything taken apart; the log in WORK/TAG.log.
record() {
    local tag=$1 pid
    shift
    truncate -s 32M "$WORK/$tag.img" && mkfs.ext4 -q -F "$WORK/$tag.img" || return 1
    mkdir -p "$WORK/fuse" "$WORK/mnt"
    env "$@" "$RECORDER" "$WORK/$tag.img" "$WORK/$tag.log" "$WORK/fuse" 2>"$WORK/$tag.err" &
    pid=$!
    PIDS="$PIDS $pid"
    wait_until 5 test -e "$WORK/fuse/image" || return 1
    LOOP=$(losetup --direct-io=on --find --show "$WORK/fuse/image") || return 1
    cat "/sys/block/${LOOP#/dev/}/loop/dio" >"$WORK/$tag.dio"
    mount -t ext4 "$LOOP" "$WORK/mnt" || return 1
    printf 'marker-%s-0123456789\n' "$tag" >"$WORK/mnt/file"
    sync "$WORK/mnt/file" # an fsync of the file
    umount "$WORK/mnt" && losetup -d "$LOOP" && LOOP="" || return 1
    # the loop device lets go of the file asynchronously (over 5 s in CI's
    # distcheck, at a load of about 12)
    wait_until 30 umount "$WORK/fuse" 2>/dev/null || return 1
    wait "$pid"
}

# summary LOG MARKER: "size=N flushes=N marker_then_flush=0|1 monotonic=0|1"
summary() {
    python3 - "$1" "$2" <<'PY'
import struct, sys
b = open(sys.argv[1], "rb").read()
marker = sys.argv[2].encode()
assert b[:8] == b"SPBLKLOG"
size = struct.unpack("<Q", b[16:24])[0]
at, recs = 32, []
while at + 32 <= len(b):
    t, _, ts, off, ln = struct.unpack("<IIQQQ", b[at:at + 32])
    recs.append((t, ts, b[at + 32:at + 32 + ln]))
    at += 32 + ln
first = next((i for i, r in enumerate(recs) if r[0] == 1 and marker in r[2]), None)
after = first is not None and any(r[0] == 2 for r in recs[first + 1:])
mono = all(recs[i][1] <= recs[i + 1][1] for i in range(len(recs) - 1))
print("size=%d flushes=%d marker_then_flush=%d monotonic=%d"
      % (size, sum(r[0] == 2 for r in recs), after, mono))
PY
}

check "an honest recorder: the run works" record honest
check "the loop device does direct I/O" grep -qx 1 "$WORK/honest.dio"
s=$(summary "$WORK/honest.log" marker-honest-0123456789)
echo "# $s"
check "the log names the image's size" grep -q "size=33554432 " <<<"$s"
check "the file's bytes are logged, and a flush after them" grep -q "marker_then_flush=1" <<<"$s"
check "times never go back" grep -q "monotonic=1" <<<"$s"
check "the log is the owner's alone" test "$(stat -c %a "$WORK/honest.log")" = 600

check "a recorder that drops flushes: the run works" record broken SPOOLSIM_RECORDER_BREAK=drop-flush
s=$(summary "$WORK/broken.log" marker-broken-0123456789)
echo "# $s"
check "... and logs no flush" grep -q "flushes=0 " <<<"$s"

"$RECORDER" "$WORK/nosuch.img" "$WORK/x.log" "$WORK/fuse" 2>"$WORK/bad1.err"
check "a missing image: exit 2" test $? = 2
check "... named" grep -q "nosuch.img" "$WORK/bad1.err"
"$RECORDER" "$WORK/honest.img" "$WORK/honest.log" "$WORK/fuse" 2>"$WORK/bad2.err"
check "a log that exists: exit 2" test $? = 2
check "... not overwritten" test "$(summary "$WORK/honest.log" marker-honest-0123456789 | cut -d' ' -f3)" = marker_then_flush=1
SPOOLSIM_RECORDER_BREAK=bogus "$RECORDER" "$WORK/honest.img" "$WORK/y.log" "$WORK/fuse" 2>"$WORK/bad3.err"
check "an unknown break mode: exit 2" test $? = 2
finish
