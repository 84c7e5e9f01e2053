#!/bin/bash
# Integration: `spoolsim bench`, the main job. It must run with no
# configuration, report exactly-once delivery, and leave nothing behind:
# no directory, no process.
. "${top_srcdir:-.}/tests/helpers/lib.sh"

TMP=$WORK/tmp
mkdir -p "$TMP"
check "bench runs: 500 messages" to "$WORK/bench.out" env TMPDIR="$TMP" timeout 120 \
    "$RELAY" bench -m 500 -s 10 --json "$WORK/bench.json"
check "every message exactly once" grep -q "^exactly once: yes: 500 acknowledged, 500 delivered, 0 lost" "$WORK/bench.out"
check "the report names the filesystem" grep -q "^spool: .*$TMP/spoolsim-bench" "$WORK/bench.out"
check "the report states the sync policy" grep -q "^relay: *profile postfix, sync fsync" "$WORK/bench.out"
check "one create, one fsync per message" grep -q "^per message: 1.00 creates, 2.00 renames, 1.00 unlinks, 1.00 fsyncs, 1.00 chmods" "$WORK/bench.out"
check "JSON: exactly_once true" python3 -c "import json,sys; d=json.load(open('$WORK/bench.json')); sys.exit(0 if d['exactly_once'] and d['acknowledged']==500 and d['delivered_per_s']>0 else 1)"
check "the work directory is removed" test -z "$(ls -A "$TMP")"
# Only this test's own directory: other tests (it_interrupt.sh) run bench
# at the same time under make -j. (The regular expression does not match
# its own text, so pgrep never finds itself.)
no_leftovers() { ! pgrep -f "$TMP/spoolsim-bench\.[A-Za-z0-9]+/" >/dev/null; }
check "no process left behind" no_leftovers

TMPW=$WORK/tmpw && mkdir -p "$TMPW"
check "--spool DIR: the spool goes inside DIR" to "$WORK/bench2.out" env TMPDIR="$TMPW" \
    timeout 120 "$RELAY" bench -m 100 -s 5 --spool "$TMP" --sync none --keep
check "and --keep keeps it" test -d "$(ls -d "$TMP"/spoolsim-spool.*)/spool"
# a spool that fills its filesystem must not cut the harness's logs (issue 35)
check "the spool alone there: the logs are in \$TMPDIR's work directory" \
    test -s "$(ls -d "$TMPW"/spoolsim-bench.*)/sink.log" -a -z "$(ls -d "$TMP"/spoolsim-bench.* 2>/dev/null)"
check "the report states --sync none" grep -q "^\[sync none\] relay: *profile postfix, sync none" "$WORK/bench2.out"
check "on every line of the report" test -z "$(grep -v -e '^\[sync none\] ' -e '^spoolsim bench: ' "$WORK/bench2.out")"
check "no fsync under --sync none" grep -q "^\[sync none\] fsyncs: *0 " "$WORK/bench2.out"

check "--discard: no sink" to "$WORK/bench3.out" env TMPDIR="$TMP" timeout 120 \
    "$RELAY" bench -m 100 --discard -q
TMP4=$WORK/tmp4 && mkdir -p "$TMP4" "$TMP4/work"
check "--tls: STARTTLS on both legs" to "$WORK/bench4.out" timeout 120 \
    env TMPDIR="$TMP4/work" "$RELAY" bench -m 300 --tls --keep --spool "$TMP4" --json "$WORK/bench4.json"
check "--tls: exactly once" grep -q "^exactly once: yes: 300 acknowledged, 300 delivered" "$WORK/bench4.out"
check "--tls: the report says so" grep -q "^relay: .*; STARTTLS in and out" "$WORK/bench4.out"
check "--tls: and the JSON" python3 -c "import json,sys; sys.exit(0 if json.load(open('$WORK/bench4.json'))['tls'] is True else 1)"
relay4=$(ls -d "$TMP4"/work/spoolsim-bench.*)/relay.json
check "--tls: every client session of the relay was TLS" \
    test "$(json_get "$relay4" tls_sessions)" = "$(json_get "$relay4" sessions)"
check "--tls: every connection to the sink too" \
    test "$(json_get "$relay4" hop_tls_sessions)" = "$(json_get "$relay4" hop_connections)"
check "--tls: at least one of each" test "$(json_get "$relay4" hop_tls_sessions)" -ge 1
check "bad option: exit 2" sh -c "'$RELAY' bench --frobnicate >/dev/null 2>&1; test \$? = 2"
check "bad --sync: exit 2" sh -c "'$RELAY' bench --sync sometimes >/dev/null 2>&1; test \$? = 2"
check "missing --spool directory: a clear error" sh -c "! '$RELAY' bench -m 10 --spool '$WORK/nonexistent' 2>'$WORK/e.err' && grep -q nonexistent '$WORK/e.err'"
check "a component that cannot start: exit 3" sh -c "SPOOLSIM_SMTP_SINK=/nonexistent '$RELAY' bench -m 10 --spool '$TMP' >/dev/null 2>&1; test \$? = 3"
rm -rf "$TMP"/spoolsim-spool.*  # what --keep kept above
check "and nothing left behind" sh -c "SPOOLSIM_SMTP_SINK=/nonexistent '$RELAY' bench -m 10 --spool '$TMP' >/dev/null 2>&1; test -z \"\$(ls -A '$TMP')\""
# --rate's spacing and the seed: chosen, passed to smtp-source, recorded (issue 35:
# bench --rate was always Poisson, and bench had no --seed)
check "--rate with --arrivals fixed and --seed 7" to "$WORK/seed.out" env TMPDIR="$TMP" timeout 120 \
    "$RELAY" bench -m 60 --rate 300 --arrivals fixed --seed 7 --model none --keep -q \
    --json "$WORK/seed.json"
check "  the JSON records both" python3 -c "import json,sys; d=json.load(open('$WORK/seed.json')); sys.exit(not (d['arrivals'] == 'fixed' and d['seed'] == 7))"
check "  smtp-source ran with them" python3 -c "
import glob, json, sys
c = json.load(open(glob.glob('$TMP/spoolsim-bench.*/source.json')[0]))['command_line']
sys.exit(not (c[c.index('--seed') + 1] == '7' and c[c.index('--arrivals') + 1] == 'fixed'))"
rm -rf "$TMP"/spoolsim-bench.*
check "--arrivals other than poisson or fixed: exit 2" sh -c "'$RELAY' bench --arrivals burst --dry-run >/dev/null 2>&1; test \$? = 2"
finish
