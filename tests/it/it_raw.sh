#!/bin/bash
# Integration: `spoolsim raw'. Every profile runs, reports what it did,
# and leaves nothing behind; where strace works, the system calls each
# profile makes per message are what the MTA makes (one recipient,
# success path).
. "${top_srcdir:-.}/tests/helpers/lib.sh"

DIR=$WORK/dir
mkdir -p "$DIR"
# Every profile of the table, as raw --list prints it (tests/it/it_profile_names.sh
# checks that every command takes the same names).
"$RELAY" raw --list | awk '{ print $1 }' >"$WORK/profiles"
check "--list names profiles, postfix and null among them" \
    sh -c "grep -qx postfix '$WORK/profiles' && grep -qx null '$WORK/profiles'"
for p in $(cat "$WORK/profiles"); do
    check "$p: 300 messages, 4 workers" to "$WORK/$p.out" timeout 60 "$RELAY" raw --spool "$DIR" \
        -p "$p" -m 300 -w 4 -q --json "$WORK/$p.json"
    check "$p: 300 delivered" test "$(json_get "$WORK/$p.json" delivered)" = 300
    check "$p: the report names profile and filesystem" \
        sh -c "grep -q '^profile: *$p ' '$WORK/$p.out' && grep -q '^filesystem: ' '$WORK/$p.out'"
    check "$p: nothing left behind" test -z "$(ls -A "$DIR")"
done

check "deferrals and queue depth" to "$WORK/defer.out" timeout 60 "$RELAY" raw --spool "$DIR" \
    -p postfix -m 400 -w 4 --defer 25 --depth 20 -r 2 --size uniform:500:20000 -q \
    --json "$WORK/defer.json"
deferrals=$(json_get "$WORK/defer.json" deferrals)
check "about a quarter deferred ($deferrals of 400)" test "$deferrals" -ge 50 -a "$deferrals" -le 150
check "all delivered in the end" test "$(json_get "$WORK/defer.json" delivered)" = 400
# --defer defers a message once, whatever the backend: the null one, whose
# phases do nothing, once deferred the same message again and again.
for p in postfix null; do
    check "$p: --defer 100 defers each message once" to "$WORK/$p.d100.out" timeout 30 "$RELAY" raw \
        --spool "$DIR" -p "$p" -m 50 -w 2 --defer 100 -q --json "$WORK/$p.d100.json"
    check "  $p: 50 deferrals" test "$(json_get "$WORK/$p.d100.json" deferrals)" = 50
    check "  $p: 50 delivered" test "$(json_get "$WORK/$p.d100.json" delivered)" = 50
done
check "--sync none: marked on every line" to "$WORK/none.out" "$RELAY" raw --spool "$DIR" -p exim \
    -m 50 -w 2 --sync none -q
check "  every line" test -z "$(grep -v '^\[sync none\] ' "$WORK/none.out")"
check "  and no sync made" grep -q "^\[sync none\] syncs: *0.0/s" "$WORK/none.out"
check "--ceiling measures and compares" to "$WORK/ceil.out" "$RELAY" raw --spool "$DIR" -m 200 \
    -w 2 --ceiling -q
check "  the fraction line" grep -q "^fraction: *the postfix profile runs at [0-9]*% of the bare spool loop" "$WORK/ceil.out"
check "unknown profile: exit 2" sh -c "'$RELAY' raw --spool '$DIR' -p smail >/dev/null 2>&1; test \$? = 2"
check "no --spool: exit 2" sh -c "'$RELAY' raw >/dev/null 2>&1; test \$? = 2"
check "missing --spool: exit 2 (usage), named" sh -c "'$RELAY' raw --spool '$WORK/nonexistent' -m 1 2>'$WORK/e'; test \$? = 2 && grep -q nonexistent '$WORK/e'"
check "--list names every profile once" test -z "$(sort "$WORK/profiles" | uniq -d)"
check "--list names the version each models" sh -c "'$RELAY' raw --list | grep -q '^sendmail .*8\.17\.1\.9' &&
    '$RELAY' raw --list | grep -q '^exim .*4\.96' && '$RELAY' raw --list | grep -q '^exim-4\.98 .*4\.98' &&
    '$RELAY' raw --list | grep -q '^opensmtpd .*6\.8\.0p2'"
# A per-recipient group (OpenSMTPD's envelopes) repeats as a whole.
for p in sendmail exim opensmtpd; do
    check "$p: 3 recipients, deferrals, a queue" to "$WORK/$p.r3.out" timeout 60 "$RELAY" raw --spool "$DIR" \
        -p "$p" -m 100 -w 2 -r 3 --defer 20 --depth 5 -q --json "$WORK/$p.r3.json"
    check "$p: 3 recipients: all delivered" test "$(json_get "$WORK/$p.r3.json" delivered)" = 100
done

# System calls per message, by strace: Sendmail's, Exim's and OpenSMTPD's as
# their daemons were traced making them (tests/it/it_profile_daemons.sh does
# it where it can), Postfix's and qmail's as docs/spool-profiles.md A.6 has them.
if command -v strace >/dev/null && strace -f -o /dev/null true 2>/dev/null; then
    KINDS="create append open fsync fdatasync fsync_dir rename link unlink probe mkdir rmdir stat lock"
    for p in postfix sendmail qmail exim exim-4.98 opensmtpd; do
        check "$p: counted under strace" raw_op_counts "$p" 20 "$WORK/$p.counts"
        line=""
        for k in $KINDS; do
            line="$line $k=$(awk -v k="$k" '$1 == k { print $2 + 0 }' "$WORK/$p.counts")"
        done
        echo "$p:$line" >"$WORK/$p.line"
        cat "$WORK/$p.line"
    done
    expect() { check "$1: $2" test "$(cat "$WORK/$1.line")" = "$1: $2"; }
    expect postfix "create=1 append=0 open=2 fsync=1 fdatasync=0 fsync_dir=0 rename=2 link=0 unlink=1 probe=4 mkdir=0 rmdir=0 stat=2 lock=2"
    expect sendmail "create=2 append=0 open=1 fsync=2 fdatasync=0 fsync_dir=2 rename=0 link=0 unlink=2 probe=4 mkdir=0 rmdir=0 stat=6 lock=2"
    expect qmail "create=4 append=0 open=1 fsync=4 fdatasync=0 fsync_dir=0 rename=0 link=2 unlink=6 probe=4 mkdir=0 rmdir=0 stat=0 lock=0"
    expect exim "create=3 append=3 open=7 fsync=3 fdatasync=0 fsync_dir=1 rename=1 link=0 unlink=4 probe=0 mkdir=0 rmdir=0 stat=7 lock=5"
    expect exim-4.98 "create=3 append=3 open=7 fsync=3 fdatasync=1 fsync_dir=1 rename=1 link=0 unlink=4 probe=0 mkdir=0 rmdir=0 stat=7 lock=5"
    expect opensmtpd "create=2 append=0 open=1 fsync=0 fdatasync=0 fsync_dir=0 rename=2 link=0 unlink=2 probe=1 mkdir=1 rmdir=1 stat=5 lock=0"
else
    skip_part "strace counts (strace missing or not permitted)"
fi
finish
