#!/usr/bin/env bash
# sink-pair.sh - benchmark (not a test): our smtp-sink against Postfix's,
# both driven by Postfix's smtp-source.
#
# Each rep runs the two sinks one after the other, in alternating order (pf
# then ours, ours then pf, ...), each freshly started and stopped by PID,
# under `smtp-source -s SESSIONS -l LENGTH -m MESSAGES` on 127.0.0.1 (a new
# connection per message, Postfix's default). Per run: msgs/s (messages /
# the client's wall time), and per message the sink's CPU (utime+stime from
# /proc/PID/stat), the sink's context switches (voluntary + involuntary,
# /proc/PID/status), and the client's CPU and switches (wait4). The clock's
# figures swing with the machine's other work; the counts per message do
# much less: they are what to compare on a shared machine. After the timed
# reps, unless BENCH_COUNT=0, one more run of each sink under `perf stat`
# counts its system calls per message (raw_syscalls:sys_enter) and the
# epoll_wait and accept calls among them: perf makes each call dearer, so
# these runs are not timed.
#
# It prints the machine (bench_machine), every run, the medians, and the
# ratios ours / Postfix's (msgs/s > 1: ours faster; CPU and switches < 1:
# ours cheaper).
#
# Usage: bench/sink-pair.sh   (build first; Postfix's tools from
#        scripts/fetch-peer.sh postfix, or POSTFIX_SMTP_SOURCE/SINK)
# Env: BENCH_MESSAGES (10000) BENCH_SESSIONS (20) BENCH_LENGTH (1024)
#      BENCH_REPS (5) BENCH_TIMEOUT (300 s a run) BENCH_COUNT (1)
#      BENCH_SINK_OPTS (more options for our sink, e.g. "--threads 2")
set -u
ROOT=$(cd "$(dirname "$0")/.." && pwd)
OUR_SINK=$ROOT/smtp-sink/smtp-sink
# shellcheck source=scripts/peers.sh
. "$ROOT/scripts/peers.sh"
# shellcheck source=bench/bench-lib.sh
. "$ROOT/bench/bench-lib.sh"
M=${BENCH_MESSAGES:-10000} S=${BENCH_SESSIONS:-20} L=${BENCH_LENGTH:-1024}
R=${BENCH_REPS:-5} T=${BENCH_TIMEOUT:-300} COUNT=${BENCH_COUNT:-1}
read -r -a OUR_OPTS <<<"${BENCH_SINK_OPTS:-}"
bench_positive "$M" "$S" "$L" "$R" "$T"
[ -x "$OUR_SINK" ] || { echo "$0: missing $OUR_SINK (make -j2)" >&2; exit 2; }
for f in "$POSTFIX_SMTP_SOURCE" "$POSTFIX_SMTP_SINK"; do
    [ -x "$f" ] || { echo "$0: missing $f (scripts/fetch-peer.sh postfix)" >&2; exit 2; }
done
command -v python3 >/dev/null || { echo "$0: python3 is required" >&2; exit 2; }
ulimit -n 20000 2>/dev/null || ulimit -n 4096 || exit 2
if [ "$COUNT" != 0 ] && ! bench_perf_counts; then
    echo "note: perf cannot count system calls here (perf_event_paranoid, or no perf): no counting runs"
    COUNT=0
fi

bench_tmp sink-pair

# start_sink pf|our: SINK_PID and PORT, the sink listening; up to 5 tries (a free port can be taken).
start_sink() {
    for _ in 1 2 3 4 5; do
        if [ "$1" = our ]; then
            bench_sink "$OUR_SINK" "$TMP" --no-summary "${OUR_OPTS[@]}" || return 1
            PORT=$SINK_PORT
        else
            free_port PORT || return 1
            "$POSTFIX_SMTP_SINK" -u nobody 127.0.0.1:"$PORT" 1000 >/dev/null 2>"$TMP/sink.err" &
            SINK_PID=$!
        fi
        for _ in {1..100}; do
            bench_listening "$PORT" && return 0
            kill -0 "$SINK_PID" 2>/dev/null || break
            sleep 0.05
        done
        bench_stop_sink
    done
    echo "$0: the $1 sink did not start: $(tail -n 3 "$TMP/sink.err")" >&2
    return 1
}

# run_one pf|our REP MSGS PERF: one run; its line goes to $TMP/results unless REP is 0 (warm-up).
run_one() {
    local impl=$1 rep=$2 msgs=$3 line why=
    rm -f "$TMP/run" "$TMP/client.err"
    start_sink "$impl" || exit 1
    bench_measure "$TMP/run" "$T" "$SINK_PID" "$msgs" "$4" "$POSTFIX_SMTP_SOURCE" \
        -s "$S" -l "$L" -m "$msgs" 127.0.0.1:"$PORT" >/dev/null 2>"$TMP/client.err"
    kill -0 "$SINK_PID" 2>/dev/null || why="the sink died"
    bench_stop_sink
    read -r line <"$TMP/run" 2>/dev/null || why="no figures"
    [ -z "$why" ] && [ "${line%% *}" != 0 ] && why="smtp-source exit ${line%% *}"
    [ -z "$why" ] && [ -s "$TMP/client.err" ] && why="smtp-source: $(head -c 100 "$TMP/client.err" | head -1)"
    [ -n "$why" ] && { echo "  rep $rep $impl FAILED: $why"; return 1; }
    [ "$rep" = 0 ] && return 0
    echo "$impl $rep ${line#* }" >>"$TMP/results"
    local -a f
    read -r -a f <<<"$line"
    printf '  rep %-5s %-4s %8s msgs/s  sink %6s µs %5s sw  client %6s µs %5s sw%s\n' "$rep" "$impl" \
        "${f[@]:1:5}" "$([ "$4" = 1 ] && echo "  syscalls ${f[6]}, epoll_wait ${f[7]}, accept ${f[8]}")"
}

echo "== sink-pair: Postfix's smtp-source -s $S -l $L -m $M, $R reps alternating"
echo "machine: $(bench_machine)"
echo "load average at start: $(cut -d' ' -f1-3 /proc/loadavg)"
echo "Postfix: $POSTFIX_SMTP_SINK (package $(cat "$PEER_POSTFIX/version" 2>/dev/null || echo '?'))"
echo "ours:    $OUR_SINK ${OUR_OPTS[*]} ($("$OUR_SINK" --version), built $(date -r "$OUR_SINK" '+%F %T'))"
echo "per message: sink CPU µs, sink switches, client CPU µs, client switches"
run_one pf 0 500 0 && run_one our 0 500 0 || exit 1
: >"$TMP/results"
fails=0
for rep in $(seq "$R"); do
    order="pf our"
    [ $((rep % 2)) = 0 ] && order="our pf"
    for impl in $order; do run_one "$impl" "$rep" "$M" 0 || fails=$((fails + 1)); done
done
if [ "$COUNT" != 0 ]; then
    echo "counting runs (perf stat, not timed): system calls, epoll_wait and accept per message"
    for impl in pf our; do run_one "$impl" count "$M" 1 || fails=$((fails + 1)); done
fi
echo "load average at end: $(cut -d' ' -f1-3 /proc/loadavg)"
bench_py "$TMP/results" <<'EOF'
rows = rows(sys.argv[1])
cols = ["msgs/s", "sink µs", "sink sw", "client µs", "client sw"]
med, calls = {}, {}
for impl in ("pf", "our"):
    timed = [r for r in rows if r[0] == impl and r[1] != "count"]
    if timed:
        med[impl] = medians(timed, 2, len(cols))
    calls[impl] = next(([float(x) for x in r[7:10]] for r in rows if r[0] == impl and r[1] == "count"), None)
print(f"\n{'median':<10}" + "".join(f"{c:>11}" for c in cols) + f"{'syscalls':>10}{'epoll_wait':>11}{'accept':>8}")
for impl, name in (("pf", "Postfix"), ("our", "ours")):
    if impl in med:
        c = calls[impl]
        print(f"{name:<10}" + "".join(f"{v:>11.2f}" if i in (2, 4) else f"{v:>11.1f}" for i, v in enumerate(med[impl]))
              + ("".join(f"{v:>{w}.2f}" for v, w in zip(c, (10, 11, 8))) if c else ""))
if "pf" in med and "our" in med:
    p, o = med["pf"], med["our"]
    r = [ratio(o[i], p[i]) for i in range(len(cols))]
    c = calls["pf"] and calls["our"] and calls["our"][0] / calls["pf"][0]
    print(f"{'ours/pf':<10}" + "".join(f"{x:>11}" for x in r) + (f"{c:>10.2f}" if c else ""))
EOF
[ "$fails" = 0 ] || { echo "$fails run(s) FAILED, left out of the medians"; exit 1; }
