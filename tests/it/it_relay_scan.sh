#!/bin/bash
# Integration: the queue manager taking every file of incoming/ marked
# complete as Postfix's qmgr scans it (even one whose fsync is still
# running; the default, SPOOLSIM_QMGR_SCAN=0 takes it away), loses and
# repeats nothing: each message's file
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
top() { python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))[sys.argv[2]])' "$@"; }
check "the JSON says the scan was on" test "$(top "$WORK/scan.json" incoming_scan)" = True
check "  and off" test "$(top "$WORK/plain.json" incoming_scan)" = False
scans=$(ops "$WORK/scan.json" scans) moved=$(ops "$WORK/scan.json" scan_moves)
echo "# $M messages: $scans scans moved $moved files"
# A scan is cleanup's trigger answered: no more than one an activation,
# none without a commit since the last, and each takes at least the file
# that triggered it.
check "at most one scan a message, at least one" test "$scans" -ge 1 -a "$scans" -le $M
check "the scans moved what they found, no file twice" test "$moved" -ge "$scans" -a "$moved" -le $M
check "  and none without the scan" test "$(ops "$WORK/plain.json" scans)" = 0

# The scan is the default; 0 takes it away; another value is a usage error.
env -u SPOOLSIM_QMGR_SCAN "$RELAY" relay --spool "$WORK/dflt.spool" --listen 127.0.0.1:0 \
    --port-file "$WORK/dflt.port" --model none --json "$WORK/dflt.json" 2>"$WORK/dflt.err" &
dflt=$!
PIDS="$PIDS $dflt"
wait_until 60 test -s "$WORK/dflt.port"
stop "$dflt"
check "without the variable the relay scans" test "$(top "$WORK/dflt.json" incoming_scan)" = True
check "  and says so" grep -q "queue manager scans incoming/ as Postfix's qmgr" "$WORK/dflt.err"
check "SPOOLSIM_QMGR_SCAN=yes is a usage error, nothing made" sh -c "SPOOLSIM_QMGR_SCAN=yes '$RELAY' relay --spool '$WORK/bad.spool' 2>'$WORK/bad.err'; test \$? = 2 && test ! -e '$WORK/bad.spool'"
check "  naming the variable and its values" grep -q "SPOOLSIM_QMGR_SCAN=yes: 1 (the default) or 0" "$WORK/bad.err"

# --active-limit holds with the scan: behind a hop that takes 50 ms a
# message, committed mail waits in incoming/; each delivery that ends lets
# one more in, and its activation's scan must not take the whole backlog
# (Postfix's qmgr stops feeding at qmgr_message_active_limit); before the
# bound, active/ held 99 files here.
start_sink slowhop -w 0.05 127.0.0.1:0 100 || exit 1
SPOOLSIM_QMGR_SCAN=1 start_relay limited --spool "$WORK/limited.spool" --active-limit 3 \
    --concurrency 1 --next-hop "127.0.0.1:$slowhop_PORT" --json "$WORK/limited.json" || exit 1
"$SOURCE" -s 10 -m 100 -l 1024 "127.0.0.1:$limited_PORT" >"$WORK/limited.src" 2>&1 &
src=$!
most=0
while kill -0 "$src" 2>/dev/null || ! spool_empty "$WORK/limited.spool"; do
    n=$(find "$WORK/limited.spool/active" -type f 2>/dev/null | wc -l)
    [ "$n" -gt "$most" ] && most=$n
    [ $SECONDS -lt 100 ] || break
    sleep 0.02
done
wait "$src"
stop "$limited_PID"
stop "$slowhop_PID"
waiting=$(grep -o "peak queue depth: incoming [0-9]*" "$WORK/limited.err" | grep -o "[0-9]*$")
check "a backlog waited in incoming/ (at most $waiting)" test "${waiting:-0}" -gt 4
# (the feed counts a file a scan took ahead only at its activation: up to
# twice the limit for a moment; relay_qmgr.c)
check "active/ held at most twice the limit, not the backlog ($most files)" test "$most" -le 6
check "  every message went through" grep -q "^received 100 .*delivered 100 " "$WORK/limited.err"
check "the report names the scan" grep -q "queue manager scans incoming/ as Postfix's qmgr (SPOOLSIM_QMGR_SCAN=0 takes it away): [0-9]* scans moved" "$WORK/limited.err"
finish
