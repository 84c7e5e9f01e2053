# shellcheck shell=bash
# bench-lib.sh - what the benchmark scripts share (sourced by
# bench/capacity.sh, bench/fidelity.sh, bench/validate.sh, bench/disk-cost.sh,
# bench/journal-commits.sh, bench/count-postfix.sh,
# bench/bench-vs-raw.sh, bench/smtp-pair.sh, bench/sink-pair.sh, bench/sink-core.sh,
# bench/calibrate-lib.sh,
# bench/postfix-instance.sh and bench/exim-instance.sh, and through the
# last two by bench/relay.sh and the calibrate scripts; free_port by the
# tests too, through tests/helpers/lib.sh).
#
#   bench_getopts SPEC ARG...     the script's options: SPEC is a table of
#                                 LETTER:VARIABLE words, each option taking
#                                 a value, which goes into its variable; the
#                                 caller then shifts $((OPTIND - 1)). Any
#                                 other option, or -h, calls the script's
#                                 usage (which exits).
#   bench_kill_left PIDS          the processes the function PIDS lists (one
#                                 PID a line), sent TERM, then KILL, until
#                                 none is left, for 3 s at most
#   free_port VAR...              each VAR a TCP port of 127.0.0.1 for a
#                                 server that cannot take port 0 and say
#                                 which it got (--port-file): no socket of
#                                 the machine has it, and this shell has not
#                                 handed it out before (not even to a
#                                 server still starting); 1 if none is found
#   bench_machine                 the machine a figure comes from, for a
#                                 result's first line: the CPU's model name,
#                                 the CPUs, the kernel, and whether a VM
#   bench_sink SINK DIR [OPT...]  the smtp-sink SINK (ours: --port-file) on a
#                                 port of the kernel's choice; SINK_PID, and
#                                 SINK_PORT once it listens
#   bench_positive VALUE...       each VALUE a positive whole number, or a
#                                 usage error (exit 2)
#   bench_perf_counts             0 if perf can count system calls here
#   bench_tmp NAME                TMP, a new directory /tmp/NAME.XXXXXX, gone
#                                 at exit with the sink SINK_PID names
#   bench_listening PORT          0 if a socket listens on TCP port PORT
#   bench_stop_sink               the sink SINK_PID stopped; SINK_PID and
#                                 PORT emptied
#   bench_measure OUT LIMIT SINK_PID MSGS PERF CLIENT...
#                                 one run of CLIENT against the sink, its
#                                 figures per message written to OUT
#   bench_py ARG... <SCRIPT       python3 SCRIPT ARG..., with rows(),
#                                 medians() and ratio() defined for it

bench_machine() {
    echo "$(awk -F': *' '/^model name/ { print $2; exit }' /proc/cpuinfo), $(nproc) CPUs, $(uname -r)$(grep -q hypervisor /proc/cpuinfo && echo ', a VM')"
}

bench_getopts() {
    local spec=$1 letters=h word opt
    shift
    for word in $spec; do letters+=${word%%:*}:; done
    OPTIND=1
    while getopts "$letters" opt; do
        for word in $spec; do
            if [ "$opt" = "${word%%:*}" ]; then
                printf -v "${word#*:}" %s "$OPTARG"
                continue 2
            fi
        done
        usage
    done
}

# A daemon busy with a delivery may outlive its MTA's own stop: TERM gives it
# a moment to end cleanly, KILL makes sure the next run starts alone.
# bench_own_pid /proc/N: process N's PID as kill takes it here, its last
# NSpid: under spoolsim crash or calibrate the scripts run in a PID namespace
# of their own, and /proc, the parent's, names every process by the parent's
# PIDs. Nothing if it is gone (or is this shell: never a target).
bench_own_pid() {
    local own
    own=$(awk '$1 == "NSpid:" { print $NF }' "$1/status" 2>/dev/null) || return 0
    [ -n "$own" ] && [ "$own" != "$BASHPID" ] && [ "$own" != "$$" ] && echo "$own"
    return 0
}

bench_kill_left() {
    local pids i
    for i in 1 2 3 4 5 6 7 8 9 10; do
        pids=$("$1")
        [ -z "$pids" ] && return 0
        # shellcheck disable=SC2086 # one PID a word
        if [ "$i" -ge 5 ]; then kill -KILL $pids 2>/dev/null; else kill -TERM $pids 2>/dev/null; fi
        sleep 0.3
    done
}

# The ports free_port has handed out, " P1 P2 ... ": kept across the several
# times a script sources this file (through postfix-instance.sh and the like).
: "${BENCH_PORTS_GIVEN:= }"

# free_port VAR...: the shell alone, for a fresh machine without python3;
# not awk, whose srand() in mawk (Debian's awk) takes every seed from
# 2^31 - 1 up as one, so that from a PID of 21475 up a seed of
# "$$$RANDOM" gave one port to every call and calibrate started its sink
# and Postfix's smtpd on it. A port in use is any that /proc/net/tcp or tcp6
# lists (listening, connected or closing). Ports come from outside the
# kernel's ephemeral range where it leaves room: inside it the kernel itself
# may give the port to a client's connect() or another program's bind(0)
# between this choice and the server's bind, outside it only a program
# that names the port can.
free_port() {
    # Every local is fp_: a VAR of the same name as a local would be set
    # here, not in the caller.
    local fp_lo fp_hi fp_below fp_above fp_n fp_r fp_port fp_var fp_text fp_line fp_addr _
    local -A fp_used=()
    read -r fp_lo fp_hi </proc/sys/net/ipv4/ip_local_port_range || return 1
    # Each file whole, then split here: read(1) takes a file of /proc a byte
    # at a time, and a regular expression a line costs a call 90 ms.
    fp_text=$(</proc/net/tcp) || return 1
    [ -r /proc/net/tcp6 ] && fp_text+=$'\n'$(</proc/net/tcp6)
    local - IFS=$'\n'
    set -f
    for fp_line in $fp_text; do # "  SL: LOCALADDR:PORT REMADDR:PORT ...", in hex
        fp_addr=${fp_line#*: } fp_addr=${fp_addr%% *}
        [[ $fp_addr == *:[0-9A-F][0-9A-F][0-9A-F][0-9A-F] ]] && fp_used[$((16#${fp_addr##*:}))]=1
    done
    fp_below=$((fp_lo > 1024 ? fp_lo - 1024 : 0)) fp_above=$((fp_hi < 65535 ? 65535 - fp_hi : 0))
    for fp_var in "$@"; do
        fp_port=''
        for _ in {1..200}; do
            fp_r=$((${SRANDOM:-$((RANDOM << 15 | RANDOM))}))
            if [ $((fp_below + fp_above)) -ge 1000 ]; then
                fp_n=$((fp_r % (fp_below + fp_above)))
                if [ "$fp_n" -lt "$fp_below" ]; then
                    fp_r=$((1024 + fp_n))
                else
                    fp_r=$((fp_hi + 1 + fp_n - fp_below))
                fi
            else
                fp_r=$((fp_lo + fp_r % (fp_hi - fp_lo + 1)))
            fi
            if [ -z "${fp_used[$fp_r]:-}" ] && [[ $BENCH_PORTS_GIVEN != *" $fp_r "* ]]; then
                fp_port=$fp_r
                break
            fi
        done
        [ -n "$fp_port" ] || { echo "$0: no free TCP port found" >&2; return 1; }
        BENCH_PORTS_GIVEN+="$fp_port "
        printf -v "$fp_var" %s "$fp_port"
    done
}

# bench_sink SINK DIR [OPTION...]: port 0, so that no other program can take
# the port between a choice and the bind; DIR/sink.port and DIR/sink.err
# are its. 10 s at most; if it does not listen by then, its error and 1.
bench_sink() {
    local sink=$1 dir=$2 got
    shift 2
    rm -f "$dir/sink.port"
    "$sink" --port-file "$dir/sink.port" "$@" 127.0.0.1:0 1000 >/dev/null 2>"$dir/sink.err" &
    SINK_PID=$!
    for _ in {1..200}; do
        got=$(cat "$dir/sink.port" 2>/dev/null)
        [[ $got =~ ^[0-9]+$ ]] && { SINK_PORT=$got; return 0; }
        kill -0 "$SINK_PID" 2>/dev/null || break
        sleep 0.05
    done
    echo "$0: smtp-sink did not start: $(tail -n 3 "$dir/sink.err")" >&2
    return 1
}

# A value from the environment that is not a number would otherwise reach
# smtp-source or seq as garbage and fail far from its cause.
bench_positive() {
    local v
    for v in "$@"; do
        [[ $v =~ ^[1-9][0-9]*$ ]] || { echo "$0: BENCH_*: '$v' is not a positive number" >&2; exit 2; }
    done
}

# perf_event_paranoid, or no perf at all: the counting runs are left out.
bench_perf_counts() {
    perf stat -e raw_syscalls:sys_enter -o /dev/null true 2>/dev/null
}

# The sink is the one process a script may leave behind when it stops early.
bench_tmp() {
    TMP=$(mktemp -d "/tmp/$1.XXXXXX") || exit 1
    SINK_PID=
    trap bench_cleanup EXIT
    trap 'exit 130' INT TERM HUP
}
bench_cleanup() {
    [ -n "$SINK_PID" ] && kill "$SINK_PID" 2>/dev/null && wait "$SINK_PID" 2>/dev/null
    rm -rf "$TMP"
}

# Postfix's smtp-sink says nothing when it listens: ss tells.
bench_listening() { ss -Hltn "sport = :$1" 2>/dev/null | grep -q LISTEN; }

bench_stop_sink() {
    kill "$SINK_PID" 2>/dev/null
    wait "$SINK_PID" 2>/dev/null
    SINK_PID= PORT=
}

# Writes "rc msgs/s sink_us sink_sw client_us client_sw calls epoll accept"
# to OUT: the client's exit code (-9: killed after LIMIT s), messages per
# second of its wall time, per message the sink's CPU (utime+stime of
# /proc/PID/stat) and context switches and the client's (wait4); with PERF
# 1, perf stat's system calls, epoll_wait and accept calls of the sink per
# message (else "- - -"). The sink's figures come from /proc before and
# after, so that the client alone is timed: python, whose own start is not
# in the figure.
bench_measure() {
    local py
    py=$(cat <<'EOF'
import os, signal, subprocess, sys, time
out, limit, pid, msgs, perf, argv = sys.argv[1], float(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4]), sys.argv[5], sys.argv[6:]
hz = os.sysconf("SC_CLK_TCK")
def sink():
    ticks = open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split()
    sw = sum(int(l.split()[1]) for l in open(f"/proc/{pid}/status") if "ctxt_switches" in l)
    return (int(ticks[11]) + int(ticks[12])) / hz, sw
counter = None
if perf == "1":
    events = "raw_syscalls:sys_enter,syscalls:sys_enter_epoll_wait,syscalls:sys_enter_accept,syscalls:sys_enter_accept4"
    counter = subprocess.Popen(["perf", "stat", "-x,", "-e", events, "-p", str(pid), "-o", out + ".perf"])
    time.sleep(0.5)  # attached before the first connection
cpu0, sw0 = sink()
t0 = time.monotonic()
child = os.posix_spawn(argv[0], argv, os.environ)
signal.signal(signal.SIGALRM, lambda *a: os.kill(child, signal.SIGKILL))
signal.setitimer(signal.ITIMER_REAL, limit)
_, status, ru = os.wait4(child, 0)
el = time.monotonic() - t0
cpu1, sw1 = sink()
calls = ["-"] * 3
if counter:
    counter.send_signal(signal.SIGINT)
    counter.wait()
    n = {}
    for line in open(out + ".perf"):
        f = line.split(",")
        if len(f) > 2 and f[0].strip().isdigit():
            n[f[2]] = int(f[0])
    calls = [f"{n.get(e, 0) / msgs:.2f}" for e in ("raw_syscalls:sys_enter", "syscalls:sys_enter_epoll_wait")]
    calls.append(f"{(n.get('syscalls:sys_enter_accept', 0) + n.get('syscalls:sys_enter_accept4', 0)) / msgs:.2f}")
with open(out, "w") as f:
    f.write(f"{os.waitstatus_to_exitcode(status)} {msgs / el:.1f} {(cpu1 - cpu0) / msgs * 1e6:.1f} "
            f"{(sw1 - sw0) / msgs:.2f} {(ru.ru_utime + ru.ru_stime) / msgs * 1e6:.1f} "
            f"{(ru.ru_nvcsw + ru.ru_nivcsw) / msgs:.2f} {' '.join(calls)}\n")
EOF
    )
    python3 -c "$py" "$@"
}

# The tables' arithmetic, one copy: rows(PATH) a results file's rows as
# lists of words (blank lines skipped); medians(ROWS, FIRST, N) the median
# of each of N columns from FIRST, as numbers; ratio(A, B) A / B to two
# decimals, "n/a" when either is missing or B is 0.
bench_py() {
    python3 -c '
import statistics, sys
def rows(path):
    return [l.split() for l in open(path) if l.strip()]
def medians(rows, first, n):
    return [statistics.median(float(r[first + i]) for r in rows) for i in range(n)]
def ratio(a, b):
    return f"{a / b:.2f}" if a is not None and b else "n/a"
'"$(cat)" "$@"
}
