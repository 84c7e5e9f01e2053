#!/bin/bash
# Integration: a hostile next hop. Replies too long, without end, before
# the command, half a reply and a close, no reply to the dot, garbage,
# silence: each time the message is deferred, never lost, and the relay
# keeps serving; once the hop behaves, everything is delivered. Then a
# strict next hop that does not offer PIPELINING and enforces the sync
# points, as Exim does: the relay must never send a command before the
# reply to the one before (docs/security.md item 6, the relay as a client).
# Last, STARTTLS to a hop that sends an extra 250 with its 220: the relay
# must ignore it and say EHLO again inside TLS (items 1 and 2, client side).
. "${top_srcdir:-.}/tests/helpers/lib.sh"

command -v python3 >/dev/null || skip "python3 is required"
start_sink sink --msg-log "$WORK/sink.log" 127.0.0.1:0 100 || exit 1
modes=longline,endless,early,stall,dropmail,dropdot,garbage,dropmail,early,dropdot
timeout 120 python3 "$top_srcdir/tests/helpers/hostile_hop.py" "$WORK/hop.port" "$sink_PORT" "$modes" \
    2>"$WORK/hop.err" &
PIDS="$PIDS $!"
check "hostile hop started" wait_until 30 test -s "$WORK/hop.port"
SPOOL=$WORK/spool
start_relay relay --spool "$SPOOL" --next-hop "127.0.0.1:$(cat "$WORK/hop.port")" \
    --concurrency 2 --hop-timeout 1 --min-backoff 100ms --max-backoff 300ms \
    --json "$WORK/relay.json" || exit 1
check "40 messages accepted while the hop misbehaves" to "$WORK/src.out" timeout 60 "$SOURCE" \
    -s 4 -m 40 --msg-log "$WORK/src.log" "127.0.0.1:$relay_PORT"
check "everything is delivered once the hop behaves" wait_spool_empty "$SPOOL" 60
check "the relay kept serving: 10 more accepted" to "$WORK/src2.out" timeout 30 "$SOURCE" \
    -m 10 --msg-log "$WORK/src2.log" "127.0.0.1:$relay_PORT"
check "and delivered" wait_spool_empty "$SPOOL" 30
check "the relay is alive" kill -0 "$relay_PID"
stop "$relay_PID"
stop "$sink_PID"
cat "$WORK/src.log" "$WORK/src2.log" >"$WORK/all.log"
report=$(delivery_report "$WORK/all.log" "$WORK/sink.log")
echo "hostile hop: $report, $(json_get "$WORK/relay.json" deferrals) deferrals, $(json_get "$WORK/relay.json" hop_failures) connection failures"
check "nothing lost: $report" sh -c "echo '$report' | grep -q '^acked 50, lost 0,'"
check "the misbehaviour was seen as failures" test "$(json_get "$WORK/relay.json" hop_failures)" -ge 8
check "and deferred messages" test "$(json_get "$WORK/relay.json" deferrals)" -ge 1
check "no message bounced" test "$(json_get "$WORK/relay.json" bounced)" = 0

start_sink sink2 --msg-log "$WORK/sink2.log" 127.0.0.1:0 100 || exit 1
timeout 120 python3 "$top_srcdir/tests/helpers/hostile_hop.py" "$WORK/sync.port" "$sink2_PORT" sync \
    2>"$WORK/sync.err" &
PIDS="$PIDS $!"
check "the synchronization-checking hop started" wait_until 30 test -s "$WORK/sync.port"
SYNC_PORT=$(cat "$WORK/sync.port")
# The proxy must catch a client that pipelines, or its silence proves nothing.
exec {probe}<>/dev/tcp/127.0.0.1/"$SYNC_PORT"
read -r -t 5 _ <&"$probe"
# in a subshell: a hop that has closed already must fail the check below, not
# kill the test with SIGPIPE
(printf 'EHLO x\r\nMAIL FROM:<a@example.org>\r\n' >&"$probe") 2>/dev/null
answer=$(timeout 5 cat <&"$probe" 2>/dev/null | tr -d '\r' | tail -1)
exec {probe}>&-
check "the strict hop refuses a client that pipelines ($answer)" test "${answer:0:3}" = 554
check "and reports it" grep -q VIOLATION "$WORK/sync.err"
seen=$(grep -c VIOLATION "$WORK/sync.err")
start_relay relay2 --spool "$WORK/spool2" --next-hop "127.0.0.1:$SYNC_PORT" --concurrency 4 \
    --json "$WORK/relay2.json" || exit 1
check "200 messages, 3 recipients each, through the strict hop" to "$WORK/src3.out" timeout 60 \
    "$SOURCE" -s 8 -m 200 -r 3 --msg-log "$WORK/src3.log" "127.0.0.1:$relay2_PORT"
check "the spool drains" wait_spool_empty "$WORK/spool2" 60
stop "$relay2_PID"
stop "$sink2_PID"
exactly_once "exactly once without PIPELINING" 200 "$WORK/src3.log" "$WORK/sink2.log"
check "no synchronization violation by the relay" test "$(grep -c VIOLATION "$WORK/sync.err")" = "$seen"
check "no deferrals" test "$(json_get "$WORK/relay2.json" deferrals)" = 0

if command -v openssl >/dev/null; then
    openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -days 1 \
        -subj /CN=spoolsim.test -keyout "$WORK/key.pem" -out "$WORK/cert.pem" 2>/dev/null
    timeout 60 python3 "$top_srcdir/tests/helpers/fake_server.py" inject "$WORK/fake.port" \
        "$WORK/cert.pem" "$WORK/key.pem" >"$WORK/fake.out" 2>&1 &
    fake_pid=$!
    PIDS="$PIDS $fake_pid"
    check "the injecting hop started" wait_until 30 test -s "$WORK/fake.port"
    start_relay relay3 --spool "$WORK/spool3" --next-hop "127.0.0.1:$(cat "$WORK/fake.port")" \
        --hop-tls encrypt --concurrency 1 --json "$WORK/relay3.json" || exit 1
    check "3 messages for a hop that injects a reply with its 220" to "$WORK/src4.out" \
        timeout 30 "$SOURCE" -m 3 -r 2 "127.0.0.1:$relay3_PORT"
    check "they are delivered over TLS" wait_spool_empty "$WORK/spool3" 30
    wait "$fake_pid"
    fake_status=$?
    sed 's/^/    fake hop: /' "$WORK/fake.out"
    check "the hop saw EHLO first inside TLS, and every sync point kept" test "$fake_status" = 0
    stop "$relay3_PID"
    check "one TLS connection" test "$(json_get "$WORK/relay3.json" hop_tls_sessions)" = 1
    check "no deferrals" test "$(json_get "$WORK/relay3.json" deferrals)" = 0
else
    skip_part "the STARTTLS injection test needs the openssl command"
fi
finish
