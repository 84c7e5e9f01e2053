#!/bin/bash
# Integration: the timelines of smtp-source, raw, relay and bench. Each
# real run's JSON timeline has one row per --interval of the run, its
# messages add up to the run's totals, and its --csv file parses and holds
# the same rows; bad --interval and --csv values are usage errors before
# the run.
. "${top_srcdir:-.}/tests/helpers/lib.sh"

# timeline_ok JSON CSV INTERVAL IN_KEY OUT_KEY [FAILURES_KEY]: the checks above;
# IN_KEY and OUT_KEY name the report's totals the rows must add up to.
timeline_ok() {
    python3 - "$@" <<'PY'
import csv, json, math, sys
path, csv_path, interval, in_key, out_key = sys.argv[1:6]
fail_key = sys.argv[6] if len(sys.argv) > 6 else None
interval = float(interval)
d = json.load(open(path))
rows = d["timeline"]
errors = []
def want(ok, what):
    if not ok:
        errors.append(what)
COLUMNS = ["t", "interval_s", "messages_in", "messages_in_per_s", "messages_out",
           "messages_out_per_s", "failures", "latency_count", "p50_ms", "p99_ms", "fsyncs",
           "fsyncs_per_s", "incoming", "active", "deferred"]
want(d["interval_s"] == interval, f"interval_s {d['interval_s']}")
want(len(rows) >= 2, f"{len(rows)} rows")
span = rows[-1]["t"] + rows[-1]["interval_s"]
# One row per interval: the whole ones, and the rest of the run, if any, in one more;
# a busy machine (a sanitizer build, other jobs) makes a timer late, and an
# interval longer, so there may be fewer, but never more, and none far too long.
want(span / interval / 2 <= len(rows) <= span / interval + 1,
     f"{len(rows)} rows for {span:.3f} s at {interval} s")
for i, r in enumerate(rows):
    want(list(r) == COLUMNS, f"row {i}: keys {list(r)}")
    want(r["interval_s"] <= 3 * interval, f"row {i}: interval_s {r['interval_s']}")
    if i + 1 < len(rows):
        want(abs(r["t"] + r["interval_s"] - rows[i + 1]["t"]) < 1e-6, f"row {i}: not contiguous")
    for k in ("messages_in", "messages_out", "fsyncs"):
        if r[k] is not None and r["interval_s"] > 0:
            want(abs(r[k + "_per_s"] - r[k] / r["interval_s"]) <= 1e-6 * max(1, r[k + "_per_s"]),
                 f"row {i}: {k}_per_s")
    if r["latency_count"]:
        want(0 < r["p50_ms"] <= r["p99_ms"], f"row {i}: p50 {r['p50_ms']} p99 {r['p99_ms']}")
total_in = sum(r["messages_in"] for r in rows)
total_out = sum(r["messages_out"] for r in rows)
want(total_in == d[in_key], f"messages_in add up to {total_in}, {in_key} is {d[in_key]}")
want(total_out == d[out_key], f"messages_out add up to {total_out}, {out_key} is {d[out_key]}")
want(total_out > 0, "nothing delivered")
if fail_key:
    want(sum(r["failures"] for r in rows) == d[fail_key], f"failures vs {fail_key}")
want(any(r["latency_count"] for r in rows), "no latency in any interval")
if "elapsed_s" in d:
    want(span >= d["elapsed_s"] - 0.05 and span <= d["elapsed_s"] + 2 * interval,
         f"the rows cover {span:.3f} s of an elapsed_s of {d['elapsed_s']}")
with open(csv_path, newline="") as f:
    table = list(csv.reader(f))
want(table[0] == COLUMNS, f"CSV header {table[0]}")
want(len(table) - 1 == len(rows), f"CSV has {len(table) - 1} rows, JSON {len(rows)}")
for i, (cells, r) in enumerate(zip(table[1:], rows)):
    for k, cell in zip(COLUMNS, cells):
        v = r[k]
        if v is None:
            want(cell == "", f"CSV row {i} {k}: {cell!r} for null")
        else:
            want(cell != "" and math.isclose(float(cell), v, rel_tol=1e-8, abs_tol=1e-9),
                 f"CSV row {i} {k}: {cell} vs {v}")
if errors:
    print("\n".join("  " + e for e in errors[:20]))
    sys.exit(1)
PY
}

start_sink sink 127.0.0.1:0 100
check "smtp-source: an open-loop run of 2 s" timeout 60 "$SOURCE" -s 2 --rate 40 --duration 2 \
    --interval 0.5 --json "$WORK/source.json" --csv "$WORK/source.csv" --no-summary \
    "127.0.0.1:$sink_PORT"
check "smtp-source: 4 rows of 0.5 s, adding up" \
    timeline_ok "$WORK/source.json" "$WORK/source.csv" 0.5 attempted delivered failed
check "smtp-source: messages in every interval" python3 -c "
import json, sys; rows = json.load(open('$WORK/source.json'))['timeline']
sys.exit(0 if all(r['messages_out'] > 0 for r in rows if r['interval_s'] > 0.4) else 1)"
free_port port || exit 1
check "smtp-source: failures into nowhere" timeout 60 "$SOURCE" -m 5 --interval 0.2 \
    --json "$WORK/refused.json" --csv "$WORK/refused.csv" --ignore-failures --no-summary \
    "127.0.0.1:$port"
check "smtp-source: the failures in the timeline" python3 -c "
import json, sys; d = json.load(open('$WORK/refused.json'))
sys.exit(0 if d['failed'] == 5 and sum(r['failures'] for r in d['timeline']) == 5 else 1)"

mkdir -p "$WORK/dir"
check "raw: 1.5 s of 2 workers" to "$WORK/raw.out" timeout 60 "$RELAY" raw --spool "$WORK/dir" -w 2 -d 1.5 \
    --interval 0.5 --json "$WORK/raw.json" --csv "$WORK/raw.csv" -q
# raw has no failures to show (a failing worker stops the run), but it counts syncs
check "raw: rows adding up" timeline_ok "$WORK/raw.json" "$WORK/raw.csv" 0.5 accepted delivered
check "raw: a sync per message, interval by interval" python3 -c "
import json, sys; rows = json.load(open('$WORK/raw.json'))['timeline']
sys.exit(0 if all(r['fsyncs'] == r['messages_in'] for r in rows) else 1)"

mkdir -p "$WORK/spool"
start_relay relay --spool "$WORK/spool" --next-hop "127.0.0.1:$sink_PORT" --interval 0.25 \
    --json "$WORK/relay.json" --csv "$WORK/relay.csv"
check "relay: 60 messages in" timeout 60 "$SOURCE" -s 2 --rate 50 -m 60 --no-summary \
    "127.0.0.1:$relay_PORT"
check "relay: and out" wait_spool_empty "$WORK/spool" 30
# A file leaves the spool before the relay counts it: stop once all 60 are.
all_out() { json_so_far "$relay_PID" "$WORK/relay.json" && test "$(json_get "$WORK/relay.json" messages_out)" = 60; }
check "relay: all 60 counted out" wait_until 10 all_out
stop "$relay_PID"
check "relay: rows adding up" timeline_ok "$WORK/relay.json" "$WORK/relay.csv" 0.25 \
    messages_in messages_out
check "relay: the queue depths and fsyncs known" python3 -c "
import json, sys; rows = json.load(open('$WORK/relay.json'))['timeline']
sys.exit(0 if all(r['incoming'] is not None and r['fsyncs'] is not None for r in rows) and
         sum(r['fsyncs'] for r in rows) == json.load(open('$WORK/relay.json'))['fsyncs'] else 1)"

check "bench: 1.5 s at 40 msgs/s" to "$WORK/bench.out" timeout 120 "$RELAY" bench -d 1.5 -s 2 \
    --rate 40 --interval 0.5 --json "$WORK/bench.json" --csv "$WORK/bench.csv" -q
check "bench: the relay's rows, adding up" \
    timeline_ok "$WORK/bench.json" "$WORK/bench.csv" 0.5 injected delivered

# usage errors: named, exit 2, before anything runs, nothing left behind
usage_error() {
    local what=$1
    shift
    "$@" >"$WORK/usage.out" 2>"$WORK/usage.err"
    [ $? = 2 ] && grep -q -- "$what" "$WORK/usage.err" && [ ! -e "$WORK/nodir" ]
}
for prog in "$SOURCE -m 1 127.0.0.1:$sink_PORT" "$RELAY raw --spool $WORK/dir -m 1" \
    "$RELAY bench -m 1" "$RELAY relay --spool $WORK/spool2"; do
    name=${prog%% *}
    name=${name##*/}
    [ "$name" = spoolsim ] && name="spoolsim $(echo "$prog" | cut -d' ' -f2)"
    # shellcheck disable=SC2086
    check "$name --interval 0: exit 2" usage_error "--interval" $prog --interval 0
    # shellcheck disable=SC2086
    check "$name --interval foo: exit 2" usage_error "--interval: bad time" $prog --interval foo
    # shellcheck disable=SC2086
    check "$name --csv in a missing directory: exit 2" usage_error "--csv" \
        $prog --csv "$WORK/nodir/t.csv"
done
check "relay: the bad --interval made no spool" test ! -e "$WORK/spool2"

stop "$sink_PID"
finish
