#!/usr/bin/env bash
# calibrate-postfix.sh - measure what a real Postfix spends in CPU per
# message, by process class, and write it as a cost model for
# `spoolsim relay --model FILE' (docs/fidelity.md). `spoolsim calibrate
# postfix' runs this script.
#
# Usage: bench/calibrate-postfix.sh [-o MODEL.json] [-m MESSAGES]
#   as root, after `make'; Postfix comes from scripts/fetch-peer.sh postfix
#   (tests/peers/postfix, or $SPOOLSIM_PEERS/postfix): nothing is installed.
#
# How: a private, loopback-only Postfix instance relays our smtp-source's
# load into our smtp-sink, with its queue on a tmpfs so that the disk costs
# nothing and only CPU is measured. Its daemon_directory is a directory of
# wrappers, one per daemon, each of which moves itself into the cpuacct
# cgroup named after the daemon (smtpd, cleanup, qmgr, ...) and execs the
# real one: the cgroup counts the CPU of every process of the class, also
# of those that exit during the run (smtpd and cleanup do, after max_use),
# user and kernel time, to the nanosecond. The wrapper's own start (a
# shell, before it moves) is counted to master, which forks it.
# Then the bare relay (`spoolsim relay --model none') takes the same loads on
# a tmpfs, and its CPU per role (the event loop, the cleanup threads, the
# qmgr thread: its JSON's cpu_s, from the threads' own CPU clocks) is the
# difference between a run with the load and one with only the warm-up, so
# that the model burns only what the relay does not already spend.
# Loads (each after a warm-up): 20 sessions x 1 KiB, 20 x 15 KiB, 5 x 1 KiB,
# and 20 x 1 KiB with 5 recipients; one message per connection, as the
# Postfix tools' default. Per stage a least-squares fit of
#   CPU us = base + per_kib * KiB + per_rcpt * (recipients - 1)
# over the four loads, for Postfix's class and for the relay's role.
# The model also records the CPU's reference speed (`spoolsim calibrate
# --speed') and the machine it was measured on: its identity and what
# system work costs there (`spoolsim calibrate --machine', measured first,
# on a quiet machine), so that a relay elsewhere can say how far it is
# from this one (docs/fidelity.md). Each stage also gets the system calls
# its class makes per message, and the model the bare relay's, from
# data/postfix-syscalls.json (counted once by bench/count-postfix.sh: they
# are the program's, not the machine's), which the relay makes for real.
set -u
ROOT=$(cd "$(dirname "$0")/.." && pwd)
SPOOLSIM=${SPOOLSIM:-$ROOT/spoolsim/spoolsim}
SRC=${SPOOLSIM_SMTP_SOURCE:-$ROOT/smtp-source/smtp-source}
SINK=${SPOOLSIM_SMTP_SINK:-$ROOT/smtp-sink/smtp-sink}
SYSCALLS=${SPOOLSIM_DATA_DIR:-$ROOT/data}/postfix-syscalls.json
OUT=- M=2000
usage() { echo "usage: $0 [-o MODEL.json] [-m MESSAGES]" >&2; exit 2; }
while getopts o:m:h opt; do
    case $opt in
    o) OUT=$OPTARG ;;
    m) M=$OPTARG ;;
    *) usage ;;
    esac
done
shift $((OPTIND - 1))
[ $# = 0 ] || usage
[[ $M =~ ^[1-9][0-9]*$ ]] && [ "$M" -ge 200 ] || { echo "$0: -m wants at least 200 messages" >&2; exit 2; }
[ "$(id -u)" = 0 ] || { echo "$0: must run as root (a Postfix instance, tmpfs mounts, cgroups)" >&2; exit 2; }
for f in "$SPOOLSIM" "$SRC" "$SINK"; do [ -x "$f" ] || { echo "$0: missing $f: run make first" >&2; exit 2; }; done
command -v python3 >/dev/null || { echo "$0: python3 is required" >&2; exit 2; }
. "$ROOT/bench/postfix-instance.sh"
pfi_init "$ROOT" || exit 1
if [ -d /sys/fs/cgroup/cpuacct ]; then
    CG=/sys/fs/cgroup/cpuacct/spoolsim-calibrate.$$ CG_V=1
elif [ -f /sys/fs/cgroup/cgroup.controllers ]; then
    CG=/sys/fs/cgroup/spoolsim-calibrate.$$ CG_V=2
else
    echo "$0: neither cgroup v1 cpuacct nor cgroup v2 is mounted" >&2; exit 1
fi

TMP='' SINK_PID='' RELAY_PID=''
cleanup() {
    trap '' INT TERM
    [ -n "$RELAY_PID" ] && kill "$RELAY_PID" 2>/dev/null && wait "$RELAY_PID" 2>/dev/null
    pfi_stop
    [ -n "$SINK_PID" ] && kill "$SINK_PID" 2>/dev/null && wait "$SINK_PID" 2>/dev/null
    for d in "$CG"/*/; do [ -d "$d" ] && rmdir "$d"; done 2>/dev/null
    [ -d "$CG" ] && rmdir "$CG" 2>/dev/null
    if [ -n "$TMP" ]; then
        for m in "$TMP/queue" "$TMP/spool"; do mountpoint -q "$m" && umount "$m"; done
        rm -rf "$TMP"
    fi
}
trap cleanup EXIT
trap 'echo "interrupted" >&2; exit 130' INT TERM

TMP=$(mktemp -d /tmp/spoolsim-calibrate.XXXXXX) && chmod 755 "$TMP" || exit 1
mkdir -p "$TMP/wrap" "$TMP/queue" "$TMP/spool" "$CG" || exit 1
"$SPOOLSIM" calibrate --machine >"$TMP/machine.json" || exit 1
mount -t tmpfs -o size=4g,mode=755 tmpfs "$TMP/queue" && mount -t tmpfs -o size=4g tmpfs "$TMP/spool" || exit 1
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }

# The wrappers: every daemon in its class's cgroup; Postfix's scripts as they are.
for d in "$PFI_DAEMONS"/*; do
    n=$(basename "$d")
    case $n in
    *-script | post-install | postfix-wrapper) ln -s "$d" "$TMP/wrap/$n"; continue ;;
    esac
    mkdir -p "$CG/$n"
    printf '#!/bin/sh\necho $$ >%s/%s/cgroup.procs || exit 1\nexec %s "$@"\n' "$CG" "$n" "$d" >"$TMP/wrap/$n"
    chmod 755 "$TMP/wrap/$n"
done

SINK_PORT=$(free_port) PORT=$(free_port)
"$SINK" 127.0.0.1:"$SINK_PORT" 1000 >/dev/null 2>"$TMP/sink.err" &
SINK_PID=$!
pfi_setup "$TMP" "$TMP/queue" "$SINK_PORT" "$PORT" "$TMP/wrap" && pfi_start || exit 1

# send PORT QUEUE SESSIONS SIZE MESSAGES RCPTS: the load, then wait until delivered.
send() {
    local rcpt_opts=()
    [ "$6" -gt 1 ] && rcpt_opts=(-N -r "$6")
    "$SRC" -s "$3" -l "$4" -m "$5" "${rcpt_opts[@]}" 127.0.0.1:"$1" >"$TMP/src.out" 2>&1 ||
        { echo "$0: smtp-source failed:" >&2; cat "$TMP/src.out" >&2; return 1; }
    for _ in $(seq 600); do pfi_queue_empty "$2" && return 0; sleep 0.1; done
    echo "$0: the queue did not drain" >&2
    return 1
}
cg_usage() {  # NAME: CPU nanoseconds of the class so far
    if [ "$CG_V" = 1 ]; then cat "$CG/$1/cpuacct.usage"; else
        awk '$1 == "usage_usec" { print $2 * 1000 }' "$CG/$1/cpu.stat"; fi
}
classes() { for d in "$CG"/*/; do basename "$d"; done; }
snapshot_postfix() { for c in $(classes); do echo "$c $(cg_usage "$c")"; done; }
LOADS="20:1024:1 20:15360:1 5:1024:1 20:1024:5"
: >"$TMP/points"
measure() {  # SYSTEM PORT QUEUE SNAPSHOT: every load, per class CPU us/msg into points
    local sys=$1 port=$2 queue=$3 snap=$4 load s l r n
    send "$port" "$queue" 20 1024 200 1 || return 1  # warm-up
    for load in $LOADS; do
        IFS=: read -r s l r <<<"$load"
        n=$M
        [ "$r" -gt 1 ] && n=$((M / 2))
        "$snap" >"$TMP/before"
        send "$port" "$queue" "$s" "$l" "$n" "$r" || return 1
        "$snap" >"$TMP/after"
        echo "$sys $s $l $r $n $(tr '\n' ' ' <"$TMP/before") / $(tr '\n' ' ' <"$TMP/after")" >>"$TMP/points"
        echo "calibrate: $sys, $s sessions, $l bytes, $r recipients: $n messages" >&2
    done
}
measure postfix "$PORT" "$TMP/queue" snapshot_postfix || exit 1
pfi_stop

# relay_cpu SESSIONS SIZE MESSAGES RCPTS: a fresh bare relay takes the warm-up and
# then this load (none for 0 messages); its CPU by role at exit, in clock ticks.
relay_cpu() {
    rm -rf "$TMP/spool/q" "$TMP/relay.port" "$TMP/relay.json"
    "$SPOOLSIM" relay --model none --spool "$TMP/spool/q" --listen 127.0.0.1:0 \
        --port-file "$TMP/relay.port" --next-hop 127.0.0.1:"$SINK_PORT" -q \
        --json "$TMP/relay.json" 2>"$TMP/relay.err" &
    RELAY_PID=$!
    for _ in $(seq 100); do [ -s "$TMP/relay.port" ] && break; sleep 0.05; done
    [ -s "$TMP/relay.port" ] || { cat "$TMP/relay.err" >&2; return 1; }
    send "$(cat "$TMP/relay.port")" "$TMP/spool/q" 20 1024 200 1 || return 1
    if [ "$3" -gt 0 ]; then send "$(cat "$TMP/relay.port")" "$TMP/spool/q" "$@" || return 1; fi
    kill "$RELAY_PID" && wait "$RELAY_PID"
    RELAY_PID=
    python3 -c 'import json, sys; c = json.load(open(sys.argv[1]))["cpu_s"]
print(" ".join(f"{k} {v * int(sys.argv[2])}" for k, v in c.items()))' "$TMP/relay.json" "$(getconf CLK_TCK)"
}
for load in $LOADS; do
    IFS=: read -r s l r <<<"$load"
    n=$M
    [ "$r" -gt 1 ] && n=$((M / 2))
    before=$(relay_cpu "$s" "$l" 0 "$r") && after=$(relay_cpu "$s" "$l" "$n" "$r") || exit 1
    echo "relay $s $l $r $n $before / $after" >>"$TMP/points"
    echo "calibrate: relay, $s sessions, $l bytes, $r recipients: $n messages" >&2
done

SPEED=$("$SPOOLSIM" calibrate --speed) || exit 1
[ -f "$SYSCALLS" ] || echo "calibrate: no $SYSCALLS: the model's system calls will be burned, not made" >&2
python3 - "$TMP/points" "$OUT" "$PFI_VERSION" "$SPEED" "$(getconf CLK_TCK)" "$TMP/machine.json" "$SYSCALLS" <<'EOF'
import json, sys, time, os, platform
points, out, version, speed, hz = sys.argv[1], sys.argv[2], sys.argv[3], float(sys.argv[4]), int(sys.argv[5])

def parse(words):
    it = iter(words)
    return {k: float(v) for k, v in zip(it, it)}

rows = {"postfix": [], "relay": []}
for line in open(points):
    head, after = line.split(" / ")
    w = head.split()
    system, s, l, r, n = w[0], int(w[1]), int(w[2]), int(w[3]), int(w[4])
    before, after = parse(w[5:]), parse(after.split())
    unit = 1e-3 if system == "postfix" else 1e6 / hz   # -> microseconds
    cpu = {k: (after[k] - before.get(k, 0)) * unit / n for k in after}
    rows[system].append((l / 1024, r, cpu))

def fit(samples):
    """Least squares of us = a + b*kib + c*(rcpts-1): normal equations, 3x3."""
    X = [(1.0, k, rc - 1.0) for k, rc, _ in samples]
    y = [u for _, _, u in samples]
    A = [[sum(x[i] * x[j] for x in X) for j in range(3)] for i in range(3)]
    b = [sum(x[i] * v for x, v in zip(X, y)) for i in range(3)]
    for i in range(3):  # Gauss-Jordan
        p = max(range(i, 3), key=lambda k: abs(A[k][i]))
        A[i], A[p], b[i], b[p] = A[p], A[i], b[p], b[i]
        for k in range(3):
            if k != i and A[i][i]:
                f = A[k][i] / A[i][i]
                A[k] = [a - f * c for a, c in zip(A[k], A[i])]
                b[k] -= f * b[i]
    a, c1, c2 = (b[i] / A[i][i] if A[i][i] else 0.0 for i in range(3))
    return {"base_us": round(a, 2), "per_kib_us": round(c1, 3), "per_rcpt_us": round(c2, 2)}

classes = sorted({k for _, _, c in rows["postfix"] for k in c})
stages = []
for name in classes:
    pf = [(k, r, c.get(name, 0.0)) for k, r, c in rows["postfix"]]
    if sum(u for _, _, u in pf) / len(pf) < 1.0:
        continue  # a daemon that did nothing for this load
    # The relay's own CPU in the same role: its cleanup threads, its qmgr thread,
    # and its event loop for smtpd and smtp, shared as Postfix shares them.
    rel = []
    for (k, r, pc), (_, _, rc) in zip(rows["postfix"], rows["relay"]):
        loop = rc.get("loop", 0.0)
        both = pc.get("smtpd", 0.0) + pc.get("smtp", 0.0)
        share = {"cleanup": rc.get("cleanup", 0.0), "qmgr": rc.get("qmgr", 0.0),
                 "smtpd": loop * pc.get("smtpd", 0.0) / both if both else 0.0,
                 "smtp": loop * pc.get("smtp", 0.0) / both if both else 0.0}
        rel.append((k, r, share.get(name, 0.0)))
    stages.append({"name": name, "mta": fit(pf), "relay": fit(rel)})

cpu = "?"
for line in open("/proc/cpuinfo"):
    if line.startswith("model name"):
        cpu = line.split(":", 1)[1].strip()
        break
model = {
    "mta": "postfix", "mta_version": version,
    "measured_on": f"{cpu}, {os.cpu_count()} CPUs, Linux {platform.release()}",
    "date": time.strftime("%Y-%m-%d"),
    "reference_speed": speed,
    "machine": json.load(open(sys.argv[6])),
    "method": "bench/calibrate-postfix.sh: cgroup cpuacct per Postfix daemon class, queue on tmpfs; "
              "loads 20x1KiB, 20x15KiB, 5x1KiB, 20x1KiB x5 recipients, one message per connection",
    "measurements": [
        {"system": system, "kib": round(k, 2), "rcpts": r,
         "us_per_msg": {n: round(u, 1) for n, u in sorted(c.items()) if u >= 0.05}}
        for system in ("postfix", "relay") for k, r, c in rows[system]],
    "stages": stages,
}
# What each class does in system calls is Postfix's, not the machine's:
# counted once, it is made for real by the relay (docs/fidelity.md).
if os.path.exists(sys.argv[7]):
    counts = json.load(open(sys.argv[7]))
    if counts.get("postfix_version") != version:
        print(f"calibrate: {sys.argv[7]} counted Postfix {counts.get('postfix_version')}, "
              f"this is {version}: its counts are used all the same", file=sys.stderr)
    for st in stages:
        if st["name"] in counts["classes"]:
            st["syscalls"] = counts["classes"][st["name"]]
    model["relay_syscalls"] = counts["relay"]
    model["syscalls_from"] = counts["method"]
text = json.dumps(model, indent=2) + "\n"
if out == "-":
    sys.stdout.write(text)
else:
    # a full disk or an interrupt must not leave half a model where the relay looks
    with open(out + ".tmp", "w") as f:
        f.write(text)
    os.replace(out + ".tmp", out)
    print(f"calibrate: wrote {out}", file=sys.stderr)
EOF
