#!/bin/bash
# Integration: spoolsim crash's known answers on ext4 (root, /dev/fuse,
# loop devices and mkfs.ext4; skipped elsewhere). Each run is a second of
# load and a dozen crash points, about ten seconds.
#
# 1. The postfix profile on ext4 data=ordered fsyncs every queue file
#    before its 250: no crash point may lose an acknowledged message
#    (exit 0, "durable: 0 of N", JSON durable and max_lost 0).
# 2. --sync none never fsyncs: some crash point must lose acknowledged
#    mail (exit 1, "LOSES acknowledged mail", JSON max_lost > 0).
# 3. A recorder broken on purpose (SPOOLSIM_RECORDER_BREAK=drop-flush:
#    its log has no flush, so every unflushed write may be missing) under
#    the same durable configuration as 1: the checker must report loss.
#    (delay-write, a write moved across a flush, was seen reported too,
#    at fewer points: too few for a test that must not flake.)
# 4. --keep-point 3 (of 4 points): the work directory is kept with
#    point3.img (an ext4 image the size asked for, as the cut left it),
#    what e2fsck said and the relay's restart log, and a line on standard
#    error names them, under -q too; --keep-point beyond --points is a
#    usage error (exit 2) that makes nothing.
# Every run must leave no mount, loop device or process of its own and
# remove its work directory.
. "${top_srcdir:-.}/tests/helpers/lib.sh"
. "$top_srcdir/tests/helpers/crash_lib.sh"

crash_need_machine

mkdir "$WORK/w"

crash_run durable -t ext4 -O data=ordered
check "postfix on ext4 data=ordered: exit 0" test "$(cat "$WORK/durable.rc")" = 0
check "... says durable" grep -q "^durable: 0 of [0-9,]* acknowledged messages lost over 12 power cuts" "$WORK/durable.out"
check "... JSON: durable, nothing lost" python3 -c '
import json, sys
j = json.load(open(sys.argv[1]))
assert j["durable"] is True and j["max_lost"] == 0 and j["acknowledged"] > 0, j
assert j["points"] == 12 and len(j["cuts"]) == 12
assert j["flush_points"] > 0 and j["random_points"] > 0
' "$WORK/durable.json"
check "... left nothing behind" crash_nothing_left "$WORK/w"

crash_run nosync -t ext4 --sync none
check "--sync none on ext4: exit 1" test "$(cat "$WORK/nosync.rc")" = 1
check "... says LOSES" grep -q "^LOSES acknowledged mail: up to [0-9,]* per cut" "$WORK/nosync.out"
check "... JSON: lost some" python3 -c '
import json, sys
j = json.load(open(sys.argv[1]))
assert j["durable"] is False and j["max_lost"] > 0, j
assert any(c["lost"] > 0 for c in j["cuts"])
' "$WORK/nosync.json"
check "... left nothing behind" crash_nothing_left "$WORK/w"

SPOOLSIM_RECORDER_BREAK=drop-flush crash_run broken -t ext4 -O data=ordered
check "a recorder that drops flushes: the checker reports loss (exit 1)" test "$(cat "$WORK/broken.rc")" = 1
check "... LOSES" grep -q "^LOSES acknowledged mail" "$WORK/broken.out"
check "... and it saw no flush" python3 -c '
import json, sys
j = json.load(open(sys.argv[1]))
assert j["flushes"] == 0 and j["flush_points"] == 0, j
' "$WORK/broken.json"
check "... left nothing behind" crash_nothing_left "$WORK/w"

crash_run keep -t ext4 -O data=ordered --points 4 --keep-point 3
kept=$(sed -n 's/^spoolsim crash: kept crash point 3: .* in //p' "$WORK/keep.err")
check "--keep-point 3: exit 0, and a line names the point's files" \
    test "$(cat "$WORK/keep.rc")" = 0 -a -n "$kept" -a -d "$kept"
check "... point3.img: the image (128 MiB, ext4's magic)" python3 -c '
import os, sys
with open(sys.argv[1], "rb") as f:
    f.seek(1080)
    assert f.read(2) == b"\x53\xef", "no ext superblock"
assert os.path.getsize(sys.argv[1]) == 128 << 20
' "$kept/point3.img"
check "... point3.repair.out: what e2fsck said" grep -q "^Pass 5" "$kept/point3.repair.out"
check "... point3.restart.log: the relay's recovery, then one line a queue file" python3 -c '
import re, sys
lines = open(sys.argv[1]).read().splitlines()
assert lines and lines[0].startswith("recovery: "), lines[:1]
found = sum(int(n) for n in re.findall(r"found (\d+) in incoming, (\d+) in deferred", lines[0])[0])
assert len(lines) == 1 + found, (len(lines), found)
for l in lines[1:]:
    assert re.match(r"(incoming|deferred) \w+ (recovered <|corrupt|done)", l), l
' "$kept/point3.restart.log"
rm -rf "$kept"
check "... left nothing else behind" crash_nothing_left "$WORK/w"
timeout 60 "$RELAY" crash --points 4 --keep-point 5 --work-dir "$WORK/w" >"$WORK/keep5.out" 2>&1
check "--keep-point 5 of 4 points: exit 2" test $? = 2
check "... saying why" grep -q -- "--keep-point 5: there are only 4 crash points" "$WORK/keep5.out"
check "... and made nothing" crash_nothing_left "$WORK/w"
finish
