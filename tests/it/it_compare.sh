#!/bin/bash
# Integration: spoolsim compare puts stored results side by side. Two raw
# runs and an ab comparison: a row each (two for ab, its sides), the ratio
# to the first, and for ab's sides exactly ab's own ratio, 95 % interval
# and seed; --json - holds the JSON alone; what has no figure to compare,
# or fewer than two results, is a usage error (2); a JSON that cannot be
# written is exit 1.
. "${top_srcdir:-.}/tests/helpers/lib.sh"

S=$top_builddir/spoolsim/spoolsim
mkdir -p "$WORK/a" "$WORK/b"
check "raw run 1" to "$WORK/r1.out" "$S" raw -q --spool "$WORK/a" -m 200 --json "$WORK/r1.json"
check "raw run 2" to "$WORK/r2.out" "$S" raw -q --spool "$WORK/b" -m 200 --json "$WORK/r2.json"
check "an ab comparison of raw, 3 runs a side" to "$WORK/ab.out" "$S" ab -q -n 3 --warmup-runs 0 \
    --seed 5 --json "$WORK/ab.json" "$WORK/a" "$WORK/b" -- raw -m 200

check "compare: exit 0" to "$WORK/c.out" "$S" compare --seed 5 "$WORK/ab.json" "$WORK/r1.json" \
    "$WORK/r2.json" --json "$WORK/c.json"
check "  the metric and the baseline named" grep -q "^spoolsim compare: delivered_per_s (msgs/s), against $WORK/ab.json:A\$" "$WORK/c.out"
check "  a row per side and per run" test "$(grep -c "^$WORK/" "$WORK/c.out")" = 4
check "  the baseline says so" grep -Eq "^$WORK/ab.json:A +3 +[0-9.]+ \([0-9.]+-[0-9.]+\) +baseline\$" "$WORK/c.out"
check "  a single run: its ratio alone" grep -Eq "^$WORK/r1.json +1 +[0-9.]+ +[0-9]+\.[0-9]{3}\$" "$WORK/c.out"
check "  JSON: ab's sides give ab's own ratio and interval" python3 - "$WORK/ab.json" "$WORK/c.json" <<'PY'
import json, sys
ab, c = (json.load(open(p)) for p in sys.argv[1:])
assert c["program"] == "spoolsim compare" and c["seed"] == ab["seed"] == 5, c
rows = c["results"]
assert [r["result"].rsplit("/", 1)[1] for r in rows] == ["ab.json:A", "ab.json:B", "r1.json", "r2.json"], rows
assert rows[1]["ratio"] == ab["ratio"] and rows[1]["ratio_ci_low"] == ab["ci_low"] \
    and rows[1]["ratio_ci_high"] == ab["ci_high"], (rows[1], ab["ratio"], ab["ci_low"], ab["ci_high"])
assert rows[0]["runs"] == [x for x in ab["sides"]["A"]["runs"] if x is not None]
r1 = json.load(open(sys.argv[1].replace("ab.json", "r1.json")))
assert rows[2]["runs"] == [r1["delivered_per_s"]] and rows[2]["ci_low"] is None
assert abs(rows[2]["ratio"] - r1["delivered_per_s"] / rows[0]["median"]) < 1e-6 * rows[2]["ratio"]
assert rows[0]["ratio"] is None and rows[2]["outcome"] is None
PY
"$S" compare --json - "$WORK/r1.json" "$WORK/r2.json" >"$WORK/stdout.json" 2>"$WORK/stdout.err"
check "--json -: exit 0, the JSON alone on standard output" sh -c "test $? = 0 && python3 -m json.tool '$WORK/stdout.json' >/dev/null && grep -q baseline '$WORK/stdout.err'"

# refused: usage errors, nothing written
printf '{"program": "spoolsim crash", "durable": true}\n' >"$WORK/crash.json"
for bad in "one:$WORK/r1.json" "crash:$WORK/r1.json $WORK/crash.json" \
    "missing:$WORK/r1.json $WORK/none.json" "self:$WORK/r1.json $WORK/r2.json --json $WORK/r2.json"; do
    name=${bad%%:*}
    # shellcheck disable=SC2086 # the arguments split on purpose
    to "$WORK/$name.out" "$S" compare ${bad#*:}
    check "refused, $name: exit 2" test $? = 2
    check "  ... $name: the results left as they were" test -s "$WORK/r2.json"
done
check "  ... the crash result: why" grep -q "a spoolsim crash result has no rate to compare" "$WORK/crash.out"
to "$WORK/full.out" "$S" compare "$WORK/r1.json" "$WORK/r2.json" --json /dev/full
check "--json /dev/full: exit 1" test $? = 1
finish
