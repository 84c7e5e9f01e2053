#!/bin/bash
# Integration: spoolsim bench -n N, one run as one sample: a warm-up run
# not counted, then N runs; the median with its 95 % bootstrap interval and
# the spread, in text and JSON (repeated), which spoolsim compare reads;
# --dry-run says so; -n 0 and -n with --csv are usage errors; a run that
# cannot finish is exit 3.
. "${top_srcdir:-.}/tests/helpers/lib.sh"

S=$top_builddir/spoolsim/spoolsim
mkdir -p "$WORK/sp" "$WORK/t"
export TMPDIR=$WORK/t

check "bench -n 3: exit 0" to "$WORK/n.out" timeout 300 "$S" bench -n 3 -m 40 -s 4 --spool "$WORK/sp" \
    --json "$WORK/n.json"
check "  ... a warm-up run, not counted" grep -q "^spoolsim bench: warm-up run (not counted)" "$WORK/n.out"
check "  ... three runs" test "$(grep -c '^spoolsim bench: run [123] of 3: [0-9.]* msgs/s delivered$' "$WORK/n.out")" = 3
check "  ... the report: runs, median, spread, interval" sh -c "
    grep -q '^runs: *3 of 3 finished, after 1 warm-up run (not counted)\$' '$WORK/n.out' &&
    grep -Eq '^delivered: +median [0-9.]+ msgs/s, mean [0-9.]+, sd [0-9.]+ \([0-9.]+ %\), min [0-9.]+, max [0-9.]+\$' '$WORK/n.out' &&
    grep -Eq '^ +95 % CI of the median [0-9.]+-[0-9.]+ \(bootstrap, 10000 resamples\)\$' '$WORK/n.out'"
check "  ... JSON: the three runs, their median, interval and spread" python3 - "$WORK/n.json" <<'PY'
import json, statistics, sys
d = json.load(open(sys.argv[1]))
r = d["repeated"]
assert d["program"] == "spoolsim bench" and d["runs"] == 3 and d["warmup_runs"] == 1, d
assert len(r["runs"]) == 3 and all(x > 0 for x in r["runs"]), r
assert r["exactly_once"] == [True] * 3 and r["successful_runs"] == 3, r
assert abs(r["median"] - statistics.median(r["runs"])) < 1e-6 * r["median"], r
assert min(r["runs"]) <= r["ci_low"] <= r["median"] <= r["ci_high"] <= max(r["runs"]), r
s = r["summary"]
assert abs(s["stddev"] - statistics.stdev(r["runs"])) < 1e-6 * max(s["stddev"], 1e-9) + 1e-6, s
assert s["min"] == min(r["runs"]) and s["max"] == max(r["runs"]), s
assert len(r["injected_runs"]) == 3 and r["seed"] == 1, r
PY
check "  ... no run left a directory behind" sh -c "[ -z \"\$(ls -A '$WORK/sp')\" ]"
check "compare reads the runs" to "$WORK/cmp.out" "$S" compare "$WORK/n.json" "$WORK/n.json"
check "  ... three runs, an interval" grep -Eq "^$WORK/n.json +3 +[0-9.]+ \([0-9.]+-[0-9.]+\) +baseline\$" "$WORK/cmp.out"

check "--dry-run: a warm-up and the runs" sh -c "'$S' bench -n 4 -m 10 --dry-run 2>&1 | grep -q 'would run a warm-up and 4 runs'"
to "$WORK/zero.out" "$S" bench -n 0 -m 10
check "-n 0: exit 2" test $? = 2
to "$WORK/csv.out" "$S" bench -n 2 -m 10 --csv "$WORK/t.csv"
check "-n with --csv: exit 2" test $? = 2
check "  ... saying why" grep -q "not with -n, which makes several" "$WORK/csv.out"
# a sink that exits at once: every run fails, and says so
to "$WORK/fail.out" env SPOOLSIM_SMTP_SINK=/bin/false timeout 120 "$S" bench -n 2 -m 10 --spool "$WORK/sp" --json "$WORK/fail.json"
status=$?
check "runs that do not finish: exit 3 (it was $status)" test "$status" = 3
check "  ... said, and no figure" sh -c "grep -q 'run-1 did not finish' '$WORK/fail.out' && grep -q '^runs: *0 of 2 finished' '$WORK/fail.out'"
finish
