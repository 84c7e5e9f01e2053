#!/bin/bash
# Integration: load from several hosts, one report. Three smtp-source runs
# with the same --start-at (as root: each in its own network namespace, its
# own address on a bridge to the host; without root, all three on
# 127.0.0.1) against one smtp-sink, then spoolsim merge: the merged counts
# are what the sink received, count for count, and the merged histograms
# are the three added bucket by bucket (recomputed here independently, in
# Python), so the merged percentiles are those of all the samples. And
# what cannot be merged is refused with exit status 2, leaving no file:
# the same result twice by any name, -o an input, a window that is not its
# run's, a schema_version that is not one; a failed write leaves the
# previous output; and a large result is read in linear time.
. "${top_srcdir:-.}/tests/helpers/lib.sh"
S="$top_builddir/spoolsim/spoolsim"

N=3
# run_on I COMMAND...: COMMAND as host I (in its namespace, or here).
run_on() {
    local i=$1
    shift
    if [ -n "$NETNS" ]; then ip netns exec "$NETNS_TAG$i" "$@"; else "$@"; fi
}

LISTEN=127.0.0.1
netns_hosts $N
case $? in
0)
    LISTEN="$NETNS_NET.1"
    echo "# $N network namespaces as the hosts: $NETNS_NET.11-$NETNS_NET.$((10 + N)) on bridge $NETNS_BR, sink at $LISTEN"
    ;;
1) skip_part "sources on hosts of their own: not root, or no ip netns here; the $N sources all run on 127.0.0.1" ;;
*) exit 1 ;;
esac

# Bad options of smtp-source first: nothing may start.
to "$WORK/past.out" "$SOURCE" --start-at 2001-01-01T00:00:00Z -m 1 127.0.0.1:1
check "--start-at in the past: exit 2" test $? = 2
check "  ... saying it is in the past" grep -q "in the past" "$WORK/past.out"
to "$WORK/badat.out" "$SOURCE" --start-at 2030-01-01T00:00:00 -m 1 127.0.0.1:1
check "--start-at without a zone: exit 2" test $? = 2
to "$WORK/badid.out" "$SOURCE" --id "" -m 1 127.0.0.1:1
check "--id empty: exit 2" test $? = 2

start_sink sink --json "$WORK/sink.json" "$LISTEN:0" 100 || exit 1
AT=$(python3 -c 'import time; print("@%.3f" % (time.time() + 2))')
PIDS_SRC=""
for i in $(seq 1 $N); do
    run_on "$i" timeout 60 "$SOURCE" --start-at "$AT" --id "host$i" -m $((100 * i + 50)) -s 4 --rate 150 \
        --size uniform:500:5000 --seed "$i" --interval 0.5 --json "$WORK/r$i.json" \
        "$LISTEN:$sink_PORT" >"$WORK/r$i.out" 2>&1 &
    PIDS_SRC="$PIDS_SRC $!"
    PIDS="$PIDS $!"
done
st=0
for pid in $PIDS_SRC; do wait "$pid" || st=1; done
check "the $N sources ran and delivered everything" test $st = 0
for i in $(seq 1 $N); do
    check "host$i said once that it waits" test "$(grep -c "waiting .* s to start at $AT" "$WORK/r$i.out")" = 1
done
stop "$sink_PID"

check "the $N started together (start_time within 1 s of --start-at)" python3 - "$AT" "$WORK"/r?.json <<'PY'
import json, sys
at = float(sys.argv[1][1:])
starts = [json.load(open(f))["start_time"] for f in sys.argv[2:]]
print("# start_time - start-at:", ", ".join("%+.3f s" % (s - at) for s in starts))
sys.exit(0 if all(0 <= s - at < 1 for s in starts) else 1)
PY

check "merge" to "$WORK/merge.out" "$S" merge -o "$WORK/merged.json" "$WORK"/r?.json
cat "$WORK/merge.out"
check "the summary names $N results" grep -q "spoolsim merge: $N results" "$WORK/merge.out"
check "merged JSON is spoolsim merge's" test "$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["program"])' "$WORK/merged.json")" = "spoolsim merge"
SINK_N=$(json_get "$WORK/sink.json" messages)
check "merged delivered = what the sink received ($SINK_N)" test "$(json_get "$WORK/merged.json" delivered)" = "$SINK_N"
check "  ... = 100+50 + 200+50 + 300+50" test "$SINK_N" = 750
check "merged bytes = the sink's bytes" test "$(json_get "$WORK/merged.json" bytes)" = "$(json_get "$WORK/sink.json" bytes)"
check "merged connections = the sink's sessions" test "$(json_get "$WORK/merged.json" connections)" = "$(json_get "$WORK/sink.json" sessions)"

# The merge redone independently: buckets added, the percentiles by the rule
# of docs/json.md ("Histogram buckets"); the rate over the union window; the
# timeline's rows adding up.
check "merged histograms and percentiles = the inputs' added, every stage" python3 - "$WORK/merged.json" "$WORK"/r?.json <<'PY'
import json, math, sys
merged = json.load(open(sys.argv[1]))
runs = [json.load(open(f)) for f in sys.argv[2:]]
def width(lo, b=7):
    return 1 if lo < 2 ** (b + 1) else 2 ** (lo.bit_length() - 1 - b)
def pct(counts, n, lo_v, hi_v, p):
    rank = max(1, math.ceil(p / 100 * n))
    if rank == 1: return lo_v
    if rank >= n: return hi_v
    seen = 0
    for lo, c in counts:
        seen += c
        if seen >= rank:
            mid = lo + (width(lo) - 1) / 2
            return min(max(mid, lo_v), hi_v)
ok = True
for stage, m in merged["latency"].items():
    counts = {}
    for r in runs:
        for lo, c in r["latency"][stage]["buckets"]["counts"]:
            counts[lo] = counts.get(lo, 0) + c
    counts = sorted(counts.items())
    n = sum(c for _, c in counts)
    mb = m["buckets"]
    if [list(x) for x in counts] != mb["counts"] or n != mb["count"] or n != m["count"]:
        print("stage %s: buckets differ" % stage); ok = False; continue
    if n == 0: continue
    lo_v = min(r["latency"][stage]["buckets"]["min"] for r in runs if r["latency"][stage]["count"])
    hi_v = max(r["latency"][stage]["buckets"]["max"] for r in runs if r["latency"][stage]["count"])
    for key, p in (("p50_ms", 50), ("p90_ms", 90), ("p99_ms", 99), ("p99_9_ms", 99.9)):
        want = pct(counts, n, lo_v, hi_v, p) / 1e6
        if abs(m[key] - want) > want / 256 + 1e-6:
            print("stage %s %s: %g, recomputed %g" % (stage, key, m[key], want)); ok = False
    if stage == "txn":
        print("# txn n=%d p50=%.3f p90=%.3f p99=%.3f p99.9=%.3f max=%.3f ms; hosts' p99: %s" % (
            n, m["p50_ms"], m["p90_ms"], m["p99_ms"], m["p99_9_ms"], m["max_ms"],
            ", ".join("%.3f" % r["latency"]["txn"]["p99_ms"] for r in runs)))
start = min(r["start_time"] for r in runs); end = max(r["end_time"] for r in runs)
if abs(merged["elapsed_s"] - (end - start)) > 1e-5: print("elapsed_s"); ok = False
if abs(merged["delivered_per_s"] - merged["delivered"] / (end - start)) > 1e-3 * merged["delivered_per_s"]:
    print("delivered_per_s"); ok = False
print("# merged: %d delivered in %.3f s, %.1f msgs/s; hosts: %s" % (merged["delivered"], merged["elapsed_s"],
      merged["delivered_per_s"], ", ".join("%s %d" % (r["id"], r["delivered"]) for r in runs)))
tl = merged["timeline"]
if sum(row["messages_out"] for row in tl) != merged["delivered"] or \
   sum(row["messages_in"] for row in tl) != merged["attempted"]:
    print("timeline rows do not add up"); ok = False
# Rows carry their histograms now: a merged row's p99 is there exactly when it has latencies,
# and no row's p99 is above the run's slowest message.
if sum(row["latency_count"] for row in tl) != merged["delivered"]:
    print("rows' latency counts do not add up"); ok = False
if any((row["p99_ms"] is None) != (row["latency_count"] == 0) for row in tl):
    print("a row's p99 missing, or there without latencies"); ok = False
if any(row["p99_ms"] is not None and row["p99_ms"] > m["max_ms"] + 1e-9 for row in tl):
    print("a row's p99 above the run's max"); ok = False
sys.exit(0 if ok else 1)
PY

# What cannot be merged: exit 2, a message, no output file.
bad() {
    local what=$1 word=$2
    shift 2
    rm -f "$WORK/bad.json"
    to "$WORK/bad.out" "$S" merge -o "$WORK/bad.json" "$@"
    local st=$?
    check "refused, $what: exit 2" test $st = 2
    check "  ... saying \"$word\"" grep -q "$word" "$WORK/bad.out"
    check "  ... and no output file" test ! -e "$WORK/bad.json"
}
bad "a sink's result" "not of smtp-source" "$WORK/r1.json" "$WORK/sink.json"
python3 - "$WORK" <<'PY'
import json, sys
w = sys.argv[1]
r = json.load(open(w + "/r2.json"))
r["id"] = "later"; r["start_time"] += 3600; r["end_time"] += 3600
json.dump(r, open(w + "/later.json", "w"))
r = json.load(open(w + "/r2.json"))
r["id"] = "bits"; r["latency"]["txn"]["buckets"]["sub_bucket_bits"] = 5
json.dump(r, open(w + "/bits.json", "w"))
PY
bad "no time overlap" "do not overlap" "$WORK/r1.json" "$WORK/later.json"
bad "another histogram layout" "another layout" "$WORK/r1.json" "$WORK/bits.json"
bad "the same result twice" "the same" "$WORK/r1.json" "$WORK/r1.json"
bad "a missing file" "cannot read" "$WORK/r1.json" "$WORK/none.json"
head -c 300 "$WORK/r1.json" >"$WORK/cut.json"
bad "a result cut short" "not a spoolsim result" "$WORK/cut.json"
bad "no results" "no results" 
to "$WORK/opt.out" "$S" merge --bogus "$WORK/r1.json"
check "an unknown option: exit 2" test $? = 2

# The same result twice is refused whatever its names: another spelling, a
# link, a copy (with --id or without: then host, date, command line and
# window tell one run from another). Merged, it would count every message twice.
python3 - "$WORK" <<'PY'
import json, sys
w = sys.argv[1]
r = json.load(open(w + "/r1.json"))
r["id"] = None
json.dump(r, open(w + "/noid.json", "w"))
json.dump(r, open(w + "/noid-copy.json", "w"))
r["start_time"] += 0.25; r["end_time"] += 0.25
json.dump(r, open(w + "/noid-later.json", "w"))
PY
ln -s noid.json "$WORK/noid-link.json"
ln "$WORK/r1.json" "$WORK/r1-hard.json"
bad "the same file by another spelling" "the same file" "$WORK/r1.json" "$WORK/./r1.json"
bad "  ... through a symbolic link" "the same file" "$WORK/noid.json" "$WORK/noid-link.json"
bad "  ... through a hard link" "the same file" "$WORK/r1-hard.json" "$WORK/r2.json" "$WORK/r1.json"
bad "a copy of a result without --id" "noid-copy.json: the same run as .*noid.json" \
    "$WORK/noid.json" "$WORK/noid-copy.json"
check "  ... the message names both" grep -q "noid-copy.json.*noid.json" "$WORK/bad.out"
check "a run without --id at another time merges" to "$WORK/later.out" \
    "$S" merge --no-summary "$WORK/noid.json" "$WORK/noid-later.json"

# -o one of the inputs, by any name: refused, and the input left as it was.
cp "$WORK/r1.json" "$WORK/r1.saved"
ln -s r1.json "$WORK/r1-link.json"
for out in "$WORK/./r1.json" "$WORK/r1-link.json" "$WORK/r1-hard.json"; do
    to "$WORK/self.out" "$S" merge -o "$out" "$WORK/r1.json" "$WORK/r2.json"
    st=$?
    check "-o $(basename "$out") (an input): exit 2" test $st = 2
    check "  ... saying so" grep -q "that is a result to merge" "$WORK/self.out"
    check "  ... and the input unchanged" cmp -s "$WORK/r1.json" "$WORK/r1.saved"
    cp "$WORK/r1.saved" "$WORK/r1.json" # for the checks that follow, should this one fail
done
rm -f "$WORK/r1-hard.json" "$WORK/r1-link.json"

# A write that fails (here a file size limit: EFBIG, as a full disk gives
# ENOSPC) leaves the previous output whole, and no temporary file.
check "merge to out.json" to "$WORK/out1.out" "$S" merge -o "$WORK/out.json" "$WORK/r1.json" "$WORK/r2.json"
cp "$WORK/out.json" "$WORK/out.saved"
(
    trap '' XFSZ
    ulimit -f 1
    exec "$S" merge -o "$WORK/out.json" "$WORK"/r?.json
) >"$WORK/full.out" 2>&1
check "a write that fails: exit 1" test $? = 1
check "  ... saying why" grep -q "cannot write .*out.json" "$WORK/full.out"
check "  ... the previous output whole" cmp -s "$WORK/out.json" "$WORK/out.saved"
check "  ... and no temporary file" test -z "$(ls "$WORK" | grep '^out\.json\.')"

# A window that is not its run's: refused at once, never rows by the billion.
python3 - "$WORK" <<'PY'
import json, sys
w = sys.argv[1]
def edit(name, **kw):
    r = json.load(open(w + "/r2.json"))
    r["id"] = name
    for k, v in kw.items():
        if v is None: del r[k]
        else: r[k] = v
    json.dump(r, open("%s/%s.json" % (w, name), "w"))
edit("wide", start_time=0, end_time=1e9)
r = json.load(open(w + "/r2.json"))
edit("wide2", start_time=r["end_time"] - 2e6, elapsed_s=2e6, interval_s=0.25)
edit("tiny", interval_s=1e-300)
edit("schema0", schema_version=0)
edit("schema_neg", schema_version=-1)
edit("schema_str", schema_version="1")
edit("schema_none", schema_version=None)
PY
bad_fast() {
    local what=$1 word=$2
    shift 2
    rm -f "$WORK/bad.json"
    timeout 20 "$S" merge -o "$WORK/bad.json" "$@" >"$WORK/bad.out" 2>&1
    local st=$?
    check "refused, $what: exit 2 (in 20 s)" test $st = 2
    check "  ... saying \"$word\"" grep -q "$word" "$WORK/bad.out"
    check "  ... and no output file" test ! -e "$WORK/bad.json"
}
bad_fast "a window of 1e9 s" "wide.json.*not the window" "$WORK/wide.json"
bad_fast "a window of 2e6 s at 0.25 s" "wide2.json: " "$WORK/wide2.json"
bad_fast "interval_s 1e-300" "tiny.json: interval_s" "$WORK/tiny.json"
for v in 0 _neg _str _none; do
    bad_fast "schema_version$v" "schema$v.json: .*schema_version" "$WORK/r1.json" "$WORK/schema$v.json"
done

# Reading is linear in the text: a 5 MB result (a long label before
# everything, and a failures object of 3000 kinds) merges well within the
# bound; each lookup checking the whole text again took minutes.
python3 - "$WORK" <<'PY'
import json, sys
w = sys.argv[1]
r = json.load(open(w + "/r2.json"))
r["id"] = "big"
r["failures"].update(("kind%d" % i, 1) for i in range(3000))
big = {"label": "x" * (5 << 20)}
big.update(r)
json.dump(big, open(w + "/big.json", "w"))
PY
timeout 20 "$S" merge --no-summary -o "$WORK/big-merged.json" "$WORK/r1.json" "$WORK/big.json" \
    >"$WORK/big.out" 2>&1
check "a 5 MB result merges within 20 s" test $? = 0
check "  ... its 3000 kinds of failure in the merge" test "$(python3 -c '
import json, sys
m = json.load(open(sys.argv[1]))
print(sum(1 for k in m["failures"] if k.startswith("kind")))' "$WORK/big-merged.json")" = 3000

finish
