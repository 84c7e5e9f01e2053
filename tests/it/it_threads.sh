#!/bin/bash
# Integration: smtp-source and smtp-sink with --threads 3. The load is
# divided, not multiplied: -m N sends exactly N (the sink's count is the
# source's), every message once; the merged JSON is one report (its
# histogram counts every message, its timeline rows add up to the total,
# and each row's percentiles come from its own histogram); spoolsim merge
# gives per-row percentiles from those histograms. Bad --threads values
# are usage errors.
. "${top_srcdir:-.}/tests/helpers/lib.sh"

start_sink sink --threads 3 --msg-log "$WORK/sink.log" --json "$WORK/sink.json" \
    127.0.0.1:0 100 || exit 1

# 1000 over 3 threads does not divide: 334 + 333 + 333.
check "closed loop, 3 threads, -m 1000" to "$WORK/c.out" timeout 60 "$SOURCE" --threads 3 \
    -s 7 -m 1000 -d --msg-log "$WORK/src.log" --json "$WORK/c.json" --interval 0.05 \
    --no-progress "127.0.0.1:$sink_PORT"
check "  ... one summary: 1000 delivered" grep -q "^smtp-source: 1000 messages delivered, 0 failed, of 1000 attempted" "$WORK/c.out"
check "  ... on 3 threads" grep -q "7 sessions on 3 threads" "$WORK/c.out"
check "open loop, 3 threads, -m 301 at 3000/s" to "$WORK/o.out" timeout 60 "$SOURCE" \
    --threads 3 -s 3 -m 301 --rate 3000 --json "$WORK/o.json" --interval 0.05 --no-progress \
    "127.0.0.1:$sink_PORT"
stop "$sink_PID"

check "source JSON: 1000 delivered" test "$(json_get "$WORK/c.json" delivered)" = 1000
check "source JSON: threads 3" test "$(json_get "$WORK/c.json" threads)" = 3
check "sink counted 1301 messages, the sources' sum" test "$(json_get "$WORK/sink.json" messages)" = 1301
msglog_keys "$WORK/src.log" >"$WORK/src.keys"
msglog_keys "$WORK/sink.log" >"$WORK/sink.keys"
check "1000 distinct Message-IDs from 3 threads" test "$(cut -d' ' -f1 "$WORK/src.keys" | sort -u | wc -l)" = 1000
check "every logged message arrived once" test -z "$(comm -23 "$WORK/src.keys" "$WORK/sink.keys")"

# The merged report, checked against itself by an independent reader.
cat >"$WORK/check.py" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
n = int(sys.argv[2])
tl = d["timeline"]
assert d["delivered"] == n, d["delivered"]
assert d["latency"]["txn"]["count"] == n, d["latency"]["txn"]["count"]
assert sum(c for _, c in d["latency"]["txn"]["buckets"]["counts"]) == n
assert sum(r["messages_out"] for r in tl) == n, [r["messages_out"] for r in tl]
assert sum(r["messages_in"] for r in tl) == n
assert sum(r["latency_count"] for r in tl) == n
hl = d["timeline_latency"]
rows = {r[0]: r for r in hl["rows"]}
for i, r in enumerate(tl):
    got = sum(c for row, _, c in hl["counts"] if row == i)
    assert got == r["latency_count"], (i, got, r["latency_count"])
    if r["latency_count"]:
        assert rows[i][1] == r["latency_count"]
        # the row's p99 lies within its histogram's range
        assert rows[i][2] / 1e6 <= r["p99_ms"] <= rows[i][3] / 1e6 + 1e-9, (i, r, rows[i])
print(len(tl))
PY
check "closed loop: histogram and timeline rows add up to 1000" python3 "$WORK/check.py" "$WORK/c.json" 1000
check "open loop: exactly 301, histogram and rows add up" to "$WORK/o.rows" python3 "$WORK/check.py" "$WORK/o.json" 301
check "  ... over more than one row" test "$(cat "$WORK/o.rows")" -gt 1
# 301 arrivals at 3000/s offer 301/3000 s, one schedule shared by the threads
# (each at the whole rate would offer a third of it); a late completion on a
# busy machine may only make it longer.
check "open loop: the window is at least the schedule's (0.1003 s)" python3 -c "
import json, sys; d = json.load(open(sys.argv[1])); assert 0.098 <= d['elapsed_s'] < 5, d['elapsed_s']" "$WORK/o.json"

# An open loop of --duration T offers the arrivals of the one schedule
# (k / rate for k = 0, 1, ...) that fall before T, whatever the threads:
# 200 at 200/s for 1 s, 3 at 3/s (the 4th, k = 3, is at 1 s: past it).
# Every arrival is well clear of the deadline but the one at 1 s, which
# must be refused by the count, not by which timer fires first.
start_sink open --threads 2 127.0.0.1:0 100 || exit 1
delivered_of() { # SPEC... : run an open loop on the sink, print what it delivered
    timeout 60 "$SOURCE" "$@" --duration 1 --json "$WORK/d.json" --no-progress --no-summary \
        "127.0.0.1:$open_PORT" && json_get "$WORK/d.json" delivered
}
check "open loop, 1 thread, 200/s for 1 s: 200" test "$(delivered_of --threads 1 -s 8 --rate 200)" = 200
check "open loop, 3 threads, 200/s for 1 s: 200 as well" \
    test "$(delivered_of --threads 3 -s 8 --rate 200)" = 200
for run in 1 2 3; do
    check "open loop, 8 threads, 3/s for 1 s (run $run): 3" \
        test "$(delivered_of --threads 8 -s 8 --rate 3)" = 3
done
stop "$open_PID"

# spoolsim merge of two sources run together: the rows' histograms give
# exact per-row percentiles. They start at one instant (--start-at, as on
# several hosts): started together, one of them could start more than its
# 0.6 s late on a loaded machine, and windows that do not overlap are no
# one load (merge refuses them).
start_sink pair --threads 2 127.0.0.1:0 100 || exit 1
at=$(date -u -d '+3 seconds' +%Y-%m-%dT%H:%M:%SZ)
for i in 1 2; do
    timeout 60 "$SOURCE" --threads 2 -s 2 --duration 0.6 --rate 500 --interval 0.1 --id "h$i" \
        --start-at "$at" \
        --json "$WORK/h$i.json" --no-progress --no-summary "127.0.0.1:$pair_PORT" &
    eval "h${i}_PID=\$!"
done
wait "$h1_PID" "$h2_PID"
stop "$pair_PID"
check "spoolsim merge of two threaded results" to "$WORK/m.out" "$top_builddir/spoolsim/spoolsim" \
    merge -o "$WORK/m.json" "$WORK/h1.json" "$WORK/h2.json"
check "  ... its timeline rows have p99 where they have latencies, and add up" python3 -c "
import json, sys
d = json.load(open(sys.argv[1]))
n = json.load(open(sys.argv[2]))['delivered'] + json.load(open(sys.argv[3]))['delivered']
tl = d['timeline']
assert d['delivered'] == n > 0
assert sum(r['messages_out'] for r in tl) == n
assert sum(r['latency_count'] for r in tl) == n
assert all((r['p99_ms'] is None) == (r['latency_count'] == 0) for r in tl), tl
assert any(r['p99_ms'] is not None for r in tl)" "$WORK/m.json" "$WORK/h1.json" "$WORK/h2.json"

# A sink with threads and -M stops at the count, as without, and
# acknowledges exactly that many: the count is claimed before the 250, so a
# thread not yet told to stop refuses the one past it. The overshoot is a
# race (a message ending on another thread between the last claim and the
# stop), so the run is repeated; each is a fraction of a second.
gone() { ! kill -0 "$1" 2>/dev/null; }
for run in 1 2 3 4 5 6; do
    start_sink lim --threads 8 --json "$WORK/lim.json" -M 100 127.0.0.1:0 100 || exit 1
    to "$WORK/lim.out" timeout 60 "$SOURCE" --threads 4 -s 16 -m 500 --no-progress \
        --ignore-failures --json "$WORK/lim-src.json" "127.0.0.1:$lim_PORT"
    check "-M 100 with 8 threads (run $run): the sink exits by itself" wait_until 10 gone "$lim_PID"
    check "  ... having accepted exactly 100" test "$(json_get "$WORK/lim.json" messages)" = 100
    check "  ... and the source was told 250 exactly 100 times" \
        test "$(json_get "$WORK/lim-src.json" delivered)" = 100
done

# -n counts the sessions let in, as -M counts messages before their 250:
# with 8 clients connecting again and again, a sink that counted only the
# sessions ended let in those that came while its last ones finished, and
# served their messages (57 of 50, threads or not). Now the 51st waits in
# the listen queue until the sink exits.
for threads in 1 4; do
    for run in 1 2 3; do
        start_sink nlim --threads $threads --json "$WORK/nlim.json" -n 50 127.0.0.1:0 100 || exit 1
        to "$WORK/nlim.out" timeout 60 "$SOURCE" -s 8 -m 200 --no-progress --ignore-failures \
            --json "$WORK/nlim-src.json" "127.0.0.1:$nlim_PORT"
        check "-n 50 with $threads thread(s) (run $run): the sink exits by itself" \
            wait_until 10 gone "$nlim_PID"
        check "  ... having let in exactly 50 sessions" test "$(json_get "$WORK/nlim.json" sessions)" = 50
        check "  ... whose messages the source saw acknowledged, no more" \
            test "$(json_get "$WORK/nlim.json" messages)" = "$(json_get "$WORK/nlim-src.json" delivered)"
    done
done

for bad in 0 257 x; do
    to "$WORK/bad.out" "$SOURCE" --threads "$bad" -s 300 127.0.0.1:1
    check "smtp-source --threads $bad: usage error (exit 2)" test $? = 2
    check "  ... naming --threads" grep -q -- "--threads" "$WORK/bad.out"
    to "$WORK/bad.out" "$SINK" --threads "$bad" 127.0.0.1:0 10
    check "smtp-sink --threads $bad: usage error (exit 2)" test $? = 2
    check "  ... naming --threads" grep -q -- "--threads" "$WORK/bad.out"
done
to "$WORK/bad.out" "$SOURCE" --threads 3 -s 2 127.0.0.1:1
check "smtp-source --threads 3 -s 2: usage error (exit 2)" test $? = 2
check "  ... saying every thread needs a session" grep -q "every thread needs one" "$WORK/bad.out"
finish
