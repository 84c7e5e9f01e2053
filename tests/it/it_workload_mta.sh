#!/bin/bash
# Integration: spoolsim workload reads back the load a real MTA carried, a
# Postfix 3.7 (bench/postfix-instance.sh) and an Exim 4.96
# (bench/exim-instance.sh), each a private instance relaying to our
# smtp-sink two known loads from smtp-source: 200 messages of 3
# recipients, sizes uniform from 1,000 to 40,000 bytes, a connection each;
# 100 messages of 1 recipient, 5,000 bytes, on two kept connections (for
# Postfix: Exim queues a connection's messages after its tenth,
# smtp_accept_queue_per_connection, until a queue run). Then
# the workload of the MTA's own log: the messages and recipients exactly
# (Postfix's nrcpt=, Exim's => and -> lines), every delivery sent,
# Postfix's messages per connection adding up to the messages, nothing
# unparsed, and the sizes' median, 90th and 99th percentiles within 2 % of
# what the sink received (its --msg-log).
. "${top_srcdir:-.}/tests/helpers/lib.sh"
S="$top_builddir/spoolsim/spoolsim"

[ "$(id -u)" = 0 ] || skip "needs root (the MTAs' instances)"
export SPOOLSIM_PEERS
BENCH=$(cd "$top_srcdir/bench" && pwd)
# Their daemons run as nobody or Debian-exim: the instances' directories must be theirs to reach.
chmod 711 "$WORK" || exit 1

# load DIR PORT [-d]: the two loads, through the MTA on PORT; -d: the second on kept connections.
load() {
    check "$1: 200 messages of 3 recipients, a connection each" to "$WORK/$1/a.out" timeout 120 \
        "$SOURCE" -m 200 -s 4 -r 3 --size uniform:1000:40000 --seed 38 "127.0.0.1:$2"
    check "$1: 100 messages of 1 recipient${3:+ on two kept connections}" to "$WORK/$1/b.out" \
        timeout 120 "$SOURCE" -m 100 -s 2 -r 1 ${3:+"$3"} --size fixed:5000 "127.0.0.1:$2"
}

# read_back DIR LOG SKIPPED: the workload of LOG against the load and DIR's sink.msglog;
# SKIPPED the lines of no mail program LOG is to have.
read_back() {
    local dir=$WORK/$1
    to "$dir/w.out" "$S" workload --from-maillog "$2" -o "$dir/w.json"
    check "$1: its log read: exit 0" test $? = 0
    sed 's/^/# /' "$dir/w.out"
    json_expect "$dir/w.json" "j['messages'], j['requeued']" "300 0"
    json_expect "$dir/w.json" "j['recipients']['counts']" "[[1, 100], [3, 200]]"
    json_expect "$dir/w.json" "[j['outcomes'][k] for k in ('sent', 'deferred', 'bounced', 'expired')]" \
        "[700, 0, 0, 0]"
    json_expect "$dir/w.json" \
        "[j['lines']['skipped'][k] for k in ('other_programs', 'unparsed', 'too_long', 'binary')]" \
        "[$3, 0, 0, 0]"
    python3 - "$dir/sink.msglog" "$dir/w.json" >"$dir/sizes.out" <<'PY'
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
    check "$1: the sizes' median, p90 and p99 within 2 % of the sink's" test $? = 0
    sed 's/^/# /' "$dir/sizes.out"
}

# Postfix, in this shell (its instance is files and a master process)
if have_peer "Postfix (for its instance)" "run scripts/fetch-peer.sh postfix" \
    test -x "$PEER_POSTFIX/bin/postfix" -a -s "$PEER_POSTFIX/version"; then
    # shellcheck source=bench/postfix-instance.sh
    . "$BENCH/postfix-instance.sh" || exit 1
    pfi_init "$BENCH/.." >/dev/null || exit 1
    mkdir "$WORK/postfix" && chmod 755 "$WORK/postfix" || exit 1
    bench_sink "$SINK" "$WORK/postfix" --msg-log "$WORK/postfix/sink.msglog" || exit 1
    PIDS="$PIDS $SINK_PID"
    free_port PORT || exit 1
    # shellcheck disable=SC2153 # PORT is free_port's
    pfi_setup "$WORK/postfix" "$WORK/postfix/queue" "$SINK_PORT" "$PORT" || exit 1
    trap 'pfi_stop; cleanup' EXIT
    pfi_start || exit 1
    load postfix "$PORT" -d
    check "postfix: delivered them all" wait_until 60 pfi_queue_empty "$WORK/postfix/queue"
    pfi_stop
    stop "$SINK_PID"
    read_back postfix "$WORK/postfix/postfix.log" 0
    json_expect "$WORK/postfix/w.json" \
        "sum(k * n for k, n in j['connections']['messages_per_connection']['counts'])" 300
    # A power cut can leave a queue file under its temporary name in
    # incoming/; Postfix's start-up check (postsuper, as the mail owner,
    # before the log daemon runs) warns of it in the log itself, and the
    # instance must still start (crash --mta restarts Postfix on such spools).
    : >"$WORK/postfix/queue/incoming/123456.789"
    check "postfix: starts on a spool with a temporary file left in incoming/" pfi_start
    check "... its start-up check logged it" \
        grep -q "bogus file name: incoming/123456.789" "$WORK/postfix/postfix.log"
    pfi_stop
fi

# Exim, in a mount namespace of its own
if have_peer "Exim (for its instance)" "run scripts/fetch-peer.sh exim4-daemon-light" \
    test -s "$SPOOLSIM_PEERS/exim4-daemon-light/version"; then
    # shellcheck source=bench/exim-instance.sh
    . "$BENCH/exim-instance.sh" || exit 1
    exi_init "$BENCH/.." >/dev/null || exit 1
    mkdir "$WORK/exim" || exit 1
    bench_sink "$SINK" "$WORK/exim" --msg-log "$WORK/exim/sink.msglog" || exit 1
    PIDS="$PIDS $SINK_PID"
    free_port PORT || exit 1
    exi_setup "$WORK/exim" "$WORK/exim/spool" "$SINK_PORT" "$PORT" || exit 1
    trap 'exi_stop; cleanup' EXIT
    exi_start || exit 1
    load exim "$PORT"
    check "exim: delivered them all" wait_until 60 exi_queue_empty "$WORK/exim/spool"
    # the last delivery's lines may follow its message file's removal
    check "exim: and logged them" \
        wait_until 20 sh -c "[ \$(grep -c ' Completed\$' '$WORK/exim/log/mainlog') = 300 ]"
    exi_stop
    stop "$SINK_PID"
    # Exim's warnings go on over lines of their own, without a stamp: no mail program's.
    read_back exim "$WORK/exim/log/mainlog" "$(grep -c '^ ' "$WORK/exim/log/mainlog")"
fi
finish
