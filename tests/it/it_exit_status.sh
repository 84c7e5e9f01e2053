#!/bin/bash
# Integration: one exit status for one kind of outcome, in every command
# (common/util/exit_status.h, spoolsim(1) EXIT STATUS): 0 success, 1 the
# answer is bad or could not be written, 2 usage (a directory that does not
# exist among them), 3 the run could not complete. Several commands for each
# class, and every man page's EXIT STATUS saying the same.
. "${top_srcdir:-.}/tests/helpers/lib.sh"

S=$top_builddir/spoolsim/spoolsim
T=$WORK/tmp
mkdir -p "$T"

# status WANT NAME COMMAND...: COMMAND (in $T, bounded) exits with WANT.
status() {
    local want=$1 name=$2 got
    shift 2
    TMPDIR=$T timeout 60 "$@" >"$WORK/$name.out" 2>&1 </dev/null
    got=$?
    check "$name: exit $want (it was $got)" test "$got" = "$want"
}

# --- 0: the run completed and its answer is good
status 0 raw-ok "$S" raw --spool "$T" -m 20 --json "$WORK/raw.json"
status 0 plot-ok "$S" plot "$WORK/raw.json" -o "$WORK/raw.svg"
status 0 workload-help "$S" workload --help

# --- 1: the answer is bad, or it could not be written
status 1 plot-full "$S" plot "$WORK/raw.json" -o /dev/full
echo "Dec  6 08:00:01 mx1 postfix/qmgr[10]: 4R1111AAAA: from=<a@example.org>, size=900, nrcpt=1 (queue active)" >"$WORK/mail.log"
# a file size limit (EFBIG, as a full disk gives ENOSPC): the result cannot be written
status 1 workload-fsize sh -c "trap '' XFSZ; ulimit -f 1; exec '$S' workload --from-maillog '$WORK/mail.log' -o '$WORK/w.json'"
start_dead_hop closed || exit 1
kill "$closed_PID" 2>/dev/null # its port now refuses: every message fails
wait "$closed_PID" 2>/dev/null
status 1 source-failed "$SOURCE" -m 3 127.0.0.1:"$closed_PORT"

# --- 2: usage, a directory that does not exist too, in every command that takes one
status 2 bench-nodir "$S" bench --spool "$WORK/none" -m 5
status 2 raw-nodir "$S" raw --spool "$WORK/none" -m 5
status 2 sweep-nodir "$S" sweep --spool "$WORK/none" --target 127.0.0.1:1
status 2 ab-nodir "$S" ab "$WORK/none" "$T" -- raw -m 5
status 2 crash-nodir "$S" crash --work-dir "$WORK/none" --dry-run
status 2 source-usage "$SOURCE" --no-such-option 127.0.0.1:1

# --- 3: the run could not complete
status 3 relay-nospool "$S" relay --listen 127.0.0.1:0 --spool /proc/nonexistent/q
status 3 bench-nosink env SPOOLSIM_SMTP_SINK=/nonexistent "$S" bench -m 5
printf 'not gzip at all' | gzip -c | head -c 20 >"$WORK/cut.gz"
status 3 workload-cut "$S" workload --from-maillog "$WORK/cut.gz" -o "$WORK/cut.json"
status 3 sink-nocert "$SINK" --tls-cert "$WORK/none.pem" 127.0.0.1:0 1

# --- the header and the manuals say the same
H=$top_srcdir/common/util/exit_status.h
for c in "OK 0" "BAD 1" "USAGE 2" "INCOMPLETE 3"; do
    check "exit_status.h: EXIT_STATUS_${c% *} is ${c#* }" grep -Eq "^#define EXIT_STATUS_${c% *} ${c#* }\$" "$H"
done
for n in 0 1 2 3; do
    check "spoolsim(1) EXIT STATUS: $n" sh -c "awk '/^\.SH \"?EXIT STATUS/{p=1;next} /^\.SH/{p=0} p' '$top_srcdir/man/spoolsim.1' | grep -qx '.B $n'"
done
for page in "$top_srcdir"/man/*.1; do
    case $page in */spoolsim.1) continue ;; esac
    check "$(basename "$page"): EXIT STATUS refers to spoolsim(1)" sh -c "awk '/^\.SH \"?EXIT STATUS/{p=1;next} /^\.SH/{p=0} p' '$page' | grep -q '^Statuses as in'"
    check "$(basename "$page"): EXIT STATUS has a 3" sh -c "awk '/^\.SH \"?EXIT STATUS/{p=1;next} /^\.SH/{p=0} p' '$page' | grep -Eq '(^\.B 3\$|[;,] 3 |^3 )'"
done
finish
