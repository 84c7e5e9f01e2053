#!/usr/bin/env bash
# postmark.sh - benchmark (not a test) of `spoolsim postmark` against Debian's
# PostMark 1.53 ($POSTMARK, see scripts/peers.sh), same commands, same directory.
#
# Configurations (the seed's four; N and T multiplied by BENCH_SCALE):
#   n1000-t50000  n20000-t50000  n20000-t100000  n20000-t100000-s100 (K=100)
# Each rep runs every configuration with PostMark then spoolsim (A B A B ..),
# each run in an empty directory given as `set location DIR`.  spoolsim also
# gets `set timing compat`: the report as PostMark's, byte totals summed in
# single-precision floats (the work is the same; the timing below is the
# script's own).  Both programs are timed the SAME
# way from outside: a python3 wrapper reads their stdout through a pipe
# (unbuffered os.read) and notes time.monotonic() when "Performing
# transactions" and "Deleting files" first appear (both programs flush there),
# and at process start and exit.
#   tx/s  = T / (t_deleting - t_performing)   (transaction phase only)
#   wall  = exit - start                      (whole run, incl. pool + cleanup)
# PostMark's own report rounds to whole seconds; these figures are measured.
# The counts of both reports (Files: and Data: blocks, rates ignored) must be
# IDENTICAL, the Data lines too (with `set timing precise' spoolsim prints
# the exact byte totals, which drift from PostMark's float sums as they
# grow: 0.04 MB in 841 at BENCH_SCALE=5); they are printed side by side
# once per configuration.  A run
# with a count mismatch, non-zero exit, stderr output or leftover files is
# marked FAILED and not averaged.  Table: median tx/s and wall seconds of
# each program over good runs; tx ratio > 1.00 = spoolsim faster, wall ratio
# < 1.00 = spoolsim faster.  The target (the issue) is tx ratio >= 1.20 on tmpfs.
#
# Env: BENCH_SCALE (1.0)  BENCH_REPS (3)  BENCH_TIMEOUT (180 s per run)
#      BENCH_DIR (default: a fresh 2 GiB tmpfs if root, else a mktemp -d)
# Usage: bench/postmark.sh   (build first: make -j2; apt-get install postmark)
set -u
ROOT=$(cd "$(dirname "$0")/.." && pwd)
# shellcheck source=scripts/peers.sh
. "$ROOT/scripts/peers.sh"
PM=$POSTMARK OURS=$ROOT/spoolsim/spoolsim
SCALE=${BENCH_SCALE:-1.0} R=${BENCH_REPS:-3} TO=${BENCH_TIMEOUT:-180}
[ -x "$PM" ] && [ -x "$OURS" ] && command -v python3 >/dev/null ||
    { echo "need ${PM:-postmark} (apt-get install -y postmark), $OURS (make -j2) and python3" >&2; exit 2; }

TMP=$(mktemp -d /tmp/pm-bench.XXXXXX) MNT= CUR= DIR=
cleanup() {
    [ -n "$CUR" ] && kill "$CUR" 2>/dev/null && wait "$CUR" 2>/dev/null
    [ -n "$DIR" ] && [ -d "$DIR" ] && find "$DIR" -mindepth 1 -delete 2>/dev/null
    [ -n "$MNT" ] && { umount "$MNT" && rmdir "$MNT"; }
    rm -rf "$TMP"
}
trap cleanup EXIT
trap 'exit 130' INT TERM HUP

if [ -n "${BENCH_DIR:-}" ]; then
    DIR=$BENCH_DIR; [ -d "$DIR" ] || { echo "BENCH_DIR $DIR is not a directory" >&2; exit 2; }
elif [ "$(id -u)" = 0 ]; then
    MNT=$(mktemp -d /tmp/pm-tmpfs.XXXXXX)
    mount -t tmpfs -o size=2g tmpfs "$MNT" || { rmdir "$MNT"; MNT=; echo "mount tmpfs failed" >&2; exit 2; }
    DIR=$MNT
else
    DIR=$TMP/dir; mkdir "$DIR"
    echo "NOTE: not root, so no tmpfs: using $DIR on the file system below"
fi

# run.py OUT TIMEOUT CMD...: run CMD, stdout to OUT.txt, stderr to OUT.err,
# "rc t_start t_perf t_del t_end" (monotonic seconds; -1 = not seen) to OUT.
cat >"$TMP/run.py" <<'EOF'
import os, sys, time, select, signal, subprocess
out, limit, argv = sys.argv[1], float(sys.argv[2]), sys.argv[3:]
signal.signal(signal.SIGTERM, lambda *a: sys.exit(143))
marks = {b"Performing transactions": -1.0, b"Deleting files": -1.0}
buf, rc = b"", 124
with open(out + ".err", "wb") as err:
    t0 = time.monotonic()
    p = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=err, bufsize=0)
    try:
        fd, deadline = p.stdout.fileno(), t0 + limit
        while True:
            left = deadline - time.monotonic()
            if left <= 0 or not select.select([fd], [], [], left)[0]:
                break
            chunk = os.read(fd, 65536)
            now = time.monotonic()
            if not chunk: rc = p.wait(); break
            buf += chunk
            for m in marks:
                if marks[m] < 0 and m in buf:
                    marks[m] = now
    finally:
        p.poll() is None and (p.kill(), p.wait())
    t1 = time.monotonic()
open(out + ".txt", "wb").write(buf)
with open(out, "w") as f:
    print(rc, t0, *marks.values(), t1, file=f)
EOF
# counts FILE: key=value lines from the Files: and Data: blocks of a report.
counts() {
    awk '/^Files:/{b=1;next} /^Data:/{b=2;next} /^[^\t]/{b=0} b==0||/^$/{next}
        { sub(/ \(.*/, ""); sub(/^\t+/, "") }
        b==1 && / created$/  { print "created=" $1; p="creation"; next }
        b==1 && / deleted$/  { print "deleted=" $1; p="deletion"; next }
        b==1 && / read$/     { print "read=" $1; next }
        b==1 && / appended$/ { print "appended=" $1; next }
        b==1 && /alone:/     { print p "_alone=" $3; next }
        b==1 && /^Mixed/     { print p "_mixed=" $4; next }
        b==2 { print "data_" $3 "=" $1 " " $2 }' "$1"
}
# compare A B: count files side by side; status 1 on a mismatch (Data: see top).
compare() {
    paste -d'\t' "$1" "$2" | awk -F'\t' '{ split($1,x,"="); split($2,y,"="); st="same"
        if ($1 != $2) { st="FAILED: MISMATCH"; bad=1 }
        printf "    %-16s %-20s %-20s %s\n", (x[1] != "" ? x[1] : y[1]), x[2], y[2], st; fail+=bad } END{ exit fail>0 }'
}
median() { sort -g | awk '{a[NR]=$1} END{ if (!NR) print "nan"; else if (NR%2) print a[(NR+1)/2]; else print (a[NR/2]+a[NR/2+1])/2 }'; }
sc() { awk -v v="$1" -v s="$SCALE" -v m="$2" 'BEGIN{ x=int(v*s+0.5); print (x<m?m:x) }'; }

CONFIGS=(n1000-t50000:1000:50000:0 n20000-t50000:20000:50000:0
         n20000-t100000:20000:100000:0 n20000-t100000-s100:20000:100000:100)
echo "postmark.sh: $(nproc) CPUs, $(uname -sr); PostMark $PM vs spoolsim $OURS"
# Benchmark a snapshot of the binary: others may rebuild it while this runs.
echo "spoolsim binary: built $(stat -c '%y' "$OURS" | cut -c1-19), md5 $(md5sum <"$OURS" | cut -c1-12) (a copy is run); load average $(cut -d' ' -f1-3 /proc/loadavg)"
cp "$OURS" "$TMP/spoolsim" && OURS=$TMP/spoolsim || exit 2
echo "scale $SCALE (BENCH_SCALE), reps $R (BENCH_REPS), timeout ${TO}s per run"
echo "directory $DIR: $(findmnt -no FSTYPE,OPTIONS -T "$DIR")"
for c in "${CONFIGS[@]}"; do
    IFS=: read -r name n t k <<<"$c"; n=$(sc "$n" 1); t=$(sc "$t" 10)
    { echo "set location $DIR"; echo "set number $n"; echo "set transactions $t"
      [ "$k" -gt 0 ] && echo "set subdirectories $k"; echo run; echo quit; } >"$TMP/$name.pm.cmd"
    sed 's/^run$/set timing compat\nrun/' "$TMP/$name.pm.cmd" >"$TMP/$name.ss.cmd"
    echo "$t" >"$TMP/$name.T"
    sub=; [ "$k" -gt 0 ] && sub=" subdirectories=$k"
    echo "  $name: N=$n T=$t$sub"
done

FAILS=0
# one_run NAME PROG REP: run one program on one config; sets OK=1 on success.
one_run() {
    local name=$1 prog=$2 rep=$3 o=$TMP/$1.$2.$3 left
    if [ -n "$(ls -A "$DIR")" ]; then
        echo "FAILED: $DIR not empty before $name/$prog rep $rep; emptying it"
        find "$DIR" -mindepth 1 -delete
    fi
    local bin=$PM; [ "$prog" = ss ] && bin=$OURS
    local argv=("$bin" "$TMP/$name.$prog.cmd"); [ "$prog" = ss ] && argv=("$bin" postmark "$TMP/$name.$prog.cmd")
    (cd "$TMP" && exec python3 "$TMP/run.py" "$o" "$TO" "${argv[@]}") & CUR=$!
    wait "$CUR"; CUR=
    read -r rc t0 tp td t1 <"$o" 2>/dev/null || rc=wrapper
    counts "$o.txt" >"$o.counts"
    left=$(find "$DIR" -mindepth 1 | wc -l)
    OK=1
    [ "$rc" = 0 ] || { echo "FAILED: $name $prog rep $rep exit status $rc"; OK=0; }
    [ -s "$o.err" ] && { echo "FAILED: $name $prog rep $rep stderr: $(head -c 300 "$o.err")"; OK=0; }
    [ "$left" = 0 ] || { echo "FAILED: $name $prog rep $rep left $left entries in $DIR"; OK=0; find "$DIR" -mindepth 1 -delete; }
    [ "$(wc -l <"$o.counts")" = 10 ] || { echo "FAILED: $name $prog rep $rep: report incomplete"; OK=0; }
    if [ "$OK" = 1 ]; then
        awk -v T="$(cat "$TMP/$name.T")" -v a="$tp" -v b="$td" -v s="$t0" -v e="$t1" \
            'BEGIN{ if (a<0||b<=a) exit 1; printf "%.2f %.4f\n", T/(b-a), e-s }' >"$o.m" \
            || { echo "FAILED: $name $prog rep $rep: phase markers not seen"; OK=0; }
    fi
}

for rep in $(seq 1 "$R"); do
    for c in "${CONFIGS[@]}"; do
        name=${c%%:*}
        one_run "$name" pm "$rep"; okA=$OK
        one_run "$name" ss "$rep"; okB=$OK
        a=$TMP/$name.pm.$rep b=$TMP/$name.ss.$rep
        compare "$a.counts" "$b.counts" >"$TMP/cmp"; same=$?; cat "$TMP/cmp" >>"$TMP/cmp.all"
        if [ "$okA$okB" = 11 ] && [ "$same" != 0 ]; then
            echo "FAILED: $name rep $rep: COUNTS DIFFER between PostMark and spoolsim:"
            [ "$rep" = 1 ] || cat "$TMP/cmp"
            okA=0 okB=0
        fi
        [ "$okA$okB" = 11 ] || FAILS=$((FAILS + 1))
        [ "$okA" = 1 ] && cat "$a.m" >>"$TMP/$name.pm.all"
        [ "$okB" = 1 ] && cat "$b.m" >>"$TMP/$name.ss.all"
        ma=FAILED mb=FAILED
        [ "$okA" = 1 ] && ma=$(awk '{printf "%9.0f tx/s %7.3f s", $1, $2}' "$a.m")
        [ "$okB" = 1 ] && mb=$(awk '{printf "%9.0f tx/s %7.3f s", $1, $2}' "$b.m")
        printf 'rep %d %-20s PostMark %-26s | spoolsim %s\n' "$rep" "$name" "$ma" "$mb"
        if [ "$rep" = 1 ] && [ -s "$a.counts" -o -s "$b.counts" ]; then
            printf '  counts of %s:\n    %-16s %-20s %-20s\n' "$name" "" PostMark spoolsim
            cat "$TMP/cmp"
        fi
    done
done

echo
echo "Medians over good runs (tx/s = T / measured transaction phase; wall = whole process)."
echo "PostMark's own report rounds to whole seconds; these are measured from outside."
printf '%-20s %12s %12s %8s %10s %10s %8s %5s\n' config "PM tx/s" "ours tx/s" "ratio" "PM wall s" "ours wall" "ratio" runs
for c in "${CONFIGS[@]}"; do
    name=${c%%:*}; touch "$TMP/$name.pm.all" "$TMP/$name.ss.all"
    pa=$(cut -d' ' -f1 "$TMP/$name.pm.all" | median) sa=$(cut -d' ' -f1 "$TMP/$name.ss.all" | median)
    pw=$(cut -d' ' -f2 "$TMP/$name.pm.all" | median) sw=$(cut -d' ' -f2 "$TMP/$name.ss.all" | median)
    awk -v n="$name" -v pa="$pa" -v sa="$sa" -v pw="$pw" -v sw="$sw" \
        -v r="$(wc -l <"$TMP/$name.pm.all")/$(wc -l <"$TMP/$name.ss.all")" 'BEGIN{
        printf "%-20s %12.0f %12.0f %8.2f %10.3f %10.3f %8.2f %5s\n", n, pa, sa,
            (pa>0 ? sa/pa : 0), pw, sw, (pw>0 ? sw/pw : 0), r }'
done
echo "tx ratio = spoolsim/PostMark (> 1.00: spoolsim faster; target >= 1.20 on tmpfs);"
echo "wall ratio = spoolsim/PostMark seconds (< 1.00: spoolsim faster). runs = good PM/ours."
[ "$FAILS" = 0 ] && echo "All counts identical; no failed runs." || echo "FAILED: $FAILS configuration-rep pair(s) had a failure or mismatch (see above)."
exit $((FAILS > 0))
