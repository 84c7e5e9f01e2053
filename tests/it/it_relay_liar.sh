#!/bin/bash
# Integration: a next hop that says 250 to an end of data it never saw,
# then closes (issue: acknowledged mail lost to a lying hop). Its 250 comes
# in the same write as the 354, behind part of the text, or with the
# replies to a pipelined MAIL, RCPT and DATA before the text is even sent.
# A reply can only answer a command the hop has received: the relay must
# take each of these as a broken connection and defer, and deliver the
# message later, once, through an honest connection. Both a short message
# (300 bytes, in one write) and a long one (2 MB, many writes). First, a
# next hop that is not listening at all.
. "${top_srcdir:-.}/tests/helpers/lib.sh"

command -v python3 >/dev/null || skip "python3 is required"

# liar_run NAME SIZE MODES: 3 messages of SIZE bytes through a hop whose first
# connections play MODES, one message each; then the hop passes to a sink.
liar_run() {
    local name=$1 size=$2 modes=$3 nmodes report
    nmodes=$(echo "$modes" | tr ',' '\n' | wc -l)
    start_sink "${name}_sink" --msg-log "$WORK/$name.sink.log" 127.0.0.1:0 100 || return 1
    local sink_port_var="${name}_sink_PORT"
    timeout 120 python3 "$top_srcdir/tests/helpers/hostile_hop.py" "$WORK/$name.hop.port" \
        "${!sink_port_var}" "$modes" 2>"$WORK/$name.hop.err" &
    PIDS="$PIDS $!"
    check "$name: hop started" wait_until 30 test -s "$WORK/$name.hop.port"
    start_relay "${name}_relay" --spool "$WORK/$name.spool" \
        --next-hop "127.0.0.1:$(cat "$WORK/$name.hop.port")" -v --concurrency 1 --hop-timeout 5 \
        --min-backoff 100ms --max-backoff 300ms --json "$WORK/$name.relay.json" || return 1
    local relay_pid_var="${name}_relay_PID" relay_port_var="${name}_relay_PORT"
    check "$name: 3 messages of $size bytes accepted" to "$WORK/$name.src.out" timeout 60 \
        "$SOURCE" -m 3 -l "$size" --msg-log "$WORK/$name.src.log" "127.0.0.1:${!relay_port_var}"
    check "$name: the spool drains" wait_spool_empty "$WORK/$name.spool" 60
    stop "${!relay_pid_var}"
    report=$(delivery_report "$WORK/$name.src.log" "$WORK/$name.sink.log")
    echo "$name: $report; relay said: $(grep -c 'lost connection' "$WORK/${name}_relay.err") lost connections"
    check "$name: exactly once despite $modes: $report" \
        test "$report" = "acked 3, lost 0, duplicated 0"
    check "$name: every lie was a deferral ($nmodes)" \
        test "$(json_get "$WORK/$name.relay.json" deferrals)" -ge "$nmodes"
    check "$name: the hop never took a whole message" test ! -s "$WORK/$name.hop.err"
}

# A next hop that is not listening yet: the relay says so once, with the
# reason and without -v, keeps the mail, and says so again when it answers.
start_dead_hop dead || exit 1
DEAD_PORT=$dead_PORT
start_relay dead_relay --spool "$WORK/dead.spool" --next-hop "127.0.0.1:$DEAD_PORT" \
    --min-backoff 100ms --max-backoff 200ms --json "$WORK/dead.json" || exit 1
check "dead hop: 5 messages accepted" to "$WORK/dead.src.out" timeout 30 \
    "$SOURCE" -m 5 --msg-log "$WORK/dead.src.log" "127.0.0.1:$dead_relay_PORT"
# "Once" means something after retries: wait until each message has been
# deferred twice on average (the JSON so far, at SIGUSR1).
retried() {
    json_so_far "$dead_relay_PID" "$WORK/dead.json" && test "$(json_get "$WORK/dead.json" deferrals)" -ge 10
}
check "dead hop: every message deferred and retried" wait_until 60 retried
check "dead hop: said once, with the reason" \
    test "$(grep -c "next hop 127.0.0.1:$DEAD_PORT: Connection refused" "$WORK/dead_relay.err")" = 1
stop "$dead_PID" # the port comes alive: a sink takes it
start_sink dead_sink --msg-log "$WORK/dead.sink.log" "127.0.0.1:$DEAD_PORT" 100 || exit 1
check "dead hop: the spool drains once it listens" wait_spool_empty "$WORK/dead.spool" 30
check "dead hop: its return is said" grep -q "next hop 127.0.0.1:$DEAD_PORT answers again" \
    "$WORK/dead_relay.err"
stop "$dead_relay_PID"
exactly_once "dead hop: exactly once" 5 "$WORK/dead.src.log" "$WORK/dead.sink.log"

liar_run short 300 ack354,ackburst,ack354,ackburst
liar_run long 2000000 ack354,ackpart,ackburst,ackpart
finish
