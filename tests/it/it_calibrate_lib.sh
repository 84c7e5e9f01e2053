#!/bin/bash
# Integration: bench/calibrate-lib.sh's relay step when its load fails.
# cal_relay_cpu runs in a command substitution; it starts a relay in the
# background, sends it a load, stops it. When the load failed (an
# smtp-source that failed, a queue that did not drain on a busy machine), it
# returned and left the relay running with the substitution's pipe as its
# output, and calibrate waited for the pipe's end for ever (CI's package
# step hung there). Now: it says the run failed, exit 1 at once, the relay
# stopped. No root: the relay's spool is in the test's directory.
. "${top_srcdir:-.}/tests/helpers/lib.sh"
BENCH=$(cd "$top_srcdir/bench" && pwd)
export SPOOLSIM=$RELAY

mkdir -p "$WORK/cal/spool" || exit 1
# shellcheck disable=SC2016 # the script bash -c runs
timeout 60 bash -c '
    . "$1/calibrate-lib.sh" || exit 9
    TMP=$2 SINK_PORT=9 SRC=/bin/false
    cpu=$(cal_relay_cpu postfix true 20 1024 0 1)
    echo "cal_relay_cpu: $?"' calibrate-lib "$BENCH" "$WORK/cal" >"$WORK/cal.out" 2>&1
rc=$?
sed 's/^/# /' "$WORK/cal.out"
check "a failed load ends the relay step (exit $rc, not the timeout's 124)" test "$rc" = 0
check "... as a failure" grep -q "^cal_relay_cpu: 1$" "$WORK/cal.out"
check "... saying so" grep -q "the relay's run failed" "$WORK/cal.out"
# ([-] keeps the pattern from matching pgrep's own command line)
no_relay() { ! pgrep -f -- "[-]-spool $WORK/cal/spool/q" >/dev/null; }
check "... and no relay of it is left" no_relay
pkill -f -- "[-]-spool $WORK/cal/spool/q"
finish
