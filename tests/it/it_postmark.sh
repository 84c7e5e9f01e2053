#!/bin/bash
# Integration: spoolsim postmark against Debian's postmark 1.53, run for run.
# For each configuration both programs run the same commands in fresh
# directories; the Files and Data blocks of their reports, rates removed,
# must be identical (compat timing makes the Data lines PostMark's float
# sums). Skipped where the postmark binary is missing.
. "${top_srcdir:-.}/tests/helpers/lib.sh"

SPOOLSIM="$top_builddir/spoolsim/spoolsim"
need_peer "Debian's postmark" "apt-get install postmark (scripts/install-deps.sh --test)" \
    executables "$POSTMARK"

# counts FILE: the Files and Data blocks of a verbose report, without rates.
counts() {
    sed -n '/^Files:/,$p' "$1" | sed -e 's/ (.* per second)//' -e '/^Durability/,$d'
}

# compare NAME COMMANDS: run both programs with COMMANDS (lines), compare counts.
compare() {
    local name=$1 commands=$2
    local dir="$WORK/$name"
    mkdir -p "$dir/pm/a" "$dir/pm/b" "$dir/ours/a" "$dir/ours/b"
    printf '%s\nrun\nquit\n' "$commands" >"$dir/cmds"
    (cd "$dir/pm" && timeout 120 "$POSTMARK" "$dir/cmds" >"$dir/pm.out" 2>&1 </dev/null)
    printf 'set timing compat\n%s\nrun\nquit\n' "$commands" >"$dir/cmds.ours"
    (cd "$dir/ours" && timeout 120 "$SPOOLSIM" postmark "$dir/cmds.ours" \
        >"$dir/ours.out" 2>&1 </dev/null)
    counts "$dir/pm.out" >"$dir/pm.counts"
    counts "$dir/ours.out" >"$dir/ours.counts"
    [ -s "$dir/pm.counts" ] && cmp -s "$dir/pm.counts" "$dir/ours.counts" || {
        echo "# $name: postmark and spoolsim differ:"
        diff "$dir/pm.counts" "$dir/ours.counts" | sed 's/^/# /'
        return 1
    }
    # Both clean up after themselves: no file may be left behind.
    [ -z "$(find "$dir/ours" -type f)" ]
}

case "$top_builddir" in /*) ;; *) SPOOLSIM="$PWD/$SPOOLSIM" ;; esac
check "defaults (500 files, 500 transactions)" compare defaults ""
check "small: 2000 transactions" compare small "set transactions 2000"
check "fixed size, unbuffered, small blocks" compare fixed \
    "set size 1000 1000
set buffering false
set read 100
set write 300
set transactions 1500"
check "biases -1 and 10" compare biases "set bias read -1
set bias create 10
set number 50
set transactions 3000"
check "biases 0 and 0, seed 7" compare bias0 "set bias read 0
set bias create 0
set seed 7
set transactions 400"
check "3 subdirectories" compare subdirs "set subdirectories 3
set number 300
set transactions 2000"
check "two weighted locations" compare locations "set location a 3
set location +b 1
set number 200
set transactions 1000"
check "n1000-t50000 (a golden configuration)" compare golden "set number 1000
set transactions 50000"

# Fewer than 10 transactions crash PostMark (SIGFPE); spoolsim just runs them.
printf 'set transactions 5\nrun\nquit\n' >"$WORK/five"
check "5 transactions do not crash" to "$WORK/five.out" timeout 30 "$SPOOLSIM" postmark "$WORK/five"
check "  ... and report" grep -q "transactions" "$WORK/five.out"

# Durability options run and are stated in the report.
printf 'set sync fsync\nset dirsync on\nset number 50\nset transactions 100\nset json %s\nrun\nquit\n' \
    "$WORK/pm.json" >"$WORK/sync"
check "set sync fsync with dirsync" to "$WORK/sync.out" timeout 60 "$SPOOLSIM" postmark "$WORK/sync"
check "  ... stated in the report" grep -q "Durability: fsync before close, directory fsync" \
    "$WORK/sync.out"
check "  ... JSON report written" python3 -c "
import json; r = json.load(open('$WORK/pm.json'))
assert r['config']['sync'] == 'fsync' and r['complete'] and r['created'] >= 50, r"

# Workers: worker 0 runs PostMark's stream, so with 3 workers the counts
# are PostMark's plus two more streams, and two runs agree exactly.
printf 'set number 200\nset transactions 1000\nset workers 3\nset json %s\nrun\nset json %s\nrun\nquit\n' \
    "$WORK/w1.json" "$WORK/w2.json" >"$WORK/workers"
mkdir "$WORK/wdir"
check "3 workers run" to "$WORK/workers.out" sh -c "cd '$WORK/wdir' && timeout 60 '$SPOOLSIM' postmark '$WORK/workers'"
check "  ... the same counts twice (deterministic streams)" python3 -c "
import json; a = json.load(open('$WORK/w1.json')); b = json.load(open('$WORK/w2.json'))
keys = ['created', 'read', 'appended', 'deleted', 'bytes_written']
assert a['config']['workers'] == 3 and all(a[k] == b[k] for k in keys), (a, b)"
printf 'set number 200\nset transactions 1000\nset json %s\nrun\nquit\n' "$WORK/w0.json" >"$WORK/single"
check "  ... one worker" to "$WORK/single.out" sh -c "cd '$WORK/wdir' && timeout 60 '$SPOOLSIM' postmark '$WORK/single'"
check "  ... three workers did more than one, each its own stream" python3 -c "
import json; a = json.load(open('$WORK/w1.json')); one = json.load(open('$WORK/w0.json'))
assert a['created'] > 2 * one['created'] and a['created_alone'] == 600, (a, one)"
check "  ... and left no worker directories" test -z "$(ls -A "$WORK/wdir")"

# A command file that does not exist is an error, not silently ignored.
to "$WORK/missing.out" "$SPOOLSIM" postmark "$WORK/no-such-file"
check "missing command file: exit 2" test $? = 2
finish
