#!/usr/bin/env bash
# disk-cost.sh - benchmark (not a test): what a disk costs a real MTA and
# the relay's model of it, beyond the rate: where the CPU goes and how
# often the machine switches and waits, per message, on tmpfs and on disks.
#
# Usage: bench/disk-cost.sh [-P MTA] [-m MESSAGES] [-r REPS] [-f "FS..."] [-l "LOAD..."] [-M "MODEL..."]
#   as root, after `make'. MTA: postfix (default) or exim, run by
#   `spoolsim bench --mta' (fetched, never installed). FS: tmpfs, ext4,
#   ext4-dirsync, xfs, here (bench/scratch-fs.sh; default "tmpfs ext4 xfs").
#   LOAD: SESSIONSxBYTES ("20x1024 20x15360 50x1024 50x15360"). MESSAGES a
#   run (5000: shorter runs measure mostly the MTA's start-up), REPS runs of
#   each system a cell (2), alternating. MODEL: the relay's --model for the
#   prediction ("MTA": the calibrated or built-in one).
#
# Each run is one `spoolsim bench' (the same smtp-source load, smtp-sink,
# spool on FS, exactly once checked) in a cpuacct cgroup of its own, and
# around it, machine-wide: the CPU time of everything (/proc/stat), the
# context switches (/proc/stat ctxt), the kernel threads' CPU (children of
# kthreadd: the journal, the loop device's worker, kworkers, xfs's), and
# the time some task waited for I/O (/proc/pressure/io "some"). Per
# message, printed a row a run and, with more than one, the medians a cell:
#   rate    delivered msgs/s (load start to empty queue)
#   sys     the system under test's CPU: the cgroup's, less smtp-source's
#           and smtp-sink's own (their rusage, from bench's JSON)
#   kthr    kernel threads' CPU
#   all     the whole machine's CPU, idle and iowait left out
#   cs      context switches, machine-wide
#   iowait  the time some task was stalled on I/O (PSI), microseconds
#   idle    the CPUs' idle time, iowait included, microseconds: a system
#           whose rate is below what its CPU allows leaves the machine idle
# The machine should be quiet: everything else it runs is in `all' and
# `cs' too.
set -u
ROOT=$(cd "$(dirname "$0")/.." && pwd)
. "$ROOT/bench/scratch-fs.sh"
. "$ROOT/bench/bench-lib.sh"
SPOOLSIM=$ROOT/spoolsim/spoolsim
M=5000 REPS=2 FSES="tmpfs ext4 xfs" LOADS="20x1024 20x15360 50x1024 50x15360" MODELS='' MTA=postfix
usage() { echo "usage: $0 [-P postfix|exim] [-m MESSAGES] [-r REPS] [-f \"FS...\"] [-l \"SESSIONSxBYTES...\"] [-M \"MODEL...\"]" >&2; exit 2; }
bench_getopts "P:MTA m:M r:REPS f:FSES l:LOADS M:MODELS" "$@"
shift $((OPTIND - 1))
[ $# = 0 ] || usage
[[ $M =~ ^[1-9][0-9]*$ && $REPS =~ ^[1-9][0-9]*$ ]] || usage
case $MTA in postfix | exim) ;; *) usage ;; esac
MODELS=${MODELS:-$MTA}
for load in $LOADS; do [[ $load =~ ^[1-9][0-9]*x[1-9][0-9]*$ ]] || { echo "$0: bad load $load" >&2; exit 2; }; done
scratch_fs_usable "$FSES"
[ "$(id -u)" = 0 ] || { echo "$0: must run as root (the MTA, loop mounts, cgroups)" >&2; exit 2; }
[ -d /sys/fs/cgroup/cpuacct ] || [ -f /sys/fs/cgroup/cgroup.controllers ] ||
    { echo "$0: no cpuacct cgroup (v1) or unified cgroup (v2) mounted" >&2; exit 2; }
[ -r /proc/pressure/io ] || echo "$0: no /proc/pressure/io: iowait is not measured" >&2

TMP=$(mktemp -d /var/tmp/spoolsim-diskcost.XXXXXX) && chmod 711 "$TMP" || exit 1
MNT=$TMP/mnt CG=''
mkdir -m 755 "$MNT" || exit 1
: >"$TMP/rows"
cleanup() {
    trap '' INT TERM
    mountpoint -q "$MNT" && umount "$MNT"
    [ -n "$CG" ] && [ -d "$CG" ] && rmdir "$CG" 2>/dev/null
    rm -rf "$TMP"
}
trap cleanup EXIT
trap 'exit 130' INT TERM
if [ -d /sys/fs/cgroup/cpuacct ]; then
    CG=/sys/fs/cgroup/cpuacct/spoolsim-diskcost.$$
    cg_ns() { cat "$CG/cpuacct.usage"; }
else
    CG=/sys/fs/cgroup/spoolsim-diskcost.$$
    cg_ns() { awk '$1 == "usage_usec" { print $2 * 1000 }' "$CG/cpu.stat"; }
fi
mkdir "$CG" || exit 1

# machine: "BUSY_NS CTXT KTHREAD_NS IO_SOME_US IDLE_NS", machine-wide, now.
machine() {
    local hz kt=0 p f
    hz=$(getconf CLK_TCK)
    for p in /proc/[0-9]*/stat; do
        # pid (comm) state ppid ... utime(14) stime(15): comm may hold spaces
        { f=$(<"$p"); } 2>/dev/null || continue
        f=${f##*) }
        set -- $f
        [ "$2" = 2 ] && kt=$((kt + ${12} + ${13}))
    done
    awk -v hz="$hz" -v kt="$kt" '
        FILENAME == "/proc/stat" && $1 == "cpu" { busy = $2 + $3 + $4 + $7 + $8 + $9; idle = $5 + $6 }
        FILENAME == "/proc/stat" && $1 == "ctxt" { ctxt = $2 }
        FILENAME == "/proc/pressure/io" && $1 == "some" { split($5, t, "="); io = t[2] }
        END { printf "%.0f %s %.0f %s %.0f\n", busy * 1e9 / hz, ctxt, kt * 1e9 / hz, io + 0, idle * 1e9 / hz }' \
        /proc/stat /proc/pressure/io 2>/dev/null
}

# run SYSTEM FS LOAD: one bench run in the cgroup; a row on stdout.
run() {
    local sys=$1 fs=$2 s=${3%x*} size=${3#*x} json=$TMP/run.json a b cg0 cg1 what=()
    case $sys in
    real) what=(--mta "$MTA") sys=$MTA ;;
    *) what=(--model "${sys#model:}" --profile "$MTA") ;;
    esac
    cg0=$(cg_ns)
    a=$(machine)
    (echo "$BASHPID" >"$CG/cgroup.procs" &&
        exec "$SPOOLSIM" bench -q --spool "$MNT" -m "$M" -s "$s" --size "$size" "${what[@]}" \
            --json "$json") >"$TMP/run.out" 2>&1 ||
        { echo "$0: $sys on $fs at $3 failed:" >&2; tail -5 "$TMP/run.out" >&2; return 1; }
    b=$(machine)
    cg1=$(cg_ns)
    python3 - "$json" "$sys" "$fs" "$3" "$cg0" "$cg1" $a $b <<'PY'
import json, sys
j = json.load(open(sys.argv[1]))
sysname, fs, load = sys.argv[2:5]
cg = (int(sys.argv[6]) - int(sys.argv[5])) / 1e9
a = [float(x) for x in sys.argv[7:12]]
b = [float(x) for x in sys.argv[12:17]]
n = j["delivered"]
if not j.get("exactly_once"):
    print("# not exactly once: %s" % sys.argv[1], file=sys.stderr)
harness = j["cpu_s"]["source"] + j["cpu_s"]["sink"]
us = lambda s: s / n * 1e6
print("%-14s %-6s %-9s %8.1f %7.0f %6.0f %7.0f %6.1f %7.0f %7.0f" % (
    sysname, fs, load, j["delivered_per_s"], us(cg - harness), us((b[2] - a[2]) / 1e9),
    us((b[0] - a[0]) / 1e9), (b[1] - a[1]) / n, (b[3] - a[3]) / n, us((b[4] - a[4]) / 1e9)))
PY
}

echo "# $(bench_machine); $M messages a run"
echo "# system       fs     load         rate  sys_us kthr_us  all_us   cs/msg io_us  idle_us"
for fs in $FSES; do
    for load in $LOADS; do
        for ((rep = 0; rep < REPS; rep++)); do
            models=$(for m in $MODELS; do printf 'model:%s ' "$m"; done)
            order="real $models"
            [ $((rep % 2)) = 1 ] && order="$models real"
            for sys in $order; do
                scratch_fs_mount "$fs" "$MNT" "$TMP/img" || { echo "$0: cannot mount $fs" >&2; exit 1; }
                run "$sys" "$fs" "$load" | tee -a "$TMP/rows"
                [ "${PIPESTATUS[0]}" = 0 ] || exit 1
                # a daemon of the MTA may take a moment more to let go
                for _ in {1..100}; do umount "$MNT" 2>/dev/null && break; sleep 0.1; done
                mountpoint -q "$MNT" && { echo "$0: $MNT stays busy: $(fuser -vm "$MNT" 2>&1)" >&2; exit 1; }
                rm -rf "$TMP/img" "$TMP/img.d"
            done
        done
        # the cell's medians, a row a system, when it had more than one run
        [ "$REPS" -gt 1 ] && python3 - "$TMP/rows" <<'PY'
import statistics, sys
rows = [l.split() for l in open(sys.argv[1])]
for name in dict.fromkeys(r[0] for r in rows):
    mine = [r for r in rows if r[0] == name]
    med = [statistics.median(float(r[i]) for r in mine) for i in range(3, 10)]
    print("%-14s %-6s %-9s %8.1f %7.0f %6.0f %7.0f %6.1f %7.0f %7.0f  median of %d" % (
        (name, mine[0][1], mine[0][2]) + tuple(med) + (len(mine),)))
PY
        : >"$TMP/rows"
    done
done
