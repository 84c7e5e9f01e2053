#!/usr/bin/env bash
# sink-core.sh - benchmark (not a test): can one smtp-sink on a core of its
# own absorb what two smtp-sources on another core send?
#
# The sink runs pinned to CPU 1 (taskset), the sources to CPU 0; first one
# source, then two, alternating, BENCH_REPS times, in each mode ("close": a
# new connection per message; "reuse": smtp-source -d). For each run:
# msgs/s over all sources (messages / wall time), and the sink's CPU (its
# JSON's cpu_s) as a share of its core and per message. The sink keeps up
# when two sources get more through than one and its core is not full.
# It prints every run, then the medians.
#
# Usage: bench/sink-core.sh [TREE]   (TREE: a built tree, default .)
# Env: BENCH_REPS (3) BENCH_SESSIONS (10 per source) BENCH_LENGTH (1024)
#      BENCH_SINK_THREADS (1) BENCH_MESSAGES_CLOSE (10000) BENCH_MESSAGES_REUSE (40000)
set -u
# shellcheck source=bench/bench-lib.sh
. "$(dirname "$0")/bench-lib.sh"
T=$(cd "${1:-.}" 2>/dev/null && pwd) || { echo "$0: ${1:-.}: no such directory" >&2; exit 2; }
for p in smtp-sink/smtp-sink smtp-source/smtp-source; do
    [ -x "$T/$p" ] || { echo "$0: $T/$p: not built" >&2; exit 2; }
done
command -v taskset >/dev/null || { echo "$0: taskset (util-linux) is required" >&2; exit 2; }
command -v python3 >/dev/null || { echo "$0: python3 is required" >&2; exit 2; }
[ "$(nproc)" -ge 2 ] || { echo "$0: needs two CPUs" >&2; exit 2; }
R=${BENCH_REPS:-3} S=${BENCH_SESSIONS:-10} L=${BENCH_LENGTH:-1024} ST=${BENCH_SINK_THREADS:-1}
MC=${BENCH_MESSAGES_CLOSE:-10000} MR=${BENCH_MESSAGES_REUSE:-40000}
bench_positive "$R" "$S" "$L" "$ST" "$MC" "$MR"
bench_tmp sink-core

# run MODE SOURCES: one line "MODE SOURCES msgs/s sink-core-share sink-us/msg"
run() {
    local mode=$1 ns=$2 m reuse=() pids=() start end i
    m=$MC
    [ "$mode" = reuse ] && m=$MR reuse=(-d)
    rm -f "$TMP"/*.json "$TMP/port"
    taskset -c 1 "$T/smtp-sink/smtp-sink" --threads "$ST" --json "$TMP/sink.json" \
        --port-file "$TMP/port" 127.0.0.1:0 1000 >/dev/null 2>&1 &
    SINK_PID=$!
    for i in $(seq 100); do [ -s "$TMP/port" ] && break; sleep 0.05; done
    [ -s "$TMP/port" ] || { echo "$0: the sink did not start" >&2; exit 1; }
    start=$(date +%s.%N)
    for i in $(seq "$ns"); do
        taskset -c 0 "$T/smtp-source/smtp-source" -s "$S" -m "$m" -l "$L" "${reuse[@]}" \
            "127.0.0.1:$(cat "$TMP/port")" >/dev/null 2>"$TMP/src$i.err" &
        pids+=($!)
    done
    for i in "${pids[@]}"; do
        wait "$i" || { echo "$0: smtp-source failed: $(cat "$TMP"/src*.err)" >&2; exit 1; }
    done
    end=$(date +%s.%N)
    bench_stop_sink
    python3 - "$TMP/sink.json" "$mode" "$ns" "$m" "$start" "$end" <<'PY'
import json, sys
path, mode, ns, m, s, e = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4]), float(sys.argv[5]), float(sys.argv[6])
d = json.load(open(path))
el, total = e - s, ns * m
print(f"{mode} {ns} {total / el:.0f} {d['cpu_s'] / el:.3f} {d['cpu_s'] / total * 1e6:.1f}")
PY
}

: >"$TMP/results"
for rep in $(seq "$R"); do
    for mode in close reuse; do
        for ns in 1 2; do
            line=$(run "$mode" "$ns") || exit 1
            echo "run $rep: $line"
            echo "$line" >>"$TMP/results"
        done
    done
done
bench_py "$TMP/results" <<'EOF'
rows = rows(sys.argv[1])
print(f"{'median':8} {'sources':>7} {'msgs/s':>8} {'sink core':>9} {'sink us/msg':>11}")
for mode in ("close", "reuse"):
    for ns in ("1", "2"):
        rate, share, us = medians([r for r in rows if r[0] == mode and r[1] == ns], 2, 3)
        print(f"{mode:8} {ns:>7} {rate:8.0f} {share * 100:8.0f}% {us:11.1f}")
EOF
