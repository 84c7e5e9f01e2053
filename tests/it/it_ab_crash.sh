#!/bin/bash
# Integration: `spoolsim ab --crash N', each side's durability beside its
# speed (root, /dev/fuse, loop devices, mkfs.ext4 and mkfs.ext2; skipped
# elsewhere). Two images loop-mounted by the test: ext4 with its journal
# and ext2 without one. The relay's postfix profile fsyncs each queue file
# before its 250 but never its directory: ext4's journal commits the
# rename with the fsync, ext2 leaves the name in a directory block nobody
# syncs (docs/durability.md). So the same ab run must call A durable and
# B losing, each on an image made like its side (ext4 and ext2), each
# under the A/B's own load.
# Then: a side the crash test cannot take (tmpfs) is a usage error before
# any run, and a SIGINT during a crash test takes its stack apart.
. "${top_srcdir:-.}/tests/helpers/lib.sh"
. "$top_srcdir/tests/helpers/crash_lib.sh"

crash_need_machine
command -v mkfs.ext2 >/dev/null || skip "no mkfs.ext2"
MNT_A=$WORK/a MNT_B=$WORK/b MNT_T=$WORK/t
mkdir -p "$MNT_A" "$MNT_B" "$MNT_T" "$WORK/tmp"
trap 'unmount_and_cleanup "$MNT_A" "$MNT_B" "$MNT_T"' EXIT
truncate -s 256M "$WORK/a.img" "$WORK/b.img"
mkfs.ext4 -q -F "$WORK/a.img" || skip "mkfs.ext4 failed"
mkfs.ext2 -q -F "$WORK/b.img" || skip "mkfs.ext2 failed"
mount -o loop "$WORK/a.img" "$MNT_A" 2>/dev/null || skip "cannot loop-mount here"
mount -o loop "$WORK/b.img" "$MNT_B" || skip "cannot loop-mount ext2"

# ab's own files and the crash tests' images go to $WORK/tmp
ab() { env TMPDIR="$WORK/tmp" timeout 600 "$RELAY" ab "$@"; }

# The crash tests run the A/B's own load: its sessions and sizes, bench's
# duration where ARGS leave it; what crash cannot take is named.
ab --dry-run --crash 12 "$MNT_A" "$MNT_B" -- relay -s 6 --tls >"$WORK/dry.out" 2>&1
check "ab --dry-run --crash: says the crash tests' load, bench's length" \
    grep -q "crash-test each side at 12 points under --duration 10s --sessions 6\$" "$WORK/dry.out"
check "... and names what it leaves out (--tls)" grep -q "load without --tls" "$WORK/dry.out"

ab -n 2 --warmup-runs 0 --crash 12 --json "$WORK/ab.json" "$MNT_A" "$MNT_B" -- relay -d 1 -s 6 \
    --size 2048 >"$WORK/ab.out" 2>"$WORK/ab.err"
echo $? >"$WORK/ab.rc"
sed 's/^/# /' "$WORK/ab.out" | tail -3
check "ab --crash: exit 0 (a side that loses mail is a measurement)" test "$(cat "$WORK/ab.rc")" = 0
check "... the speed verdict is still there" grep -q "^verdict: " "$WORK/ab.out"
check "... A (ext4) durable" grep -q "^A crash (ext4[ )].*: durable: 0 of [0-9,]* acknowledged messages lost over 12 power cuts" "$WORK/ab.out"
check "... B (ext2) loses" grep -q "^B crash (ext2[ )].*: LOSES acknowledged mail: up to [0-9,]* per cut" "$WORK/ab.out"
check "... JSON: a crash object per side that says the same" python3 -c '
import json, sys
j = json.load(open(sys.argv[1]))
assert j["crash_points"] == 12, j["crash_points"]
a, b = j["sides"]["A"]["crash"], j["sides"]["B"]["crash"]
assert a["done"] and a["durable"] is True and a["max_lost"] == 0 and a["fstype"] == "ext4", a
assert b["done"] and b["durable"] is False and b["max_lost"] > 0 and b["fstype"] == "ext2", b
assert a["points"] == 12 and b["points"] == 12 and a["acknowledged"] > 0 and b["acknowledged"] > 0
assert a["profile"] == "postfix" and a["verdict"].startswith("durable:")
for c in (a, b):  # the load of the runs, as crash itself reports it ran
    assert c["load"] == "--duration 1 --sessions 6 --size 2048" and c["load_left_out"] is None, c
    assert c["sessions"] == 6 and c["duration_s"] == 1 and c["size"] == "2048", c
' "$WORK/ab.json"
check "... left nothing behind" crash_nothing_left "$WORK/tmp"
check "... nor on the sides" test -z "$(ls -A "$MNT_A" "$MNT_B" | grep -v -e lost+found -e '^$' -e ':$')"

mount -t tmpfs -o size=64m tmpfs "$MNT_T" || skip "cannot mount tmpfs"
ab -n 2 --warmup-runs 0 --crash 12 "$MNT_A" "$MNT_T" -- relay -d 1 >"$WORK/t.out" 2>&1
echo $? >"$WORK/t.rc"
check "a tmpfs side: exit 2" test "$(cat "$WORK/t.rc")" = 2
check "... naming the side, before any run" sh -c "grep -q 'side B ($MNT_T) cannot be crash-tested' '$WORK/t.out' && ! grep -q 'run 1/2' '$WORK/t.out'"
check "... and why (tmpfs)" grep -q 'tmpfs' "$WORK/t.out"

# SIGINT while a crash test has an image mounted in its work directory:
# 130, and everything taken apart
timeout 600 env TMPDIR="$WORK/tmp" "$RELAY" ab -n 2 --warmup-runs 0 --crash 200 "$MNT_A" "$MNT_B" -- relay -d 1 \
    >"$WORK/int.out" 2>"$WORK/int.err" &
pid=$!
# (its mounts are in a mount namespace of its own, out of sight: its loop device is not)
started() { losetup -l -n -O BACK-FILE 2>/dev/null | grep -q "$WORK/tmp/"; }
if wait_until 300 started; then
    # (a namespace another program makes meanwhile must not take a copy of them)
    check "its mounts are in a namespace of its own" \
        sh -c "! grep -q ' $WORK/tmp/' /proc/self/mountinfo"
    t0=$(date +%s)
    kill -INT $pid
    wait $pid 2>/dev/null
    echo $? >"$WORK/int.rc"
    echo "# ab stopped $(($(date +%s) - t0)) s after the SIGINT"
    check "SIGINT during a crash test: exit 130" test "$(cat "$WORK/int.rc")" = 130
    # (a run killed by ab, not stopped by itself, would leave its stack to the kernel)
    check "... and ab killed nothing: the crash test stopped itself" \
        sh -c "! grep 'did not stop within' '$WORK/int.err'"
    check "... left nothing behind" crash_nothing_left "$WORK/tmp"
    tail -n 4 "$WORK/int.err" | sed 's/^/# /'
else
    kill $pid 2>/dev/null
    wait $pid 2>/dev/null
    check "the crash test reached its points" false
fi
finish
