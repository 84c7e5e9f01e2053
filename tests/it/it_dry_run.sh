#!/bin/bash
# Integration: --dry-run on every command that runs work (bench, sweep, raw,
# ab, postmark, relay, crash, calibrate).
#
# 1. A valid dry run exits 0 saying "dry run: would ...", and makes
#    nothing: the directories it is given stay empty, a relay's --spool is
#    not made, nothing appears in $TMPDIR, and no process is left.
# 2. An invalid one exits 2 naming the problem, with nothing made. The
#    relay's dry run (and --check-options, its old name, which checked the
#    syntax alone) finds an unknown -u user, a port out of range, a
#    --next-hop that does not resolve, --model exim with the postfix
#    profile, a model file that is no model or whose figures are out of
#    bounds, a --spool that is a file, and one that cannot be made. bench
#    finds --model typo before anything starts, dry run or not (it was exit
#    1 once the sink had started), and, for --mta and --compare, root and
#    a --spool the MTA's daemons cannot pass through; sweep the relay
#    options after --; ab its mode's ARGS, through the mode's own dry run.
# crash's part needs what spoolsim crash needs (root, FUSE, loop devices)
# and calibrate's root; acting as another user needs setpriv.
. "${top_srcdir:-.}/tests/helpers/lib.sh"

D="$WORK/d" # given to the commands as their directory: must stay empty
mkdir -m 0777 "$D" "$WORK/tmp"
export TMPDIR="$WORK/tmp" # the default work place: must stay empty too

empty() { [ -z "$(ls -A "$1")" ]; }
nothing_made() { empty "$D" && empty "$WORK/tmp"; }

# good NAME ARGS...: exit 0, "dry run: would" on standard output, nothing made, nothing left
good() {
    local name=$1
    shift
    timeout 60 "$@" >"$WORK/$name.out" 2>"$WORK/$name.err"
    local rc=$?
    check "$name: exit 0 (got $rc)" test $rc = 0
    check "$name: says what would run" grep -q "dry run: would" "$WORK/$name.out"
    check "$name: nothing made" nothing_made
    check "$name: no process left" none_left "$WORK"
}

# bad NAME PATTERN ARGS...: exit 2, PATTERN in the message, nothing made, nothing left
bad() {
    refused "$@"
    check "$1: nothing made" nothing_made
    check "$1: no process left" none_left "$WORK"
}

AS_NOBODY="setpriv --reuid=65534 --regid=65534 --clear-groups"
can_act_as_nobody() { [ "$(id -u)" = 0 ] && command -v setpriv >/dev/null; }

# ---------------------------------------------------------------- relay
R="$RELAY relay --listen 127.0.0.1:0 --next-hop 127.0.0.1:25 --spool $D/q"
good relay $R --dry-run
check "relay: its --spool was not made" test ! -e "$D/q"
good relay-old-name $R --check-options
printf '{' >"$WORK/broken-model.json"
sed 's/"reference_speed": [0-9.]*/"reference_speed": 1e30/' "$top_srcdir/data/postfix-model.json" \
    >"$WORK/huge-model.json"
check "the out-of-bounds model differs from the real one" \
    sh -c "! cmp -s '$WORK/huge-model.json' '$top_srcdir/data/postfix-model.json'"
good relay-model-file $R --dry-run --model "$top_srcdir/data/postfix-model.json"
for opt in --dry-run --check-options; do
    bad "relay$opt-user" 'unknown user "nosuchuser"' $R $opt -u nosuchuser
    bad "relay$opt-port" "port 70000" $R $opt --listen 127.0.0.1:70000
    bad "relay$opt-hop" "cannot resolve nosuchhost.invalid" $R $opt --next-hop nosuchhost.invalid:25
    bad "relay$opt-model-profile" "goes with --profile exim" $R $opt --model exim
    bad "relay$opt-model-broken" "broken-model.json" $R $opt --model "$WORK/broken-model.json"
    bad "relay$opt-model-bounds" "reference_speed" $R $opt --model "$WORK/huge-model.json"
    bad "relay$opt-model-missing" "cannot read the model" $R $opt --model "$WORK/no-model.json"
    bad "relay$opt-spool-file" "/etc/passwd: not a directory" $R $opt --spool /etc/passwd
    bad "relay$opt-spool-unmakeable" "cannot be made" $R $opt --spool "$D/a/b"
    bad "relay$opt-spool-under-file" "/etc/passwd/q" $R $opt --spool /etc/passwd/q
done

# ---------------------------------------------------------------- bench
good bench "$RELAY" bench --dry-run --spool "$D" -m 10
good bench-tmpdir "$RELAY" bench --dry-run -m 10 --discard
bad bench-model "typo" "$RELAY" bench --dry-run --spool "$D" -m 10 --model typo
# not a dry run: found before the sink (or anything) starts
bad bench-model-run "typo" "$RELAY" bench --spool "$D" -m 10 --model typo
check "bench-model-run: no sink started" sh -c "! grep -q 'work directory' '$WORK/bench-model-run.err'"
bad bench-model-profile "goes with --profile exim" "$RELAY" bench --dry-run --spool "$D" --model exim
bad bench-spool "$D/none" "$RELAY" bench --dry-run --spool "$D/none"
bad bench-spool-file "not a directory" "$RELAY" bench --dry-run --spool /etc/passwd
bad bench-mta-discard "not with --discard" "$RELAY" bench --dry-run --spool "$D" --mta postfix --discard
if can_act_as_nobody; then
    # a real MTA's daemons pass through every directory above its queue: $WORK's too
    chmod 0711 "$WORK"
    good bench-compare "$RELAY" bench --dry-run --spool "$D" --compare postfix --runs 2 -m 100
    bad bench-compare-root "needs root" $AS_NOBODY "$RELAY" bench --dry-run --spool "$D" \
        --compare postfix
    mkdir -m 0700 "$WORK/closed"
    good bench-mta "$RELAY" bench --dry-run --spool "$D" --mta postfix -m 10
    bad bench-mta-closed "cannot pass through $WORK/closed" "$RELAY" bench --dry-run \
        --spool "$WORK/closed" --mta postfix -m 10
    check "bench-mta-closed: nothing made in it" empty "$WORK/closed"
    # a directory this user may not write in: nobody, in root's
    mkdir -m 0755 "$WORK/roots"
    bad relay-spool-not-writable "cannot be made in $WORK/roots" $AS_NOBODY "$RELAY" relay \
        --dry-run --spool "$WORK/roots/q"
    bad raw-dir-not-writable "$WORK/roots: cannot write in it" $AS_NOBODY "$RELAY" raw --dry-run \
        --spool "$WORK/roots"
    check "... and nothing made in it" empty "$WORK/roots"
    chmod 0700 "$WORK"
else
    skip_part "bench --compare's and --mta's dry runs: root, and setpriv to act as another user"
fi

# ---------------------------------------------------------------- sweep
good sweep "$RELAY" sweep --dry-run --spool "$D"
good sweep-relay-args "$RELAY" sweep --dry-run --spool "$D" -- --model none
bad sweep-relay-model "goes with --profile exim" "$RELAY" sweep --dry-run --spool "$D" -- --model exim
bad sweep-relay-user 'unknown user "nosuchuser"' "$RELAY" sweep --dry-run --spool "$D" -- -u nosuchuser
bad sweep-spool "not a directory" "$RELAY" sweep --dry-run --spool /etc/passwd

# ---------------------------------------------------------------- raw
good raw "$RELAY" raw --dry-run --spool "$D" -m 100
bad raw-dir "not a directory" "$RELAY" raw --dry-run --spool /etc/passwd
bad raw-dir-missing "$D/none" "$RELAY" raw --dry-run --spool "$D/none"
bad raw-workers "--workers" "$RELAY" raw --dry-run --spool "$D" --workers 0

# ---------------------------------------------------------------- ab
mkdir -m 0777 "$D.b"
good ab "$RELAY" ab --dry-run "$D" "$D.b" -- raw -m 10
check "ab: B is empty too" empty "$D.b"
good ab-relay "$RELAY" ab --dry-run "$D" "$D.b" -- relay -m 10 --model none
bad ab-raw-args "--workers" "$RELAY" ab --dry-run "$D" "$D.b" -- raw --workers 0
bad ab-relay-model "typo" "$RELAY" ab --dry-run "$D" "$D.b" -- relay --model typo
bad ab-dir "DIR_B /etc/passwd: not a directory" "$RELAY" ab --dry-run "$D" /etc/passwd -- raw
bad ab-args-dry-run "--dry-run is not allowed" "$RELAY" ab --dry-run "$D" "$D.b" -- raw --dry-run
check "ab: B is still empty" empty "$D.b"

# ---------------------------------------------------------------- postmark
printf 'set location %s\nset number 10\nrun\nquit\n' "$D" >"$WORK/pm.cmd"
good postmark "$RELAY" postmark --dry-run "$WORK/pm.cmd"
printf 'set nosuch 1\n' >"$WORK/pm-bad.cmd"
bad postmark-command "unknown command" "$RELAY" postmark --dry-run "$WORK/pm-bad.cmd"
bad postmark-file "cannot read command file" "$RELAY" postmark --dry-run "$WORK/none.cmd"

# ---------------------------------------------------------------- crash
if [ "$(id -u)" = 0 ] && [ -c /dev/fuse ] && [ -e /dev/loop-control ] &&
    [ -x "$top_builddir/spoolsim/crash/spoolsim-recorder" ] && command -v mkfs.ext4 >/dev/null; then
    good crash "$RELAY" crash --dry-run --work-dir "$D" -t ext4
    bad crash-model "typo" "$RELAY" crash --dry-run --work-dir "$D" --model typo
    bad crash-model-profile "goes with --profile exim" "$RELAY" crash --dry-run --work-dir "$D" \
        --model exim
    bad crash-work-dir "not a directory" "$RELAY" crash --dry-run --work-dir /etc/passwd
else
    skip_part "crash's dry run: root, /dev/fuse, loop devices, spoolsim-recorder and mkfs.ext4"
fi
bad crash-type 'filesystem type "ntfs"' "$RELAY" crash --dry-run --work-dir "$D" -t ntfs

# ---------------------------------------------------------------- calibrate
if [ "$(id -u)" = 0 ]; then
    good calibrate "$RELAY" calibrate postfix --dry-run
    check "calibrate: no cache made" test ! -e "$SPOOLSIM_SYSTEM_CACHE" -a ! -e "$SPOOLSIM_CACHE_DIR"
    good calibrate-out "$RELAY" calibrate exim --dry-run -o "$D/model.json"
else
    skip_part "calibrate's valid dry run: root"
fi
bad calibrate-messages "-m" "$RELAY" calibrate postfix --dry-run -m 5
bad calibrate-out-bad "/etc/passwd/model.json" "$RELAY" calibrate postfix --dry-run \
    -o /etc/passwd/model.json
if can_act_as_nobody; then
    bad calibrate-root "needs root" $AS_NOBODY "$RELAY" calibrate postfix --dry-run
fi

# As root, bench measures this machine's model of the MTA first unless told
# not to; the dry run says whether it would.
calibrates() { env -u SPOOLSIM_NO_CALIBRATE "$RELAY" bench --dry-run -m 10 "$@" 2>&1 | grep -q "after calibrating"; }
not_calibrates() { ! calibrates "$@"; }
if [ "$(id -u)" = 0 ]; then
    check "bench as root calibrates first by default" calibrates
    check "  ... not with --no-calibrate" not_calibrates --no-calibrate
    check "  ... not with --model none" not_calibrates --model none
    check "  ... not with SPOOLSIM_NO_CALIBRATE=1" sh -c "! '$RELAY' bench --dry-run -m 10 2>&1 | grep -q 'after calibrating'"
    check "  ... --calibrate with --no-calibrate is a usage error" sh -c "'$RELAY' bench --dry-run --calibrate --no-calibrate >/dev/null 2>&1; test \$? = 2"
    if can_act_as_nobody; then
        check "  ... not for another user than root" sh -c "! env -u SPOOLSIM_NO_CALIBRATE $AS_NOBODY '$RELAY' bench --dry-run -m 10 --spool /tmp 2>&1 | grep -q 'after calibrating'"
    fi
fi

finish
