#!/bin/bash
# Integration: spoolsim workload reads back the load a real Postfix 3.7
# carried. A private Postfix instance (bench/postfix-instance.sh) relays
# to our smtp-sink two known loads from smtp-source: 200 messages of 3
# recipients, sizes uniform from 1,000 to 40,000 bytes, a connection each;
# 100 messages of 1 recipient, 5,000 bytes, two sessions that keep their
# connection. Then the workload of Postfix's own log: the messages and
# recipients exactly, every delivery sent, the messages per connection
# adding up to the messages, and the sizes' median, 90th and 99th
# percentiles within 2 % of what the sink received (its --msg-log).
. "${top_srcdir:-.}/tests/helpers/lib.sh"
S="$top_builddir/spoolsim/spoolsim"

[ "$(id -u)" = 0 ] || skip "needs root (a Postfix instance)"
need_peer "Postfix (for its instance)" "run scripts/fetch-peer.sh postfix" \
    test -x "$PEER_POSTFIX/bin/postfix" -a -s "$PEER_POSTFIX/version"
export SPOOLSIM_PEERS
BENCH=$(cd "$top_srcdir/bench" && pwd)
# shellcheck source=bench/postfix-instance.sh
. "$BENCH/postfix-instance.sh" || exit 1
pfi_init "$BENCH/.." >/dev/null || exit 1
# Postfix's daemons run as nobody: the instance's directory must be theirs to reach.
mkdir "$WORK/pf" && chmod 711 "$WORK" && chmod 755 "$WORK/pf" || exit 1
bench_sink "$SINK" "$WORK" --msg-log "$WORK/sink.msglog" || exit 1
PIDS="$PIDS $SINK_PID"
free_port PORT || exit 1
# shellcheck disable=SC2153 # PORT is free_port's
pfi_setup "$WORK/pf" "$WORK/pf/queue" "$SINK_PORT" "$PORT" || exit 1
trap 'pfi_stop; cleanup' EXIT
pfi_start || exit 1

check "200 messages of 3 recipients, a connection each" to "$WORK/a.out" timeout 120 "$SOURCE" \
    -m 200 -s 4 -r 3 --size uniform:1000:40000 --seed 38 "127.0.0.1:$PORT"
check "100 messages of 1 recipient on two kept connections" to "$WORK/b.out" timeout 120 "$SOURCE" \
    -m 100 -s 2 -r 1 -d --size fixed:5000 "127.0.0.1:$PORT"
check "Postfix delivered them all" wait_until 60 pfi_queue_empty "$WORK/pf/queue"
pfi_stop
stop "$SINK_PID"

to "$WORK/w.out" "$S" workload --from-maillog "$WORK/pf/postfix.log" -o "$WORK/w.json"
check "its log read: exit 0" test $? = 0
sed 's/^/# /' "$WORK/w.out"
jq() { python3 -c "import json,sys; j=json.load(open(sys.argv[1])); print($1)" "$WORK/w.json"; }
expect() {
    local got
    got=$(jq "$1")
    check "$1 = $2 (got $got)" test "$got" = "$2"
}
expect "j['messages'], j['requeued']" "300 0"
expect "j['recipients']['counts']" "[[1, 100], [3, 200]]"
expect "[j['outcomes'][k] for k in ('sent', 'deferred', 'bounced', 'expired')]" "[700, 0, 0, 0]"
expect "sum(k * n for k, n in j['connections']['messages_per_connection']['counts'])" "300"
expect "[j['lines']['skipped'][k] for k in ('other_programs', 'unparsed', 'too_long', 'binary')]" "[0, 0, 0, 0]"
# The sink's sizes, the same percentiles by nearest rank.
python3 - "$WORK/sink.msglog" "$WORK/w.json" >"$WORK/sizes.out" <<'PY'
import json, math, re, sys
sizes = sorted(int(m.group(1)) for m in (re.search(r" size=(\d+)", l) for l in open(sys.argv[1])) if m)
w = json.load(open(sys.argv[2]))["size_bytes"]
bad = 0
for key, pct in (("median", 50), ("p90", 90), ("p99", 99)):
    want = sizes[max(0, math.ceil(pct / 100 * len(sizes)) - 1)]
    off = abs(w[key] - want) / want
    print(f"{key}: log {w[key]}, sink {want}, {100 * off:.2f} %")
    bad += off > 0.02
print(f"{len(sizes)} messages at the sink")
sys.exit(1 if bad or len(sizes) != 300 else 0)
PY
check "the sizes' median, p90 and p99 within 2 % of the sink's" test $? = 0
sed 's/^/# /' "$WORK/sizes.out"
finish
