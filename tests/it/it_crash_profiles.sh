#!/bin/bash
# Integration: spoolsim crash judges the other MTAs' profiles by what
# each would find and deliver at its restart (crash_scan.h), on ext4
# (root, /dev/fuse, loop devices, mkfs.ext4; skipped elsewhere). Each run
# is a second of load and a dozen crash points, about ten seconds.
#
# 1. exim fsyncs -D and -H and then the spool directory before its 250:
#    no crash point may lose an acknowledged message, and the scanner
#    must find messages in the spool at some cut (else "durable" would
#    only say that nothing was owed from the spool).
# 2. exim with --sync none syncs nothing: some crash point must lose (the
#    bare relay: the Exim model slows the load too much for 12 cuts).
# 3. sendmail, qmail and opensmtpd: a verdict (0 or 1, a report), and
#    messages found by their scanner at some cut.
# Every run must leave nothing behind.
. "${top_srcdir:-.}/tests/helpers/lib.sh"
. "$top_srcdir/tests/helpers/crash_lib.sh"

crash_need_machine

# found NAME: some cut recovered messages from the spool
found() {
    python3 -c '
import json, sys
j = json.load(open(sys.argv[1]))
assert j["acknowledged"] > 0 and j["points"] == 12, j
assert any(c["recovered"] > 0 for c in j["cuts"]), [c["recovered"] for c in j["cuts"]]
' "$WORK/$1.json"
}
mkdir "$WORK/w"

crash_run exim -t ext4 --profile exim
check "exim on ext4: exit 0" test "$(cat "$WORK/exim.rc")" = 0
check "... says durable" grep -q "^durable: 0 of [0-9,]* acknowledged messages lost over 12 power cuts" "$WORK/exim.out"
check "... its restart found messages in the spool" found exim
check "... left nothing behind" crash_nothing_left "$WORK/w"

# The bare relay (--model none), as before Exim had a model: with Exim's
# model (some 17 ms of CPU a message) even three seconds of load left no
# cut of 12 with an unsynced acknowledged message, twice.
crash_run exim-nosync -t ext4 --profile exim --sync none --model none
check "exim --sync none on ext4: exit 1" test "$(cat "$WORK/exim-nosync.rc")" = 1
check "... says LOSES" grep -q "^LOSES acknowledged mail: up to [0-9,]* per cut.*profile exim, sync none" "$WORK/exim-nosync.out"
check "... left nothing behind" crash_nothing_left "$WORK/w"

for p in sendmail qmail opensmtpd; do
    crash_run "$p" -t ext4 --profile "$p"
    check "$p on ext4: a verdict" sh -c "rc=\$(cat '$WORK/$p.rc'); [ \$rc = 0 ] || [ \$rc = 1 ]"
    check "... a verdict line" grep -Eq "^(durable: 0 of|LOSES acknowledged mail)" "$WORK/$p.out"
    check "... its restart found messages in the spool" found "$p"
    check "... left nothing behind" crash_nothing_left "$WORK/w"
done
finish
