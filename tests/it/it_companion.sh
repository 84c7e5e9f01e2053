#!/bin/bash
# Integration: spoolsim finds the programs and the script it runs where the
# build put them, and nowhere else (spoolsim/companion.c).
#
# bench runs smtp-sink and smtp-source; calibrate runs
# bench/calibrate-postfix.sh. The build tree's spoolsim uses the paths its
# build compiled in, also in a VPATH build (make distcheck), whose script
# is in the source tree, not next to the programs. A copy of spoolsim
# elsewhere uses only what is in its own directory: not a build-tree
# layout guessed from its name (../smtp-sink/smtp-sink, ../bench/...).
. "${top_srcdir:-.}/tests/helpers/lib.sh"

SPOOLSIM=$top_builddir/spoolsim/spoolsim
unset SPOOLSIM_SMTP_SINK SPOOLSIM_SMTP_SOURCE SPOOLSIM_CALIBRATE_SCRIPT

# calibrate finds the build's script: it runs it, and the script refuses
# an smtp-sink that is not there (or, not as root, to run at all) before
# anything that needs root. calibrate hands on the one the variable names.
SPOOLSIM_SMTP_SINK=$WORK/no-sink "$SPOOLSIM" calibrate postfix -m 200 -o - \
    >"$WORK/cal.out" 2>"$WORK/cal.err"
status=$?
cat "$WORK/cal.err"
check "calibrate runs the build's bench/calibrate-postfix.sh" \
    grep -Eq "calibrate-postfix.sh: (missing $WORK/no-sink|must run as root)" "$WORK/cal.err"
check "  whose exit status is its own (2)" test "$status" -eq 2

# A busy machine is said before calibrating: a loop on every CPU, and a
# script (SPOOLSIM_CALIBRATE_SCRIPT) that only says it ran.
printf '#!/bin/sh\necho fake calibration ran\n' >"$WORK/fake-cal.sh"
chmod +x "$WORK/fake-cal.sh"
spinners=""
for _ in $(seq "$(nproc)"); do
    timeout 20 sh -c 'while :; do :; done' &
    spinners="$spinners $!"
done
SPOOLSIM_CALIBRATE_SCRIPT=$WORK/fake-cal.sh "$SPOOLSIM" calibrate postfix -m 200 -o - \
    >"$WORK/busy.out" 2>"$WORK/busy.err"
status=$?
for pid in $spinners; do stop "$pid"; done
check "calibrating on a busy machine: the script still runs" grep -q "fake calibration ran" "$WORK/busy.out"
check "  with its status" test "$status" -eq 0
check "  after a warning that says how busy, and why it matters" \
    grep -Eq "warning: the machine is [0-9]+ % busy with other work: .*calibrate when it is quiet" \
    "$WORK/busy.err"

# A copy of spoolsim, with a build tree's layout around it made of fakes
# that leave a mark if they are run.
T=$WORK/tree
mkdir -p "$T/x" "$T/smtp-sink" "$T/smtp-source" "$T/bench" "$WORK/spool"
cp "$SPOOLSIM" "$T/x/spoolsim"
for fake in smtp-sink/smtp-sink smtp-source/smtp-source bench/calibrate-postfix.sh; do
    printf '#!/bin/sh\necho ran >>"%s/ran"\n' "$WORK" >"$T/$fake"
    chmod +x "$T/$fake"
done
"$T/x/spoolsim" bench -q -m 1 --spool "$WORK/spool" >"$WORK/copy.out" 2>"$WORK/copy.err"
status=$?
cat "$WORK/copy.err"
check "a copy without its programs: exit 3" test "$status" -eq 3
check "  naming the program it looked for, and where" \
    grep -q "cannot find smtp-sink next to $T/x/spoolsim" "$WORK/copy.err"
"$T/x/spoolsim" calibrate postfix -m 200 -o - >"$WORK/copycal.out" 2>"$WORK/copycal.err"
status=$?
cat "$WORK/copycal.err"
check "a copy without the script: calibrate exits 3" test "$status" -eq 3
check "  naming the variable that gives it" grep -q "set SPOOLSIM_CALIBRATE_SCRIPT" "$WORK/copycal.err"
check "  and it ran none of the build-tree lookalikes" test ! -e "$WORK/ran"
check "  nor left anything in the spool" test -z "$(ls -A "$WORK/spool")"

# Installed together: the programs next to spoolsim are the ones it runs.
cp "$T/smtp-sink/smtp-sink" "$T/x/smtp-sink"
cp "$T/smtp-source/smtp-source" "$T/x/smtp-source"
"$T/x/spoolsim" bench -q -m 1 --spool "$WORK/spool" >"$WORK/inst.out" 2>"$WORK/inst.err"
check "a copy with programs next to it runs those" test -s "$WORK/ran"
finish
