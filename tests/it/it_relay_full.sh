#!/bin/bash
# Integration: a full spool filesystem. On a 1 MiB tmpfs mounted by the
# test (root only), with the next hop down so that nothing leaves, the
# relay must answer 452 4.3.1 once space runs out, leave no partial file,
# keep serving, and deliver everything it acknowledged once the next hop
# returns and space with it.
. "${top_srcdir:-.}/tests/helpers/lib.sh"

[ "$(id -u)" = 0 ] || skip "mounting a small tmpfs needs root"
MNT=$WORK/full
mkdir -p "$MNT"
mount -t tmpfs -o size=1m tmpfs "$MNT" 2>/dev/null || skip "cannot mount tmpfs here"
trap 'unmount_and_cleanup "$MNT"' EXIT

SPOOL=$MNT/spool
port=$(free_port)
start_relay relay --spool "$SPOOL" --next-hop "127.0.0.1:$port" --min-backoff 200ms \
    --max-backoff 500ms --json "$WORK/relay.json" || exit 1
to "$WORK/src1.out" timeout 60 "$SOURCE" -s 4 -m 40 -l 65536 --ignore-failures \
    --json "$WORK/src1.json" --msg-log "$WORK/src1.log" "127.0.0.1:$relay_PORT"
refused=$(python3 -c "import json; print(json.load(open('$WORK/src1.json'))['failures_by_code'].get('452@dot', 0))")
accepted=$(wc -l <"$WORK/src1.log")
echo "disk full: $accepted accepted, $refused refused with 452"
check "some messages were accepted" test "$accepted" -gt 0
check "the rest got 452 at the end of data" test "$refused" -gt 0
check "accepted + refused = 40" test $((accepted + refused)) = 40
check "no partial or temporary file in the spool" \
    test -z "$(unmarked "$SPOOL" incoming active deferred)"
check "the relay is still running" kill -0 "$relay_PID"

# The next hop comes back: the queue drains and space returns.
start_sink sink --msg-log "$WORK/sink.log" "127.0.0.1:$port" 100 || exit 1
check "the spool drains once the next hop is back" wait_spool_empty "$SPOOL" 60
check "service resumes: 10 more accepted" to "$WORK/src2.out" timeout 60 "$SOURCE" -s 2 -m 10 \
    -l 65536 --msg-log "$WORK/src2.log" "127.0.0.1:$relay_PORT"
check "and delivered" wait_spool_empty "$SPOOL" 60
stop "$relay_PID"
stop "$sink_PID"
cat "$WORK/src1.log" "$WORK/src2.log" >"$WORK/src.log"
report=$(delivery_report "$WORK/src.log" "$WORK/sink.log")
check "every acknowledged message delivered once: $report" \
    test "$report" = "acked $((accepted + 10)), lost 0, duplicated 0"
check "the relay counted the refusals" test "$(json_get "$WORK/relay.json" refused_storage)" = "$refused"
finish
