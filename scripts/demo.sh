#!/bin/bash
# demo.sh - the main job: an end-to-end benchmark on loopback with no
# configuration. It builds spoolsim if needed, starts smtp-sink on a free
# port, drives it with smtp-source (20 sessions, 20,000 messages of 1 KiB,
# a new connection per message, then the same over reused connections with
# pipelining, then an open-loop run at a fixed rate), and prints messages/s
# and latency percentiles. Everything it starts is stopped by PID at the end.
set -eu
cd "$(dirname "$0")/.."
scripts/install-deps.sh
if [ ! -x smtp-sink/smtp-sink ] || [ ! -x smtp-source/smtp-source ]; then
    [ -x configure ] || autoreconf -fi
    [ -f Makefile ] || ./configure
    make -j2 >/dev/null
fi

work=$(mktemp -d)
sink_pid=""
cleanup() {
    [ -n "$sink_pid" ] && kill "$sink_pid" 2>/dev/null && wait "$sink_pid" 2>/dev/null
    rm -rf "$work"
}
trap cleanup EXIT

smtp-sink/smtp-sink --port-file "$work/port" --json "$work/sink.json" 127.0.0.1:0 1000 \
    2>"$work/sink.err" &
sink_pid=$!
for _ in $(seq 1 100); do [ -s "$work/port" ] && break; sleep 0.05; done
port=$(cat "$work/port")
echo "== smtp-sink listening on 127.0.0.1:$port"
echo
echo "== 1. smtp-source -s 20 -m 20000 -l 1024: a new connection per message"
smtp-source/smtp-source -s 20 -m 20000 -l 1024 "127.0.0.1:$port"
echo
echo "== 2. the same over reused connections (-d) with PIPELINING"
smtp-source/smtp-source -d --pipelining -s 20 -m 20000 -l 1024 "127.0.0.1:$port"
echo
echo "== 3. open loop: 2,000 messages/s for 3 s, Poisson arrivals, lognormal sizes"
smtp-source/smtp-source --rate 2000 --arrivals poisson --duration 3s -s 50 \
    --size lognormal:4k:1.0:1m "127.0.0.1:$port"
kill "$sink_pid"
wait "$sink_pid" 2>/dev/null || true
sink_pid=""
echo
echo "== the sink's count"
cat "$work/sink.err"
