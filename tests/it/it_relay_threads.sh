#!/bin/bash
# Integration: spoolsim relay --threads N, several event loops, each with
# its client sessions and its own connections to the next hop. Every
# acknowledged message is delivered exactly once and the spool empties,
# whatever loop took it: with a new connection per message and with
# connection reuse, with the postfix spool (streamed to the file) and with
# another profile (handed over whole), with TLS, with flow control holding
# messages for tokens and without flow control; the listener spreads the
# sessions over the loops and keeps --max-sessions over all of them; a
# stop in mid-load loses nothing acknowledged; bad values exit 2.
. "${top_srcdir:-.}/tests/helpers/lib.sh"

# relay_run NAME THREADS SOURCE-ARGS... -- RELAY-ARGS...: source -> relay -> sink, then
# the checks every run must pass; leaves $WORK/NAME.relay.json.
relay_run() {
    local name=$1 threads=$2 src=() rel=() n
    shift 2
    while [ $# -gt 0 ] && [ "$1" != -- ]; do src+=("$1"); shift; done
    [ $# -gt 0 ] && shift
    rel=("$@")
    start_sink "${name}_sink" --msg-log "$WORK/$name.sink.log" 127.0.0.1:0 200 || return 1
    local sport_var="${name}_sink_PORT" spid_var="${name}_sink_PID"
    start_relay "${name}_relay" --threads "$threads" --spool "$WORK/$name.spool" \
        --next-hop "127.0.0.1:${!sport_var}" --json "$WORK/$name.relay.json" "${rel[@]}" || return 1
    local rport_var="${name}_relay_PORT" rpid_var="${name}_relay_PID"
    check "$name: messages relayed" to "$WORK/$name.src.out" timeout 120 "$SOURCE" "${src[@]}" \
        --msg-log "$WORK/$name.src.log" "127.0.0.1:${!rport_var}"
    check "$name: the spool drains" wait_spool_empty "$WORK/$name.spool" 60
    stop "${!rpid_var}"
    stop "${!spid_var}"
    n=$(wc -l <"$WORK/$name.src.log")
    exactly_once "$name: exactly once, intact" "$n" "$WORK/$name.src.log" "$WORK/$name.sink.log"
    check "$name: nothing left in the spool" test -z "$(spool_files "$WORK/$name.spool")"
}

# loops FILE: "threads N, sessions a b c, sum S" from a relay's JSON.
loops() {
    python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
s = [l["sessions"] for l in d["loops"]]
h = [l["deliveries"] for l in d["loops"]]
print("threads %d, loops %d, sum %d, min %d, cpu %s, deliveries %d, first %d, min %d" % (
      d["threads"], len(s), sum(s), min(s),
      "yes" if all(l["cpu_s"] > 0 for l in d["loops"]) else "no", sum(h), h[0], min(h[1:])))' "$1"
}

relay_run close 3 -s 12 -m 900 --size uniform:200:40000 --seed 5
got=$(loops "$WORK/close.relay.json")
check "close: three loops, 900 sessions, each loop some, each its CPU ($got)" \
    sh -c "case '$got' in 'threads 3, loops 3, sum 900, min '*', cpu yes, deliveries 900, '*) test \$(echo '$got' | sed 's/, cpu.*//; s/.*min \([0-9]*\).*/\1/') -ge 100 ;; *) false ;; esac"
check "close: the other loops' connections took the messages to the hop, each some ($got)" \
    sh -c "case '$got' in *'deliveries 900, first 0, min '[1-9]*) true ;; *) false ;; esac"
check "close: the summary shows the loops" grep -q "^event loops: 3; sessions " "$WORK/close_relay.err"
lb=$(python3 -c "import json,sys; print(json.load(open(sys.argv[1]))['utilization']['loop_busy'])" "$WORK/close.relay.json")
check "close: the first loop's busy share is measured ($lb)" python3 -c "import sys; sys.exit(not 0 < $lb <= 1)"
check "close: 900 in, 900 out" test "$(json_get "$WORK/close.relay.json" messages_in) $(json_get "$WORK/close.relay.json" messages_out)" = "900 900"

relay_run reuse 2 -s 8 -m 800 -l 2048 -d
got=$(loops "$WORK/reuse.relay.json")
check "reuse: two loops, 8 sessions in all, some on each ($got)" \
    sh -c "case '$got' in 'threads 2, loops 2, sum 8, min '[1-9]*', deliveries 800, '*) true ;; *) false ;; esac"

relay_run sendmail 3 -s 10 -m 300 -- --profile sendmail
relay_run tls 2 -s 6 -m 120 --tls -- --tls
check "tls: every session in TLS" \
    test "$(json_get "$WORK/tls.relay.json" tls_sessions)" = "$(json_get "$WORK/tls.relay.json" sessions)"

# Flow control across loops: 2 tokens for 12 sessions, so most messages
# wait for one on loop 0's list; each gets its commit in its turn.
relay_run flow 3 -s 12 -m 600 -- --in-flow-limit 2
check "flow: messages waited for a token ($(json_get "$WORK/flow.relay.json" flow_waits))" \
    test "$(json_get "$WORK/flow.relay.json" flow_waits)" -ge 50
relay_run noflow 3 -s 12 -m 300 -- --in-flow-delay 0

# A busy loop does not hold up a message another loop has room for: two
# next-hop loops with one connection each, a hop that answers every dot
# after 3 s; the second message goes out on the other loop at once.
start_sink slow --msg-log "$WORK/slow.sink.log" -W .:3 127.0.0.1:0 100 || exit 1
start_relay srl --threads 3 --concurrency 2 --spool "$WORK/slow.spool" \
    --next-hop "127.0.0.1:$slow_PORT" --json "$WORK/slow.relay.json" || exit 1
check "slow hop: two messages relayed" to "$WORK/slow.src.out" timeout 60 "$SOURCE" -s 1 -m 2 \
    "127.0.0.1:$srl_PORT"
check "slow hop: both at the hop within 2 s" \
    wait_until 2 lines_in "$WORK/slow.sink.log" 2
check "slow hop: the spool drains" wait_spool_empty "$WORK/slow.spool" 30
stop "$srl_PID"
stop "$slow_PID"
got=$(loops "$WORK/slow.relay.json")
check "slow hop: one message on each hop loop ($got)" \
    sh -c "case '$got' in *'deliveries 2, first 0, min 1') true ;; *) false ;; esac"

# --max-sessions over all the loops: 16 clients, 4 at most at once.
relay_run limit 3 -s 16 -m 400 -- --max-sessions 4
check "limit: at most 4 sessions at once ($(json_get "$WORK/limit.relay.json" max_concurrent_sessions))" \
    test "$(json_get "$WORK/limit.relay.json" max_concurrent_sessions)" -le 4
check "limit: the listener paused ($(json_get "$WORK/limit.relay.json" session_limit_waits) times)" \
    test "$(json_get "$WORK/limit.relay.json" session_limit_waits)" -gt 0

# A stop in mid-load: what was acknowledged is delivered or still queued;
# a relay started again on the spool delivers the rest.
SPOOL=$WORK/stop.spool
start_sink ssink --msg-log "$WORK/stop.sink.log" 127.0.0.1:0 200 || exit 1
start_relay srelay --threads 3 --spool "$SPOOL" --next-hop "127.0.0.1:$ssink_PORT" || exit 1
timeout 120 "$SOURCE" -s 20 -m 100000 --msg-log "$WORK/stop.src.log" "127.0.0.1:$srelay_PORT" \
    >"$WORK/stop.src.out" 2>&1 &
src_pid=$!
check "500 messages acknowledged before the stop" wait_until 30 lines_in "$WORK/stop.src.log" 500
# The relay itself, not its timeout(1) wrapper, which would pass the
# signal on twice (to the child and to its group): a second signal means
# "stop now", and deliveries cut off would be sent again after the restart.
kill -TERM "$(pgrep -P "$srelay_PID" spoolsim || echo "$srelay_PID")"
t0=$SECONDS
wait "$srelay_PID"
status=$?
check "stop: SIGTERM under load: exit 0 ($status), within the grace ($((SECONDS - t0)) s)" \
    test "$status" = 0 -a $((SECONDS - t0)) -le 12
stop "$src_pid"
check "stop: no file half-written left in incoming/ ($(unmarked "$SPOOL" incoming | wc -l))" \
    test -z "$(unmarked "$SPOOL" incoming)"
start_relay srelay2 --spool "$SPOOL" --next-hop "127.0.0.1:$ssink_PORT" || exit 1
check "stop: the restarted relay drains the rest" wait_spool_empty "$SPOOL" 60
stop "$srelay2_PID"
stop "$ssink_PID"
report=$(delivery_report "$WORK/stop.src.log" "$WORK/stop.sink.log")
acked=$(wc -l <"$WORK/stop.src.log")
check "stop: every acknowledged message delivered once: $report" \
    test "$report" = "acked $acked, lost 0, duplicated 0"

# A stop while replies are held for a client's round trip (--reply-delay):
# the relay waits for them, so that no client misses the 250 of a message
# that is queued (it would send it again: a duplicate).
SPOOL=$WORK/held.spool
start_sink hsink --msg-log "$WORK/held.sink.log" 127.0.0.1:0 200 || exit 1
start_relay hrelay --threads 3 --reply-delay 200ms --spool "$SPOOL" \
    --next-hop "127.0.0.1:$hsink_PORT" || exit 1
timeout 120 "$SOURCE" -s 40 -m 100000 --msg-log "$WORK/held.src.log" "127.0.0.1:$hrelay_PORT" \
    >"$WORK/held.src.out" 2>&1 &
src_pid=$!
# The first messages at the sink: queued and relayed, their 250s held for 200 ms.
check "held: the first messages reach the sink" wait_until 30 test -s "$WORK/held.sink.log"
kill -TERM "$(pgrep -P "$hrelay_PID" spoolsim || echo "$hrelay_PID")"
wait "$hrelay_PID"
stop "$src_pid"
start_relay hrelay2 --spool "$SPOOL" --next-hop "127.0.0.1:$hsink_PORT" || exit 1
check "held: the restarted relay drains the rest" wait_spool_empty "$SPOOL" 60
stop "$hrelay2_PID"
stop "$hsink_PID"
unacked=$(python3 - "$WORK/held.src.log" "$WORK/held.sink.log" <<'PY'
import sys
ids = lambda p: {dict(x.split("=", 1) for x in l.split() if "=" in x).get("message-id") for l in open(p)}
print(len(ids(sys.argv[2]) - ids(sys.argv[1])))
PY
)
exactly_once "held: every acknowledged message delivered once" "$(wc -l <"$WORK/held.src.log")" "$WORK/held.src.log" "$WORK/held.sink.log"
check "held: no message delivered whose client missed its 250 ($unacked)" test "$unacked" = 0

# A SIGTERM as soon as the port file is there (set-up still under way):
# the relay stops as in service, exit 0 with its summary, not killed.
early=""
for i in 1 2 3; do
    rm -f "$WORK/early.port"
    "$RELAY" relay --listen 127.0.0.1:0 --port-file "$WORK/early.port" --spool "$WORK/early.spool" \
        --next-hop 127.0.0.1:9 --threads 4 --model none 2>"$WORK/early.err" &
    pid=$!
    wait_until 30 test -s "$WORK/early.port" || early="$early no-port-file"
    kill -TERM "$pid"
    wait "$pid"
    early="$early $?$(grep -q '^received ' "$WORK/early.err" && echo +summary)"
done
check "SIGTERM right after the port file: exit 0 with a summary, 3 times ($early)" \
    test "$early" = " 0+summary 0+summary 0+summary"

# Out of descriptors for 64 loops (a pipe and an event base each): the
# relay fails before it makes its spool, and leaves none behind. (In the
# sanitizer build the leak check at exit needs a descriptor of its own, for
# /proc/PID/task, and with none left would fail the exit status: not asked for.)
check "64 loops with 150 descriptors: exit 3, named, no spool made" sh -c "ulimit -n 150; ASAN_OPTIONS=\${ASAN_OPTIONS:+\$ASAN_OPTIONS:}detect_leaks=0 '$RELAY' relay --spool '$WORK/nofds' --listen 127.0.0.1:0 --next-hop 127.0.0.1:9 --threads 64 --cleanup-threads 64 2>'$WORK/nofds.err'; test \$? = 3 && grep -q 'Too many open files' '$WORK/nofds.err' && test ! -e '$WORK/nofds'"

# Usage errors, before anything is made.
for bad in "--threads 0" "--threads 65" "--threads x" "--threads 5 --cleanup-threads 4"; do
    # shellcheck disable=SC2086
    check "relay $bad: exit 2, named" sh -c "'$RELAY' relay --spool '$WORK/never' $bad 2>'$WORK/bad.err'; test \$? = 2 && grep -q -- --threads '$WORK/bad.err' && test ! -e '$WORK/never'"
done

finish
