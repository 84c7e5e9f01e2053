#!/usr/bin/env bash
# count-postfix.sh - count what a real Postfix does per message, per process
# class: CPU (user and system apart), system calls by name, context
# switches (voluntary and involuntary), minor page faults, process
# creations, and the transfers between its processes. A cost model made of
# counts can be priced on any machine with that machine's micro-costs
# (`spoolsim calibrate --machine'); CPU time measured on one machine cannot
# (docs/postfix-counts.md).
#
# Usage: bench/count-postfix.sh [-o COUNTS.json] [-m MESSAGES] [-t TRACED] [-k DIR]
#   as root, after `make'; needs strace and perf. -m: messages per load for
#   the untraced counts (3000), -t: messages per load under strace (1000),
#   -k: keep the raw data (strace logs, perf output) in DIR.
#
# The instance is bench/postfix-instance.sh's, as in calibrate-postfix.sh:
# queue on a tmpfs, relaying our smtp-source's load into our smtp-sink, and
# a daemon_directory of wrappers, each of which moves its process into the
# cgroups of its class and execs the real daemon, so that a class's cgroup
# holds every process of the class, also those that exit after max_use.
# Per load (20 sessions x 1 KiB, 20 x 15 KiB, one message per connection,
# after a warm-up), two passes:
#   1. untraced: cpuacct user and system time per class; `perf stat -a -G'
#      per class (a private perf_event cgroup hierarchy) for context switches,
#      voluntary ones (sched_switch leaving a sleeping task) and minor and
#      major faults; spawns from the wrappers' log.
#   2. under `strace -f -ff' attached to every process of the instance:
#      system calls by name per class, and per connection between two
#      processes the writes and the turns (a run of writes from one side
#      until the other side writes: one wake-up of the peer).
# strace slows Postfix down, so nothing is timed in pass 2; a count is a count.
# Then the counts are priced with this machine's micro-costs and set
# against the system time measured in pass 1.
set -u
ROOT=$(cd "$(dirname "$0")/.." && pwd)
SPOOLSIM=${SPOOLSIM:-$ROOT/spoolsim/spoolsim}
SRC=${SPOOLSIM_SMTP_SOURCE:-$ROOT/smtp-source/smtp-source}
SINK=${SPOOLSIM_SMTP_SINK:-$ROOT/smtp-sink/smtp-sink}
. "$ROOT/bench/bench-lib.sh"
OUT='' M=3000 MT=1000 KEEP=''
usage() { echo "usage: $0 [-o COUNTS.json] [-m MESSAGES] [-t TRACED] [-k DIR]" >&2; exit 2; }
bench_getopts "o:OUT m:M t:MT k:KEEP" "$@"
shift $((OPTIND - 1))
[ $# = 0 ] || usage
for n in "$M" "$MT"; do
    [[ $n =~ ^[1-9][0-9]*$ ]] && [ "$n" -ge 200 ] || { echo "$0: -m and -t want at least 200 messages" >&2; exit 2; }
done
[ "$(id -u)" = 0 ] || { echo "$0: must run as root (a Postfix instance, tmpfs, cgroups, perf, strace)" >&2; exit 2; }
for f in "$SPOOLSIM" "$SRC" "$SINK"; do [ -x "$f" ] || { echo "$0: missing $f: run make first" >&2; exit 2; }; done
for t in python3 strace perf; do command -v $t >/dev/null || { echo "$0: $t is required" >&2; exit 2; }; done
[ -d /sys/fs/cgroup/cpuacct ] || { echo "$0: needs the cgroup v1 cpuacct hierarchy" >&2; exit 1; }
. "$ROOT/bench/postfix-instance.sh"
pfi_init "$ROOT" || exit 1

TMP='' SINK_PID='' PERF_PID='' STRACE_PID='' MOUNTS=() CGS=()
cleanup() {
    trap '' INT TERM
    [ -n "$PERF_PID" ] && kill -INT "$PERF_PID" 2>/dev/null && wait "$PERF_PID" 2>/dev/null
    [ -n "$STRACE_PID" ] && kill -INT "$STRACE_PID" 2>/dev/null && wait "$STRACE_PID" 2>/dev/null
    pfi_stop
    [ -n "$SINK_PID" ] && kill "$SINK_PID" 2>/dev/null && wait "$SINK_PID" 2>/dev/null
    for cg in "${CGS[@]}"; do
        for d in "$cg"/*/; do [ -d "$d" ] && rmdir "$d"; done 2>/dev/null
        rmdir "$cg" 2>/dev/null
    done
    for m in "${MOUNTS[@]}"; do mountpoint -q "$m" && umount "$m"; done
    [ -n "$TMP" ] && rm -rf "$TMP"
}
trap cleanup EXIT
trap 'echo "interrupted" >&2; exit 130' INT TERM

TMP=$(mktemp -d /tmp/spoolsim-count.XXXXXX) && chmod 755 "$TMP" || exit 1
mkdir -p "$TMP/wrap" "$TMP/queue" "$TMP/spawn" "$TMP/data" || exit 1
"$SPOOLSIM" calibrate --machine >"$TMP/machine.json" || exit 1
mount -t tmpfs -o size=4g,mode=755 tmpfs "$TMP/queue" && MOUNTS+=("$TMP/queue") || exit 1

# perf counts per cgroup only in a perf_event hierarchy; this one is ours
# unless the system mounts one. perf finds tracefs (sched_switch) wherever
# it is mounted.
PE=$(awk '$3 == "cgroup" && $4 ~ /(^|,)perf_event(,|$)/ { print $2; exit }' /proc/mounts)
if [ -z "$PE" ]; then
    PE=$TMP/perf_event
    mkdir "$PE" && mount -t cgroup -o perf_event cgroup "$PE" && MOUNTS=("$PE" "${MOUNTS[@]}") ||
        { echo "$0: cannot mount a perf_event cgroup hierarchy" >&2; exit 1; }
fi
if ! awk '$3 == "tracefs" { f = 1 } END { exit !f }' /proc/mounts; then
    mkdir "$TMP/tracefs" && mount -t tracefs tracefs "$TMP/tracefs" && MOUNTS=("$TMP/tracefs" "${MOUNTS[@]}") ||
        { echo "$0: cannot mount tracefs" >&2; exit 1; }
fi
NAME=spoolsim-count.$$
CA=/sys/fs/cgroup/cpuacct/$NAME
mkdir "$CA" "$PE/$NAME" && CGS=("$CA" "$PE/$NAME") || exit 1

# The wrappers: the class's cgroups, a line in the spawn log, the daemon.
for d in "$PFI_DAEMONS"/*; do
    n=$(basename "$d")
    case $n in
    *-script | post-install | postfix-wrapper) ln -s "$d" "$TMP/wrap/$n"; continue ;;
    esac
    mkdir "$CA/$n" "$PE/$NAME/$n" || exit 1
    printf '#!/bin/sh\necho $$ >%s/cgroup.procs && echo $$ >%s/cgroup.procs || exit 1\necho $$ >>%s\nexec %s "$@"\n' \
        "$CA/$n" "$PE/$NAME/$n" "$TMP/spawn/$n" "$d" >"$TMP/wrap/$n"
    chmod 755 "$TMP/wrap/$n"
done
CLASSES=$(for d in "$CA"/*/; do basename "$d"; done)

bench_sink "$SINK" "$TMP" && free_port PORT || exit 1
pfi_setup "$TMP" "$TMP/queue" "$SINK_PORT" "$PORT" "$TMP/wrap" && pfi_start || exit 1

# send SESSIONS SIZE MESSAGES: the load, then wait until the queue is empty.
send() {
    "$SRC" -s "$1" -l "$2" -m "$3" 127.0.0.1:"$PORT" >"$TMP/src.out" 2>&1 ||
        { echo "$0: smtp-source failed:" >&2; cat "$TMP/src.out" >&2; return 1; }
    for _ in $(seq 1200); do pfi_queue_empty "$TMP/queue" && return 0; sleep 0.1; done
    echo "$0: the queue did not drain" >&2
    return 1
}
snapshot() {  # per class: user ns, system ns, all ns, spawns so far
    local c
    for c in $CLASSES; do
        echo "$c $(cat "$CA/$c/cpuacct.usage_user") $(cat "$CA/$c/cpuacct.usage_sys")" \
            "$(cat "$CA/$c/cpuacct.usage")" \
            "$(wc -l 2>/dev/null <"$TMP/spawn/$c" || echo 0)"
    done
}

# untraced LABEL SESSIONS SIZE: pass 1.
untraced() {
    local ev=() c cgs=''
    for c in $CLASSES; do
        ev+=(-e context-switches -e 'sched:sched_switch' --filter 'prev_state > 0 && prev_state < 256'
            -e minor-faults -e major-faults)
        cgs=${cgs:+$cgs,}$NAME/$c,$NAME/$c,$NAME/$c,$NAME/$c
    done
    snapshot >"$TMP/data/$1.before"
    perf stat -a -x, -o "$TMP/data/$1.perf" "${ev[@]}" -G "$cgs" 2>"$TMP/perf.err" &
    PERF_PID=$!
    sleep 1  # perf opens its counters
    kill -0 "$PERF_PID" 2>/dev/null || { echo "$0: perf stat failed:" >&2; cat "$TMP/perf.err" >&2; return 1; }
    send "$2" "$3" "$M" || return 1
    kill -INT "$PERF_PID" && wait "$PERF_PID"
    PERF_PID=
    snapshot >"$TMP/data/$1.after"
}

# traced LABEL SESSIONS SIZE: pass 2, strace on every process of the instance.
traced() {
    local pids p args=() n
    pids=$(pfi_pids)
    for p in $pids; do
        args+=(-p "$p")
        echo "$p $(basename "$(readlink "/proc/$p/exe")")" >>"$TMP/data/$1.attached"
    done
    mkdir "$TMP/data/$1.strace" || return 1
    strace -f -ff -ttt -yy -s 0 -o "$TMP/data/$1.strace/t" "${args[@]}" 2>"$TMP/strace.err" &
    STRACE_PID=$!
    n=$(wc -w <<<"$pids")
    for _ in $(seq 100); do
        [ "$(grep -c attached "$TMP/strace.err")" -ge "$n" ] && break
        sleep 0.1
    done
    kill -0 "$STRACE_PID" 2>/dev/null || { echo "$0: strace failed:" >&2; cat "$TMP/strace.err" >&2; return 1; }
    send "$2" "$3" "$MT" || return 1
    kill -INT "$STRACE_PID" && wait "$STRACE_PID"
    STRACE_PID=
}

cat /proc/loadavg >"$TMP/data/loadavg"
send 20 1024 200 || exit 1  # warm-up
LOADS="20:1024 20:15360"
for load in $LOADS; do
    IFS=: read -r s l <<<"$load"
    untraced "$s-$l" "$s" "$l" || exit 1
    echo "count: $s sessions x $l bytes: $M messages counted" >&2
    traced "$s-$l" "$s" "$l" || exit 1
    echo "count: $s sessions x $l bytes: $MT messages traced" >&2
done
pfi_stop
cat /proc/loadavg >>"$TMP/data/loadavg"
if [ -n "$KEEP" ]; then
    mkdir -p "$KEEP" && cp -r "$TMP/data" "$TMP/machine.json" "$KEEP/" || exit 1
fi

# shellcheck disable=SC2086 # a load a word
python3 - "$TMP/data" "$TMP/machine.json" "$PFI_DAEMONS" "$M" "$MT" "${OUT:--}" "$PFI_VERSION" $LOADS <<'EOF'
import json, os, re, sys, time, collections
data, machine_file, daemons, M, MT, out, version = sys.argv[1:8]
M, MT = int(M), int(MT)
loads = sys.argv[8:]
machine = json.load(open(machine_file))
costs = machine["costs"]

LINE = re.compile(r"^(\d+\.\d+) ([a-z0-9_]+)\((.*)$")
FD = re.compile(r"^(\d+)<(UNIX(?:-STREAM|-DGRAM)?|pipe|TCP|TCPv6|UDP):\[([^\]]*)\]>|^(\d+)<(/[^<>]*)>")
RET = re.compile(r"\) += (\d+)")
WRITES = {"write", "writev", "sendmsg", "sendto", "send", "sendmmsg", "pwrite64"}
READS = {"read", "readv", "recvmsg", "recvfrom", "recv", "recvmmsg"}

def endpoint(args):
    """The first argument as (kind, local, peer): a socket's inodes, a pipe's, a FIFO's path."""
    m = FD.match(args)
    if not m:
        return None
    if m.group(5):
        path = m.group(5)
        if "/public/" in path or "/private/" in path:
            return ("fifo", path.rsplit("/", 1)[1], None)
        return None
    kind, inner = m.group(2), m.group(3)
    if kind == "pipe":
        return ("pipe", inner, None)
    if kind.startswith("UNIX"):
        inner = inner.split(",", 1)[0]
        local, _, peer = inner.partition("->")
        # a datagram socket (UNIX:) or a status socket is one way: no turns
        return ("unix" if kind == "UNIX-STREAM" else "dgram", local, peer or None)
    return ("tcp", None, None)

def strace_counts(dirname, attached):
    """Per class: syscalls after the daemon's exec, syscalls from fork to exec, processes
    that exec'd; and the writes between processes in time order."""
    by_pid = {}
    for line in open(attached):
        pid, name = line.split()
        by_pid[pid] = name
    sysc = collections.defaultdict(collections.Counter)
    spawn_sysc = collections.defaultdict(collections.Counter)
    execs = collections.Counter()
    owner = {}                 # socket inode -> class of the process that holds it
    peer_of = {}               # socket inode -> its peer's inode
    readers = collections.defaultdict(set)  # pipe inode or FIFO name -> classes that read it
    writers = collections.defaultdict(set)
    moves = []                 # (time, class, kind, local, peer, r or w)
    for f in os.listdir(dirname):
        pid = f.rsplit(".", 1)[1]
        lines = open(os.path.join(dirname, f), errors="replace").read().splitlines()
        cls, start = by_pid.get(pid), 0
        prefix = daemons.rstrip("/") + "/"
        for i, line in enumerate(lines):
            if ' execve("' + prefix in line and line.rstrip().endswith("= 0"):
                cls, start = line.split('execve("', 1)[1].split('"', 1)[0][len(prefix):], i + 1
                execs[cls] += 1
        cls = cls or "unknown"
        for i, line in enumerate(lines):
            m = LINE.match(line)
            if not m:
                continue
            t, name, args = float(m.group(1)), m.group(2), m.group(3)
            if i < start:
                spawn_sysc[cls][name] += 1
                continue
            sysc[cls][name] += 1
            ep = endpoint(args)
            if not ep:
                continue
            kind, local, peer = ep
            if kind in ("unix", "dgram"):
                owner.setdefault(local, cls)
                if peer:
                    peer_of[local] = peer
                    peer_of.setdefault(peer, local)
            r = RET.search(args)
            if not r or int(r.group(1)) == 0:
                continue
            if kind == "tcp" or (name not in READS and name not in WRITES):
                continue  # the load's client and the sink are not Postfix's processes
            op = "r" if name in READS else "w"
            if kind in ("pipe", "fifo"):
                (readers if op == "r" else writers)[(kind, local)].add(cls)
            moves.append((t, cls, kind, local, peer, op))
    pairs = collections.defaultdict(lambda: [0, 0, 0])  # (from, to) -> [writes, reads, turns]
    last = {}
    for t, cls, kind, local, peer, op in sorted(moves):
        if kind == "dgram" and op == "r" and not peer:
            other = "(any)"  # a bound datagram socket: postlogd's, its clients all alike
        elif kind in ("unix", "dgram"):
            other = owner.get(peer or peer_of.get(local), "?")
        else:
            other = "/".join(sorted((writers if op == "r" else readers)[(kind, local)] - {cls})) or "?"
        if op == "r":
            pairs[(other, cls)][1] += 1
            continue
        pairs[(cls, other)][0] += 1
        if kind == "unix":  # a stream: the other side wrote last, so this write is a turn
            conn = tuple(sorted((local, peer or peer_of.get(local) or "?")))
            if last.get(conn) != cls:
                pairs[(cls, other)][2] += 1
                last[conn] = cls
    return sysc, spawn_sysc, execs, pairs

def table(path):
    rows = {}
    for line in open(path):
        w = line.split()
        rows[w[0]] = [float(x) for x in w[1:]]
    return rows

def perf_counts(path):
    c = collections.defaultdict(dict)
    for line in open(path):
        w = line.strip().split(",")
        if len(w) < 4 or line.startswith("#"):
            continue
        v = float(w[0]) if re.match(r"^[0-9.]+$", w[0]) else 0.0
        ev, cg = w[2], w[3].rsplit("/", 1)[1]
        key = "voluntary" if ev.startswith("sched:") else ev
        c[cg][key] = v
    return c

r1 = lambda x: round(x, 1)
# Other work on the machine shows in the involuntary switches: say how busy it was.
loadavg = [l.split()[:3] for l in open(f"{data}/loadavg")]
result = {"mta": "postfix", "mta_version": version, "date": time.strftime("%Y-%m-%d"),
          "machine": machine, "loadavg_before_after": loadavg, "messages": M, "traced_messages": MT,
          "loads": []}
for load in loads:
    sessions, size = (int(x) for x in load.split(":"))
    tag = f"{sessions}-{size}"
    before, after = table(f"{data}/{tag}.before"), table(f"{data}/{tag}.after")
    perf = perf_counts(f"{data}/{tag}.perf")
    sysc, spawn_sysc, execs, pairs = strace_counts(f"{data}/{tag}.strace", f"{data}/{tag}.attached")
    classes = {}
    for c in sorted(after):
        d = [(a - b) for a, b in zip(after[c], before.get(c, [0] * 4))]
        p = perf.get(c, {})
        row = {"user_us": r1(d[0] / 1e3 / M), "sys_us": r1(d[1] / 1e3 / M), "cpu_us": r1(d[2] / 1e3 / M),
               "cs_voluntary": round(p.get("voluntary", 0) / M, 2),
               "cs_involuntary": round((p.get("context-switches", 0) - p.get("voluntary", 0)) / M, 2),
               "minflt": r1(p.get("minor-faults", 0) / M), "majflt": round(p.get("major-faults", 0) / M, 3),
               "spawns": round(d[3] / M, 4), "spawns_traced": round(execs.get(c, 0) / MT, 4),
               "syscalls": {k: round(v / MT, 2) for k, v in sysc.get(c, collections.Counter()).most_common() if v / MT >= 0.005},
               "syscalls_total": r1(sum(sysc.get(c, collections.Counter()).values()) / MT),
               "spawn_syscalls": r1(sum(spawn_sysc.get(c, collections.Counter()).values()) / MT)}
        if row["cpu_us"] < 0.5 and row["syscalls_total"] < 0.05:
            continue  # a daemon that did nothing in this load
        classes[c] = row
    tot = {k: round(sum(r[k] for r in classes.values()), 3)
           for k in ("user_us", "sys_us", "cpu_us", "cs_voluntary", "cs_involuntary", "minflt", "spawns",
                     "syscalls_total", "spawn_syscalls")}
    allsys = collections.Counter()
    for c in sysc.values():
        allsys.update(c)
    tot["syscalls"] = {k: round(v / MT, 2) for k, v in allsys.most_common() if v / MT >= 0.005}
    for c, row in list(classes.items()) + [("total", tot)]:
        terms = {"syscalls": row["syscalls_total"] * costs["syscall_ns"] / 1e3,
                 "switches": (row["cs_voluntary"] + row["cs_involuntary"]) * costs["round_trip_us"] / 2,
                 "faults": row["minflt"] * costs["fault_ns"] / 1e3,
                 "spawns": row["spawns"] * costs["spawn_us"]}
        row["priced_us"] = {k: r1(v) for k, v in terms.items()}
        row["priced_us"]["sum"] = r1(sum(terms.values()))
    ipc = [{"from": a, "to": b, "writes": round(w / MT, 2), "reads": round(r / MT, 2), "turns": round(t / MT, 2)}
           for (a, b), (w, r, t) in sorted(pairs.items(), key=lambda x: -x[1][0] - x[1][1]) if (w + r) / MT >= 0.005]
    result["loads"].append({"sessions": sessions, "bytes": size, "classes": classes, "totals": tot, "ipc": ipc})

if out != "-":
    with open(out + ".tmp", "w") as f:
        f.write(json.dumps(result, indent=1) + "\n")
    os.replace(out + ".tmp", out)

# The table
c = costs
print(f"Postfix {version}; {machine['cpu_model']}, {machine['cpus']} CPUs, {machine['kernel']}; "
      f"{M} messages per load counted, {MT} traced")
print(f"micro-costs: syscall {c['syscall_ns']:.0f} ns, round trip {c['round_trip_us']:.1f} us, "
      f"spawn {c['spawn_us']:.0f} us, fault {c['fault_ns']:.0f} ns; load average before and after "
      + " / ".join(" ".join(l) for l in loadavg))
for L in result["loads"]:
    print(f"\n== {L['sessions']} sessions x {L['bytes']} bytes, per message")
    print(f"{'class':<16}{'user_us':>8}{'sys_us':>8}{'syscalls':>9}{'spawn_sc':>9}{'cs_vol':>8}{'cs_inv':>8}"
          f"{'minflt':>8}{'spawns':>8}{'priced':>8}")
    for name, r in list(L["classes"].items()) + [("total", L["totals"])]:
        print(f"{name:<16}{r['user_us']:>8.1f}{r['sys_us']:>8.1f}{r['syscalls_total']:>9.1f}"
              f"{r['spawn_syscalls']:>9.1f}{r['cs_voluntary']:>8.2f}{r['cs_involuntary']:>8.2f}"
              f"{r['minflt']:>8.1f}{r['spawns']:>8.4f}{r['priced_us']['sum']:>8.1f}")
    t = L["totals"]
    print("syscalls: " + ", ".join(f"{k} {v}" for k, v in list(t["syscalls"].items())[:16]))
    print("between processes, per message: writes / reads by the receiver / turns of a stream")
    for i in L["ipc"]:
        print(f"  {i['from'] + ' -> ' + i['to']:<34}{i['writes']:>8}{i['reads']:>8}{i['turns']:>8}")
    p = t["priced_us"]
    print(f"priced: syscalls {p['syscalls']} + switches {p['switches']} + faults {p['faults']} + "
          f"spawns {p['spawns']} = {p['sum']} us against {t['sys_us']} us system "
          f"({100 * p['sum'] / t['sys_us']:.0f}%), {t['cpu_us']} us CPU")
EOF
