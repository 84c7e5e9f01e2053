#!/usr/bin/env bash
# json.sh - benchmark (not a test) of spoolsim's own JSON writer and reader
# (common/report/json.c, json_read.c) against jansson's, side by side, on
# the reports the programs write: `spoolsim raw --json', `spoolsim bench
# --json', smtp-sink's --json with its latency histograms, and `spoolsim
# merge' of BENCH_SOURCES smtp-source results (each result, as merge reads
# it, and the merged report).
#
# It makes those reports in DIR, builds bench/json_bench.c (with
# bench/json_bench_ours.c, against the tree's libreport.a and libutil.a and
# Debian's libjansson-dev; never installed) and runs it: for each report the
# median CPU time of BENCH_REPS runs of a write (ours: the streaming writer;
# jansson: a tree, json_dumps), a read of every value (ours: the span walk
# the readers do; jansson: json_loadb and a walk of the tree) and a lookup
# of one value by path (ours: json_read_number; jansson: json_loadb and the
# path), and jansson's time over ours. It also says whether jansson's dump
# (JSON_INDENT(2), JSON_PRESERVE_ORDER, JSON_REAL_PRECISION(9)) is the
# report byte for byte. The figures are in docs/benchmarks.md.
#
# Env: BENCH_REPS (7) BENCH_SOURCES (20) BENCH_MESSAGES (2000)
# Usage: bench/json.sh [DIR]   (build first: make -j2; apt-get install libjansson-dev)
set -u
ROOT=$(cd "$(dirname "$0")/.." && pwd)
# shellcheck source=bench/bench-lib.sh
. "$ROOT/bench/bench-lib.sh"
SPOOLSIM=$ROOT/spoolsim/spoolsim SOURCE=$ROOT/smtp-source/smtp-source SINK=$ROOT/smtp-sink/smtp-sink
R=${BENCH_REPS:-7} NSRC=${BENCH_SOURCES:-20} M=${BENCH_MESSAGES:-2000}
usage() {
    sed -n '2,/^# Usage/s/^# \{0,1\}//p' "$0" >&2
    exit 2
}
bench_getopts "" "$@"
shift $((OPTIND - 1))
for p in "$SPOOLSIM" "$SOURCE" "$SINK" "$ROOT/common/report/libreport.a"; do
    [ -e "$p" ] || { echo "json.sh: $p is not built (make -j2)" >&2; exit 2; }
done
pkg-config --exists jansson || { echo "json.sh: jansson is missing (apt-get install libjansson-dev)" >&2; exit 2; }
if [ $# -ge 1 ]; then
    DIR=$1 KEEP=1
    mkdir -p "$DIR" || exit 2
else
    DIR=$(mktemp -d /tmp/json-bench.XXXXXX) KEEP=0
fi
SINK_PID=
trap '[ -n "$SINK_PID" ] && kill "$SINK_PID" 2>/dev/null; [ "$KEEP" = 1 ] || rm -rf "$DIR"' EXIT

# shellcheck disable=SC2046 # pkg-config's flags, one a word
cc -O2 -std=gnu11 -Wall -Wextra -I"$ROOT" -I"$ROOT/common/report" -I"$ROOT/common/util" \
    "$ROOT/bench/json_bench.c" "$ROOT/bench/json_bench_ours.c" \
    "$ROOT/common/report/libreport.a" "$ROOT/common/util/libutil.a" \
    $(pkg-config --cflags --libs jansson) -lm -o "$DIR/json_bench" || exit 1

# The reports, made once.
mkdir -p "$DIR/spool"
timeout 300 "$SPOOLSIM" raw --spool "$DIR/spool" -m "$M" -q --json "$DIR/raw.json" >/dev/null || exit 1
timeout 300 "$SPOOLSIM" bench --spool "$DIR/spool" -m "$M" -q --json "$DIR/bench.json" >/dev/null || exit 1
bench_sink "$SINK" "$DIR" --json "$DIR/sink.json" || exit 1
SOURCE_PIDS=()
for i in $(seq 1 "$NSRC"); do
    timeout 300 "$SOURCE" -m $((M / NSRC)) -s 4 --id "s$i" --json "$DIR/source$i.json" \
        "127.0.0.1:$SINK_PORT" >/dev/null 2>&1 &
    SOURCE_PIDS+=($!)
done
wait "${SOURCE_PIDS[@]}"
kill -TERM "$SINK_PID" && wait "$SINK_PID" 2>/dev/null
SINK_PID=
[ -s "$DIR/sink.json" ] || { echo "json.sh: smtp-sink wrote no result" >&2; exit 1; }
# shellcheck disable=SC2046 # the results, one a word
timeout 300 "$SPOOLSIM" merge -o "$DIR/merged.json" $(seq -f "$DIR/source%g.json" 1 "$NSRC") >/dev/null || exit 1

echo "machine: $(bench_machine)"
echo "jansson $(pkg-config --modversion jansson); $R runs a figure, the median; CPU time"
cd "$DIR" || exit 1
nice ./json_bench "$R" latency.pf_enqueue.p50_ms raw.json
nice ./json_bench "$R" latency.end_to_end.p50_ms bench.json
nice ./json_bench "$R" latency.receive.p50_ms sink.json
nice ./json_bench "$R" latency.end_to_end.p50_ms source1.json
nice ./json_bench "$R" latency.end_to_end.p50_ms merged.json
