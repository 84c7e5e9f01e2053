#!/bin/bash
# Integration: `spoolsim bench`'s CPU per message of the relay, the source
# and the sink, each from the program's own report (kept with --keep), and
# --harness-threads: passed to smtp-source and smtp-sink as --threads (their
# JSON says so), exactly once still, a bad value a usage error before
# anything starts. When the harness is the limit is decided by
# bottleneck_harness_verdict(), tested with fixed figures in tests/unit/check_bottleneck.c;
# here only that a warning, if a run gives one, is the same in both reports.
. "${top_srcdir:-.}/tests/helpers/lib.sh"

# The figures against the three programs' own JSON: bench's report and theirs.
cat >"$WORK/cpu.py" <<'PY'
import glob, json, re, sys
bench_json, text_file, tmp, threads = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
b = json.load(open(bench_json))
work = glob.glob(tmp + "/spoolsim-bench.*")
assert len(work) == 1, work
work = work[0]
relay = json.load(open(work + "/relay.json"))
source = json.load(open(work + "/source.json"))
sink = json.load(open(work + "/sink.json"))
cpm = b["cpu_per_message_s"]
assert b["injected"] == source["delivered"] > 0
assert b["delivered"] == sink["messages"] > 0
want = {
    "relay": sum(relay["cpu_s"].values()) / b["injected"],
    "source": source["cpu_s"] / b["injected"],
    "sink": sink["cpu_s"] / b["delivered"],
}
text = open(text_file).read()
m = re.search(r"^(?:\[[^]]*\] )?CPU: +relay (\d+) us, source (\d+) us, sink (\d+) us per message", text, re.M)
assert m, "no CPU: line"
for i, name in enumerate(("relay", "source", "sink")):
    assert cpm[name] > 0, (name, cpm)
    assert abs(cpm[name] - want[name]) <= 1e-6 * want[name] + 1e-9, (name, cpm[name], want[name])
    assert int(m.group(i + 1)) == round(cpm[name] * 1e6), (name, m.group(i + 1), cpm[name])
    assert int(m.group(i + 1)) > 0, name
assert b["harness_threads"] == threads, b["harness_threads"]
assert source["threads"] == threads, source["threads"]
assert sink["threads"] == threads, sink["threads"]
assert ("smtp-sink on %d thread" % threads) in text
w = b["harness_warning"]
lines = [l for l in text.splitlines() if "warning:" in l]
if w is None:
    assert not lines, lines
else:
    assert w.startswith("the harness is the limit: "), w
    assert len(lines) == 1 and lines[0].endswith("warning:    " + w), (lines, w)
PY

TMP1=$WORK/t1 && mkdir -p "$TMP1"
check "bench: 400 messages, kept" to "$WORK/b1.out" env TMPDIR="$TMP1" timeout 120 "$RELAY" bench -m 400 -s 10 \
    --sync none --spool "$TMP1" --keep --json "$WORK/b1.json" -q
check "  ... exactly once" grep -q "exactly once: yes: 400 acknowledged, 400 delivered" "$WORK/b1.out"
check "  ... CPU per message: each > 0, the programs' own cpu_s over their messages" \
    python3 "$WORK/cpu.py" "$WORK/b1.json" "$WORK/b1.out" "$TMP1" 1

TMP2=$WORK/t2 && mkdir -p "$TMP2"
check "--harness-threads 2" to "$WORK/b2.out" env TMPDIR="$TMP2" timeout 120 "$RELAY" bench -m 600 -s 10 \
    --sync none --spool "$TMP2" --keep --json "$WORK/b2.json" -q --harness-threads 2
check "  ... exactly once" grep -q "exactly once: yes: 600 acknowledged, 600 delivered, 0 lost, 0 duplicated, 0 unexpected" "$WORK/b2.out"
check "  ... source and sink ran with --threads 2, the figures theirs" \
    python3 "$WORK/cpu.py" "$WORK/b2.json" "$WORK/b2.out" "$TMP2" 2

TMP3=$WORK/t3 && mkdir -p "$TMP3"
check "--discard: no sink, no sink figure" to "$WORK/b3.out" env TMPDIR="$TMP3" timeout 120 \
    "$RELAY" bench -m 100 --discard --sync none --json "$WORK/b3.json" -q
check "  ... n/a in the text" grep -Eq "CPU: +relay [0-9]+ us, source [0-9]+ us, sink n/a per message" "$WORK/b3.out"
check "  ... null in the JSON" python3 -c "import json,sys; c=json.load(open('$WORK/b3.json'))['cpu_per_message_s']; sys.exit(0 if c['sink'] is None and c['relay'] > 0 and c['source'] > 0 else 1)"

# A bad value: exit 2 with the option named, and nothing made or started.
TMP4=$WORK/t4 && mkdir -p "$TMP4"
for bad in 0 -1 x 257 "21 -s 20"; do
    # shellcheck disable=SC2086 # "21 -s 20" is two options
    check "--harness-threads $bad: exit 2" sh -c "env TMPDIR='$TMP4' '$RELAY' bench -m 10 \
        --harness-threads $bad >'$WORK/bad.out' 2>'$WORK/bad.err'; test \$? = 2"
    check "  ... names the option" grep -q -- "--harness-threads" "$WORK/bad.err"
    check "  ... before anything started" test -z "$(ls -A "$TMP4")"
done
finish
