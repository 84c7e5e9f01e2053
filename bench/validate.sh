#!/usr/bin/env bash
# validate.sh - benchmark (not a test): the model against the real MTA, cell
# by cell, with `spoolsim bench --compare' (the real MTA and the model
# alternating run by run on one fresh filesystem a cell), and the A/B ratios
# a user would take from them, predicted against real.
#
# Usage: bench/validate.sh [-P MTA] [-m MESSAGES] [-r RUNS] [-c "CELL..."]
#   as root, after `make'. MTA: postfix (the default) or exim, fetched and
#   run privately by spoolsim bench. CELL: FS:SESSIONSxBYTES[xRCPTS], FS one
#   of bench/scratch-fs.sh's (tmpfs, ext4, ext4-dirsync, ext4-journal, xfs,
#   btrfs, here), e.g. ext4:20x15360 or xfs:50x1024x5. MESSAGES a run (5000:
#   shorter runs measure mostly the MTA's start-up), RUNS of each side a
#   cell (3). The model is the cached one of this machine (run `spoolsim
#   calibrate MTA' first); nothing is calibrated here.
#
# Printed: a row a cell (the medians of each side, model/real with its 95 %
# interval, whether within +-15 %, the disk's bytes and flushes a message
# for both), then for every two cells of the same load whose filesystems
# make a classic A/B (ext4-dirsync/ext4, xfs/ext4, ext4-journal/ext4,
# btrfs/ext4), the real ratio, the predicted one and predicted/real.
set -u
ROOT=$(cd "$(dirname "$0")/.." && pwd)
. "$ROOT/bench/scratch-fs.sh"
. "$ROOT/bench/bench-lib.sh"
SPOOLSIM=$ROOT/spoolsim/spoolsim
M=5000 RUNS=3 MTA=postfix
CELLS="tmpfs:20x1024 ext4:20x1024 ext4:20x15360 ext4-dirsync:20x1024 ext4-journal:20x15360 xfs:20x1024 xfs:20x15360"
usage() { echo "usage: $0 [-P postfix|exim] [-m MESSAGES] [-r RUNS] [-c \"FS:SESSIONSxBYTES[xRCPTS]...\"]" >&2; exit 2; }
bench_getopts "P:MTA m:M r:RUNS c:CELLS" "$@"
shift $((OPTIND - 1))
[ $# = 0 ] || usage
[[ $M =~ ^[1-9][0-9]*$ && $RUNS =~ ^[1-9][0-9]*$ ]] || usage
case $MTA in postfix | exim) ;; *) echo "$0: -P takes postfix or exim, not $MTA" >&2; exit 2 ;; esac
fses=
for cell in $CELLS; do
    [[ $cell =~ ^[a-z0-9-]+:[1-9][0-9]*x[1-9][0-9]*(x[1-9][0-9]*)?$ ]] || { echo "$0: bad cell $cell" >&2; exit 2; }
    fses="$fses ${cell%%:*}"
done
scratch_fs_usable "$fses"
[ "$(id -u)" = 0 ] || { echo "$0: must run as root (the real MTA, loop mounts)" >&2; exit 2; }
[ -x "$SPOOLSIM" ] || { echo "$0: missing $SPOOLSIM: run make" >&2; exit 2; }
TMP=$(mktemp -d /var/tmp/spoolsim-validate.XXXXXX) && chmod 711 "$TMP" || exit 1
MNT=$TMP/mnt IMG=$TMP/img
mkdir -p "$MNT"
trap 'mountpoint -q "$MNT" && umount "$MNT"; rm -rf "$TMP"' EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

echo "# $(bench_machine); $MTA against spoolsim bench --compare $MTA, $M messages a run, $RUNS runs a side a cell, alternating"
printf '%-26s %9s %9s %6s %-13s %5s %15s %13s\n' "# cell" "real/s" "model/s" "ratio" "95% interval" "15%" "KiB/msg r/m" "flush/msg r/m"
for cell in $CELLS; do
    fs=${cell%%:*} load=${cell#*:}
    IFS=x read -r sessions bytes rcpts <<<"$load"
    rcpts=${rcpts:-1}
    scratch_fs_mount "$fs" "$MNT" "$IMG" || { echo "$0: cannot make $fs" >&2; exit 1; }
    json=$TMP/$fs-$load.json
    if ! "$SPOOLSIM" bench -q --no-calibrate --spool "$MNT" --compare "$MTA" -n "$RUNS" -m "$M" \
        -s "$sessions" --size "$bytes" -r "$rcpts" --json "$json" >"$TMP/run.out" 2>&1; then
        # a disagreement beyond 15 % is exit 1 with a whole result; anything else is not
        [ -s "$json" ] || { echo "$0: $cell failed:" >&2; tail -5 "$TMP/run.out" >&2; exit 1; }
    fi
    python3 - "$cell" "$json" <<'PY'
import json, sys
c = json.load(open(sys.argv[2]))
d = c.get("disk_per_message") or {}
def disk(side, key, scale=1):
    v = (d.get(side) or {}).get(key)
    return "-" if v is None else "%.1f" % (v / scale) if scale != 1 else "%.2f" % v
print("%-26s %9.0f %9.0f %6.2f %5.2f-%-7.2f %5s %7s/%-7s %6s/%-6s" % (
    sys.argv[1], c["delivered_per_s"]["mta"], c["delivered_per_s"]["model"], c["ratio"],
    c.get("ratio_ci_low") or float("nan"), c.get("ratio_ci_high") or float("nan"),
    "yes" if c.get("agree") else "NO",
    disk("mta", "bytes_written", 1024), disk("model", "bytes_written", 1024),
    disk("mta", "flushes"), disk("model", "flushes")))
PY
    for _ in 1 2 3 4 5 6 7 8 9 10; do umount "$MNT" 2>/dev/null && break; sleep 0.5; done
    rm -rf "$IMG" "$IMG.d"
done

echo "# A/B ratios (B/A, delivered msgs/s): real, predicted, predicted/real"
python3 - "$TMP" <<'PY'
import glob, json, os, sys
cells = {}
for f in glob.glob(os.path.join(sys.argv[1], "*.json")):
    fs, load = os.path.basename(f)[:-5].rsplit("-", 1)  # FS may have a dash, a load has none
    cells[(fs, load)] = json.load(open(f))["delivered_per_s"]
for b, a in (("ext4-dirsync", "ext4"), ("xfs", "ext4"), ("ext4-journal", "ext4"), ("btrfs", "ext4")):
    for (fs, load), rates in sorted(cells.items()):
        if fs != b or (a, load) not in cells:
            continue
        base = cells[(a, load)]
        real, pred = rates["mta"] / base["mta"], rates["model"] / base["model"]
        print("%-26s real %.2f  predicted %.2f  predicted/real %.2f" % ("%s/%s %s" % (b, a, load), real, pred, pred / real))
PY
