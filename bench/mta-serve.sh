#!/usr/bin/env bash
# mta-serve.sh - a real MTA in place of the relay, for `spoolsim bench --mta'
# (and so for --compare): a private, loopback-only Postfix or Exim instance
# with its queue at QUEUE, relaying to 127.0.0.1:SINKPORT, until SIGTERM.
#
# Usage: bench/mta-serve.sh [--drain SECONDS] postfix|exim DIR QUEUE SINKPORT PORTFILE
#   as root. DIR (new or empty) takes the instance's configuration, data and
#   log; QUEUE is its queue directory (made); once the MTA listens, its port
#   goes to PORTFILE (written whole, by a rename). SIGTERM or SIGINT stops
#   the MTA and whatever of it is left, then the script exits 0.
#   --drain SECONDS (`spoolsim crash --mta': the restart after a power cut)
#   starts the MTA on QUEUE as it finds it, asks it to deliver everything
#   now (Postfix's postqueue -f, Exim's -qff), waits until its own listing
#   of the queue (postqueue -j, exim -bpc) is empty or SECONDS pass, then
#   stops it: exit 0 when the queue emptied, 4 when SECONDS passed first, 1
#   when it did not start.
# The MTA comes from scripts/fetch-peer.sh (tests/peers or $SPOOLSIM_PEERS),
# never installed, configured as bench/postfix-instance.sh and
# bench/exim-instance.sh configure it for the calibration: what bench
# compares the model with is what the model was measured on.
set -u
usage() {
    echo "usage: $0 [--drain SECONDS] postfix|exim DIR QUEUE SINKPORT PORTFILE" >&2
    exit 2
}
DRAIN=''
if [ "${1:-}" = --drain ]; then
    DRAIN=${2:-}
    case $DRAIN in '' | *[!0-9]*) usage ;; esac
    shift 2
fi
[ $# -eq 5 ] || usage
MTA=$1 DIR=$2 QUEUE=$3 SINK_PORT=$4 PORT_FILE=$5
ROOT=$(cd "$(dirname "$0")/.." && pwd)
case $SINK_PORT in '' | *[!0-9]*) usage ;; esac
[ "$(id -u)" = 0 ] || { echo "$0: a real $MTA needs root" >&2; exit 1; }
. "$ROOT/bench/bench-lib.sh" # free_port

case $MTA in
postfix)
    . "$ROOT/bench/postfix-instance.sh"
    stop_mta() { pfi_stop; }
    start_mta() {
        pfi_init "$ROOT" || return 1
        echo "$PFI_VERSION" >"$DIR/version"
        pfi_setup "$DIR" "$QUEUE" "$SINK_PORT" "$1" && pfi_start
    }
    # What Postfix lists (showq: the ready files of incoming/, active/,
    # deferred/, hold/) is what it would still deliver; a listing that
    # fails is not an empty queue. The flush is asked again every 5 s, as
    # the queue manager's own periodic runs would: a cut can leave one
    # queue file under two names (incoming/ and active/), and qmgr skips
    # the second while the first is "still being delivered", then looks
    # at incoming/ again only when something asks it to.
    drain_mta() {
        local end=$((SECONDS + DRAIN)) flush=0 listed
        while [ "$stopping" = 0 ]; do
            if [ "$SECONDS" -ge "$flush" ]; then
                "$PFI_PEER/bin/postqueue" -c "$PFI_CONF" -f >>"$DIR/postqueue.err" 2>&1
                flush=$((SECONDS + 5))
            fi
            listed=$("$PFI_PEER/bin/postqueue" -c "$PFI_CONF" -j 2>>"$DIR/postqueue.err") &&
                [ -z "$listed" ] && return 0
            [ "$SECONDS" -lt "$end" ] || return 4
            sleep 0.2
        done
        return 4
    }
    ;;
exim)
    # exi_start overlays Exim's compiled-in paths in a mount namespace of its own.
    . "$ROOT/bench/exim-instance.sh"
    stop_mta() { exi_stop; }
    start_mta() {
        [ -z "$DRAIN" ] || EXI_QUEUE_RUNS=''
        exi_init "$ROOT" || return 1
        echo "$EXI_VERSION" >"$DIR/version"
        exi_setup "$DIR" "$QUEUE" "$SINK_PORT" "$1" && exi_start
    }
    # What Exim counts in its queue (exim -bpc: the messages whose -H file
    # it reads) is what it would still deliver. A forced queue run (-qff:
    # frozen messages and retry times too) is asked every 5 s, in the
    # daemon's mount namespace, where its configuration is; the daemon then
    # runs none of its own (EXI_QUEUE_RUNS): two runners over one recovered
    # queue were seen to wait on each other for the whole drain.
    # The run goes in the background, one at a time, so that a SIGTERM is
    # taken at once (the EXIT trap's exi_stop ends the run with the rest of
    # the instance): a run can hang for minutes on a hints database the cut
    # damaged (Berkeley DB's "Retry limit (100) exceeded").
    drain_mta() {
        local end=$((SECONDS + DRAIN)) flush=0 listed run=''
        while [ "$stopping" = 0 ]; do
            if [ "$SECONDS" -ge "$flush" ] && { [ -z "$run" ] || ! kill -0 "$run" 2>/dev/null; }; then
                exi_run -qff >>"$DIR/exim-q.err" 2>&1 &
                run=$!
                flush=$((SECONDS + 5))
            fi
            listed=$(exi_run -bpc 2>>"$DIR/exim-q.err") &&
                [ "$listed" = 0 ] && return 0
            [ "$SECONDS" -lt "$end" ] || return 4
            sleep 0.2 &
            wait $! 2>/dev/null
        done
        return 4
    }
    ;;
*) usage ;;
esac

stopping=0
trap 'stopping=1' TERM INT
trap 'stop_mta' EXIT
mkdir -p "$DIR" || exit 1
free_port port || { echo "$0: no free port" >&2; exit 1; }
start_mta "$port" || { echo "$0: $MTA did not start" >&2; exit 1; }
echo "$port" >"$PORT_FILE.tmp" && mv "$PORT_FILE.tmp" "$PORT_FILE" || exit 1
if [ -n "$DRAIN" ]; then
    drain_mta
    exit $? # the EXIT trap stops the MTA
fi
# A signal ends the wait at once; the EXIT trap stops the MTA.
while [ "$stopping" = 0 ]; do
    sleep 1 &
    wait $! 2>/dev/null
done
exit 0
