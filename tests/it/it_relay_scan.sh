#!/bin/bash
# Integration: SPOOLSIM_QMGR_SCAN=1, the queue manager taking every file
# of incoming/ marked complete as Postfix's qmgr scans it (even one whose
# fsync is still running), loses and repeats nothing: each message's file
# is moved into active/ once, by a scan or by its own activation, and the
# scans did look (more stat probes than the two a message makes without).
. "${top_srcdir:-.}/tests/helpers/lib.sh"

M=2000
# run NAME SCAN: bench's relay, kept, its JSON in WORK/NAME.json
run() {
    mkdir -p "$WORK/$1"
    env TMPDIR="$WORK/$1" SPOOLSIM_QMGR_SCAN="$2" timeout 120 "$RELAY" bench --model none \
        -m $M -s 20 --keep >"$WORK/$1.out" 2>&1
    echo $? >"$WORK/$1.rc"
    cp "$WORK/$1"/spoolsim-bench.*/relay.json "$WORK/$1.json" 2>/dev/null
    rm -rf "$WORK/$1"
}
ops() { python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["spool_ops"][sys.argv[2]])' "$@"; }

run scan 1
run plain 0
for r in scan plain; do
    check "$r: exit 0" test "$(cat "$WORK/$r.rc")" = 0
    check "$r: exactly once" grep -q "^exactly once: yes: $M acknowledged, $M delivered, 0 lost, 0 duplicated" "$WORK/$r.out"
    check "$r: every file moved into active/ once (renames $(ops "$WORK/$r.json" renames))" \
        test "$(ops "$WORK/$r.json" renames)" = $((2 * M))
done
check "without the scan: two stat probes a message" test "$(ops "$WORK/plain.json" stat_probes)" = $((2 * M))
check "with it: the scans looked ($(ops "$WORK/scan.json" stat_probes) probes)" \
    test "$(ops "$WORK/scan.json" stat_probes)" -gt $((2 * M))
finish
