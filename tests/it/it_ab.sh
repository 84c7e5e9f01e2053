#!/bin/bash
# Integration: `spoolsim ab`, an A/B comparison of two spool directories.
# It must run a mode on both sides, report both filesystems, every run, a
# ratio and a verdict, warn when both sides are one filesystem, leave
# nothing behind in either directory or in $TMPDIR, and refuse what it
# cannot do with exit status 2.
. "${top_srcdir:-.}/tests/helpers/lib.sh"

A=$WORK/a
B=$WORK/b
TMP=$WORK/tmp
mkdir -p "$A" "$B" "$TMP"
empty() { test -z "$(ls -A "$1")"; }
clean() { empty "$A" && empty "$B" && empty "$TMP"; }
ab() { env TMPDIR="$TMP" timeout 300 "$RELAY" ab "$@"; }

# --- relay: two runs a side, no warm-up
check "relay: exit 0" to "$WORK/relay.out" ab --runs 2 --warmup-runs 0 --json "$WORK/relay.json" \
    "$A" "$B" -- relay -m 200 -s 5
check "names side A and its filesystem" grep -q "^A: $A\$" "$WORK/relay.out"
check "names side B" grep -q "^B: $B\$" "$WORK/relay.out"
check "with a filesystem line under each" test "$(grep -c '^   .* (.*) on /' "$WORK/relay.out")" = 2
check "every run's figure, in order" sh -c "grep -E '^[AB] run [0-9]+: ' '$WORK/relay.out' | cut -d: -f1 | tr '\n' ' ' | grep -qx 'A run 1 B run 1 A run 2 B run 2 '"
check "figures in msgs/s" grep -Eq "^B run 2: [0-9]+\.[0-9] msgs/s\$" "$WORK/relay.out"
check "a median per side" test "$(grep -Ec '^[AB] median: [0-9.]+ msgs/s \(2 runs\)$' "$WORK/relay.out")" = 2
check "the ratio with its interval" grep -Eq "^ratio B/A: [0-9.]+ \(95 % CI [0-9.]+–[0-9.]+; bootstrap" "$WORK/relay.out"
check "a verdict" grep -Eq "^verdict: (no difference detectable at this sample size \(B/A = [0-9.]+, 95 % CI [0-9.]+–[0-9.]+, 2 runs each\)|B is [0-9.]+× (slower|faster) than A \(95 % CI [0-9.]+–[0-9.]+×, 2 runs each\))\$" "$WORK/relay.out"
check "the same-filesystem warning" grep -q "^warning: A and B are on the same filesystem" "$WORK/relay.out"
check "progress on standard error" grep -q "^spoolsim ab: A run 1/2 on $A" "$WORK/relay.out"
check "JSON: sides, runs, ratio, verdict" python3 - "$WORK/relay.json" "$A" "$B" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
a, b = d["sides"]["A"], d["sides"]["B"]
assert d["mode"] == "relay" and d["metric"] == "delivered_per_s", d
assert d["runs_per_side"] == 2 and d["failed_runs"] == 0 and d["same_filesystem"] is True
assert a["spool"]["path"] == sys.argv[2] and b["spool"]["path"] == sys.argv[3]
assert a["spool"]["filesystem"] and a["spool"]["mount_options"] is not None
assert len(a["runs"]) == 2 and all(x > 0 for x in a["runs"] + b["runs"])
# (The figures are written with 9 significant digits.)
assert abs(a["median"] - sum(a["runs"]) / 2) < 1e-6 * a["median"]
assert abs(d["ratio"] - b["median"] / a["median"]) < 1e-6
assert d["ci_low"] <= d["ci_high"] and d["verdict"]
PY
check "nothing left in A" empty "$A"
check "nothing left in B" empty "$B"
check "nothing left in TMPDIR" empty "$TMP"

# --- mean, spread, warnings, exports, from a real run of three a side
check "raw: exports" to "$WORK/exp.out" ab -q -n 3 --warmup-runs 0 --json "$WORK/exp.json" \
    --export-markdown "$WORK/exp-markdown" --export-csv "$WORK/exp.csv" "$A" "$B" -- raw -m 100 -w 2
check "a spread line per side" test "$(grep -Ec '^[AB] spread: mean [0-9.]+ ± [0-9.]+ msgs/s \(σ\), min [0-9.]+, max [0-9.]+$' "$WORK/exp.out")" = 2
check "the fewer-than-5-runs warning, for each side" \
    test "$(grep -c '^warning: [AB] has 3 successful runs, fewer than 5' "$WORK/exp.out")" = 2
check "exports and JSON agree" python3 - "$WORK/exp.json" "$WORK/exp-markdown" "$WORK/exp.csv" "$A" "$B" <<'PY'
import csv, json, math, statistics, sys
d = json.load(open(sys.argv[1]))
rows = list(csv.DictReader(open(sys.argv[3], newline="")))
assert [r["side"] for r in rows] == ["A", "B"], rows
for r, k, path in zip(rows, "AB", sys.argv[4:6]):
    s = d["sides"][k]
    runs = s["runs"]
    assert r["directory"] == path and r["unit"] == "msgs/s" and int(r["runs"]) == 3 == len(runs)
    assert math.isclose(s["mean"], statistics.mean(runs), rel_tol=1e-6), (s, runs)
    assert math.isclose(s["stddev"], statistics.stdev(runs), rel_tol=1e-6), (s, runs)
    assert s["min"] == min(runs) and s["max"] == max(runs)
    for key, json_key in (("median", "median"), ("mean", "mean"), ("stddev", "stddev"),
                          ("min", "min"), ("max", "max")):
        assert math.isclose(float(r[key]), s[json_key], rel_tol=1e-8), (key, r[key], s[json_key])
assert float(rows[0]["ratio"]) == 1 and rows[0]["ci_low"] == ""
assert math.isclose(float(rows[1]["ratio"]), d["ratio"], rel_tol=1e-8)
assert math.isclose(float(rows[1]["ci_low"]), d["ci_low"], rel_tol=1e-8)
assert any("fewer than 5" in w for w in d["warnings"]), d["warnings"]
wide = (d["ci_high"] - d["ci_low"]) / d["ratio"] > 0.2
assert wide == any("interval is wide" in w for w in d["warnings"]), d
md = open(sys.argv[2]).read().splitlines()
assert md[0].startswith("| Side | Directory | Median [msgs/s] | Mean ± σ [msgs/s] |"), md
assert md[1] == "|:---|:---|---:|---:|---:|---:|---:|---:|", md
for line, k, path in zip(md[2:], "AB", sys.argv[4:6]):
    cells = [c.strip() for c in line.strip("|").split("|")]
    s = d["sides"][k]
    assert cells[0] == k and cells[1] == f"`{path}`", cells
    assert cells[2] == f"{s['median']:.1f}" and cells[3] == f"{s['mean']:.1f} ± {s['stddev']:.1f}", cells
    assert cells[6] == "3", cells
assert md[3].split("|")[-2].strip() == f"{d['ratio']:.3f} ({d['ci_low']:.3f}–{d['ci_high']:.3f})", md[3]
PY
check "--export-csv in a missing directory: exit 2, named, before any run" sh -c \
    "env TMPDIR='$TMP' '$RELAY' ab --export-csv '$WORK/nodir/x.csv' '$A' '$B' -- raw -m 10 >'$WORK/e.out' 2>&1; test \$? = 2 && grep -q -- '--export-csv' '$WORK/e.out' && ! grep -q 'A run' '$WORK/e.out'"
check "--export-markdown to a directory: exit 2" sh -c \
    "'$RELAY' ab --export-markdown '$WORK' '$A' '$B' -- raw -m 10 >/dev/null 2>&1; test \$? = 2"
check "nothing left in A after the exports" empty "$A"

# --- the same seed gives the same interval
check "quiet: only the report" to "$WORK/quiet.out" ab -q -n 2 --warmup-runs 0 "$A" "$B" -- relay -m 100 -s 5 --sync none
check "no progress with -q" sh -c "! grep -v '^spoolsim ab: warning:' '$WORK/quiet.out' | grep -q '^spoolsim ab:'"

# --- postmark: the user's file, its run/location/json lines replaced
cat >"$WORK/pm.cmd" <<EOF
set size 500 2000
set number 50
set transactions 300
set location /nonexistent/elsewhere
set json /nonexistent/report.json
run
set seed 7
quit
set number 999999
EOF
check "postmark: exit 0" to "$WORK/pm.out" ab -n 2 --warmup-runs 1 --json "$WORK/pm.json" "$A" "$B" -- postmark "$WORK/pm.cmd"
check "postmark: figures in transactions/s" grep -Eq "^A run 1: [0-9]+\.[0-9] transactions/s\$" "$WORK/pm.out"
check "postmark: a verdict" grep -q "^verdict: " "$WORK/pm.out"
check "postmark: JSON metric" python3 -c "import json,sys; d=json.load(open('$WORK/pm.json')); sys.exit(0 if d['metric']=='transactions_per_s' and len(d['sides']['B']['runs'])==2 and d['failed_runs']==0 else 1)"
check "postmark: its directories removed" clean

# --- a failed run: reported, the rest still runs, exit 1
check "failed runs: exit 3" sh -c "SPOOLSIM_SMTP_SINK=/nonexistent TMPDIR='$TMP' timeout 120 '$RELAY' ab -n 2 --warmup-runs 0 '$A' '$B' -- relay -m 10 >'$WORK/fail.out' 2>'$WORK/fail.err'; test \$? = 3"
check "the report still printed" grep -q "^A run 2: failed\$" "$WORK/fail.out"
check "no verdict without figures" grep -q "^verdict: cannot compare" "$WORK/fail.out"
check "the failure explained" grep -q "A run 1: relay failed: exit status 3" "$WORK/fail.err"
check "nothing left behind after failures" clean

# --- usage errors: exit 2, naming the problem
usage_error() { # PATTERN ARGS...: exit 2 and PATTERN in the message
    local pattern=$1
    shift
    env TMPDIR="$TMP" timeout 60 "$RELAY" ab "$@" >"$WORK/usage.out" 2>&1
    local status=$?
    [ "$status" = 2 ] && grep -q -e "$pattern" "$WORK/usage.out"
}
check "usage: missing --" usage_error "missing --" "$A" "$B" relay
check "usage: missing MODE" usage_error "missing MODE" "$A" "$B" --
check "usage: unknown MODE" usage_error 'unknown MODE "fast"' "$A" "$B" -- fast
check "usage: missing DIR_B" usage_error "missing DIR_B" "$A" -- relay
check "usage: missing both" usage_error "missing DIR_A and DIR_B" -- relay
check "usage: a third directory" usage_error "unexpected argument" "$A" "$B" "$A" -- relay
check "usage: --runs 1" usage_error "--runs" -n 1 "$A" "$B" -- relay
check "usage: unknown option" usage_error "unknown option" --frobnicate "$A" "$B" -- relay
check "usage: DIR_A does not exist" usage_error "DIR_A $WORK/nonexistent: No such file" "$WORK/nonexistent" "$B" -- relay
check "usage: DIR_B not a directory" usage_error "not a directory" "$A" "$WORK/pm.cmd" -- relay
check "usage: --json is not allowed in ARGS" usage_error "--json is not allowed in ARGS" "$A" "$B" -- relay --json=x
check "usage: --discard is not allowed in relay ARGS" usage_error "--discard is not allowed in ARGS" "$A" "$B" -- relay --discard
check "usage: postmark needs one file" usage_error "exactly one" "$A" "$B" -- postmark
check "usage: unreadable postmark file" usage_error "cannot read" "$A" "$B" -- postmark "$WORK/nonexistent"
check "usage: arguments the child refuses" usage_error "refused its arguments" --warmup-runs 0 "$A" "$B" -- relay --frobnicate
check "usage: --crash with MODE raw" usage_error "--crash needs MODE relay" --crash 4 "$A" "$B" -- raw -m 10
check "usage: --crash 0" usage_error "--crash" --crash 0 "$A" "$B" -- relay
check "and nothing left behind" clean
check "--help: exit 0" sh -c "'$RELAY' ab --help | grep -q '^Usage: spoolsim ab'"

# A child that ignores the stop: ab passes SIGTERM on, waits 30 s, then
# kills it and says so; it never hangs (a set-up that traps TERM, its sleep
# exec'd so that the killed child is the sleeper itself).
env TMPDIR="$TMP" timeout --foreground 120 "$RELAY" ab -n 2 --warmup-runs 0 \
    --setup-a "trap '' TERM; exec sleep 100" --setup-b true "$A" -- raw -m 10 \
    >"$WORK/stuck.out" 2>&1 &
stuck=$!
PIDS="$PIDS $stuck"
setup_sleeping() { pgrep -f "^sleep 100\$" >/dev/null; }
if check "a set-up that ignores SIGTERM is running" wait_until 30 setup_sleeping; then
    t0=$(date +%s)
    kill -TERM "$stuck"
    wait "$stuck"
    rc=$? t=$(($(date +%s) - t0))
    check "... SIGTERM to ab: exit 143 (got $rc)" test "$rc" = 143
    check "... after the grace of 30 s, not before, not long after ($t s)" test "$t" -ge 29 -a "$t" -le 45
    check "... saying what it killed" grep -q "setup (PID [0-9]*) did not stop within 30 s of a SIGTERM: killed" "$WORK/stuck.out"
    check "... and the set-up is gone" sh -c "! pgrep -f '^sleep 100\$'"
fi

# --- raw, when this build has it
if "$RELAY" raw --help >/dev/null 2>&1; then
    check "raw: exit 0" to "$WORK/raw.out" ab -n 2 --warmup-runs 0 --json "$WORK/raw.json" "$A" "$B" -- raw -m 200
    check "raw: figures in msgs/s" grep -Eq "^A run 1: [0-9]+\.[0-9] msgs/s\$" "$WORK/raw.out"
    check "raw: a verdict" grep -q "^verdict: " "$WORK/raw.out"
    check "raw: JSON metric" python3 -c "import json,sys; d=json.load(open('$WORK/raw.json')); sys.exit(0 if d['metric']=='delivered_per_s' and d['failed_runs']==0 else 1)"
    check "raw: nothing left behind" clean
else
    skip_part "the raw mode: spoolsim raw is not in this build"
fi
finish
