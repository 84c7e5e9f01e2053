# shellcheck shell=bash
# bench-lib.sh - what the benchmark scripts share (sourced by
# bench/capacity.sh, bench/fidelity.sh, bench/count-postfix.sh and
# bench/bench-vs-raw.sh).
#
#   bench_getopts SPEC ARG...     the script's options: SPEC is a table of
#                                 LETTER:VARIABLE words, each option taking
#                                 a value, which goes into its variable; the
#                                 caller then shifts $((OPTIND - 1)). Any
#                                 other option, or -h, calls the script's
#                                 usage (which exits).

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
