# shellcheck shell=bash
# bench-lib.sh - what the benchmark scripts share (sourced by
# bench/capacity.sh, bench/fidelity.sh, bench/count-postfix.sh,
# bench/bench-vs-raw.sh, bench/calibrate-lib.sh, bench/postfix-instance.sh
# and bench/exim-instance.sh).
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
