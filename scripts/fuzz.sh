#!/bin/bash
# fuzz.sh - build the libFuzzer targets (make fuzz) and run each of them for
# FUZZ_SECONDS seconds (default 60) from its seed corpus in tests/fuzz/corpus.
#
# The corpus is copied to a temporary directory first, so a run never
# changes the repository; libFuzzer's own output goes to one log per target
# there. One line per target on stdout:
#   <name>: <N> executions in <S> s, <C> corpus units, ok|CRASH
# A crash (or leak, timeout, out-of-memory) makes the exit status non-zero;
# the temporary directory is then kept and the artifact's path printed, to
# be replayed with `tests/fuzz/bin/fuzz_<name> ARTIFACT' (or, built by make
# check with $(CC), `tests/fuzz/replay_<name> ARTIFACT').
#
# Environment: FUZZ_SECONDS (per target), FUZZ_TARGETS (names, default all),
# FUZZ_KEEP=1 (keep the temporary directory even when all pass), FUZZ_CC.
set -eu
cd "$(dirname "$0")/.."

seconds=${FUZZ_SECONDS:-60}
targets=${FUZZ_TARGETS:-"smtp_line smtp_cmd smtp_data smtp_reply pf_qfile pm_command json_read msglog smtp_input plot_read maillog_line"}

# The longest input worth trying: a command or reply is at most a few kB; a
# DATA stream or a queue file needs room for lines over 2048 bytes and more.
max_len() {
    case $1 in
    smtp_data | pf_qfile | smtp_input | plot_read) echo 65536 ;;
    *) echo 4096 ;;
    esac
}

work=$(mktemp -d "${TMPDIR:-/tmp}/spoolsim-fuzz.XXXXXX")

[ -x configure ] || autoreconf -fi >"$work/build.log" 2>&1
[ -f Makefile ] || ./configure >>"$work/build.log" 2>&1
if ! make fuzz ${FUZZ_CC:+FUZZ_CC="$FUZZ_CC"} >>"$work/build.log" 2>&1; then
    cat "$work/build.log" >&2
    echo "fuzz.sh: make fuzz failed (log: $work/build.log)" >&2
    exit 1
fi

export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1}
failed=0
for name in $targets; do
    bin=tests/fuzz/bin/fuzz_$name
    dir=$work/$name
    log=$dir/fuzz.log
    if [ ! -x "$bin" ]; then
        echo "$name: no such target ($bin)" >&2
        failed=1
        continue
    fi
    mkdir -p "$dir/corpus" "$dir/artifacts"
    if [ -d "tests/fuzz/corpus/$name" ]; then
        cp -R "tests/fuzz/corpus/$name/." "$dir/corpus/"
    fi

    start=$(date +%s)
    status=0
    "$bin" -max_total_time="$seconds" -max_len="$(max_len "$name")" -timeout=30 \
        -print_final_stats=1 -artifact_prefix="$dir/artifacts/" "$dir/corpus" >"$log" 2>&1 ||
        status=$?
    elapsed=$(($(date +%s) - start))

    # Executions from the final statistics, else from the last status line.
    runs=$(sed -n 's/^stat::number_of_executed_units: *\([0-9]*\).*/\1/p' "$log" | tail -n 1)
    [ -n "$runs" ] || runs=$(sed -n 's/^#\([0-9][0-9]*\).*/\1/p' "$log" | tail -n 1)
    units=$(sed -n 's/.* corp: \([0-9][0-9]*\)\/.*/\1/p' "$log" | tail -n 1)
    [ -n "$units" ] || units=$(find "$dir/corpus" -type f | wc -l)
    artifacts=$(find "$dir/artifacts" -type f | sort)

    if [ "$status" -eq 0 ] && [ -z "$artifacts" ]; then
        echo "$name: ${runs:-0} executions in $elapsed s, $units corpus units, ok"
    else
        echo "$name: ${runs:-0} executions in $elapsed s, $units corpus units, CRASH"
        for a in $artifacts; do
            echo "  artifact: $a"
        done
        echo "  log: $log"
        failed=1
    fi
done

if [ "$failed" -ne 0 ] || [ -n "${FUZZ_KEEP:-}" ]; then
    echo "fuzz.sh: logs, corpora and artifacts kept in $work"
else
    rm -rf "$work"
fi
exit "$failed"
