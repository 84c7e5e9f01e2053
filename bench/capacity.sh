#!/usr/bin/env bash
# capacity.sh - benchmark (not a test): how much mail can this box relay
# before its queue grows, by spoolsim's model and by a real Postfix?
#
# Usage: bench/capacity.sh [-o DIR] [-f "FS..."] [-s SESSIONS] [-l BYTES]
#                          [-w WINDOW] [-S SLO] [-n MAX_STEPS]
#   as root, after `make'. Postfix comes from scripts/fetch-peer.sh.
#   FS: tmpfs, ext4, ext4-dirsync, xfs (default: "tmpfs ext4"); each but
#       tmpfs a fresh 2 GiB loop image made here and removed afterwards.
#   SESSIONS (50), BYTES (1024): the client's load, one message per
#   connection; WINDOW (5s) each step's measured window, SLO (2s) the
#   client's p99 limit, MAX_STEPS (10) per sweep.
#   DIR (default: a new directory under /tmp) keeps every sweep's JSON and,
#   where `spoolsim plot` can draw them, one PNG per filesystem.
#
# On every filesystem, one `spoolsim sweep` (automatic: geometric growth
# from 50 msgs/s by 2x until a step fails, then bisection to 10 %) of each
#   bare       spoolsim relay --model none (what the spool alone allows)
#   model      spoolsim relay --model postfix (the prediction)
#   Postfix    a private Postfix (bench/postfix-instance.sh) as --target,
#              relaying to the sweep's own smtp-sink (--sink-port)
# and then a table of the knees (the highest offered rate that held) and
# model/Postfix. The three sweeps of a filesystem run one after another on
# the same mount; a knee found by bisection is good to the tolerance only,
# and a shared machine moves it further: read the ratio, not the digits.
set -u
ROOT=$(cd "$(dirname "$0")/.." && pwd)
. "$ROOT/bench/scratch-fs.sh"
. "$ROOT/bench/bench-lib.sh"
SPOOLSIM=$ROOT/spoolsim/spoolsim
OUT='' FSES="tmpfs ext4" SESSIONS=50 BYTES=1024 WINDOW=5s SLO=2s STEPS=10
usage() {
    echo "usage: $0 [-o DIR] [-f \"FS...\"] [-s SESSIONS] [-l BYTES] [-w WINDOW] [-S SLO] [-n MAX_STEPS]" >&2
    exit 2
}
bench_getopts "o:OUT f:FSES s:SESSIONS l:BYTES w:WINDOW S:SLO n:STEPS" "$@"
shift $((OPTIND - 1))
[ $# = 0 ] || usage
[[ $SESSIONS =~ ^[1-9][0-9]*$ && $BYTES =~ ^[1-9][0-9]*$ && $STEPS =~ ^[1-9][0-9]*$ ]] || usage
scratch_fs_usable "$FSES"
[ "$(id -u)" = 0 ] || { echo "$0: must run as root (Postfix, loop mounts)" >&2; exit 2; }
[ -x "$SPOOLSIM" ] || { echo "$0: missing $SPOOLSIM: run make" >&2; exit 2; }
. "$ROOT/bench/postfix-instance.sh"
pfi_init "$ROOT" || exit 1

TMP='' MNT=''
cleanup() {
    trap '' INT TERM
    pfi_stop
    [ -n "$MNT" ] && mountpoint -q "$MNT" && umount "$MNT"
    [ -n "$TMP" ] && rm -rf "$TMP"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM
# Postfix's unprivileged daemons must reach the queue under it.
TMP=$(mktemp -d /tmp/capacity.XXXXXX) && chmod 755 "$TMP" || exit 1
MNT=$TMP/mnt
mkdir -p "$MNT"
if [ -z "$OUT" ]; then OUT=$(mktemp -d /tmp/capacity-out.XXXXXX) || exit 1; fi
mkdir -p "$OUT" || exit 1

sweep() {  # NAME [sweep options...]: one sweep, its JSON in $OUT/NAME.json
    local name=$1
    shift
    echo "capacity: $name" >&2
    "$SPOOLSIM" sweep --start 50 --factor 2 --tolerance 0.1 --max-steps "$STEPS" \
        --warmup 2s --window "$WINDOW" --slo "$SLO" -s "$SESSIONS" --size "$BYTES" \
        --json "$OUT/$name.json" "$@" >"$OUT/$name.txt" 2>"$OUT/$name.err" ||
        { echo "$0: sweep $name failed:" >&2; cat "$OUT/$name.err" >&2; return 1; }
}
label() {  # FILE TEXT: the name `spoolsim plot' gives the result in its legend
    python3 - "$1" "$2" <<'EOF'
import json, sys
d = json.load(open(sys.argv[1]))
d["label"] = sys.argv[2]
json.dump(d, open(sys.argv[1], "w"), indent=1)
EOF
}

echo "capacity: $(nproc) CPUs, load average $(cut -d' ' -f1-3 /proc/loadavg) at the start" >&2
for fs in $FSES; do
    scratch_fs_mount "$fs" "$MNT" "$TMP/img" || { echo "$0: cannot make $fs" >&2; exit 1; }
    mkdir -p "$MNT/ss-none" "$MNT/ss-postfix"
    sweep "$fs-bare" --spool "$MNT/ss-none" -- --model none || exit 1
    sweep "$fs-model" --spool "$MNT/ss-postfix" -- --model postfix || exit 1
    free_port port sink_port || exit 1
    rm -rf "$TMP/pfi"
    pfi_setup "$TMP/pfi" "$MNT/pq" "$sink_port" "$port" || exit 1
    pfi_start || exit 1
    sweep "$fs-postfix" --target 127.0.0.1:"$port" --sink-port "$sink_port" || exit 1
    label "$OUT/$fs-postfix.json" "Postfix $PFI_VERSION (real)"
    pfi_stop
    cp "$TMP/pfi/postfix.log" "$OUT/$fs-postfix.log" 2>/dev/null
    rm -rf "$MNT/pq" "$MNT/ss-none" "$MNT/ss-postfix"
    if "$SPOOLSIM" plot --title "spoolsim sweep on $fs: the bare relay, the model, a real Postfix" \
        "$OUT/$fs-bare.json" "$OUT/$fs-model.json" "$OUT/$fs-postfix.json" \
        -o "$OUT/$fs.png" 2>"$TMP/plot.err"; then
        echo "capacity: $OUT/$fs.png" >&2
    else
        echo "capacity: no plot for $fs: $(head -1 "$TMP/plot.err")" >&2
    fi
done
echo "capacity: load average $(cut -d' ' -f1-3 /proc/loadavg) at the end" >&2

python3 - "$OUT" $FSES <<'EOF'
import json, sys
out, fses = sys.argv[1], sys.argv[2:]
def knee(path):
    r = json.load(open(path))
    steps = r.get("steps", [])
    k, b = r.get("knee_per_s"), r.get("broke_per_s")
    why = next((s.get("reason") for s in steps if s.get("offered_per_s") == b), None)
    return k, b, why
def fmt(k):
    return f"{k:>7.0f}" if k else "      -"
print(f"{'filesystem':<13} {'bare':>7} {'model':>7} {'Postfix':>7} {'model/Postfix':>14} {'bare/Postfix':>13}  broke at (why)")
for fs in fses:
    res = {n: knee(f"{out}/{fs}-{n}.json") for n in ("bare", "model", "postfix")}
    kb, km, kp = (res[n][0] for n in ("bare", "model", "postfix"))
    ratio = lambda a, b: f"{a / b:.2f}" if a and b else "-"
    broke = ", ".join(f"{n} {res[n][1]:.0f} ({res[n][2]})" for n in res if res[n][1])
    print(f"{fs:<13} {fmt(kb)} {fmt(km)} {fmt(kp)} {ratio(km, kp):>14} {ratio(kb, kp):>13}  {broke}")
print(f"results: {out}")
EOF
