#!/bin/bash
# Integration: a result file is whole or absent, never half of one, and is
# this run's (issue 35). A message log a write to which failed is said:
# exit 1, and msg_log_complete false in the JSON. A --json that cannot be written (/dev/full, a
# full filesystem) makes raw, bench, smtp-source, smtp-sink, relay and
# postmark exit 1 and leaves no truncated or empty file; an earlier
# result at the path is removed when a run starts, so that an
# interrupted run leaves none to be read as its own; `--json -' puts the
# JSON alone on standard output (the text report goes to standard error);
# a path that is not UTF-8 still gives valid JSON; a symbolic link as the
# result's path stays a link to the new result.
. "${top_srcdir:-.}/tests/helpers/lib.sh"
S="$top_builddir/spoolsim/spoolsim"
R=$WORK/raw
mkdir -p "$R"

# valid_json FILE: FILE holds one JSON document and nothing else.
valid_json() {
    python3 -c 'import json, sys; json.load(open(sys.argv[1], "rb"))' "$1" 2>/dev/null
}
# exit_is WANT COMMAND...: COMMAND's exit status is WANT.
exit_is() {
    local want=$1
    shift
    "$@" >"$WORK/last.out" 2>&1
    test $? = "$want"
}

# ---------------------------------------------------------------- cannot be written
check "raw --json /dev/full: exit 1" exit_is 1 timeout 60 "$S" raw --spool "$R" -m 50 -q --json /dev/full
check "  ... saying it could not write it" grep -q "cannot write /dev/full" "$WORK/last.out"
check "raw --csv /dev/full: exit 1" exit_is 1 timeout 60 "$S" raw --spool "$R" -m 50 -q --csv /dev/full
check "bench --json /dev/full: exit 1" exit_is 1 timeout 120 "$S" bench -m 20 -q --json /dev/full
printf 'set number 20\nset transactions 20\nset location %s\nset json /dev/full\nrun\nquit\n' "$R" \
    >"$WORK/pm.cmd"
check "postmark set json /dev/full: exit 1" exit_is 1 timeout 60 "$S" postmark "$WORK/pm.cmd"
start_sink sink 127.0.0.1:0 100 || exit 1
check "smtp-source --json /dev/full: exit 1" \
    exit_is 1 timeout 60 "$SOURCE" -m 5 --json /dev/full "127.0.0.1:$sink_PORT"
# --- a message log that cannot be written whole: said, exit 1, and the JSON says so
timeout 60 "$SOURCE" -m 200 --msg-log /dev/full --json "$WORK/src-log.json" "127.0.0.1:$sink_PORT" \
    >"$WORK/src-log.out" 2>&1
check "smtp-source --msg-log /dev/full: exit 1" test $? = 1
check "  ... saying its lines are lost" grep -q "write error on message log /dev/full" "$WORK/src-log.out"
check "  ... and msg_log_complete false in its JSON" python3 -c \
    'import json, sys; sys.exit(json.load(open(sys.argv[1]))["msg_log_complete"] is not False)' \
    "$WORK/src-log.json"
start_sink sinklog 127.0.0.1:0 100 --msg-log /dev/full --json "$WORK/sink-log.json" || exit 1
"$SOURCE" -m 50 "127.0.0.1:$sinklog_PORT" >/dev/null 2>&1
kill "$sinklog_PID"
wait "$sinklog_PID"
check "smtp-sink --msg-log /dev/full: exit 1 at its end" test $? = 1
check "  ... and msg_log_complete false in its JSON" python3 -c \
    'import json, sys; sys.exit(json.load(open(sys.argv[1]))["msg_log_complete"] is not False)' \
    "$WORK/sink-log.json"

stop_sink_json() {
    start_sink sinkj 127.0.0.1:0 100 --json /dev/full || return 1
    "$SOURCE" -m 2 "127.0.0.1:$sinkj_PORT" >/dev/null 2>&1
    kill "$sinkj_PID"
    wait "$sinkj_PID"
}
stop_sink_json
status=$?
check "smtp-sink --json /dev/full: exit 1 at its end (it was $status)" test $status = 1
# relay_full NAME STOP: a relay whose --json is /dev/full, in $WORK/NAME, stopped
# by the command STOP PID once it listens; its exit status (its output in NAME.out).
relay_full() {
    local name=$1 stop=$2 pid
    mkdir -p "$WORK/$name"
    "$S" relay --listen 127.0.0.1:0 --port-file "$WORK/$name.port" --spool "$WORK/$name/spool" \
        --model none --next-hop discard --json /dev/full >"$WORK/$name.out" 2>&1 &
    pid=$!
    PIDS="$PIDS $pid"
    wait_until 30 test -s "$WORK/$name.port"
    "$stop" "$pid"
}
stop_once() {
    kill "$1"
    wait "$1"
}
relay_full relay stop_once
check "relay --json /dev/full: exit 1 at its end" test $? = 1
check "  ... saying it could not write it" grep -q "cannot write /dev/full" "$WORK/relay.out"

# ---------------------------------------------------------------- stop signals that keep coming
# timeout(1) stops its command with two SIGTERMs (one to it, one to its group), and a
# supervisor may repeat one: a stop signal arriving after the run has ended must not
# replace its exit status with a signal's (it once did, once the signal events were freed).
term_until_gone() {
    local deadline=$((SECONDS + 60))
    while kill -TERM "$1" 2>/dev/null && [ $SECONDS -lt $deadline ]; do :; done
    wait "$1"
}
# (the sink started directly, not under start_sink's timeout: it is the one signalled)
"$SINK" --port-file "$WORK/sinkt2.port" --json /dev/full 127.0.0.1:0 100 2>/dev/null &
sinkt2_pid=$!
PIDS="$PIDS $sinkt2_pid"
wait_until 30 test -s "$WORK/sinkt2.port"
"$SOURCE" -m 2 "127.0.0.1:$(cat "$WORK/sinkt2.port")" >/dev/null 2>&1
term_until_gone "$sinkt2_pid"
status=$?
check "smtp-sink under a stream of SIGTERMs: still exit 1 (it was $status)" test $status = 1
relay_full relay2 term_until_gone
status=$?
check "relay under a stream of SIGTERMs: still exit 1 (it was $status)" test $status = 1
check "  ... with its summary" grep -q "cannot write /dev/full" "$WORK/relay2.out"

# ---------------------------------------------------------------- an earlier result
# An interrupted run writes no result (it would read as a whole one); the
# earlier run's must not stay there to be read as this one's.
echo '{"old": true}' >"$WORK/stale.json"
"$S" raw --spool "$R" -m 100000000 -q --json "$WORK/stale.json" >/dev/null 2>&1 &
raw_pid=$!
PIDS="$PIDS $raw_pid"
check "raw: the earlier result is gone once the run starts" wait_until 30 test ! -e "$WORK/stale.json"
kill -INT "$raw_pid"
wait "$raw_pid"
check "raw interrupted: no result, not the earlier one" test ! -e "$WORK/stale.json"
check "raw: no temporary file left beside it" sh -c "! ls '$WORK' | grep -q '^stale.json.'"

# ---------------------------------------------------------------- --json -
timeout 60 "$S" raw --spool "$R" -m 50 -q --json - >"$WORK/raw-stdout.json" 2>"$WORK/raw-stdout.err"
check "raw --json -: standard output is the JSON alone" valid_json "$WORK/raw-stdout.json"
check "  ... and the text report is on standard error" grep -q "messages" "$WORK/raw-stdout.err"
timeout 120 "$S" bench -m 20 -q --json - >"$WORK/bench-stdout.json" 2>"$WORK/bench-stdout.err"
check "bench --json -: standard output is the JSON alone" valid_json "$WORK/bench-stdout.json"
check "  ... and the text report is on standard error" grep -q "exactly once" "$WORK/bench-stdout.err"

# ---------------------------------------------------------------- a path that is not UTF-8
LATIN=$WORK/caf$'\xe9'
mkdir -p "$LATIN"
timeout 60 "$S" raw --spool "$LATIN" -m 20 -q --json "$WORK/latin.json" >/dev/null 2>&1
check "raw in a Latin-1 path: the JSON is valid" valid_json "$WORK/latin.json"

# ---------------------------------------------------------------- a symbolic link
echo old >"$WORK/target.json"
ln -s target.json "$WORK/link.json"
timeout 60 "$S" raw --spool "$R" -m 20 -q --json "$WORK/link.json" >/dev/null 2>&1
check "--json to a symbolic link: still a link" test -L "$WORK/link.json"
check "  ... to the new result" valid_json "$WORK/target.json"

# ---------------------------------------------------------------- a directory that is not writable
# A result is made beside its file and renamed over it: a writable file in a
# directory that is not is found before the run (as a user, not root).
if [ "$(id -u)" = 0 ] && command -v setpriv >/dev/null; then
    abs_spoolsim=$(cd "$top_builddir" && pwd)/spoolsim/spoolsim
    RO=$(mktemp -d "${TMPDIR:-/tmp}/spoolsim-ro.XXXXXX")
    chmod 755 "$RO" && mkdir "$RO/out" "$RO/run" && touch "$RO/out/r.json" &&
        chmod 666 "$RO/out/r.json" && chmod 555 "$RO/out" && chown nobody "$RO/run"
    (cd / && setpriv --reuid=nobody --regid="$(id -g nobody)" --clear-groups \
        "$abs_spoolsim" raw --spool "$RO/run" -m 5 -q \
        --json "$RO/out/r.json") >"$WORK/ro.out" 2>&1
    check "--json in a directory it cannot write: a usage error before the run" test $? = 2
    check "  ... saying the directory is why" grep -q "cannot replace it: its directory" "$WORK/ro.out"
    rm -rf "$RO"
else
    skip_part "a directory that is not writable: needs root and setpriv to be another user"
fi

# ---------------------------------------------------------------- a full filesystem (root)
if [ "$(id -u)" = 0 ] && mkdir -p "$WORK/full" && mount -t tmpfs -o size=64k tmpfs "$WORK/full" 2>/dev/null; then
    trap "unmount_and_cleanup '$WORK/full'" EXIT
    # the results of 50 messages are larger than what is left
    dd if=/dev/zero of="$WORK/full/fill" bs=4k count=14 2>/dev/null
    timeout 60 "$S" raw --spool "$R" -m 50 -q --json "$WORK/full/r.json" >"$WORK/full.out" 2>&1
    check "raw --json on a full filesystem: exit 1" test $? = 1
    check "  ... and no truncated or empty file there" test ! -e "$WORK/full/r.json"
    check "  ... nor a temporary one" sh -c "! ls '$WORK/full' | grep -q '^r.json'"
else
    skip_part "a full filesystem: mounting a 64k tmpfs needs root"
fi
stop "$sink_PID"
finish
