#!/bin/bash
# Integration: spoolsim workload reads back the load a real Exim 4.96
# carried. A private Exim instance (bench/exim-instance.sh) relays to our
# smtp-sink 200 messages of 3 recipients (sizes uniform from 1,000 to
# 40,000 bytes) and 100 of 1 (5,000 bytes) from smtp-source. Then the
# workload of Exim's main log: the messages and recipients exactly (Exim's
# are its outcome lines, => and ->), every one sent, and the sizes'
# median, 90th and 99th percentiles within 2 % of what the sink received.
. "${top_srcdir:-.}/tests/helpers/lib.sh"
S="$top_builddir/spoolsim/spoolsim"

[ "$(id -u)" = 0 ] || skip "needs root (an Exim instance in a mount namespace)"
need_peer "Exim (for its instance)" "run scripts/fetch-peer.sh exim4-daemon-light" \
    test -s "$SPOOLSIM_PEERS/exim4-daemon-light/version"
export SPOOLSIM_PEERS
BENCH=$(cd "$top_srcdir/bench" && pwd)
# shellcheck source=bench/exim-instance.sh
. "$BENCH/exim-instance.sh" || exit 1
exi_init "$BENCH/.." >/dev/null || exit 1
mkdir "$WORK/ex" && chmod 711 "$WORK" || exit 1
bench_sink "$SINK" "$WORK" --msg-log "$WORK/sink.msglog" || exit 1
PIDS="$PIDS $SINK_PID"
free_port PORT || exit 1
# shellcheck disable=SC2153 # PORT is free_port's
exi_setup "$WORK/ex" "$WORK/ex/spool" "$SINK_PORT" "$PORT" || exit 1
trap 'exi_stop; cleanup' EXIT
exi_start || exit 1

check "200 messages of 3 recipients" to "$WORK/a.out" timeout 120 "$SOURCE" \
    -m 200 -s 4 -r 3 --size uniform:1000:40000 --seed 38 "127.0.0.1:$PORT"
check "100 messages of 1 recipient" to "$WORK/b.out" timeout 120 "$SOURCE" \
    -m 100 -s 2 -r 1 --size fixed:5000 "127.0.0.1:$PORT"
check "Exim delivered them all" wait_until 60 exi_queue_empty "$WORK/ex/spool"
# the last delivery's lines may follow its message file's removal
check "  and logged them" wait_until 20 sh -c "[ \$(grep -c ' Completed\$' '$WORK/ex/log/mainlog') = 300 ]"
exi_stop
stop "$SINK_PID"

to "$WORK/w.out" "$S" workload --from-maillog "$WORK/ex/log/mainlog" -o "$WORK/w.json"
check "its log read: exit 0" test $? = 0
sed 's/^/# /' "$WORK/w.out"
jq() { python3 -c "import json,sys; j=json.load(open(sys.argv[1])); print($1)" "$WORK/w.json"; }
expect() {
    local got
    got=$(jq "$1")
    check "$1 = $2 (got $got)" test "$got" = "$2"
}
# Exim's warnings go on over lines of their own, without a stamp: skipped as no mail line.
cont=$(grep -c '^ ' "$WORK/ex/log/mainlog")
expect "j['messages'], j['lines']['exim']" "300 $(($(wc -l <"$WORK/ex/log/mainlog") - cont))"
expect "j['recipients']['counts']" "[[1, 100], [3, 200]]"
expect "[j['outcomes'][k] for k in ('sent', 'deferred', 'bounced', 'expired')]" "[700, 0, 0, 0]"
expect "[j['lines']['skipped'][k] for k in ('other_programs', 'unparsed', 'too_long', 'binary')]" "[$cont, 0, 0, 0]"
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
