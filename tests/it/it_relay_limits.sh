#!/bin/bash
# Integration: the relay's session limit and its report signals. With
# --max-sessions 2, two of five idle connections are greeted and three wait
# in the listen backlog (not refused), to be served once sessions end, as
# with Postfix's process limit. SIGUSR1 prints the statistics so far and
# writes the JSON so far, and the relay goes on; SIGHUP is logged and
# changes nothing; SIGTERM then stops it with its summary, exit 0.
. "${top_srcdir:-.}/tests/helpers/lib.sh"

command -v python3 >/dev/null || skip "python3 is required"
start_relay cap --spool "$WORK/cap.spool" --next-hop discard --max-sessions 2 \
    --json "$WORK/cap.json" || exit 1
echo | timeout 30 python3 "$top_srcdir/tests/helpers/conn_hold.py" "$cap_PORT" 5 2 >"$WORK/cap.out" 2>&1
check "--max-sessions 2: two of five greeted, three wait in the backlog ($(cat "$WORK/cap.out"))" \
    grep -q "^greeted 2 refused 0 waiting 3" "$WORK/cap.out"
check "  ... and are served once the others leave" to "$WORK/cap.src" timeout 30 "$SOURCE" -s 4 -m 8 \
    "127.0.0.1:$cap_PORT"

# SIGUSR1 mid-run: the summary so far, the JSON so far, and the relay goes on.
# (The signals go to the relay itself, not to the timeout(1) that runs it.)
relay=$(pgrep -P "$cap_PID" spoolsim || echo "$cap_PID")
rm -f "$WORK/cap.json"
kill -USR1 "$relay"
check "SIGUSR1: the JSON so far is written" wait_until 10 json_complete "$WORK/cap.json"
check "SIGUSR1: the statistics so far on standard error" \
    grep -q "statistics so far (SIGUSR1)" "$WORK/cap.err"
check "SIGUSR1: and the JSON so far" python3 -c "import json, sys
d = json.load(open(sys.argv[1]))
sys.exit(not (d['messages_in'] == 8 and d['session_limit_waits'] >= 1))" "$WORK/cap.json"
kill -HUP "$relay"
check "SIGHUP: said and ignored" wait_until 10 grep -q "SIGHUP: nothing to re-read" "$WORK/cap.err"
check "the relay is alive after both" kill -0 "$relay"
check "and still serves" to "$WORK/cap.src2" timeout 30 "$SOURCE" -m 2 "127.0.0.1:$cap_PORT"
kill "$cap_PID"
wait "$cap_PID"
status=$?
check "SIGTERM: exit status 0" test "$status" = 0
check "and its summary counts all ten" grep -q "^received 10 " "$WORK/cap.err"
check "the summary names the waits at the limit" grep -q "the session limit (--max-sessions 2)" \
    "$WORK/cap.err"
finish
