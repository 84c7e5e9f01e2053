#!/usr/bin/env bash
# handoff.sh - benchmark (not a test) of the relay's hand-offs between its
# event loop and its worker threads: two builds, alternating.
#
# Each run is `spoolsim bench --spool DIR --model none -s SESSIONS --size SIZE
# -m MESSAGES` with one build tree's spoolsim; runs alternate A B A B ... so
# the shared machine's noise falls on both. From each run:
#   cpu_ms    the relay's CPU per message, ms (bench's JSON,
#             cpu_per_message_s.relay: the relay's own accounting)
#   csw       the relay's context switches per message: voluntary plus
#             nonvoluntary, summed over /proc/PID/task/*/status, read every
#             POLL s while the relay runs; the last reading before it exits
#             over the messages delivered
#   rate      delivered messages/s (bench's JSON)
# It prints every run, then the medians per build and the ratios B/A.
#
# Usage: bench/handoff.sh TREE_A TREE_B [SPOOL_DIR]
#   TREE_A, TREE_B: built trees (each has spoolsim/spoolsim and the peers bench
#   spawns next to it; the same tree twice to compare options). SPOOL_DIR: the
#   filesystem to measure; without it, as root, a private tmpfs is mounted
#   under a temporary directory and unmounted at the end.
# Env: BENCH_REPS (3) BENCH_MESSAGES (5000) BENCH_SESSIONS (20) BENCH_SIZE (1024)
#      BENCH_MODEL (none) BENCH_POLL (0.02)
#      BENCH_ARGS, BENCH_ARGS_A, BENCH_ARGS_B: more bench options, for both
#      sides and for one (e.g. BENCH_ARGS_B="--relay-threads 2": the relay's
#      event loops, one against two, with TREE_A = TREE_B)
set -u
usage() { echo "usage: $0 TREE_A TREE_B [SPOOL_DIR]" >&2; exit 2; }
if [ $# -lt 2 ] || [ $# -gt 3 ]; then usage; fi
A=$(cd "$1" 2>/dev/null && pwd) || { echo "$0: $1: no such directory" >&2; exit 2; }
B=$(cd "$2" 2>/dev/null && pwd) || { echo "$0: $2: no such directory" >&2; exit 2; }
for t in "$A" "$B"; do
    [ -x "$t/spoolsim/spoolsim" ] || { echo "$0: $t/spoolsim/spoolsim: not built" >&2; exit 2; }
done
command -v python3 >/dev/null || { echo "$0: python3 is required" >&2; exit 2; }
R=${BENCH_REPS:-3} M=${BENCH_MESSAGES:-5000} S=${BENCH_SESSIONS:-20}
SIZE=${BENCH_SIZE:-1024} MODEL=${BENCH_MODEL:-none} POLL=${BENCH_POLL:-0.02}

TMP=$(mktemp -d /tmp/handoff.XXXXXX) MOUNTED=
cleanup() {
    [ -n "$MOUNTED" ] && umount "$MOUNTED"
    rm -rf "$TMP"
}
trap cleanup EXIT
trap 'exit 130' INT TERM HUP
if [ $# -eq 3 ]; then
    SPOOL=$3
    [ -d "$SPOOL" ] || { echo "$0: $SPOOL: no such directory" >&2; exit 2; }
else
    [ "$(id -u)" = 0 ] || { echo "$0: give a SPOOL_DIR, or run as root for a private tmpfs" >&2; exit 2; }
    mkdir "$TMP/spool"
    mount -t tmpfs -o size=512m handoff "$TMP/spool" || exit 1
    MOUNTED=$TMP/spool SPOOL=$TMP/spool
fi

# run.py LABEL TREE: one bench run; prints "LABEL cpu_ms csw rate".
cat >"$TMP/run.py" <<'EOF'
import glob, json, os, subprocess, sys, time
label, tree, spool, model, s, size, m, poll, tmp = sys.argv[1:10]
out = os.path.join(tmp, "bench.json")
cmd = [tree + "/spoolsim/spoolsim", "bench", "--spool", spool, "--model", model, "-s", s,
       "--size", size, "-m", m, "-q", "--no-progress", "--json", out] + sys.argv[10:]
bench = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=open(tmp + "/bench.err", "w"))

def relay_pid():
    for task in glob.glob("/proc/[0-9]*/stat"):
        try:
            fields = open(task).read().rsplit(")", 1)[1].split()
            pid = int(task.split("/")[2])
            argv = open(f"/proc/{pid}/cmdline", "rb").read().split(b"\0")
        except (OSError, IndexError, ValueError):
            continue
        if int(fields[1]) == bench.pid and len(argv) > 1 and argv[1] == b"relay":
            return pid
    return None

def switches(pid):
    total = 0
    for st in glob.glob(f"/proc/{pid}/task/*/status"):
        try:
            for line in open(st):
                if line.startswith(("voluntary_ctxt_switches", "nonvoluntary_ctxt_switches")):
                    total += int(line.split()[1])
        except OSError:
            pass
    return total

pid, last = None, 0
while bench.poll() is None:
    if pid is None:
        pid = relay_pid()
    elif os.path.exists(f"/proc/{pid}/task"):
        n = switches(pid)
        last = n if n else last
    time.sleep(float(poll))
if bench.returncode != 0 or pid is None:
    sys.exit(f"{label}: bench failed (status {bench.returncode}); see {tmp}/bench.err")
res = json.load(open(out))
delivered = res["delivered"]
cpu = res["cpu_per_message_s"]["relay"]
print(f"{label} {cpu * 1e3:.4f} {last / delivered:.3f} {res['delivered_per_s']:.0f}")
EOF

: >"$TMP/results"
for i in $(seq 1 "$R"); do
    for side in A B; do
        tree=$A extra=${BENCH_ARGS_A:-}
        [ "$side" = B ] && tree=$B extra=${BENCH_ARGS_B:-}
        # shellcheck disable=SC2086 # the options are words
        line=$(python3 "$TMP/run.py" "$side" "$tree" "$SPOOL" "$MODEL" "$S" "$SIZE" "$M" \
            "$POLL" "$TMP" ${BENCH_ARGS:-} $extra) || { cat "$TMP/bench.err" >&2; exit 1; }
        echo "run $i $line"
        echo "$line" >>"$TMP/results"
    done
done

python3 - "$TMP/results" "$A" "$B" "${BENCH_ARGS:-} ${BENCH_ARGS_A:-}" "${BENCH_ARGS:-} ${BENCH_ARGS_B:-}" <<'EOF'
import statistics, sys
rows = [l.split() for l in open(sys.argv[1])]
med = {}
for side in "AB":
    vals = [list(map(float, r[1:])) for r in rows if r[0] == side]
    med[side] = [statistics.median(v[i] for v in vals) for i in range(3)]
print(f"A = {sys.argv[2]} {sys.argv[4]}\nB = {sys.argv[3]} {sys.argv[5]}")
print(f"{'median':8} {'relay CPU ms/msg':>17} {'ctx switches/msg':>17} {'msgs/s':>8}")
for side in "AB":
    c, w, r = med[side]
    print(f"{side:8} {c:17.4f} {w:17.2f} {r:8.0f}")
ratio = [b / a if a else float("nan") for a, b in zip(med["A"], med["B"])]
print(f"{'B/A':8} {ratio[0]:17.2f} {ratio[1]:17.2f} {ratio[2]:8.2f}")
EOF
