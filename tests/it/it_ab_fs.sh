#!/bin/bash
# Integration: `spoolsim ab' on real filesystems (root only). Two ext4
# images, loop-mounted by the test, default and -o dirsync (synchronous
# directory operations, the Linux cousin of UFS without soft updates):
# ab with the postfix raw profile must find dirsync significantly slower.
# Then tmpfs against ext4, which must differ too.
. "${top_srcdir:-.}/tests/helpers/lib.sh"

[ "$(id -u)" = 0 ] || skip "loop-mounting filesystems needs root"
command -v mkfs.ext4 >/dev/null || skip "mkfs.ext4 (e2fsprogs) is not installed"
MNT_A=$WORK/a MNT_B=$WORK/b MNT_T=$WORK/t
mkdir -p "$MNT_A" "$MNT_B" "$MNT_T"
trap 'unmount_and_cleanup "$MNT_A" "$MNT_B" "$MNT_T"' EXIT
for img in a b; do
    fallocate -l 256M "$WORK/$img.img" 2>/dev/null || truncate -s 256M "$WORK/$img.img"
    mkfs.ext4 -q -F "$WORK/$img.img" || skip "mkfs.ext4 failed"
done
mount -o loop "$WORK/a.img" "$MNT_A" 2>/dev/null || skip "cannot loop-mount here"
mount -o loop,dirsync "$WORK/b.img" "$MNT_B" || skip "cannot loop-mount with dirsync"
mount -t tmpfs -o size=256m tmpfs "$MNT_T" || skip "cannot mount tmpfs"

check "ab: ext4 default vs dirsync" to "$WORK/ab1.out" timeout 600 "$RELAY" ab -n 3 -q \
    --json "$WORK/ab1.json" "$MNT_A" "$MNT_B" -- raw -m 600 -w 8
cat "$WORK/ab1.out"
check "it names both mounts" sh -c "grep -q 'ext4 (rw,relatime' '$WORK/ab1.out' && grep -q 'dirsync' '$WORK/ab1.out'"
check "dirsync is significantly slower" grep -q "^verdict: B is [0-9.]*× slower than A" "$WORK/ab1.out"
check "JSON: the CI lies below 1" python3 -c "import json,sys; d=json.load(open('$WORK/ab1.json')); sys.exit(0 if d['ci_high'] < 1 else 1)"

check "ab: tmpfs vs ext4" to "$WORK/ab2.out" timeout 600 "$RELAY" ab -n 3 -q "$MNT_T" "$MNT_A" \
    -- raw -m 600 -w 8
cat "$WORK/ab2.out"
check "ext4 is significantly slower than tmpfs" grep -q "^verdict: B is [0-9.]*× slower than A" "$WORK/ab2.out"
check "nothing left on the mounts" test -z "$(ls -A "$MNT_A" "$MNT_B" "$MNT_T" | grep -v -e lost+found -e '^$' -e ':$')"
finish
