#!/usr/bin/env bash
# smtp-pair.sh - benchmark (not a test) of spoolsim's smtp-source and smtp-sink
# against Postfix's own tools, on 127.0.0.1.
#
# It measures four client -> server pairs with the same workload
# (smtp-source -s SESSIONS -m MESSAGES -l LENGTH):
#   1 pf->pf    Postfix smtp-source -> Postfix smtp-sink   (reference pair)
#   2 pf->our   Postfix smtp-source -> our smtp-sink
#   3 our->pf   our smtp-source     -> Postfix smtp-sink
#   4 our->our  our smtp-source     -> our smtp-sink
# in two modes: "close" (a new connection per message, the default) and
# "reuse" (smtp-source -d).  Each rep runs all 8 combinations, in a rotated
# order, so machine noise is spread over all of them (ABAB.., not AAAA BBBB).
# Every run gets a freshly started sink on a free port, stopped by PID after.
#
# For each run: msgs/s = messages / wall-clock time of the client (monotonic
# clock), client CPU (user+sys from wait4) and sink CPU (utime+stime from
# /proc/PID/stat, 10 ms ticks) per message, in microseconds.  A run whose
# client exits non-zero, writes to stderr, or (where our tools can tell)
# delivers fewer messages than asked is listed as FAILED and left out of the
# statistics.  The table shows the median (min/max) msgs/s of the good runs
# and the median CPU µs/msg.  Ratios > 1.00 mean ours is faster (msgs/s) or,
# for CPU, that ours uses MORE CPU per message than Postfix's.  Client and
# sink share the machine's CPUs, so a pair's throughput depends on both.
# Finally it measures the RSS of each sink holding BENCH_IDLE idle
# connections (KiB after, and bytes per connection = growth / connections).
#
# Env: BENCH_MESSAGES (20000) BENCH_SESSIONS (20) BENCH_LENGTH (1024)
#      BENCH_REPS (5) BENCH_TIMEOUT (300 s per command) BENCH_IDLE (5000, 0: no RSS)
#      BENCH_MODES ("close reuse": either or both)
# Usage: bench/smtp-pair.sh   (build first: make -j2; Postfix's tools from
#        scripts/fetch-peer.sh postfix, or POSTFIX_SMTP_SOURCE/SINK: scripts/peers.sh)
set -u
ROOT=$(cd "$(dirname "$0")/.." && pwd)
OUR_SRC=$ROOT/smtp-source/smtp-source OUR_SINK=$ROOT/smtp-sink/smtp-sink
# shellcheck source=scripts/peers.sh
. "$ROOT/scripts/peers.sh"
# shellcheck source=bench/bench-lib.sh
. "$ROOT/bench/bench-lib.sh"
PF_SRC=$POSTFIX_SMTP_SOURCE PF_SINK=$POSTFIX_SMTP_SINK
M=${BENCH_MESSAGES:-20000} S=${BENCH_SESSIONS:-20} L=${BENCH_LENGTH:-1024}
R=${BENCH_REPS:-5} T=${BENCH_TIMEOUT:-300} IDLE=${BENCH_IDLE:-5000}
MODES=${BENCH_MODES:-close reuse}
bench_positive "$M" "$S" "$L" "$R" "$T"
for mode in $MODES; do
    case $mode in close | reuse) ;; *) echo "BENCH_MODES: unknown mode '$mode' (close, reuse)" >&2; exit 2 ;; esac
done
for f in "$OUR_SRC" "$OUR_SINK"; do
    [ -x "$f" ] || { echo "missing $f (make -j2)" >&2; exit 2; }
done
for f in "$PF_SRC" "$PF_SINK"; do
    [ -x "$f" ] || { echo "missing $f (scripts/fetch-peer.sh postfix)" >&2; exit 2; }
done
command -v python3 >/dev/null || { echo "python3 is required" >&2; exit 2; }
ulimit -n 20000 || exit 2

bench_tmp smtp-pair

# idle.py PID PORT N: open N connections, read each banner, print "rss_before rss_after ok".
cat >"$TMP/idle.py" <<'EOF'
import socket, sys, time
pid, port, n = map(int, sys.argv[1:4])
def rss():
    return next(int(l.split()[1]) for l in open(f"/proc/{pid}/status") if l.startswith("VmRSS:"))
before, socks, ok = rss(), [], 0
for _ in range(n):
    socks.append(socket.create_connection(("127.0.0.1", port), timeout=20))
for s in socks:
    try: ok += s.recv(512).startswith(b"220")
    except OSError: pass
time.sleep(0.5)
print(before, rss(), ok)
EOF

# start_sink pf|our [options]: sets SINK_PID and PORT; up to 5 tries. free_port
# for Postfix's sink, which cannot take port 0; another program may still
# take the port first: retried.
start_sink() {
    local impl=$1 try i; shift
    for try in 1 2 3 4 5; do
        rm -f "$TMP/port" "$TMP/sink.json"
        if [ "$impl" = our ]; then
            "$OUR_SINK" --no-summary --json "$TMP/sink.json" --port-file "$TMP/port" "$@" \
                127.0.0.1:0 1000 >/dev/null 2>>"$TMP/sink.err" &
        else
            free_port PORT || return 1
            "$PF_SINK" -u nobody "$@" 127.0.0.1:"$PORT" 1000 >/dev/null 2>>"$TMP/sink.err" &
        fi
        SINK_PID=$!
        for i in $(seq 100); do
            [ "$impl" = our ] && [ -s "$TMP/port" ] && PORT=$(<"$TMP/port")
            kill -0 "$SINK_PID" 2>/dev/null || break
            [ -n "${PORT:-}" ] && bench_listening "$PORT" && return 0
            sleep 0.05
        done
        bench_stop_sink
    done
    return 1
}
jnum() { sed -n "s/^  \"$1\": \([0-9]*\).*/\1/p" "$2" 2>/dev/null; }

NAMES=(x pf-pf pf-our our-pf our-our)
# run_one CFG MODE REP MSGS: one timed run; REP 0 is a warm-up and is not recorded.
run_one() {
    local cfg=$1 mode=$2 rep=$3 msgs=$4 src=${NAMES[$1]%-*} sink=${NAMES[$1]#*-}
    local -a cmd opt=(-s "$S" -m "$msgs" -l "$L")
    [ "$mode" = reuse ] && opt=(-d "${opt[@]}")
    if [ "$src" = our ]; then cmd=("$OUR_SRC" --no-summary --json "$TMP/src.json" "${opt[@]}")
    else cmd=("$PF_SRC" "${opt[@]}"); fi
    local why="" rc=1 rate=0 sink_us=0 client_us=0 _
    rm -f "$TMP/src.json" "$TMP/rus"
    if start_sink "$sink"; then
        bench_measure "$TMP/rus" "$T" "$SINK_PID" "$msgs" 0 "${cmd[@]}" 127.0.0.1:"$PORT" \
            >"$TMP/client.out" 2>"$TMP/client.err"
        kill -0 "$SINK_PID" 2>/dev/null || why="sink died"
        bench_stop_sink
        read -r rc rate sink_us _ client_us _ <"$TMP/rus" 2>/dev/null || why="no timing"
        [ "$rc" = 0 ] || why="client exit $rc"
        [ "$rc" = -9 ] && why="client killed after the ${T}s timeout"
        [ -s "$TMP/client.err" ] && why="${why:-stderr}: $(head -c 100 "$TMP/client.err" | head -1)"
        if [ "$src" = our ] && [ -z "$why" ]; then
            [ "$(jnum delivered "$TMP/src.json")" = "$msgs" ] && [ "$(jnum failed "$TMP/src.json")" = 0 ] \
                || why="source delivered $(jnum delivered "$TMP/src.json")/$msgs"
        fi
        if [ "$sink" = our ] && [ -z "$why" ]; then
            [ "$(jnum messages "$TMP/sink.json")" = "$msgs" ] \
                || why="sink counted $(jnum messages "$TMP/sink.json")/$msgs"
        fi
    else why="sink did not start"; fi
    [ "$rep" = 0 ] && { [ -n "$why" ] && echo "warm-up ${NAMES[$cfg]} $mode FAILED: $why"; return; }
    local line="$rate $client_us $sink_us"
    echo "$cfg $mode $rep ${why:+FAILED} ${why:-ok} $line" >>"$TMP/results"
    printf '  rep %d %-5s %-7s %9s msgs/s  client %6s  sink %6s µs/msg  %s\n' "$rep" "$mode" \
        "${NAMES[$cfg]}" $line "${why:-ok}"
}

echo "== smtp-pair benchmark: -s $S -m $M -l $L, $R reps, $(nproc) CPUs, $(uname -r)"
echo "load average at start: $(cut -d" " -f1-3 /proc/loadavg)"
echo "Postfix: $PF_SRC, $PF_SINK (package $(cat "$PEER_POSTFIX/version" 2>/dev/null || echo '?'))"
echo "ours:    $("$OUR_SRC" --version), $("$OUR_SINK" --version)"
echo "         built $(date -r "$OUR_SRC" '+%F %T') / $(date -r "$OUR_SINK" '+%F %T')"
echo "warm-up: each combination once with min($M,500) messages, not recorded"
for mode in $MODES; do for cfg in 1 2 3 4; do run_one $cfg $mode 0 $(( M < 500 ? M : 500 )); done; done
touch "$TMP/results"
for rep in $(seq "$R"); do
    for mode in $MODES; do
        for k in 0 1 2 3; do run_one $(( (k + rep - 1) % 4 + 1 )) $mode "$rep" "$M"; done
    done
done

echo
bench_py "$TMP/results" "$R" "$MODES" <<'EOF'
rows = rows(sys.argv[1])
modes = sys.argv[3].split()
reps, names = int(sys.argv[2]), {1: "1 pf  -> pf ", 2: "2 pf  -> our", 3: "3 our -> pf ", 4: "4 our -> our"}
med = {}
print(f"{'configuration':<14}{'mode':<7}{'ok':>5}{'median msgs/s':>15}{'min':>10}{'max':>10}"
      f"{'client µs/msg':>15}{'sink µs/msg':>13}")
for mode in modes:
    for cfg in (1, 2, 3, 4):
        good = [r for r in rows if int(r[0]) == cfg and r[1] == mode and r[3] == "ok"]
        ok = f"{len(good)}/{reps}"
        if not good:
            print(f"{names[cfg]:<14}{mode:<7}{ok:>5}  ALL RUNS FAILED"); continue
        rates = [float(r[-3]) for r in good]
        med[cfg, mode] = medians(good, -3, 3)
        print(f"{names[cfg]:<14}{mode:<7}{ok:>5}{med[cfg, mode][0]:>15.0f}{min(rates):>10.0f}{max(rates):>10.0f}"
              f"{med[cfg, mode][1]:>15.1f}{med[cfg, mode][2]:>13.1f}")
print("\nratios of medians (ours / Postfix's): msgs/s >1 = ours faster; CPU >1 = ours costlier")
for mode in modes:
    def r(a, i, b=1):
        x, y = med.get((a, mode)), med.get((b, mode))
        return f"{ratio(x and x[i], y and y[i]):>6}"
    print(f"  {mode}: our sink   (2/1) msgs/s {r(2, 0)}  sink CPU/msg   {r(2, 2)}")
    print(f"  {mode}: our source (3/1) msgs/s {r(3, 0)}  client CPU/msg {r(3, 1)}")
    print(f"  {mode}: our pair   (4/1) msgs/s {r(4, 0)}  sink CPU {r(4, 2)}  client CPU {r(4, 1)}")
failed = [r for r in rows if r[3] == "FAILED"]
for r in failed:
    print(f"FAILED: {names[int(r[0])]} {r[1]} rep {r[2]}: {' '.join(r[4:-3])}")
EOF

echo "load average at end: $(cut -d" " -f1-3 /proc/loadavg)"
[ "$IDLE" -gt 0 ] 2>/dev/null || exit 0
echo
echo "RSS with $IDLE idle connections (sink -m 10000):"
printf '  %-14s %12s %12s %14s\n' sink "KiB before" "KiB after" "bytes/conn"
for impl in pf our; do
    if start_sink "$impl" -m 10000; then
        out=$(timeout "$T" python3 "$TMP/idle.py" "$SINK_PID" "$PORT" "$IDLE" 2>&1 | tail -1)
        bench_stop_sink
        read -r b a ok <<<"$out"
        if [[ "${ok:-}" =~ ^[0-9]+$ ]]; then
            printf '  %-14s %12s %12s %14.0f%s\n' "$impl smtp-sink" "$b" "$a" \
                "$(( (a - b) * 1024 / IDLE ))" "$([ "$ok" = "$IDLE" ] || echo "  (only $ok/$IDLE greeted)")"
        else echo "  $impl smtp-sink: FAILED: $out"; fi
    else echo "  $impl smtp-sink: FAILED to start"; fi
done
