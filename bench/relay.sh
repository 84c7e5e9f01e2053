#!/usr/bin/env bash
# relay.sh - benchmark (not a test): a real Postfix against `spoolsim relay`,
# both relaying the same load over 127.0.0.1 into our smtp-sink, with their
# queues on the filesystem under test (DIR).
#
# Usage: bench/relay.sh [DIR]   (as root; build first: make -j2; Postfix
#        from scripts/fetch-peer.sh postfix; Debian packages strace, python3)
#   DIR is the filesystem to measure (a tmpfs, ext4, ext4 -o dirsync mount
#   ...).  The queues go to DIR/postfix-queue and DIR/spoolsim-spool, which
#   must not exist yet and are removed at the end.  Default DIR: a fresh
#   /tmp/relay-dir.XXXXXX, removed at the end.
#
# The two relays:
#   Postfix   Debian's postfix package as extracted by scripts/fetch-peer.sh
#             (not installed: $PEER_POSTFIX, see scripts/peers.sh), run as a
#             private instance: main.cf = the peer's private main.cf (every
#             program, library and meta directory in the extracted tree,
#             mail_owner nobody) plus, as in docs/postfix-observed.md,
#             queue_directory = DIR/postfix-queue, relayhost =
#             [127.0.0.1]:SINKPORT, inet_interfaces = loopback-only, no
#             local delivery, ...; master.cf = the stock
#             master.cf.proto with chroot = n and its `smtp inet' service on
#             127.0.0.1:FREEPORT; config_directory, data_directory and
#             maillog_file in a private /tmp/relay.XXXXXX.  It shares nothing
#             with a system instance (own lock file, sockets, port) and never
#             reads or writes /etc/postfix or /var/spool/postfix.  Started
#             for each run (`postfix -c CONF start'), stopped after it
#             (`postfix -c CONF stop', then every process still carrying
#             MAIL_CONFIG=CONF in its environment is killed by PID), also on
#             error or Ctrl-C.
#   spoolsim  spoolsim/spoolsim relay --listen 127.0.0.1:0 --port-file F
#             --spool DIR/spoolsim-spool --next-hop 127.0.0.1:SINKPORT
#             --json F [--sync BENCH_SYNC] [BENCH_SPOOLSIM_OPTS], started for
#             each run on an empty spool, stopped with SIGTERM (its JSON
#             summary must then show messages_in = messages_out = N).
# If this build has no `spoolsim relay' (its --help fails), only Postfix runs.
#
# Every run gets a fresh sink (our smtp-sink -u nobody on a free port, its
# msg-log on stdout, made line-buffered by stdbuf -oL: the --msg-log FILE
# stream is block-buffered until exit, so it cannot be polled) and a freshly
# started relay, then our smtp-source -s SESSIONS -m MESSAGES -l LENGTH sends
# into the relay.  A python3 helper notes time.monotonic() when it spawns
# smtp-source (first message injected), when smtp-source exits (injection
# done) and when the sink's msg-log reaches N lines (polled every 10 ms):
#   msgs/s    = N / (drained - spawn)                 end to end
#   inject/s  = N / (source exit - spawn)
#   relay CPU = user+sys of the relay during the run, ms per message, from
#               /proc (10 ms ticks).  Postfix: every process of the instance
#               (master's process group, plus the children master reaped in
#               the meantime via its cutime/cstime: smtpd and cleanup exit
#               after max_use = 100); spoolsim: its process, all threads.
#   machine   = busy CPUs during the run, from /proc/stat (source and sink
#               included), out of $(nproc).
# A run that does not drain within BENCH_TIMEOUT, whose smtp-source fails or
# does not deliver N, whose sink lacks one of the N Message-IDs, whose relay
# dies or (spoolsim) reports other counts is FAILED and left out of the
# medians.  Order: one unrecorded warm-up of each (min(N,500) messages), then
# BENCH_REPS reps of Postfix, spoolsim (alternating, so noise hits both).
# Table: medians (min/max) and the ratio spoolsim/Postfix (msgs/s > 1 =
# spoolsim faster; CPU/msg < 1 = cheaper).
#
# Then one traced run per system with BENCH_TRACE_MESSAGES messages: once
# the relay is up, `strace -f -y -o FILE' is attached to every process of it
# (Postfix: master and its current children, -f follows every later fork;
# spoolsim: all its threads), the load is sent, and strace is detached
# (SIGTERM) once the sink has every message and the queue holds no more
# files than before: start-up and shutdown are not counted.  A python3 pass
# over the full trace counts, per message: file creates (open/openat with
# O_CREAT, creat), fsync + fdatasync (and how many of them on directories),
# renames, chmods, successful unlinks, ENOENT unlinks, a few more, and all
# system calls; shown next to the figures of docs/postfix-observed.md 5.2.
#
# Env: BENCH_MESSAGES (5000) BENCH_SESSIONS (20) BENCH_LENGTH (1024)
#      BENCH_REPS (3) BENCH_TIMEOUT (300 s per run, to drain)
#      BENCH_TRACE_MESSAGES (200; 0 = no traced runs)
#      BENCH_SYNC (fsync: spoolsim's --sync; empty = spoolsim's default)
#      BENCH_SPOOLSIM_OPTS (more options for spoolsim relay, e.g. "--qmgr pool")
#      BENCH_KEEP_TRACES (a directory: keep the strace files there)
#      BENCH_TLS (1: STARTTLS on both legs: smtp-source --tls into the relay,
#                 the relay to smtp-sink --tls; Postfix with a throw-away EC
#                 certificate, smtpd_tls_security_level = may and
#                 smtp_tls_security_level = encrypt; spoolsim relay --tls
#                 --hop-tls encrypt)
set -u
ROOT=$(cd "$(dirname "$0")/.." && pwd)
OUR_SRC=$ROOT/smtp-source/smtp-source OUR_SINK=$ROOT/smtp-sink/smtp-sink
SPOOLSIM=$ROOT/spoolsim/spoolsim
# shellcheck source=scripts/peers.sh
. "$ROOT/scripts/peers.sh"
PF=$PEER_POSTFIX/bin/postfix PC=$PEER_POSTFIX/bin/postconf PF_BASE=$PEER_POSTFIX/conf/main.cf
M=${BENCH_MESSAGES:-5000} S=${BENCH_SESSIONS:-20} L=${BENCH_LENGTH:-1024}
R=${BENCH_REPS:-3} T=${BENCH_TIMEOUT:-300} TM=${BENCH_TRACE_MESSAGES:-200}
SYNC=${BENCH_SYNC-fsync} KEEP=${BENCH_KEEP_TRACES:-} TLS=${BENCH_TLS:-}
[ "$TLS" = 0 ] && TLS=
PF_SMTP_TLS=none PF_SMTPD_TLS=none TLS_TEXT=none
[ -n "$TLS" ] && PF_SMTP_TLS=encrypt PF_SMTPD_TLS=may TLS_TEXT="STARTTLS on both legs (source -> relay -> sink)"
read -ra SS_OPTS <<<"${BENCH_SPOOLSIM_OPTS:-}"
NCPU=$(nproc)

usage() { echo "usage: $0 [DIR]   (env: see the comment at the top)" >&2; exit 2; }
[ $# -le 1 ] || usage
case ${1:-} in -h|--help|-*) usage ;; esac
for v in M S L R T; do [[ ${!v} =~ ^[1-9][0-9]*$ ]] || { echo "bad value for $v: ${!v}" >&2; exit 2; }; done
[[ $TM =~ ^[0-9]+$ ]] || { echo "bad BENCH_TRACE_MESSAGES: $TM" >&2; exit 2; }
[ -z "$KEEP" ] || [ -d "$KEEP" ] || { echo "BENCH_KEEP_TRACES: no directory $KEEP" >&2; exit 2; }
[ "$(id -u)" = 0 ] || { echo "$0: must run as root (it starts a Postfix instance)" >&2; exit 2; }
for f in "$OUR_SRC" "$OUR_SINK"; do
    [ -x "$f" ] || { echo "missing $f (make -j2)" >&2; exit 2; }
done
for f in "$PF" "$PC" "$PF_BASE"; do
    [ -e "$f" ] || { echo "missing $f (scripts/fetch-peer.sh postfix)" >&2; exit 2; }
done
for c in python3 stdbuf ss ${TLS:+openssl}; do
    command -v "$c" >/dev/null || { echo "$c is required" >&2; exit 2; }
done
[ "$TM" = 0 ] || command -v strace >/dev/null ||
    { echo "strace is required (apt-get install strace), or BENCH_TRACE_MESSAGES=0" >&2; exit 2; }
PY=$(python3 -c 'import sys; print(sys.executable)') || exit 2 # no shim per call
HAVE_SS=
[ -x "$SPOOLSIM" ] && "$SPOOLSIM" relay --help >/dev/null 2>&1 && HAVE_SS=1
MAIL_OWNER=$("$PC" -h mail_owner) META=$("$PC" -h meta_directory)
[ -r "$META/master.cf.proto" ] || { echo "missing $META/master.cf.proto" >&2; exit 2; }
id "$MAIL_OWNER" >/dev/null 2>&1 || { echo "no user $MAIL_OWNER" >&2; exit 2; }
ulimit -n 20000 || exit 2

# State for cleanup; everything below is stopped by PID.
TMP='' DIR='' OWN_DIR='' MADE_DIRS='' PQ='' SQ='' PF_READY='' PF_MASTER='' SINK_PID='' SS_PID='' STRACE_PID='' DRIVE_PID=''
cleanup() {
    trap '' INT TERM HUP
    [ -n "$DRIVE_PID" ] && stop_child "$DRIVE_PID" TERM
    [ -n "$STRACE_PID" ] && stop_child "$STRACE_PID" TERM
    [ -n "$SS_PID" ] && stop_child "$SS_PID" TERM
    pf_stop
    [ -n "$SINK_PID" ] && stop_child "$SINK_PID" TERM
    [ -n "$MADE_DIRS" ] && rm -rf "$PQ" "$SQ"
    [ -n "$OWN_DIR" ] && rm -rf "$DIR"
    [ -n "$TMP" ] && rm -rf "$TMP"
}
trap cleanup EXIT
trap 'echo "interrupted" >&2; exit 130' INT TERM HUP

if [ $# = 1 ]; then
    DIR=$(cd "$1" 2>/dev/null && pwd -P) || { echo "no directory $1" >&2; exit 2; }
else
    DIR=$(mktemp -d /tmp/relay-dir.XXXXXX) || exit 2
    OWN_DIR=1
    chmod 755 "$DIR"
fi
PQ=$DIR/postfix-queue SQ=$DIR/spoolsim-spool
for d in "$PQ" "$SQ"; do
    [ -e "$d" ] && { echo "$d already exists (left by an earlier run?): remove it first" >&2; exit 2; }
done
mkdir -m 755 "$PQ" || exit 2
MADE_DIRS=1
TMP=$(mktemp -d /tmp/relay.XXXXXX) || exit 2
chmod 755 "$TMP" # Postfix's daemons reach data_directory and the log below it
CONF=$TMP/conf DATA=$TMP/data PFLOG=$TMP/postfix.log CTL=$TMP/postfix-ctl.out

# drive.py OUT LIMIT N MSGLOG CPU -- CMD...: spawn CMD (smtp-source), wait until
# MSGLOG has N lines and CMD has exited, at most LIMIT s.  CPU = pg:PID (a
# process group and its leader's reaped children) or pid:PID.  Writes to OUT:
#   ok|FAILED drain_s inject_s received relay_cpu_s busy_cpus [why...]
cat >"$TMP/drive.py" <<'EOF'
import os, sys, time, signal
out, limit, n, msglog, cpu = sys.argv[1], float(sys.argv[2]), int(sys.argv[3]), sys.argv[4], sys.argv[5]
argv = sys.argv[7:]
hz = os.sysconf("SC_CLK_TCK")
kind, root = cpu.split(":")
root = int(root)

def stat(pid):  # fields after "(comm)": [0] state, [2] pgrp, [11] utime ... [14] cstime
    with open(f"/proc/{pid}/stat") as f:
        s = f.read()
    return s[s.rindex(")") + 2:].split()

def ticks():
    total = 0
    if kind == "pg":
        for p in os.listdir("/proc"):
            if p.isdigit() and int(p) != root:
                try:
                    f = stat(p)
                except (OSError, ValueError):
                    continue
                if int(f[2]) == root:
                    total += int(f[11]) + int(f[12])
    return total + sum(int(x) for x in stat(root)[11:15])

def alive():
    try:
        return stat(root)[0] not in "ZX"
    except OSError:
        return False

def busy():
    with open("/proc/stat") as f:
        v = [int(x) for x in f.readline().split()[1:9]]
    return sum(v) - v[3] - v[4], sum(v)

pid = None
def bye(*_):  # interrupted: take smtp-source along
    if pid:
        os.kill(pid, signal.SIGKILL)
        os.waitpid(pid, 0)
    sys.exit(1)
signal.signal(signal.SIGTERM, bye)
signal.signal(signal.SIGINT, bye)
why, c0, b0 = "", ticks(), busy()
fd = os.open(msglog, os.O_RDONLY)
t0 = time.monotonic()
pid = os.posix_spawn(argv[0], argv, os.environ, setsigdef=(signal.SIGINT,))
count, rc, t_inj, t_drain = 0, None, None, None
while True:
    while chunk := os.read(fd, 1 << 20):
        count += chunk.count(b"\n")
    now = time.monotonic()
    if t_drain is None and count >= n:
        t_drain = now
    if rc is None:
        p, st = os.waitpid(pid, os.WNOHANG)
        if p:
            rc, t_inj = os.waitstatus_to_exitcode(st), now
    if rc is not None and rc != 0:
        why = f"smtp-source exit status {rc}"
        break
    if t_drain is not None and rc is not None:
        break
    if not alive():
        why = f"relay died ({count}/{n} at the sink)"
        break
    if now - t0 > limit:
        why = f"not drained after {limit:g} s ({count}/{n} at the sink)"
        break
    time.sleep(0.01)
if rc is None:
    os.kill(pid, signal.SIGKILL)
    os.waitpid(pid, 0)
    why += ", smtp-source still running (killed)"
try:
    c1 = ticks()
except OSError:
    c1, why = c0, why or "relay gone at the end"
b1 = busy()
if not why:  # every message once: smtp-source gives each its own Message-ID
    with open(msglog, "rb") as f:
        ids = {l.split(b" message-id=", 1)[1].split(b" ", 1)[0] for l in f if b" message-id=" in l}
    if len(ids) < n:
        why = f"only {len(ids)} distinct Message-IDs of {n} at the sink"
cores = (b1[0] - b0[0]) / (b1[1] - b0[1]) * os.cpu_count() if b1[1] > b0[1] else 0
with open(out, "w") as f:
    f.write(f"{'FAILED' if why else 'ok'} {(t_drain or 0) - t0:.6f} {(t_inj or 0) - t0:.6f} {count} "
            f"{(c1 - c0) / hz:.2f} {cores:.2f} {why}\n")
EOF

# strace.py TRACE N OUT: per-message counts of a `strace -f -y' trace, as JSON.
cat >"$TMP/strace.py" <<'EOF'
import json, os, re, sys
trace, n, out = sys.argv[1], int(sys.argv[2]), sys.argv[3]
start = re.compile(r"^(\d+) +([a-z_0-9]+)\((.*)$")
resumed = re.compile(r"^(\d+) +<\.\.\. ([a-z_0-9]+) resumed>(.*)$")
result = re.compile(r"^(.*)\) += (.*)$")
c, pending = {}, {}
def add(k, v=1): c[k] = c.get(k, 0) + v
def done(name, args, res):
    ok = not res.startswith(("-1", "?"))
    err = res.split()[1] if res.startswith("-1 ") else ""
    if name in ("open", "openat", "openat2", "creat") and ok and (name == "creat" or "O_CREAT" in args):
        add("create")
    elif name in ("fsync", "fdatasync") and ok:
        add(name)
        m = re.match(r"\d+<(.*)>$", args)
        if m and os.path.isdir(m.group(1)):
            add("dirsync")
    elif name in ("sync_file_range", "syncfs", "sync", "msync") and ok:
        add("othersync")
    elif name in ("rename", "renameat", "renameat2") and ok:
        add("rename")
    elif name in ("chmod", "fchmod", "fchmodat") and ok:
        add("chmod")
    elif name == "unlink" or (name == "unlinkat" and "AT_REMOVEDIR" not in args):
        add("unlink" if ok else "unlink_enoent" if err == "ENOENT" else "unlink_other")
    elif name in ("mkdir", "mkdirat") and ok:
        add("mkdir")
    elif name in ("link", "linkat") and ok:
        add("link")
    elif name == "flock" and ok:
        add("flock")
    elif name == "execve" and ok:
        add("execve")
    if res.startswith("-1 "):
        add("failed")
with open(trace, errors="replace") as f:
    for line in f:
        line = line.rstrip("\n")
        m = resumed.match(line)
        if m:
            pid, name, rest = m.groups()
            args = pending.pop(pid, "") + rest
        else:
            m = start.match(line)
            if not m:
                continue  # signals, exits
            pid, name, args = m.groups()
            add("syscalls")
            if args.endswith("<unfinished ...>"):
                pending[pid] = args[: -len("<unfinished ...>")]
                continue
        m = result.match(args)  # strace pads before "=": the last ") +=" ends the arguments
        if m:
            done(name, m.group(1), m.group(2))
json.dump({k: v / n for k, v in c.items()} | {"messages": n}, open(out, "w"))
EOF

listening() { ss -Hltn "sport = :$1" 2>/dev/null | grep -q LISTEN; }
proc_state() { local s; read -r s 2>/dev/null <"/proc/$1/stat" || return 1; s=${s##*) }; echo "${s%% *}"; }
running() { local st; st=$(proc_state "$1") && [ "$st" != Z ] && [ "$st" != X ]; }
# stop_child PID SIG: signal a child of this shell, wait up to 20 s, then SIGKILL; reap it.
stop_child() {
    local pid=$1 i
    kill -"$2" "$pid" 2>/dev/null
    for i in $(seq 200); do running "$pid" || break; sleep 0.1; done
    running "$pid" && kill -KILL "$pid" 2>/dev/null
    wait "$pid" 2>/dev/null
}
# jget FILE KEY...: the values of KEYs in a JSON file (top level, else anywhere), one a line.
jget() {
    "$PY" - "$@" <<'EOF' 2>/dev/null
import json, sys
def find(d, k):
    if isinstance(d, dict):
        if k in d: return d[k]
        for v in d.values():
            r = find(v, k)
            if r is not None: return r
    return None
d = json.load(open(sys.argv[1]))
for k in sys.argv[2:]:
    v = find(d, k)
    print("" if v is None else v)
EOF
}
# wait_listening PID PORTFILE TRIES: the port PID wrote to PORTFILE, once it
# listens there (looked at every 50 ms, TRIES times); fails if PID ends first.
wait_listening() {
    local i port
    for i in $(seq "$3"); do
        port=$(cat "$2" 2>/dev/null)
        [ -n "$port" ] && listening "$port" && { echo "$port"; return 0; }
        running "$1" || return 1
        sleep 0.05
    done
    return 1
}
# count_files DIR: regular files below DIR.
count_files() { find "$1" -type f 2>/dev/null | wc -l; }

# ---- the sink
start_sink() {  # sets SINK_PID SINK_PORT; empty $TMP/sink.log
    for _ in 1 2 3; do
        rm -f "$TMP/sink.port"
        stdbuf -oL "$OUR_SINK" --no-summary -u nobody --port-file "$TMP/sink.port" --msg-log - \
            ${TLS:+--tls} 127.0.0.1:0 1000 >"$TMP/sink.log" 2>>"$TMP/sink.err" &
        SINK_PID=$!
        SINK_PORT=$(wait_listening "$SINK_PID" "$TMP/sink.port" 100) && return 0
        stop_sink
    done
    return 1
}
stop_sink() { [ -n "$SINK_PID" ] && stop_child "$SINK_PID" TERM; SINK_PID='' SINK_PORT=''; }

# ---- Postfix
pf_setup() {
    mkdir -m 755 "$CONF" && mkdir -m 700 "$DATA" && chown "$MAIL_OWNER" "$DATA" || return 1
    if [ -n "$TLS" ]; then  # key then certificate in one file, as smtpd_tls_chain_files wants
        openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -days 1 \
            -subj /CN=bench.localdomain -keyout "$TMP/key.pem" -out "$TMP/cert.pem" 2>/dev/null &&
            cat "$TMP/key.pem" "$TMP/cert.pem" >"$TMP/tls.pem" && chmod 600 "$TMP/tls.pem" || return 1
    fi
    cat >"$TMP/main.cf.bench" <<EOF
# relay.sh: a private instance, see docs/postfix-observed.md
compatibility_level = 3.6
queue_directory = $PQ
data_directory = $DATA
myhostname = bench.localdomain
mydomain = localdomain
myorigin = \$myhostname
inet_interfaces = loopback-only
mydestination =
alias_maps =
alias_database =
relayhost = [127.0.0.1]:25
$(pfi_relay_cf)
smtp_tls_security_level = $PF_SMTP_TLS
smtpd_tls_security_level = $PF_SMTPD_TLS
${TLS:+smtpd_tls_chain_files = $TMP/tls.pem}
readme_directory = no
maillog_file_prefixes = $TMP
maillog_file = $PFLOG
EOF
    # The peer's lines first (where the extracted programs are), less those set above.
    awk -F' *= *' 'NR == FNR { if ($1 ~ /^[a-z_]+$/) mine[$1] = 1; next }
        $1 ~ /^[a-z_]+$/ && !($1 in mine)' "$TMP/main.cf.bench" "$PF_BASE" >"$CONF/main.cf" &&
        cat "$TMP/main.cf.bench" >>"$CONF/main.cf" || return 1
    # the stock master.cf with chroot = n everywhere: the template of each run's master.cf
    cp "$META/master.cf.proto" "$CONF/master.cf" && "$PC" -c "$CONF" -F '*/*/chroot = n' &&
        mv "$CONF/master.cf" "$TMP/master.cf.tmpl" || return 1
    grep -Eq '^smtp +inet ' "$TMP/master.cf.tmpl" || { echo "no 'smtp inet' line in master.cf.proto" >&2; return 1; }
    PF_READY=1
    # creates the queue directories with their owners (post-install), reports config errors
    free_port PF_PORT &&
        sed -E "s/^smtp( +inet )/127.0.0.1:$PF_PORT\1/" "$TMP/master.cf.tmpl" >"$CONF/master.cf" || return 1
    if ! "$PF" -c "$CONF" check >>"$CTL" 2>&1; then
        echo "postfix -c $CONF check failed:" >&2
        cat "$CTL" >&2
        return 1
    fi
}
# instance_pids: live processes of our instance (MAIL_CONFIG=$CONF in their environment).
. "$ROOT/bench/postfix-instance.sh" # pfi_pids, and bench-lib.sh: free_port
instance_pids() { PFI_CONF=$CONF pfi_pids; }
pf_start() {  # pf_start SINKPORT: sets PF_MASTER PF_PORT
    local i
    for _ in 1 2 3; do
        free_port PF_PORT || return 1
        "$PC" -c "$CONF" -e "relayhost = [127.0.0.1]:$1" &&
            sed -E "s/^smtp( +inet )/127.0.0.1:$PF_PORT\1/" "$TMP/master.cf.tmpl" >"$CONF/master.cf" || return 1
        echo "== start (sink $1, smtpd $PF_PORT)" >>"$CTL"
        if "$PF" -c "$CONF" start >>"$CTL" 2>&1; then
            PF_MASTER=$(awk '{ print $1; exit }' "$PQ/pid/master.pid" 2>/dev/null)
            for i in $(seq 100); do
                { [ -n "$PF_MASTER" ] && running "$PF_MASTER"; } || break
                listening "$PF_PORT" && return 0
                sleep 0.05
            done
        fi
        pf_stop
    done
    return 1
}
pf_stop() {
    [ -n "$PF_READY" ] || return 0
    if [ -n "$PF_MASTER" ] || [ -n "$(instance_pids)" ]; then
        "$PF" -c "$CONF" stop >>"$CTL" 2>&1
        PFI_CONF=$CONF bench_kill_left pfi_pids
    fi
    PF_MASTER=
    # a failed run may leave mail behind: empty the queue for the next one
    if [ -n "$(find "$PQ"/{incoming,active,deferred,defer,bounce,trace,hold,maildrop} -type f 2>/dev/null | head -1)" ]; then
        find "$PQ"/{incoming,active,deferred,defer,bounce,trace,hold,maildrop} -type f -delete 2>/dev/null
    fi
}

# ---- spoolsim relay
ss_start() {  # ss_start SINKPORT: sets SS_PID SS_PORT on an empty spool
    rm -rf "$SQ"
    rm -f "$TMP/ss.port" "$TMP/ss.json"
    "$SPOOLSIM" relay --listen 127.0.0.1:0 --port-file "$TMP/ss.port" --spool "$SQ" \
        --next-hop "127.0.0.1:$1" --json "$TMP/ss.json" ${SYNC:+--sync "$SYNC"} \
        ${TLS:+--tls --hop-tls encrypt} "${SS_OPTS[@]}" \
        >>"$TMP/ss.out" 2>>"$TMP/ss.err" &
    SS_PID=$!
    SS_PORT=$(wait_listening "$SS_PID" "$TMP/ss.port" 200) && return 0
    ss_stop
    return 1
}
ss_stop() { [ -n "$SS_PID" ] && stop_child "$SS_PID" TERM; SS_RC=$?; SS_PID=; }

# start_relay SYS: sink and relay up; sets PORT (the relay's) and CPU (drive.py's spec).
start_relay() {
    start_sink || { WHY="sink did not start: $(tail -1 "$TMP/sink.err")"; return 1; }
    if [ "$1" = postfix ]; then
        pf_start "$SINK_PORT" || { WHY="postfix did not start: $(grep -E 'fatal|error' "$CTL" | tail -1)"; return 1; }
        PORT=$PF_PORT CPU=pg:$PF_MASTER BASE=$PQ
    else
        ss_start "$SINK_PORT" || { WHY="spoolsim relay did not start: $(tail -1 "$TMP/ss.err")"; return 1; }
        PORT=$SS_PORT CPU=pid:$SS_PID BASE=$SQ
    fi
}
# stop_relay SYS N: stop it and the sink; spoolsim's JSON must show N in and out.
stop_relay() {
    local mi mo
    if [ "$1" = postfix ]; then
        pf_stop
    elif [ -n "$SS_PID" ]; then
        ss_stop
        if [ "$SS_RC" != 0 ]; then
            WHY=${WHY:-"spoolsim exit status $SS_RC: $(tail -1 "$TMP/ss.err")"}
        else
            { read -r mi; read -r mo; read -r SS_SYNC; } < <(jget "$TMP/ss.json" messages_in messages_out sync)
            [ "$mi" = "$2" ] && [ "$mo" = "$2" ] ||
                WHY=${WHY:-"spoolsim JSON: messages_in $mi, messages_out $mo, expected $2"}
        fi
    fi
    stop_sink
}
# drive N: drive.py, in the background so that a signal's trap runs at once.
drive() {
    "$PY" "$TMP/drive.py" "$TMP/drive.out" "$T" "$1" "$TMP/sink.log" "$CPU" -- "${SRC[@]}" \
        >"$TMP/src.out" 2>"$TMP/src.err" &
    DRIVE_PID=$!
    wait "$DRIVE_PID"
    DRIVE_PID=''
}
source_cmd() {  # source_cmd N: the smtp-source command line into $PORT
    SRC=("$OUR_SRC" --no-summary --json "$TMP/src.json" -s "$S" -m "$1" -l "$L" ${TLS:+--tls} "127.0.0.1:$PORT")
}
check_source() {  # check_source N: our smtp-source's JSON must show N delivered, 0 failed
    local d f
    { read -r d; read -r f; } < <(jget "$TMP/src.json" delivered failed)
    [ "$d" = "$1" ] && [ "${f:-0}" = 0 ] || WHY=${WHY:-"smtp-source delivered ${d:-?}/$1, failed ${f:-?}"}
}

# run_one SYS REP N: one timed run (REP 0 = warm-up, not recorded).
run_one() {
    local sys=$1 rep=$2 n=$3 st=FAILED dr=0 inj=0 cpu=0 cores=0 line
    WHY=
    rm -f "$TMP/src.json" "$TMP/drive.out"
    if start_relay "$sys"; then
        source_cmd "$n"
        drive "$n"
        if read -r st dr inj _ cpu cores line <"$TMP/drive.out" 2>/dev/null; then
            [ "$st" = ok ] || WHY=$line
        else
            WHY="no result from drive.py: $(tail -1 "$TMP/src.err")"
        fi
        [ -z "$WHY" ] && check_source "$n"
    fi
    stop_relay "$sys" "$n"
    [ -n "$WHY" ] && st=FAILED
    if [ "$rep" = 0 ]; then
        [ "$st" = ok ] && echo "  warm-up $sys: ok" || echo "  warm-up $sys: FAILED: $WHY"
        return
    fi
    line=$(awk -v n="$n" -v dr="$dr" -v inj="$inj" -v cpu="$cpu" -v c="$cores" 'BEGIN {
        printf "%.1f %.1f %.3f %.2f", (dr > 0 ? n / dr : 0), (inj > 0 ? n / inj : 0), cpu / n * 1000, c }')
    echo "$sys $rep $st $line $WHY" >>"$TMP/results"
    # shellcheck disable=SC2086 # $line is four numbers
    printf '  rep %d %-8s %7.0f msgs/s  (injected %5.0f/s)  relay CPU %6.3f ms/msg  machine %4.2f/%d CPUs  %s\n' \
        "$rep" "$sys" $line "$NCPU" "${WHY:+FAILED: }${WHY:-ok}"
}

# trace_one SYS N: one traced run; counts into $TMP/trace-SYS.json.
trace_one() {
    local sys=$1 n=$2 pids p i base st line
    WHY=
    rm -f "$TMP/src.json" "$TMP/drive.out" "$TMP/trace-$sys.txt"
    if start_relay "$sys"; then
        if [ "$sys" = postfix ]; then pids=$(pgrep -g "$PF_MASTER"); else pids=$SS_PID; fi
        base=$(count_files "$BASE")
        local -a popt=()
        for p in $pids; do popt+=(-p "$p"); done
        if [ ${#popt[@]} -gt 0 ]; then
            strace -f -qq -y -s 64 -o "$TMP/trace-$sys.txt" "${popt[@]}" 2>"$TMP/strace.err" &
            STRACE_PID=$!
        fi
        for p in $pids; do  # wait until every process is traced
            for i in $(seq 200); do
                grep -Eq '^TracerPid:[[:space:]]*[1-9]' "/proc/$p/status" 2>/dev/null && break
                running "$STRACE_PID" || break 2
                sleep 0.05
            done
        done
        if [ -z "$STRACE_PID" ]; then
            WHY="no process to trace"
        elif running "$STRACE_PID"; then
            source_cmd "$n"
            drive "$n"
            read -r st _ _ _ _ _ line <"$TMP/drive.out" 2>/dev/null || st="no result"
            [ "$st" = ok ] || WHY="${line:-$st}"
            [ -z "$WHY" ] && check_source "$n"
            # let the relay finish its queue work (unlink after delivery) before detaching
            for i in $(seq 100); do [ "$(count_files "$BASE")" -le "$base" ] && break; sleep 0.1; done
        else
            WHY="strace did not attach: $(tail -1 "$TMP/strace.err")"
        fi
        [ -n "$STRACE_PID" ] && stop_child "$STRACE_PID" TERM
        STRACE_PID=
        [ -z "$WHY" ] && "$PY" "$TMP/strace.py" "$TMP/trace-$sys.txt" "$n" "$TMP/trace-$sys.json"
    fi
    stop_relay "$sys" "$n"
    if [ -n "$KEEP" ] && [ -f "$TMP/trace-$sys.txt" ]; then
        mv "$TMP/trace-$sys.txt" "$KEEP/relay-trace-$sys.txt" && echo "  trace kept: $KEEP/relay-trace-$sys.txt"
    fi
    rm -f "$TMP/trace-$sys.txt"
    if [ -n "$WHY" ]; then
        echo "  traced $sys: FAILED: $WHY"
        rm -f "$TMP/trace-$sys.json"
    else
        echo "  traced $sys: ok"
    fi
}

# ---- header
echo "== relay benchmark: smtp-source -s $S -m $M -l $L, $R reps, $NCPU CPUs, $(uname -r)"
echo "directory:   $DIR"
if command -v findmnt >/dev/null; then
    findmnt -T "$DIR" -no SOURCE,FSTYPE,OPTIONS,TARGET | awk '{ printf "filesystem:  %s on %s (%s), mounted on %s\n", $2, $1, $3, $4 }'
else
    echo "filesystem:  $(stat -f -c %T "$DIR")"
fi
echo "sync policy: Postfix: fsync of each queue file before its 250, no directory fsync (fixed);"
if [ -n "$HAVE_SS" ]; then
    echo "             spoolsim: --sync ${SYNC:-(its default)}${BENCH_SPOOLSIM_OPTS:+, also $BENCH_SPOOLSIM_OPTS}"
else
    echo "             spoolsim: (not run)"
fi
echo "Postfix:     mail_version $("$PC" -dh mail_version), package $(cat "$PEER_POSTFIX/version") (extracted in $PEER_POSTFIX), queue $PQ"
if [ -n "$HAVE_SS" ]; then
    echo "spoolsim:    $("$SPOOLSIM" --version 2>&1 | head -1), built $(date -r "$SPOOLSIM" '+%F %T'), spool $SQ"
else
    echo "spoolsim:    NOT AVAILABLE: '$SPOOLSIM relay --help' fails in this build; its runs are skipped"
fi
echo "sink/source: $("$OUR_SINK" --version) / $("$OUR_SRC" --version)"
echo "TLS:         $TLS_TEXT"
echo "load average at start: $(cut -d" " -f1-3 /proc/loadavg)"

pf_setup || { echo "cannot set up the Postfix instance" >&2; exit 1; }
SYSTEMS=(postfix)
[ -n "$HAVE_SS" ] && SYSTEMS+=(spoolsim)
SS_SYNC=
echo "warm-up: each relay once with $(( M < 500 ? M : 500 )) messages, not recorded"
for sys in "${SYSTEMS[@]}"; do run_one "$sys" 0 $(( M < 500 ? M : 500 )); done
touch "$TMP/results"
for rep in $(seq "$R"); do
    for sys in "${SYSTEMS[@]}"; do run_one "$sys" "$rep" "$M"; done
done
[ -n "$SS_SYNC" ] && echo "  (spoolsim's JSON: sync = $SS_SYNC)"

echo
"$PY" - "$TMP/results" "$R" "$NCPU" <<'EOF'
import sys, statistics as st
rows = [l.split() for l in open(sys.argv[1]) if l.strip()]
reps, ncpu, med = int(sys.argv[2]), sys.argv[3], {}
print(f"{'relay':<10}{'ok':>5}{'msgs/s median':>15}{'min':>8}{'max':>8}{'inject/s':>10}"
      f"{'relay CPU ms/msg':>18}{'busy CPUs':>11}")
for sys_ in ("postfix", "spoolsim"):
    all_ = [r for r in rows if r[0] == sys_]
    good = [r for r in all_ if r[2] == "ok"]
    if not all_:
        print(f"{sys_:<10}{'-':>5}  not run"); continue
    if not good:
        print(f"{sys_:<10}{'0/' + str(len(all_)):>5}  ALL RUNS FAILED"); continue
    v = [[float(r[i]) for r in good] for i in (3, 4, 5, 6)]
    med[sys_] = [st.median(x) for x in v]
    m = med[sys_]
    print(f"{sys_:<10}{f'{len(good)}/{len(all_)}':>5}{m[0]:>15.0f}{min(v[0]):>8.0f}{max(v[0]):>8.0f}"
          f"{m[1]:>10.0f}{m[2]:>18.3f}{m[3]:>8.2f}/{ncpu}")
p, s = med.get("postfix"), med.get("spoolsim")
if p and s:
    print(f"\nratio spoolsim/Postfix (medians): msgs/s {s[0] / p[0]:.2f} (>1 = spoolsim faster), "
          f"relay CPU per message {s[2] / p[2] if p[2] else float('nan'):.2f} (<1 = spoolsim cheaper)")
else:
    print("\nratio spoolsim/Postfix: n/a")
for r in rows:
    if r[2] == "FAILED":
        print(f"FAILED: {r[0]} rep {r[1]}: {' '.join(r[7:])}")
EOF
echo "load average at end: $(cut -d" " -f1-3 /proc/loadavg)"

if [ "$TM" -gt 0 ]; then
    echo
    echo "traced runs (strace -f, $TM messages, -s $S -l $L), per message:"
    for sys in "${SYSTEMS[@]}"; do trace_one "$sys" "$TM"; done
    "$PY" - "$TMP/trace-postfix.json" "$TMP/trace-spoolsim.json" <<'EOF'
import json, sys
def load(p):
    try: return json.load(open(p))
    except (OSError, ValueError): return None
pf, ss = load(sys.argv[1]), load(sys.argv[2])
rows = [("file creates (O_CREAT)", "create", "1"),
        ("fsync", "fsync", "1"), ("fdatasync", "fdatasync", "0"),
        ("  fsync+fdatasync on directories", "dirsync", "0"),
        ("sync_file_range/syncfs/sync/msync", "othersync", "0"),
        ("rename/renameat", "rename", "2"), ("chmod/fchmod", "chmod", "1"),
        ("unlink/unlinkat ok", "unlink", "1"), ("unlink/unlinkat ENOENT", "unlink_enoent", "4"),
        ("unlink/unlinkat other errors", "unlink_other", "0"),
        ("mkdir", "mkdir", "0"), ("link/linkat", "link", "0"), ("flock (any file)", "flock", "2 on queue files"),
        ("execve", "execve", "0.17"), ("failed syscalls (any)", "failed", ""),
        ("all syscalls", "syscalls", "567-585")]
def f(d, k):
    return "n/a" if d is None else f"{d.get(k, 0):.2f}"
print(f"  {'op':<36}{'Postfix':>10}{'spoolsim':>10}   {'Postfix observed (spec 5.2)':>28}")
for name, key, ref in rows:
    print(f"  {name:<36}{f(pf, key):>10}{f(ss, key):>10}   {ref:>28}")
if pf and ss and pf.get("syscalls"):
    print(f"  syscalls per message spoolsim/Postfix: {ss['syscalls'] / pf['syscalls']:.2f}")
EOF
fi
