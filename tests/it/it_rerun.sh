#!/bin/bash
# Integration: spoolsim rerun runs the command line a result holds again.
# --dry-run prints it (quoted for a shell) and runs nothing; --json puts
# the new result elsewhere, which then holds the same command line but
# that path, and compares with the first; without it the stored path is
# replaced, and said; the run's exit status is rerun's. A result without a
# command line, from another program, or whose command line does not run
# the program it names is refused (exit 2) and nothing runs.
. "${top_srcdir:-.}/tests/helpers/lib.sh"

S=$top_builddir/spoolsim/spoolsim
D="$WORK/spool dir" # a space: the dry run quotes it
mkdir -p "$D"
check "a raw result" to "$WORK/r.out" "$S" raw -q --spool "$D" -m 100 --json "$WORK/r.json"

check "--dry-run: exit 0" to "$WORK/dry.out" "$S" rerun --dry-run "$WORK/r.json"
check "  ... the command line, quoted" grep -qxF "  spoolsim raw -q --spool '$D' -m 100 --json $WORK/r.json" "$WORK/dry.out"
check "  ... nothing ran" test -z "$(ls -A "$D")"

check "--json again.json: exit 0" to "$WORK/again.out" "$S" rerun --json "$WORK/again.json" "$WORK/r.json"
check "  ... the new result: the same command line, the new path" python3 - "$WORK/r.json" "$WORK/again.json" <<'PY'
import json, sys
old, new = (json.load(open(p)) for p in sys.argv[1:])
want = [sys.argv[2] if a == sys.argv[1] else a for a in old["command_line"]]
assert new["command_line"] == want, (new["command_line"], want)
assert new["program"] == old["program"] == "spoolsim raw" and new["delivered"] == 100
assert new["host"]["machine"] == old["host"]["machine"]
PY
check "  ... and compare takes both" to "$WORK/cmp.out" "$S" compare "$WORK/r.json" "$WORK/again.json"

date_before=$(python3 -c "import json,sys; print(json.load(open(sys.argv[1]))['date'])" "$WORK/r.json")
sleep 1 # a new date to tell the new result from the old
check "without --json: the stored path, replaced" to "$WORK/same.out" "$S" rerun "$WORK/r.json"
check "  ... said" grep -q "the new result replaces $WORK/r.json" "$WORK/same.out"
check "  ... a new result there" test "$(python3 -c "import json,sys; print(json.load(open(sys.argv[1]))['date'])" "$WORK/r.json")" != "$date_before"

# the run's own status: a stored run whose directory is gone is a usage error (2)
python3 - "$WORK/r.json" "$WORK/gone.json" "$WORK/none" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
r["command_line"] = [sys.argv[3] if a.endswith("spool dir") else a for a in r["command_line"]]
json.dump(r, open(sys.argv[2], "w"))
PY
to "$WORK/gone.out" "$S" rerun --json "$WORK/gone-new.json" "$WORK/gone.json"
check "the run's exit status (2: its --spool is gone)" test $? = 2
check "  ... raw's own message" grep -q "spoolsim raw: usage error: --spool $WORK/none" "$WORK/gone.out"

# refused, exit 2, nothing run
refuse() { # refuse NAME JSON PATTERN
    printf '%s\n' "$2" >"$WORK/$1.json"
    to "$WORK/$1.out" "$S" rerun "$WORK/$1.json"
    check "refused, $1: exit 2" test $? = 2
    check "  ... $1: says why" grep -q -- "$3" "$WORK/$1.out"
}
refuse nocl '{"program": "spoolsim raw"}' 'no command line ("command_line") to run again'
refuse other '{"program": "spoolsim raw", "command_line": ["rm", "-rf", "/x"]}' 'a command line of another program (rm)'
refuse mismatch '{"program": "spoolsim raw", "command_line": ["spoolsim", "bench", "-m", "1"]}' 'a spoolsim raw result whose command line runs spoolsim bench'
refuse noprog '{"command_line": ["spoolsim", "raw"]}' 'no "program"'
refuse notjson 'not json' 'no command line'
to "$WORK/nojson.out" "$S" rerun --json "$WORK/x.json" "$WORK/cmp-less.json"
check "refused, a file that is not there: exit 2" test $? = 2
python3 - "$WORK/r.json" "$WORK/nojsonopt.json" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
i = r["command_line"].index("--json")
del r["command_line"][i:i + 2]
json.dump(r, open(sys.argv[2], "w"))
PY
to "$WORK/nojsonopt.out" "$S" rerun --json "$WORK/x.json" "$WORK/nojsonopt.json"
check "refused, --json for a command line without one: exit 2" test $? = 2
check "  ... nothing written" test ! -e "$WORK/x.json"
finish
