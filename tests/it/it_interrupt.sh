#!/bin/bash
# Integration: SIGINT and SIGTERM stop raw, postmark, ab and bench cleanly.
#
# Each program is sent the signal in the middle of a run that would last
# much longer, found by what it made (a directory, its files, a progress
# line), not by a guess at how long it takes to start. Then: the exit
# status is 128 + the signal (130, 143), the report printed is marked
# "partial:", and nothing the program made is left. The same for ab whose
# reader goes away (`| head'): nothing left in DIR_A or $TMPDIR.
. "${top_srcdir:-.}/tests/helpers/lib.sh"

has_files() { [ -n "$(find "$1" -type f 2>/dev/null | head -1)" ]; }
empty() { [ -z "$(ls -A "$1")" ]; }

# interrupt NAME SIGNAL READY COMMAND...: run COMMAND in the background
# (its output in $WORK/NAME.out and .err), wait until READY succeeds,
# send SIGNAL, and set STATUS to its exit status (999 if it was not ready
# or did not stop within 60 s, in which case it is killed).
interrupt() {
    local name=$1 sig=$2 ready=$3 pid watchdog
    shift 3
    "$@" >"$WORK/$name.out" 2>"$WORK/$name.err" &
    pid=$!
    PIDS="$PIDS $pid"
    if ! wait_until 30 $ready; then
        kill -KILL "$pid" 2>/dev/null
        wait "$pid" 2>/dev/null
        STATUS=999
        echo "$name: never got under way:" >&2
        cat "$WORK/$name.err" >&2
        return
    fi
    kill -"$sig" "$pid"
    (sleep 60 && kill -KILL "$pid" 2>/dev/null) &
    watchdog=$!
    wait "$pid"
    STATUS=$?
    kill "$watchdog" 2>/dev/null
    wait "$watchdog" 2>/dev/null
}

partial() { grep -q "^partial: interrupted by $2;" "$WORK/$1.out"; }

# --- raw: SIGTERM with queue files on disk
D=$WORK/raw
mkdir -p "$D"
interrupt raw TERM "has_files $D" "$RELAY" raw --spool "$D" -d 60 -w 2 --depth 50
check "raw: SIGTERM: exit status 143" test "$STATUS" = 143
check "raw: the report is marked partial" partial raw SIGTERM
check "raw: the report is still there" grep -q "^profile: *postfix" "$WORK/raw.out"
check "raw: no spoolsim-raw.* left" empty "$D"

# --- raw: SIGINT in the ceiling measurement
interrupt rawc INT "grep -q ceilings $WORK/rawc.err" "$RELAY" raw --spool "$D" -m 50 -w 2 --ceiling
check "raw --ceiling: SIGINT: exit status 130" test "$STATUS" = 130
check "raw --ceiling: marked partial" partial rawc SIGINT
check "raw --ceiling: nothing left" empty "$D"

# --- postmark: SIGINT during the transactions
P=$WORK/pm
mkdir -p "$P"
cat >"$WORK/long.pm" <<PM
set location $P
set number 200
set transactions 100000000
set sync fsync
run
quit
PM
pm_ready() { grep -q "Performing transactions" "$WORK/pm.out"; }
interrupt pm INT pm_ready \
    "$RELAY" postmark "$WORK/long.pm"
check "postmark: SIGINT: exit status 130" test "$STATUS" = 130
check "postmark: the report is marked partial" partial pm SIGINT
check "postmark: PostMark's files deleted" empty "$P"

# --- postmark: SIGTERM at the prompt (its input a FIFO this shell keeps open)
mkfifo "$WORK/in"
exec 3<>"$WORK/in"
pmq_ready() { grep -q "pm>" "$WORK/pmq.out"; }
interrupt pmq TERM pmq_ready \
    sh -c 'exec "$0" postmark <"$1"' "$RELAY" "$WORK/in"
check "postmark at the prompt: SIGTERM: exit status 143" test "$STATUS" = 143
exec 3>&-

# --- ab: SIGINT during a raw run on side A
A=$WORK/a
B=$WORK/b
T=$WORK/tmp
mkdir -p "$A" "$B" "$T"
interrupt ab INT "has_files $A" env TMPDIR="$T" "$RELAY" ab -n 2 --warmup-runs 0 "$A" "$B" -- raw -d 60 -w 2
check "ab: SIGINT: exit status 130" test "$STATUS" = 130
check "ab: the report is marked partial" partial ab SIGINT
check "ab: the runs not made say so" grep -q "^B run 1: not run (interrupted)" "$WORK/ab.out"
check "ab: the child's directory is gone from DIR_A" empty "$A"
check "ab: nothing left in DIR_B" empty "$B"
check "ab: nothing left in TMPDIR" empty "$T"

# --- ab whose reader goes away: progress into `| head -1'
env TMPDIR="$T" "$RELAY" ab -n 3 --warmup-runs 0 "$A" "$B" -- raw -m 200 -w 2 2>&1 | head -1 >"$WORK/head.out"
check "ab | head: it stopped (status 141)" test "${PIPESTATUS[0]}" = 141
check "ab | head: nothing left in DIR_A" empty "$A"
check "ab | head: nothing left in TMPDIR" empty "$T"

# --- bench: SIGTERM while injecting
interrupt bench TERM "grep -q injecting $WORK/bench.err" env TMPDIR="$T" "$RELAY" bench -d 60 -s 5
check "bench: SIGTERM: exit status 143" test "$STATUS" = 143
check "bench: the report is marked partial" partial bench SIGTERM
check "bench: the report is still there" grep -q "^injected:" "$WORK/bench.out"
check "bench: its work directory is gone" empty "$T"

finish
