#!/bin/bash
# Integration: spoolsim bench --mta and --compare. A real Postfix (Debian's
# package, fetched into tests/peers, never installed) in the relay's place,
# and a short comparison of the relay's model with it: the report's lines,
# its JSON (both sides' runs, the medians, the ratio model/MTA and the
# verdict), and the options that cannot go with them.
. "${top_srcdir:-.}/tests/helpers/lib.sh"

RELAY="$top_builddir/spoolsim/spoolsim"

# Usage errors, before anything runs (exit 2, naming the problem).
usage_error_ab() {
    local want=$1
    shift
    "$RELAY" ab "$@" >"$WORK/usage.out" 2>&1
    [ $? = 2 ] && grep -q -- "$want" "$WORK/usage.out"
}
usage_error() {
    local want=$1
    shift
    "$RELAY" bench "$@" >"$WORK/usage.out" 2>&1
    [ $? = 2 ] && grep -q -- "$want" "$WORK/usage.out"
}
check "--runs (-n) with --csv is a usage error" usage_error "not with -n" --runs 3 --csv "$WORK/runs.csv"
check "--mta sendmail is a usage error" usage_error "--mta" --mta sendmail
check "--mta with --compare is a usage error" usage_error "exclude each other" \
    --mta postfix --compare postfix
if [ "$(id -u)" = 0 ]; then
    check "--mta with the relay's --model is a usage error" usage_error "--model is the relay's" \
        --mta postfix --model none
    check "--mta with the relay's --sync is a usage error" usage_error "are the relay's" \
        --mta postfix --sync none
    check "--compare with --csv is a usage error" usage_error "--csv" --compare postfix --csv x
    check "--mta with --discard is a usage error" usage_error "--discard" --mta postfix --discard
    if command -v setpriv >/dev/null; then
        setpriv --reuid=nobody --regid=nogroup --clear-groups "$RELAY" bench --mta postfix \
            >"$WORK/nobody.out" 2>&1
        check "--mta as a user other than root is a usage error" test $? = 2
        check "  ... that says root is needed" grep -q "needs root" "$WORK/nobody.out"
    fi
else
    check "--mta without root is a usage error" usage_error "needs root" --mta postfix
    skip_part "a real Postfix needs root"
    finish
fi

if ! have_peer "Postfix" "run scripts/fetch-peer.sh postfix" \
    test -x "$PEER_POSTFIX/bin/postfix" -a -s "$PEER_POSTFIX/version"; then
    finish
fi
export SPOOLSIM_PEERS
# Postfix's daemons are not root: the spool's parents must let them through.
chmod 711 "$WORK"
mkdir -m 755 "$WORK/sp" || exit 1

# A directory they cannot pass: said, naming it, before Postfix starts.
mkdir -m 700 "$WORK/closed" || exit 1
"$RELAY" bench --spool "$WORK/closed" --mta postfix -m 10 -s 1 >"$WORK/closed.out" 2>&1
check "a spool the MTA's daemons cannot reach: exit 3" test $? = 3
check "  ... naming the directory" grep -q "cannot pass through $WORK/closed" "$WORK/closed.out"

# The real Postfix alone.
check "bench --mta postfix runs" to "$WORK/mta.out" timeout 300 "$RELAY" bench \
    --spool "$WORK/sp" --mta postfix -m 300 -s 5 --json "$WORK/mta.json"
check "  ... its report names the real Postfix and its version" \
    grep -qE "^mta: +a real postfix [0-9]+\.[0-9]+" "$WORK/mta.out"
check "  ... every message arrived exactly once" grep -q "^exactly once: yes: 300 acknowledged" \
    "$WORK/mta.out"
check "  ... its JSON names the MTA" python3 -c '
import json, sys
j = json.load(open(sys.argv[1]))
assert j["mta"] == "postfix", j
assert j["mta_version"], j
assert j["delivered"] == 300 and j["exactly_once"] is True, j
' "$WORK/mta.json"
check "  ... and left nothing in the spool's directory" test -z "$(ls -A "$WORK/sp")"

# The comparison, one run a side: both rates, their ratio, the verdict.
check "bench --compare postfix runs" to "$WORK/cmp.out" timeout 600 "$RELAY" bench \
    --spool "$WORK/sp" --compare postfix --runs 1 -m 300 -s 5 --json "$WORK/cmp.json"
check "  ... the report has both sides' runs" grep -qE "^run 1 +model [0-9.]+ msgs/s delivered \(.*\); postfix [0-9.]+" "$WORK/cmp.out"
check "  ... the medians and the ratio" grep -qE "^delivered: +model [0-9.]+ msgs/s, postfix [0-9.]+ msgs/s \(medians\): model/postfix [0-9.]+" "$WORK/cmp.out"
check "  ... and a verdict" grep -qE "^verdict: +(agree|DISAGREE): the model is [0-9]+ % (faster|slower) than the real postfix" "$WORK/cmp.out"
check "  ... its JSON: both runs, the medians, the ratio model/MTA, the verdict" python3 -c '
import json, sys
j = json.load(open(sys.argv[1]))
assert j["mta"] == "postfix" and j["mta_version"], j
assert len(j["model_runs"]) == 1 and len(j["mta_runs"]) == 1, j
m, r = j["model_runs"][0]["delivered_per_s"], j["mta_runs"][0]["delivered_per_s"]
assert m > 0 and r > 0, (m, r)
assert j["delivered_per_s"] == {"model": m, "mta": r}, j["delivered_per_s"]
assert abs(j["ratio"] - m / r) < 1e-6 * j["ratio"], (j["ratio"], m / r)
assert j["agree"] == (abs(m / r - 1) <= 0.15), j
assert j["ratio_ci_low"] is None and j["tolerance"] == 0.15, j
assert j["cost_model"].startswith("postfix"), j["cost_model"]
' "$WORK/cmp.json"
check "  ... and left nothing in the spool's directory" test -z "$(ls -A "$WORK/sp")"

# ab --compare: the A/B ratio the model predicts beside the real one.
mkdir -m 755 "$WORK/sp2" || exit 1
check "ab --compare with MODE raw is a usage error" usage_error_ab "needs MODE relay" \
    --compare postfix "$WORK/sp" "$WORK/sp2" -- raw -m 10
check "ab --compare with --crash is a usage error" usage_error_ab "runs ab twice" \
    --compare postfix --crash 2 "$WORK/sp" "$WORK/sp2" -- relay -m 10
check "ab --compare postfix runs" to "$WORK/ab.out" timeout 600 "$RELAY" ab -n 2 --warmup-runs 0 \
    --compare postfix --json "$WORK/ab.json" "$WORK/sp" "$WORK/sp2" -- relay -m 200 -s 5
check "  ... both passes' reports, then the predicted and the real B/A" python3 -c '
import re, sys
t = open(sys.argv[1]).read()
assert len(re.findall(r"^verdict: \S", t, re.M)) == 2, t
assert re.search(r"^predicted:  B/A [0-9.]+ .*msgs/s \(medians\)$", t, re.M), t
assert re.search(r"^real:       B/A [0-9.]+ .*msgs/s \(medians\)$", t, re.M), t
assert re.search(r"^verdict:    (agree|DISAGREE): the predicted B/A is [0-9]+ % (above|below)", t, re.M), t
' "$WORK/ab.out"
check "  ... its JSON: both ratios and their ratio" python3 -c '
import json, sys
j = json.load(open(sys.argv[1]))
p, r = j["predicted"]["ratio"], j["real"]["ratio"]
assert j["mta"] == "postfix" and p > 0 and r > 0, j
assert abs(j["predicted_over_real"] - p / r) < 1e-6 * p / r, j
assert j["agree"] == (abs(p / r - 1) <= 0.10 + 1e-12), j
' "$WORK/ab.json"
check "no Postfix left running" test -z "$(pgrep -f "$WORK/sp" || true)"

finish
