#!/usr/bin/env bash
# fidelity.sh - benchmark (not a test): does spoolsim predict a real
# Postfix's (or Exim's) rate on a filesystem it was not calibrated on?
#
# Usage: bench/fidelity.sh [-P MTA] [-m MESSAGES] [-r REPS] [-f "FS..."] [-l "LOAD..."] [-M "MODEL..."]
#   as root, after `make'. The MTA comes from scripts/fetch-peer.sh.
#   MTA:  postfix (the default) or exim: the real MTA, and the relay's
#         --profile (exim: exim4-daemon-light 4.96, --profile exim).
#   FS:   tmpfs, ext4, ext4-dirsync, xfs (default: these four), here; each
#         of the first four but tmpfs a fresh 2 GiB loop image made here and
#         removed afterwards; here: a directory in $TMPDIR (or /tmp), the
#         filesystem spoolsim bench (scripts/demo.sh) measures by default.
#   LOAD: SESSIONSxBYTES (default: "20x15360 20x1024": the seed's load and a
#         small one), one message per connection, as Postfix's smtp-source.
#   MESSAGES per run (2000), REPS runs of each system per cell (3).
#   MODEL: what `spoolsim relay --model' takes (default: "MTA none");
#         several compare models in one go, e.g. a model calibrated on
#         another machine against one calibrated here.
#
# In every cell the same smtp-source, the same smtp-sink and the same load
# go, alternating run by run, through
#   actual     a private Postfix (bench/postfix-instance.sh) or Exim
#              (bench/exim-instance.sh), its queue on FS
#   predicted  spoolsim relay --profile MTA --model MODEL, its spool on FS,
#              for each MODEL (none: the bare relay, what the spool alone
#              allows)
# With Exim, smtp-source closes after QUIT without its reply
# (--skip-quit-reply), for every system of the cell, as Postfix's smtp
# client does: Exim holds that reply 200 ms for the client to close first.
# Rate = MESSAGES / (the time from smtp-source's start until it has exited
# and the queue is empty), polled every 10 ms by one small process. The
# model was calibrated on tmpfs only (spoolsim calibrate postfix): every
# other filesystem is a prediction. Printed per cell: the medians, min-max,
# predicted/actual and bare/actual; then per load the A/B ratio
# ext4-dirsync/ext4 for Postfix, for the model and for the bare relay.
set -u
ROOT=$(cd "$(dirname "$0")/.." && pwd)
. "$ROOT/bench/scratch-fs.sh"
. "$ROOT/bench/bench-lib.sh"
SPOOLSIM=$ROOT/spoolsim/spoolsim SRC=$ROOT/smtp-source/smtp-source SINK=$ROOT/smtp-sink/smtp-sink
M=2000 REPS=3 FSES="tmpfs ext4 ext4-dirsync xfs" LOADS="20x15360 20x1024" MODELS='' MTA=postfix
usage() { echo "usage: $0 [-P postfix|exim] [-m MESSAGES] [-r REPS] [-f \"FS...\"] [-l \"SESSIONSxBYTES...\"] [-M \"MODEL...\"]" >&2; exit 2; }
bench_getopts "P:MTA m:M r:REPS f:FSES l:LOADS M:MODELS" "$@"
shift $((OPTIND - 1))
[ $# = 0 ] || usage
[[ $M =~ ^[1-9][0-9]*$ && $REPS =~ ^[1-9][0-9]*$ ]] || usage
case $MTA in postfix | exim) ;; *) echo "$0: -P takes postfix or exim, not $MTA" >&2; exit 2 ;; esac
MODELS=${MODELS:-$MTA none}
for model in $MODELS; do
    case $model in "$MTA" | none) ;; *) [ -r "$model" ] || { echo "$0: cannot read model $model" >&2; exit 2; } ;; esac
done
for load in $LOADS; do [[ $load =~ ^[1-9][0-9]*x[1-9][0-9]*$ ]] || { echo "$0: bad load $load" >&2; exit 2; }; done
scratch_fs_usable "$FSES"
[ "$(id -u)" = 0 ] || { echo "$0: must run as root (the MTA, loop mounts)" >&2; exit 2; }
for f in "$SPOOLSIM" "$SRC" "$SINK"; do [ -x "$f" ] || { echo "$0: missing $f: run make" >&2; exit 2; }; done
# The real MTA: peer_setup DIR QUEUE SINKPORT PORT, peer_start, peer_stop; its
# queue's directories of messages, VERSION, NAME.
if [ "$MTA" = exim ]; then
    . "$ROOT/bench/exim-instance.sh"
    exi_init "$ROOT" || exit 1
    peer_setup() { exi_setup "$@"; }
    peer_start() { exi_start; }
    peer_stop() { exi_stop; }
    QDIRS=input VERSION=$EXI_VERSION NAME=Exim SOURCE_OPTS=(--skip-quit-reply)
else
    . "$ROOT/bench/postfix-instance.sh"
    pfi_init "$ROOT" || exit 1
    peer_setup() { pfi_setup "$@"; }
    peer_start() { pfi_start; }
    peer_stop() { pfi_stop; }
    QDIRS=incoming,active,deferred VERSION=$PFI_VERSION NAME=Postfix SOURCE_OPTS=()
fi

TMP='' SINK_PID='' RELAY_PID='' MNT=''
cleanup() {
    trap '' INT TERM
    [ -n "$RELAY_PID" ] && kill "$RELAY_PID" 2>/dev/null && wait "$RELAY_PID" 2>/dev/null
    peer_stop
    [ -n "$SINK_PID" ] && kill "$SINK_PID" 2>/dev/null && wait "$SINK_PID" 2>/dev/null
    [ -n "$MNT" ] && mountpoint -q "$MNT" && umount "$MNT"
    [ -n "$TMP" ] && rm -rf "$TMP"
}
trap cleanup EXIT
trap 'echo "interrupted" >&2; exit 130' INT TERM
TMP=$(mktemp -d "${TMPDIR:-/tmp}/spoolsim-fidelity.XXXXXX") && chmod 755 "$TMP" || exit 1
MNT=$TMP/mnt
mkdir -p "$MNT"
bench_sink "$SINK" "$TMP" || exit 1

# timed PORT QUEUE SESSIONS BYTES N: the load; prints its rate, or FAILED.
cat >"$TMP/timed.py" <<'EOF'
import os, subprocess, sys, time
queue, dirs, n, argv = sys.argv[1], sys.argv[2].split(","), int(sys.argv[3]), sys.argv[4:]
def empty():
    for q in dirs:
        for root, _, files in os.walk(os.path.join(queue, q)):
            if files:
                return False
    return True
t0 = time.monotonic()
p = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
while p.poll() is None or not empty():
    if time.monotonic() - t0 > 600:
        p.kill()
        print("FAILED")
        sys.exit(0)
    time.sleep(0.01)
print("FAILED" if p.returncode else f"{n / (time.monotonic() - t0):.1f}")
EOF
timed() {
    python3 "$TMP/timed.py" "$2" "$QDIRS" "$5" "$SRC" "${SOURCE_OPTS[@]}" -s "$3" -l "$4" -m "$5" 127.0.0.1:"$1"
}
relay_start() {  # MODEL: a fresh relay on $MNT/ss; sets RELAY_PID RELAY_PORT
    rm -rf "$MNT/ss" "$TMP/relay.port"
    "$SPOOLSIM" relay --profile "$MTA" --model "$1" --spool "$MNT/ss" --listen 127.0.0.1:0 --port-file "$TMP/relay.port" \
        --next-hop 127.0.0.1:"$SINK_PORT" -q 2>>"$TMP/relay.err" &
    RELAY_PID=$!
    for _ in $(seq 200); do [ -s "$TMP/relay.port" ] && break; sleep 0.05; done
    RELAY_PORT=$(cat "$TMP/relay.port")
}
relay_stop() { kill "$RELAY_PID" && wait "$RELAY_PID" 2>/dev/null; RELAY_PID=; }

: >"$TMP/results"
echo "fidelity: $NAME $VERSION against spoolsim relay --profile $MTA --model $MODELS; $M messages a run, $REPS runs each" >&2
echo "fidelity: on $(lscpu 2>/dev/null | sed -n 's/^Model name: *//p' | head -n 1), $(nproc) CPUs, Linux $(uname -r)" >&2
printf '%s\n' $MODELS >"$TMP/models"
for fs in $FSES; do
    scratch_fs_mount "$fs" "$MNT" "$TMP/img" || { echo "$0: cannot make $fs" >&2; exit 1; }
    free_port PORT || exit 1
    rm -rf "$TMP/peer"
    peer_setup "$TMP/peer" "$MNT/pq" "$SINK_PORT" "$PORT" || exit 1
    for load in $LOADS; do
        s=${load%x*} l=${load#*x}
        for rep in $(seq "$REPS"); do
            peer_start || exit 1
            [ "$rep" = 1 ] && timed "$PORT" "$MNT/pq" "$s" "$l" 300 >/dev/null  # warm-up
            actual=$(timed "$PORT" "$MNT/pq" "$s" "$l" "$M")
            peer_stop
            rates=''
            for model in $MODELS; do
                relay_start "$model"
                timed "$RELAY_PORT" "$MNT/ss" "$s" "$l" 300 >/dev/null  # warm-up
                rates="$rates $(timed "$RELAY_PORT" "$MNT/ss" "$s" "$l" "$M")"
                relay_stop
            done
            echo "$fs $load $actual$rates" >>"$TMP/results"
            echo "fidelity: $fs $load run $rep: $NAME $actual, models ($MODELS):$rates msgs/s" >&2
        done
    done
    peer_stop
    rm -rf "$MNT/pq" "$MNT/ss"
done

python3 - "$TMP/results" "$TMP/models" "$NAME" <<'EOF'
import os, statistics, sys
models, mta = open(sys.argv[2]).read().split(), sys.argv[3]
cells = {}
for line in open(sys.argv[1]):
    fs, load, *rates = line.split()
    cells.setdefault((fs, load), []).append([None if r == "FAILED" else float(r) for r in rates])
def med(xs):
    xs = [x for x in xs if x is not None]
    return statistics.median(xs) if xs else float("nan")
def span(xs):
    xs = [x for x in xs if x is not None]
    return f"{min(xs):.0f}-{max(xs):.0f}" if xs else "-"
for i, m in enumerate(models):
    print(f"model {i + 1}: {m}")
print(f"{'filesystem':<13} {'load':<9} {mta:>16} "
      + " ".join(f"{'model ' + str(i + 1):>16}" for i in range(len(models)))
      + " " + " ".join(f"{'m' + str(i + 1) + '/' + mta:>11}" for i in range(len(models))))
meds = {}
for (fs, load), runs in cells.items():
    cols = list(zip(*runs))
    m = [med(c) for c in cols]
    meds[(fs, load)] = m
    print(f"{fs:<13} {load:<9} " + " ".join(f"{x:>6.0f} ({span(c):>9})" for x, c in zip(m, cols))
          + " " + " ".join(f"{x / m[0]:>11.2f}" for x in m[1:]))
for load in sorted({l for _, l in cells}):
    if ("ext4", load) in meds and ("ext4-dirsync", load) in meds:
        d, s = meds[("ext4", load)], meds[("ext4-dirsync", load)]
        r = [a / b for a, b in zip(d, s)]
        print(f"A/B {load}: ext4 default / dirsync: {mta} {r[0]:.2f}x, "
              + ", ".join(f"model {i + 1} {x:.2f}x (predicted/actual {x / r[0]:.2f})" for i, x in enumerate(r[1:])))
EOF
