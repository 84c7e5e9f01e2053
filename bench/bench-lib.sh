# shellcheck shell=bash
# bench-lib.sh - what the benchmark scripts share (sourced by
# bench/capacity.sh, bench/fidelity.sh, bench/validate.sh, bench/disk-cost.sh,
# bench/journal-commits.sh, bench/count-postfix.sh,
# bench/bench-vs-raw.sh, bench/smtp-pair.sh, bench/sink-pair.sh, bench/calibrate-lib.sh,
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
