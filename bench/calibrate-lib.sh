# shellcheck shell=bash
# calibrate-lib.sh - what bench/calibrate-postfix.sh and bench/calibrate-exim.sh
# share: the options, the cgroup, the loads, the bare relay's CPU by role,
# and the fit that turns both into a cost model (docs/fidelity.md).
#
#   cal_init NAME STOP "$@"    parse -o FILE -m N; check root, the binaries, python3,
#                              cgroups; sets OUT, M, CG (a new cgroup directory of
#                              NAME), CG_V (1: cpuacct, 2: unified), TMP (a new
#                              directory with tmpfs mounts queue/ and spool/), and
#                              the traps: at exit the relay, the MTA (the function
#                              STOP), the sink, the cgroups and TMP go
#   cal_sink                   smtp-sink on a free port: SINK_PORT, SINK_PID
#   cg_usage CLASS             CPU nanoseconds of the cgroup CG/CLASS so far
#   cal_send PORT EMPTY QUEUE SESSIONS SIZE MESSAGES RCPTS
#                              the load by smtp-source ($CAL_SOURCE_OPTS too),
#                              then wait until `EMPTY QUEUE' is true
#   cal_measure SYSTEM PORT EMPTY QUEUE SNAPSHOT
#                              a warm-up, then every load of LOADS, each between
#                              two `SNAPSHOT's ("CLASS NANOSECONDS" lines) into
#                              TMP/points
#   cal_relay PROFILE EMPTY    the bare relay (--profile PROFILE --model none) at
#                              every load, its CPU by role, into TMP/points (its
#                              spool has the MTA's layout: EMPTY as the MTA's)
#   free_port                  (bench/scratch-fs.sh)
#   cal_write MTA VERSION ROLES METHOD [SYSCALLS]
#                              fit every class and write the model to OUT. ROLES
#                              (JSON) names, per MTA class, the relay's roles
#                              (loop, cleanup, qmgr) that do its work; a role
#                              named by several classes is shared among them as
#                              the MTA's CPU is. SYSCALLS, where it exists, is the
#                              system calls each class makes per message
#                              (bench/count-postfix.sh), which the relay makes for
#                              real: they are the program's, not the machine's
CAL_ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
SPOOLSIM=${SPOOLSIM:-$CAL_ROOT/spoolsim/spoolsim}
SRC=${SPOOLSIM_SMTP_SOURCE:-$CAL_ROOT/smtp-source/smtp-source}
SINK=${SPOOLSIM_SMTP_SINK:-$CAL_ROOT/smtp-sink/smtp-sink}
. "$CAL_ROOT/bench/scratch-fs.sh" # free_port
LOADS="20:1024:1 20:15360:1 5:1024:1 20:1024:5"
CAL_SOURCE_OPTS=()
TMP='' RELAY_PID='' CG='' SINK_PID='' CAL_STOP=:

cal_init() {
    local name=$1 opt
    CAL_STOP=$2
    shift 2
    OUT=- M=2000
    OPTIND=1
    while getopts o:m:h opt; do
        case $opt in
        o) OUT=$OPTARG ;;
        m) M=$OPTARG ;;
        *) echo "usage: $0 [-o MODEL.json] [-m MESSAGES]" >&2; exit 2 ;;
        esac
    done
    shift $((OPTIND - 1))
    [ $# = 0 ] || { echo "usage: $0 [-o MODEL.json] [-m MESSAGES]" >&2; exit 2; }
    [[ $M =~ ^[1-9][0-9]*$ ]] && [ "$M" -ge 200 ] || { echo "$0: -m wants at least 200 messages" >&2; exit 2; }
    [ "$(id -u)" = 0 ] || { echo "$0: must run as root (the MTA, tmpfs mounts, cgroups)" >&2; exit 2; }
    for f in "$SPOOLSIM" "$SRC" "$SINK"; do [ -x "$f" ] || { echo "$0: missing $f: run make first" >&2; exit 2; }; done
    command -v python3 >/dev/null || { echo "$0: python3 is required" >&2; exit 2; }
    if [ -d /sys/fs/cgroup/cpuacct ]; then
        CG=/sys/fs/cgroup/cpuacct/spoolsim-$name.$$ CG_V=1
    elif [ -f /sys/fs/cgroup/cgroup.controllers ]; then
        CG=/sys/fs/cgroup/spoolsim-$name.$$ CG_V=2
    else
        echo "$0: neither cgroup v1 cpuacct nor cgroup v2 is mounted" >&2; exit 1
    fi
    trap cal_cleanup EXIT
    trap 'echo "interrupted" >&2; exit 130' INT TERM
    TMP=$(mktemp -d "/tmp/spoolsim-$name.XXXXXX") && chmod 755 "$TMP" || exit 1
    mkdir -p "$TMP/queue" "$TMP/spool" "$CG" || exit 1
    "$SPOOLSIM" calibrate --machine >"$TMP/machine.json" || exit 1
    mount -t tmpfs -o size=4g,mode=755 tmpfs "$TMP/queue" && mount -t tmpfs -o size=4g tmpfs "$TMP/spool" || exit 1
    : >"$TMP/points"
}

cal_cleanup() {
    local d m
    trap '' INT TERM
    [ -n "$RELAY_PID" ] && kill "$RELAY_PID" 2>/dev/null && wait "$RELAY_PID" 2>/dev/null
    "$CAL_STOP"
    [ -n "$SINK_PID" ] && kill "$SINK_PID" 2>/dev/null && wait "$SINK_PID" 2>/dev/null
    if [ -n "$CG" ]; then
        for d in "$CG"/*/; do [ -d "$d" ] && rmdir "$d"; done 2>/dev/null
        [ -d "$CG" ] && rmdir "$CG" 2>/dev/null
    fi
    if [ -n "$TMP" ]; then
        for m in "$TMP/queue" "$TMP/spool"; do mountpoint -q "$m" && umount "$m"; done
        rm -rf "$TMP"
    fi
}

cal_sink() {
    SINK_PORT=$(free_port)
    "$SINK" 127.0.0.1:"$SINK_PORT" 1000 >/dev/null 2>"$TMP/sink.err" &
    SINK_PID=$!
}

cg_usage() {
    if [ "$CG_V" = 1 ]; then cat "$CG/$1/cpuacct.usage"; else
        awk '$1 == "usage_usec" { print $2 * 1000 }' "$CG/$1/cpu.stat"; fi
}

cal_send() {
    local port=$1 empty=$2 queue=$3 rcpt_opts=()
    [ "$7" -gt 1 ] && rcpt_opts=(-N -r "$7")
    "$SRC" "${CAL_SOURCE_OPTS[@]}" -s "$4" -l "$5" -m "$6" "${rcpt_opts[@]}" 127.0.0.1:"$port" \
        >"$TMP/src.out" 2>&1 || { echo "$0: smtp-source failed:" >&2; cat "$TMP/src.out" >&2; return 1; }
    for _ in $(seq 600); do "$empty" "$queue" && return 0; sleep 0.1; done
    echo "$0: the queue did not drain" >&2
    return 1
}

# cal_messages SIZE RCPTS: M, or half of it for the load with several recipients.
cal_messages() { if [ "$2" -gt 1 ]; then echo $((M / 2)); else echo "$M"; fi; }

cal_measure() {
    local sys=$1 port=$2 empty=$3 queue=$4 snap=$5 load s l r n
    cal_send "$port" "$empty" "$queue" 20 1024 200 1 || return 1 # warm-up
    for load in $LOADS; do
        IFS=: read -r s l r <<<"$load"
        n=$(cal_messages "$l" "$r")
        "$snap" >"$TMP/before"
        cal_send "$port" "$empty" "$queue" "$s" "$l" "$n" "$r" || return 1
        "$snap" >"$TMP/after"
        echo "$sys $s $l $r $n $(tr '\n' ' ' <"$TMP/before") / $(tr '\n' ' ' <"$TMP/after")" >>"$TMP/points"
        echo "calibrate: $sys, $s sessions, $l bytes, $r recipients: $n messages" >&2
    done
}

# cal_relay_cpu PROFILE EMPTY SESSIONS SIZE MESSAGES RCPTS: a fresh bare relay takes
# the warm-up and then this load (none for 0 messages); its CPU by role at exit,
# in clock ticks.
cal_relay_cpu() {
    local profile=$1 empty=$2
    shift 2
    rm -rf "$TMP/spool/q" "$TMP/relay.port" "$TMP/relay.json"
    "$SPOOLSIM" relay --profile "$profile" --model none --spool "$TMP/spool/q" --listen 127.0.0.1:0 \
        --port-file "$TMP/relay.port" --next-hop 127.0.0.1:"$SINK_PORT" -q \
        --json "$TMP/relay.json" 2>"$TMP/relay.err" &
    RELAY_PID=$!
    for _ in $(seq 100); do [ -s "$TMP/relay.port" ] && break; sleep 0.05; done
    [ -s "$TMP/relay.port" ] || { cat "$TMP/relay.err" >&2; return 1; }
    cal_send "$(cat "$TMP/relay.port")" "$empty" "$TMP/spool/q" 20 1024 200 1 || return 1
    if [ "$3" -gt 0 ]; then cal_send "$(cat "$TMP/relay.port")" "$empty" "$TMP/spool/q" "$@" || return 1; fi
    kill "$RELAY_PID" && wait "$RELAY_PID"
    RELAY_PID=
    python3 -c 'import json, sys; c = json.load(open(sys.argv[1]))["cpu_s"]
print(" ".join(f"{k} {v * int(sys.argv[2])}" for k, v in c.items()))' "$TMP/relay.json" "$(getconf CLK_TCK)"
}

cal_relay() {
    local profile=$1 empty=$2 load s l r n before after
    for load in $LOADS; do
        IFS=: read -r s l r <<<"$load"
        n=$(cal_messages "$l" "$r")
        before=$(cal_relay_cpu "$profile" "$empty" "$s" "$l" 0 "$r") &&
            after=$(cal_relay_cpu "$profile" "$empty" "$s" "$l" "$n" "$r") || return 1
        echo "relay $s $l $r $n $before / $after" >>"$TMP/points"
        echo "calibrate: relay, $s sessions, $l bytes, $r recipients: $n messages" >&2
    done
}

cal_write() {
    local speed
    speed=$("$SPOOLSIM" calibrate --speed) || return 1
    python3 - "$TMP/points" "$OUT" "$1" "$2" "$3" "$4" "$speed" "$(getconf CLK_TCK)" "$TMP/machine.json" \
        "${5:-}" <<'EOF'
import json, sys, time, os, platform
points, out, mta, version, roles, method = sys.argv[1:7]
speed, hz, machine, syscalls = float(sys.argv[7]), int(sys.argv[8]), sys.argv[9], sys.argv[10]
roles = json.loads(roles)

def parse(words):
    it = iter(words)
    return {k: float(v) for k, v in zip(it, it)}

rows = {mta: [], "relay": []}
for line in open(points):
    head, after = line.split(" / ")
    w = head.split()
    system, s, l, r, n = w[0], int(w[1]), int(w[2]), int(w[3]), int(w[4])
    before, after = parse(w[5:]), parse(after.split())
    unit = 1e-3 if system == mta else 1e6 / hz   # -> microseconds
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

def relay_share(name, pc, rc):
    """The relay's CPU in class `name''s role: each relay role it names, shared
    among the classes that name that role as the MTA's CPU is shared."""
    us = 0.0
    for role in roles.get(name, []):
        sharers = [c for c, rs in roles.items() if role in rs]
        total = sum(pc.get(c, 0.0) for c in sharers)
        if total > 0:
            us += rc.get(role, 0.0) * pc.get(name, 0.0) / total
    return us

classes = sorted({k for _, _, c in rows[mta] for k in c})
stages = []
for name in classes:
    pf = [(k, r, c.get(name, 0.0)) for k, r, c in rows[mta]]
    if sum(u for _, _, u in pf) / len(pf) < 1.0:
        continue  # a class that did nothing for this load
    rel = [(k, r, relay_share(name, pc, rc))
           for (k, r, pc), (_, _, rc) in zip(rows[mta], rows["relay"])]
    stages.append({"name": name, "mta": fit(pf), "relay": fit(rel)})

cpu = "?"
for line in open("/proc/cpuinfo"):
    if line.startswith("model name"):
        cpu = line.split(":", 1)[1].strip()
        break
model = {
    "mta": mta, "mta_version": version,
    "measured_on": f"{cpu}, {os.cpu_count()} CPUs, Linux {platform.release()}",
    "date": time.strftime("%Y-%m-%d"),
    "reference_speed": speed,
    "machine": json.load(open(machine)),
    "method": method,
    "measurements": [
        {"system": system, "kib": round(k, 2), "rcpts": r,
         "us_per_msg": {n: round(u, 1) for n, u in sorted(c.items()) if u >= 0.05}}
        for system in (mta, "relay") for k, r, c in rows[system]],
    "stages": stages,
}
if syscalls and os.path.exists(syscalls):
    counts = json.load(open(syscalls))
    if counts.get(f"{mta}_version") != version:
        print(f"calibrate: {syscalls} counted {mta} {counts.get(f'{mta}_version')}, "
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
}
