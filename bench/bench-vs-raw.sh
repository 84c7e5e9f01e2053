#!/usr/bin/env bash
# bench-vs-raw.sh - benchmark (not a test): how close
# does the whole SMTP path (`spoolsim bench --model none`) come to the
# spool's own file operations (`spoolsim raw`) on one filesystem, and what
# does the CPU per message say about the gap?
#
# Usage: bench/bench-vs-raw.sh [-f "FS..."] [-s SESSIONS] [-l SIZE]
#                              [-d DURATION] [-r REPS] [SPOOL_DIR]
#   after `make'. As root, without SPOOL_DIR: each FS of tmpfs, ext4,
#   ext4-dirsync, xfs (default: "tmpfs ext4") is made fresh by
#   bench/scratch-fs.sh (all but tmpfs a 2 GiB loop image) and removed
#   afterwards. With SPOOL_DIR (as any user): that directory's filesystem
#   only, and no -f.
#   SESSIONS (20): raw's -w and bench's -s; SIZE (1024): both --size;
#   DURATION (5s): each run's -d; REPS (3) pairs of runs per filesystem.
#
# On each filesystem, after an untimed warm-up of each (a fifth of DURATION),
# runs alternate raw, bench, raw, bench ... so the shared machine's drift
# falls on both:
#   raw     spoolsim raw --spool MNT -w SESSIONS --size SIZE -d DURATION: the
#           postfix profile's file operations (one fsync per message, as
#           bench's relay) by SESSIONS threads, no network; its CPU is the
#           process's user+sys (wait4) over the messages delivered
#   bench   spoolsim bench --spool MNT --model none -s SESSIONS --size SIZE
#           -d DURATION: smtp-source -> relay -> smtp-sink on loopback, all
#           three on this machine's cores; CPU per message of the relay, the
#           source and the sink from its JSON (cpu_per_message_s)
# Printed per filesystem: the medians of raw's and bench's msgs/s and their
# ratio; the median CPU per message (ms) of raw, relay, source and sink, and
# of the kernel's storage threads (machine-wide) and the machine's busy
# share during each kind of run; and
# two ceilings for bench on this machine's cores: cores / (relay + source +
# sink), what bench could reach with every core busy, and cores / (raw +
# source + sink), what it could reach if the relay's SMTP work (everything
# but the spool's file operations) cost nothing. bench's ratio cannot pass
# the second ceiling over raw's rate while the source and sink share the
# cores. Also the load average at the start and the end: the machine is
# shared, so read the ratios, not the digits.
set -u
ROOT=$(cd "$(dirname "$0")/.." && pwd)
. "$ROOT/bench/scratch-fs.sh"
. "$ROOT/bench/bench-lib.sh"
SPOOLSIM=$ROOT/spoolsim/spoolsim
S=20 SIZE=1024 DUR=5s REPS=3
unset FSES # set by -f only, which excludes SPOOL_DIR
usage() {
    echo "usage: $0 [-f \"FS...\"] [-s SESSIONS] [-l SIZE] [-d DURATION] [-r REPS] [SPOOL_DIR]" >&2
    exit 2
}
bench_getopts "f:FSES s:S l:SIZE d:DUR r:REPS" "$@"
shift $((OPTIND - 1))
FS_GIVEN=${FSES+1} FSES=${FSES-tmpfs ext4}
[ $# -le 1 ] || usage
[[ $S =~ ^[1-9][0-9]*$ ]] || { echo "$0: -s $S: not a positive number of sessions" >&2; exit 2; }
[[ $SIZE =~ ^[1-9][0-9]*$ ]] || { echo "$0: -l $SIZE: not a size in bytes" >&2; exit 2; }
[[ $REPS =~ ^[1-9][0-9]*$ ]] || { echo "$0: -r $REPS: not a positive number of runs" >&2; exit 2; }
# The warm-up is a fifth of a run: whole seconds keep that arithmetic simple.
[[ $DUR =~ ^([1-9][0-9]*)s?$ ]] || { echo "$0: -d $DUR: not a duration in whole seconds (5 or 5s)" >&2; exit 2; }
DUR_S=${BASH_REMATCH[1]}
[ -x "$SPOOLSIM" ] || { echo "$0: missing $SPOOLSIM: run make" >&2; exit 2; }
command -v python3 >/dev/null || { echo "$0: python3 is required" >&2; exit 2; }
SPOOL_DIR=''
if [ $# = 1 ]; then
    [ -z "$FS_GIVEN" ] || { echo "$0: -f and SPOOL_DIR exclude each other" >&2; exit 2; }
    SPOOL_DIR=$1
    if [ ! -d "$SPOOL_DIR" ] || [ ! -w "$SPOOL_DIR" ]; then
        echo "$0: $SPOOL_DIR: not a writable directory" >&2
        exit 2
    fi
    FSES=dir
else
    [ -n "$FSES" ] || { echo "$0: -f: no filesystem given" >&2; exit 2; }
    scratch_fs_usable "$FSES"
    [ "$(id -u)" = 0 ] || { echo "$0: give a SPOOL_DIR, or run as root to mount the filesystems" >&2; exit 2; }
fi

TMP='' MNT='' RUN_PID=''
cleanup() {
    trap '' INT TERM HUP
    # run.py passes the signal on to spoolsim, which removes its private
    # directory; only then is the mount free to go.
    [ -n "$RUN_PID" ] && kill "$RUN_PID" 2>/dev/null && wait "$RUN_PID" 2>/dev/null
    if [ -n "$MNT" ] && mountpoint -q "$MNT"; then
        umount "$MNT" || { sleep 1; umount "$MNT"; }
    fi
    [ -n "$TMP" ] && rm -rf "$TMP"
}
trap cleanup EXIT
trap 'echo "interrupted" >&2; exit 130' INT HUP
trap 'echo "terminated" >&2; exit 143' TERM
TMP=$(mktemp -d /tmp/bench-vs-raw.XXXXXX) || exit 1
MNT=$TMP/mnt

# run.py KIND DIR SESSIONS SIZE DURATION OUT: one run of raw or bench; prints
# "KIND msgs_per_s busy kthreads_ms cpu_ms..." (raw: its own CPU; bench:
# relay source sink) and, for bench, the bottleneck line on a second line.
# busy: the machine's cores busy over the run, % (/proc/stat);
# kthreads: the kernel's storage threads (those the relay's bottleneck line
# counts: jbd2, kworker, loop, xfs ...) per message, machine-wide, so other
# work's I/O on a shared machine lands in it too.
cat >"$TMP/run.py" <<'EOF'
import json, os, signal, subprocess, sys
spoolsim, kind, d, s, size, dur, out = sys.argv[1:8]
PREFIXES = ("jbd2/", "kworker/", "loop", "xfs", "ext4-", "blkcg", "kblockd", "dio/")
def kthreads():
    ticks = {}
    for pid in os.listdir("/proc"):
        if not pid.isdigit():
            continue
        try:
            head, rest = open(f"/proc/{pid}/stat").read().rsplit(")", 1)
        except OSError:
            continue
        f = rest.split()
        if f[1] == "2" and head.split("(", 1)[1].startswith(PREFIXES):  # kthreadd's
            ticks[pid] = int(f[11]) + int(f[12])
    return ticks
def cpu():
    f = [int(x) for x in open("/proc/stat").readline().split()[1:]]
    return sum(f), f[3] + f[4]  # total, idle + iowait
if kind == "raw":
    cmd = [spoolsim, "raw", "--spool", d, "-w", s]
else:
    cmd = [spoolsim, "bench", "--spool", d, "--model", "none", "-s", s, "--no-progress"]
cmd += ["--size", size, "-d", dur, "-q", "--json", out]
err = open(out + ".err", "w")
k0, c0 = kthreads(), cpu()
child = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=err)
def stop(signum, _frame):
    child.send_signal(signum)
    child.wait()
    sys.exit(128 + signum)
signal.signal(signal.SIGTERM, stop)
signal.signal(signal.SIGINT, stop)
_, status, ru = os.wait4(child.pid, 0)
k1, c1 = kthreads(), cpu()
code = os.waitstatus_to_exitcode(status)
if code != 0:
    sys.exit(f"{kind} failed (status {code}): {' '.join(cmd)}\n" + open(out + ".err").read())
res = json.load(open(out))
n = res["delivered"]
if not n:
    sys.exit(f"{kind}: nothing delivered")
busy = 100 * (1 - (c1[1] - c0[1]) / max(c1[0] - c0[0], 1))
kth = sum(t - k0.get(p, 0) for p, t in k1.items()) / os.sysconf("SC_CLK_TCK") / n * 1e3
line = f"{kind} {res['delivered_per_s']:.1f} {busy:.1f} {kth:.5f}"
if kind == "raw":
    print(f"{line} {(ru.ru_utime + ru.ru_stime) / n * 1e3:.5f}")
else:
    c = res["cpu_per_message_s"]
    print(f"{line} {c['relay'] * 1e3:.5f} {c['source'] * 1e3:.5f} {c['sink'] * 1e3:.5f}")
    print(res.get("bottleneck") or "-")
EOF
run() {  # KIND DIR DURATION: one run in the background, so a signal ends it at once
    python3 "$TMP/run.py" "$SPOOLSIM" "$1" "$2" "$S" "$SIZE" "$3" "$TMP/run.json" >"$TMP/run.out" &
    RUN_PID=$!
    wait "$RUN_PID"
    local rc=$?
    RUN_PID=''
    return $rc
}

CORES=$(nproc)
echo "bench-vs-raw: $CORES cores; -s $S, --size $SIZE, -d $DUR, $REPS runs of each; load average $(cut -d' ' -f1-3 /proc/loadavg) at the start" >&2
: >"$TMP/results"
for fs in $FSES; do
    if [ "$fs" = dir ]; then
        dir=$SPOOL_DIR
    else
        mkdir -p "$MNT"
        scratch_fs_mount "$fs" "$MNT" "$TMP/img" || { echo "$0: cannot make $fs" >&2; exit 1; }
        dir=$MNT
    fi
    warm=$(( DUR_S / 5 > 0 ? DUR_S / 5 : 1 ))s
    for kind in raw bench; do run "$kind" "$dir" "$warm" || exit 1; done
    for rep in $(seq "$REPS"); do
        run raw "$dir" "$DUR" || exit 1
        read -r _ raw_rate raw_busy raw_kth raw_cpu <"$TMP/run.out"
        run bench "$dir" "$DUR" || exit 1
        { read -r _ b_rate b_busy b_kth relay src sink; read -r bottleneck; } <"$TMP/run.out"
        echo "$fs $raw_rate $raw_busy $raw_kth $raw_cpu $b_rate $b_busy $b_kth $relay $src $sink" >>"$TMP/results"
        printf 'bench-vs-raw: %s run %d: raw %.0f msgs/s, %.3f ms (kernel storage threads %.3f), machine %.0f %% busy; bench %.0f msgs/s, relay %.3f source %.3f sink %.3f ms (kernel storage threads %.3f), machine %.0f %% busy: %s; load %s\n' \
            "$fs" "$rep" "$raw_rate" "$raw_cpu" "$raw_kth" "$raw_busy" \
            "$b_rate" "$relay" "$src" "$sink" "$b_kth" "$b_busy" "$bottleneck" \
            "$(cut -d' ' -f1 /proc/loadavg)" >&2
    done
    if [ "$fs" != dir ]; then umount "$MNT" && rm -f "$TMP/img" || exit 1; fi
done
echo "bench-vs-raw: load average $(cut -d' ' -f1-3 /proc/loadavg) at the end" >&2

python3 - "$TMP/results" "$CORES" <<'EOF'
import statistics, sys
rows = {}
for line in open(sys.argv[1]):
    fs, *v = line.split()
    rows.setdefault(fs, []).append([float(x) for x in v])
cores = int(sys.argv[2])
print(f"medians of {len(next(iter(rows.values())))} runs each, {cores} cores; CPU in ms per message, "
      "busy: the machine's cores during the runs")
print(f"{'filesystem':<13} {'raw/s':>7} {'bench/s':>7} {'ratio':>5} | {'raw':>5} {'kthr':>5} {'busy':>4} | "
      f"{'relay':>5} {'src':>5} {'sink':>5} {'kthr':>5} {'busy':>4} | "
      f"{'ceiling':>7} {'noSMTP':>7} {'/raw':>5}")
for fs, runs in rows.items():
    raw, rbusy, rkth, rcpu, bench, bbusy, bkth, relay, src, sink = (
        statistics.median(c) for c in zip(*runs))
    ceil_all = cores / (relay + src + sink) * 1e3
    ceil_raw = cores / (rcpu + src + sink) * 1e3
    print(f"{fs:<13} {raw:7.0f} {bench:7.0f} {bench / raw:5.2f} | {rcpu:5.3f} {rkth:5.3f} {rbusy:3.0f}% | "
          f"{relay:5.3f} {src:5.3f} {sink:5.3f} {bkth:5.3f} {bbusy:3.0f}% | "
          f"{ceil_all:7.0f} {ceil_raw:7.0f} {ceil_raw / raw:5.2f}")
print("ceiling: cores / (relay + src + sink), bench with every core busy; noSMTP: cores / (raw + src +\n"
      "sink), the same if the relay's SMTP work cost nothing; /raw: noSMTP over raw's rate, the\n"
      "most bench/raw can be while the source and sink share the cores. kthr: the kernel's storage\n"
      "threads, machine-wide (in neither ceiling; on a disk they are part of the cost).")
EOF
