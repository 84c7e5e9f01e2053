#!/usr/bin/env bash
# mta-serve.sh - a real MTA in place of the relay, for `spoolsim bench --mta'
# (and so for --compare): a private, loopback-only Postfix or Exim instance
# with its queue at QUEUE, relaying to 127.0.0.1:SINKPORT, until SIGTERM.
#
# Usage: bench/mta-serve.sh postfix|exim DIR QUEUE SINKPORT PORTFILE
#   as root. DIR (new or empty) takes the instance's configuration, data and
#   log; QUEUE is its queue directory (made); once the MTA listens, its port
#   goes to PORTFILE (written whole, by a rename). SIGTERM or SIGINT stops
#   the MTA and whatever of it is left, then the script exits 0.
# The MTA comes from scripts/fetch-peer.sh (tests/peers or $SPOOLSIM_PEERS),
# never installed, configured as bench/postfix-instance.sh and
# bench/exim-instance.sh configure it for the calibration: what bench
# compares the model with is what the model was measured on.
set -u
usage() {
    echo "usage: $0 postfix|exim DIR QUEUE SINKPORT PORTFILE" >&2
    exit 2
}
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
    ;;
exim)
    # exi_start overlays Exim's compiled-in paths in a mount namespace of its own.
    . "$ROOT/bench/exim-instance.sh"
    stop_mta() { exi_stop; }
    start_mta() {
        exi_init "$ROOT" || return 1
        echo "$EXI_VERSION" >"$DIR/version"
        exi_setup "$DIR" "$QUEUE" "$SINK_PORT" "$1" && exi_start
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
# A signal ends the wait at once; the EXIT trap stops the MTA.
while [ "$stopping" = 0 ]; do
    sleep 1 &
    wait $! 2>/dev/null
done
exit 0
