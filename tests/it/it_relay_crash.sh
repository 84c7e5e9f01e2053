#!/bin/bash
# Integration: crash safety (docs/spool-profiles.md E.1-E.2). The relay is
# killed with SIGKILL under load at a random moment, restarted on the same
# spool, and left to drain: every message the client saw acknowledged must
# reach the sink; duplicates are allowed (a crash between the next hop's
# 250 and the unlink) and counted. Then the sink is killed mid-delivery:
# its messages must be deferred and retried, not dropped.
. "${top_srcdir:-.}/tests/helpers/lib.sh"

CYCLES=${RELAY_CRASH_CYCLES:-3}
SPOOL=$WORK/spool
start_sink sink --msg-log "$WORK/sink.log" 127.0.0.1:0 100 || exit 1
: >"$WORK/src.log"
RANDOM=$$

for cycle in $(seq 1 "$CYCLES"); do
    start_relay relay --spool "$SPOOL" --next-hop "127.0.0.1:$sink_PORT" --min-backoff 100ms \
        --max-backoff 500ms || exit 1
    relay_real=$(pgrep -P "$relay_PID" spoolsim || echo "$relay_PID")
    timeout 60 "$SOURCE" -s 20 -m 5000 --ignore-failures --size uniform:500:8000 \
        --msg-log "$WORK/src.$cycle.log" "127.0.0.1:$relay_PORT" >"$WORK/src.$cycle.out" 2>&1 &
    src_pid=$!
    # The kill comes at a random moment once mail is being acknowledged (on a
    # busy machine a fixed delay could fall before the first 250).
    check "cycle $cycle: mail is acknowledged before the kill" wait_until 60 test -s "$WORK/src.$cycle.log"
    sleep "0.$((RANDOM % 9 + 1))"
    kill -KILL "$relay_real"
    wait "$src_pid"
    wait "$relay_PID" 2>/dev/null
    cat "$WORK/src.$cycle.log" >>"$WORK/src.log"
    echo "cycle $cycle: killed after $(wc -l <"$WORK/src.$cycle.log") acknowledged messages"
    # A file marked complete (0700) must end with its E record, whenever the kill came.
    marks "$SPOOL" >"$WORK/marks.$cycle"
    check "cycle $cycle: every 0700 file ends with its E record" test "$(cat "$WORK/marks.$cycle")" = 0
done

start_relay relay --spool "$SPOOL" --next-hop "127.0.0.1:$sink_PORT" --min-backoff 100ms \
    --max-backoff 500ms --json "$WORK/relay.json" || exit 1
check "the spool drains after $CYCLES crashes" wait_spool_empty "$SPOOL" 60
if [ -n "$(spool_files "$SPOOL")" ]; then
    echo "left in the spool:"; spool_files "$SPOOL" | sed "s|$SPOOL/||" | cut -d/ -f1 | sort | uniq -c
    f=$(find "$SPOOL/incoming" "$SPOOL/active" -type f | head -1); [ -n "$f" ] && ls -l "$f"
    tail -5 "$WORK/relay.err"
fi
stop "$relay_PID"
stop "$sink_PID"
check "messages were acknowledged before the crashes" test "$(wc -l <"$WORK/src.log")" -gt 0
crash_survived "relay crashes: $CYCLES cycles" "$WORK/src.log" "$WORK/sink.log" "$WORK/relay.json" "$SPOOL"

# The sink dies mid-delivery and comes back on the same port.
SPOOL2=$WORK/spool2
start_sink sink2 --msg-log "$WORK/sink2.log" 127.0.0.1:0 100 || exit 1
port2=$sink2_PORT
start_relay relay2 --spool "$SPOOL2" --next-hop "127.0.0.1:$port2" --min-backoff 200ms \
    --max-backoff 500ms --json "$WORK/relay2.json" || exit 1
timeout 60 "$SOURCE" -s 20 -m 3000 --msg-log "$WORK/src2.log" "127.0.0.1:$relay2_PORT" \
    >"$WORK/src2.out" 2>&1 &
src_pid=$!
# Killed once mail is flowing through it, with most of the 3000 still to come.
check "the sink takes mail before it dies" wait_until 60 test -s "$WORK/sink2.log"
sink_real=$(pgrep -P "$sink2_PID" smtp-sink || echo "$sink2_PID")
kill -KILL "$sink_real"
wait "$sink2_PID" 2>/dev/null
mv "$WORK/sink2.log" "$WORK/sink2a.log"
# Back only once the relay has found it gone: its next connection refused.
check "the relay finds the sink gone" wait_until 60 \
    grep -q "next hop 127.0.0.1:$port2: .*deferring mail until it answers" "$WORK/relay2.err"
start_sink sink2 --msg-log "$WORK/sink2.log" "127.0.0.1:$port2" 100 || exit 1
check "the client was served throughout" wait "$src_pid"
check "the spool drains once the sink is back" wait_spool_empty "$SPOOL2" 60
stop "$relay2_PID"
stop "$sink2_PID"
cat "$WORK/sink2a.log" "$WORK/sink2.log" >"$WORK/sink2all.log"
report=$(delivery_report "$WORK/src2.log" "$WORK/sink2all.log")
echo "sink crash: $report, $(json_get "$WORK/relay2.json" deferrals) deferrals"
check "sink crash loses nothing: $report" sh -c "echo '$report' | grep -q '^acked 3000, lost 0,'"
check "messages were deferred while the sink was down" test "$(json_get "$WORK/relay2.json" deferrals)" -gt 0
finish
