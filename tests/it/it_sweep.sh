#!/bin/bash
# Integration: `spoolsim sweep`, the knee of a relay. A short real sweep of
# two listed rates, and an automatic one against a relay slowed to a
# handful of messages per second (one cleanup thread, a cost model that
# makes each message cost CPU, one delivery connection), which must find a
# knee and the step that broke it; usage errors exit 2 before anything starts.
. "${top_srcdir:-.}/tests/helpers/lib.sh"

TMP=$WORK/tmp
mkdir -p "$TMP"
check "a listed sweep runs" to "$WORK/list.out" env TMPDIR="$TMP" timeout 60 \
    "$RELAY" sweep -q --rates 20,40 --warmup 0.5s --window 1.5s --seed 9 --json "$WORK/list.json" -- --model none
check "the report has a verdict line" grep -q "^knee: " "$WORK/list.out"
check "and a row per step" test "$(grep -c '^ *[12] ' "$WORK/list.out")" = 2
check "JSON: each step, delivered <= offered, offered as asked" python3 -c "
import json, sys
d = json.load(open('$WORK/list.json'))
s = d['steps']
assert [x['offered_per_s'] for x in s] == [20, 40], s
for x in s:
    assert 0 <= x['delivered_per_s'] <= x['sent_per_s'] + 1e-9, x
    assert x['sent'] > 0 and x['queue_start'] is not None and x['end_to_end_count'] > 0, x
    assert x['reason'] in ('held', 'fell_behind', 'queue_grew', 'failures', 'slo'), x
    assert x['p50_ms'] <= x['p99_ms'] <= x['p99_9_ms'] <= x['max_ms'], x
assert d['sink_delay_s'] is None, d['sink_delay_s']
# a relay on loopback keeps up with 20 messages/s
assert s[0]['held'], s[0]
assert d['knee_per_s'] in (20, 40), d['knee_per_s']
assert d['seed'] == 9, d['seed']  # issue 35: sweep had no --seed
"
check "the work directory is removed" test -z "$(ls -A "$TMP")"

# A relay of about 30 messages/s: the automatic search must bracket it.
check "an automatic sweep of a slowed relay" to "$WORK/auto.out" env TMPDIR="$TMP" timeout 90 \
    "$RELAY" sweep -q --start 10 --factor 4 --tolerance 0.3 --max-steps 5 --warmup 0.5s \
    --window 1.5s --slo 500ms --json "$WORK/auto.json" --sink-delay 30ms -- --model none --concurrency 1
check "the verdict names a rate and the step that broke it" \
    grep -Eq "^knee: +[0-9.]+ msgs/s .*; broke at [0-9.]+ msgs/s \(step [0-9]+\): " "$WORK/auto.out"
check "JSON: the knee below the failure, every step reported" python3 -c "
import json
d = json.load(open('$WORK/auto.json'))
s = d['steps']
assert d['mode'] == 'auto' and 2 <= len(s) <= 5, s
assert d['knee_per_s'] is not None and d['broke_per_s'] > d['knee_per_s'], d
assert d['sink_delay_s'] == 0.03, d['sink_delay_s']
broke = [x for x in s if x['offered_per_s'] == d['broke_per_s']][0]
assert not broke['held'] and broke['reason'] != 'held'
for x in s:
    assert x['delivered_per_s'] <= x['sent_per_s'] + 1e-9, x
"

# --target: any SMTP server (here a relay the test starts, as a user would
# start a real MTA), with the sweep's sink on --sink-port as its next hop;
# then the same server's acceptance alone, without a sink.
free_port HOP_PORT || exit 1
check "a relay to sweep as a target" start_relay target --spool "$WORK/target-spool" \
    --next-hop 127.0.0.1:"$HOP_PORT"
check "a sweep of the target, its deliveries measured" to "$WORK/target.out" env TMPDIR="$TMP" \
    timeout 60 "$RELAY" sweep -q --rates 20,40 --warmup 0.5s --window 1.5s --slo 1s \
    --target 127.0.0.1:"$target_PORT" --sink-port "$HOP_PORT" --json "$WORK/target.json"
check "JSON: what the target relayed arrived at the sink" python3 -c "
import json
d = json.load(open('$WORK/target.json'))
assert d['target'] == '127.0.0.1:$target_PORT' and d['sink_port'] == $HOP_PORT, d
for x in d['steps']:
    # a relay on loopback keeps up with 40 messages/s: most of the window's
    # messages are at the sink before it ends
    assert x['arrived_per_s'] > 0.5 * x['offered_per_s'], x
    # the window's own messages, known by Message-ID, at most what was accepted
    assert 0.5 * x['offered_per_s'] < x['delivered_per_s'] <= x['sent_per_s'] + 1e-9, x
    assert x['end_to_end_count'] is None and x['queue_start'] is None, x
assert d['steps'][0]['held'], d['steps'][0]
"
check "a sweep of the target's acceptance alone" to "$WORK/accept.out" env TMPDIR="$TMP" \
    timeout 60 "$RELAY" sweep -q --rates 20 --warmup 0.5s --window 1.5s \
    --target 127.0.0.1:"$target_PORT" --json "$WORK/accept.json"
check "JSON: acceptance is what the target acknowledged, no sink" python3 -c "
import json
x = json.load(open('$WORK/accept.json'))['steps'][0]
assert x['accepted'] > 0 and x['arrived_per_s'] == 0, x
assert abs(x['delivered_per_s'] - x['accepted'] / 1.5) < 1e-6, x
"
stop "$target_PID"

# A target that takes no mail: a closed port, a server that closes at once,
# one that greets with 554, one that accepts and never says a word. Each
# sweep stops after its first step, names why (from smtp-source's failure
# kinds), has no latency, and exits 3 (no knee was measured).
dead_sweep() { # dead_sweep NAME PORT: the sweep's status in $WORK/NAME.status
    env TMPDIR="$TMP" timeout 60 "$RELAY" sweep -q --warmup 0 --window 1s --slo 1s \
        --target 127.0.0.1:"$2" --json "$WORK/$1.json" >"$WORK/$1.out" 2>"$WORK/$1.err"
    echo $? >"$WORK/$1.status"
}
dead_checks() { # dead_checks NAME PORT REASON
    check "$1: exit 3" test "$(cat "$WORK/$1.status")" = 3
    check "$1: the reason named" grep -q "^ *target 127.0.0.1:$2: $3 ([0-9]* of [0-9]* messages)" "$WORK/$1.out"
    check "$1: stopped after the first step, said so" \
        grep -q "^stopped: *nothing was accepted at 50 msgs/s: the target does not take mail" "$WORK/$1.out"
    check "$1: latency '-' in the table" grep -Eq '^ +1 +50.0 +[0-9.]+ +0.0 +- +- ' "$WORK/$1.out"
    check "$1: JSON: one step, null latency, the reason" python3 -c "
import json, re
d = json.load(open('$WORK/$1.json'))
s = d['steps']
assert len(s) == 1 and s[0]['accepted'] == 0, s
assert all(s[0][k] is None for k in ('p50_ms', 'p99_ms', 'p99_9_ms', 'max_ms')), s[0]
assert re.match(r'$3', s[0]['no_mail']), s[0]['no_mail']
"
}
start_dead_hop closedhop || exit 1
CLOSED=$closedhop_PORT
dead_sweep closed "$CLOSED"
dead_checks closed "$CLOSED" "connection refused"
for mode in close 554 silent; do
    timeout 120 python3 -c "
import socket, sys
s = socket.socket()
s.bind(('127.0.0.1', 0))
s.listen(256)
open(sys.argv[2] + '.tmp', 'w').write(str(s.getsockname()[1]))
import os
os.rename(sys.argv[2] + '.tmp', sys.argv[2])
held = []
while True:
    c, _ = s.accept()
    if sys.argv[1] == 'silent':
        held.append(c)  # open, and not a word: no greeting ever
        continue
    if sys.argv[1] == '554':
        c.sendall(b'554 5.3.2 no mail here\\r\\n')
    c.close()
" "$mode" "$WORK/dead$mode.port" 2>"$WORK/dead$mode.err" &
    check "a server that $mode""s" started "dead$mode" $! "a server of $mode"
done
dead_sweep closes "$deadclose_PORT"
dead_checks closes "$deadclose_PORT" "the connection closed"
dead_sweep greets554 "$dead554_PORT"
dead_checks greets554 "$dead554_PORT" "rejected with 554 at banner"
# The silent server: the clients are stopped when the step's grace ends
# (the window, 1 s, and the SLO and a second more), not after smtp-source's
# reply timeout (30 s), and the first connection waited those 3 s. Bounded
# by `timeout 60' in dead_sweep; 20 s leaves the machine's load a wide margin
# over the 3 s a sweep takes, and is still far below one reply timeout.
started_at=$(date +%s)
dead_sweep silent "$deadsilent_PORT"
check "silent: the sweep ended within 20 s, not after the 30 s reply timeout" \
    test $(($(date +%s) - started_at)) -lt 20
dead_checks silent "$deadsilent_PORT" "no greeting within 3 s on any of [0-9]* connections"
check "silent: JSON: the cause, how long and how many" python3 -c "
import json, re
no_mail = json.load(open('$WORK/silent.json'))['steps'][0]['no_mail']
assert re.fullmatch(r'no greeting within 3 s on any of [1-9][0-9]* connections \\([0-9]+ of [0-9]+ messages\\)', no_mail), no_mail
"
# With a warm-up, its client is stopped as promptly (it was the second 30 s).
started_at=$(date +%s)
check "silent, a warm-up: exit 3" sh -c "env TMPDIR='$TMP' timeout 90 '$RELAY' sweep -q --warmup 1s \
    --window 1s --slo 1s --target 127.0.0.1:$deadsilent_PORT >'$WORK/silentw.out' 2>&1; test \$? = 3"
check "silent, a warm-up: ended within 20 s" test $(($(date +%s) - started_at)) -lt 20
check "silent, a warm-up: the cause named" grep -q "no greeting within 3 s on any of" "$WORK/silentw.out"
stop "$deadclose_PID"
stop "$dead554_PID"
stop "$deadsilent_PID"
check "the dead targets' sweeps left nothing" test -z "$(ls -A "$TMP")"

bad() { # bad NAME ARGS...: exit 2, nothing started, nothing left
    local name=$1
    shift
    check "$name: exit 2" sh -c "env TMPDIR='$TMP' '$RELAY' sweep \"\$@\" >/dev/null 2>'$WORK/bad.err'; test \$? = 2" sh "$@"
}
bad "unknown option" --frobnicate
bad "bad --rates" --rates 100,,200
bad "zero rate" --rates 0
bad "bad --factor" --factor 1
bad "bad --window" --window 1ms
bad "--sink-port without --target" --sink-port 2525
bad "relay options with --target" --target 127.0.0.1:25 -- --model none
bad "the relay's --spool after --" -- --spool /tmp
bad "a stray argument" 100
# The relay's own options and --target are judged before anything is made
# (before, these made the work directory and failed with 1 at the first step).
bad "an unknown relay option after --" --rates 20 -- --frobnicate
bad "a relay option out of range after --" --rates 20 -- --min-backoff 0
check "naming the relay's problem" grep -q "min-backoff" "$WORK/bad.err"
bad "a --target port out of range" --rates 20 --target 127.0.0.1:99999
bad "a --target with no host" --rates 20 --target :25
bad "a --target with a space" --rates 20 --target "a b:25"
check "and nothing was started or left" test -z "$(ls -A "$TMP")"
finish
