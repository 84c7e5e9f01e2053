#!/bin/bash
# Integration (root): bench on a spool filesystem that fills (issue 35).
# A 20 MB tmpfs and 1 MiB messages: the relay refuses what it cannot store
# (452) and delivers what it accepted, so exactly once holds. The harness's
# message logs used to live beside the spool, lose whole buffers on the
# full disk and splice lines, and bench said "exactly once: NO" about one
# run in three. Now, with --spool, the spool alone is on that filesystem
# (the logs and reports are in $TMPDIR's work directory); and where the
# logs themselves are on the full filesystem (TMPDIR there), a damaged log
# makes "exactly once: not checked", never NO.
. "${top_srcdir:-.}/tests/helpers/lib.sh"
S="$top_builddir/spoolsim/spoolsim"
FULL=$WORK/full
small_tmpfs "$FULL" 20m
RUNS=${BENCH_FULL_RUNS:-3}

# --- the layout: the spool alone under --spool
timeout 120 "$S" bench --spool "$FULL" -m 5 --keep -q >"$WORK/keep.out" 2>"$WORK/keep.err"
check "bench --spool --keep: exit 0" test $? = 0
kept=$(sed -n 's/^spoolsim bench: kept //p' "$WORK/keep.err")
work=${kept%% and *}
spool=${kept#* and }
check "bench --spool: the work directory is not under --spool" \
    sh -c "[ -n '$work' ] && [ -d '$work' ] && case '$work' in '$FULL'/*) exit 1;; esac"
check "bench --spool: the message logs are in the work directory" \
    test -s "$work/source.log" -a -s "$work/sink.log"
check "bench --spool: under --spool, the spool alone" \
    sh -c "[ '$spool' != '$kept' ] && [ \"\$(ls -A '$spool')\" = spool ] && \
        [ -z \"\$(find '$FULL' -name '*.log' -o -name '*.json')\" ]"
rm -rf "$work" "$spool"

# never_no NAME TMPDIR [OPTION...]: a bench on a filesystem that fills
# never says NO; it says yes, or not checked with a reason, and exits 0 only
# with yes.
never_no() {
    local name=$1 tmp=$2 status
    shift 2
    TMPDIR=$tmp timeout 300 "$S" bench --model none -q "$@" >"$WORK/$name.out" 2>"$WORK/$name.err"
    status=$?
    check "$name: no false \"exactly once: NO\"" sh -c "! grep -q 'exactly once: NO' '$WORK/$name.out'"
    check "$name: exactly once yes, or not checked with the reason" \
        grep -qE 'exactly once: (yes|not checked \(the message logs could not be written: .+\))' \
        "$WORK/$name.out"
    check "$name: exit 0 only when yes" \
        sh -c "[ $status != 0 ] || grep -q 'exactly once: yes' '$WORK/$name.out'"
    grep -h 'exactly once' "$WORK/$name.out" | sed "s/^/# $name: /"
}

# --- the spool fills its 20 MB: 1 MiB messages, 20 sessions, deliveries
# held to two at a time; what the relay refused shows as the client's failures
for i in $(seq 1 "$RUNS"); do
    never_no "spool-full-$i" "$WORK" --spool "$FULL" -m 100 --size 1m -s 20 --concurrency 2
    check "spool-full-$i: the filesystem filled (the relay refused some)" \
        grep -qE '^injected: .*\([1-9][0-9]* failed\)' "$WORK/spool-full-$i.out"
    # why they failed, which the JSON alone used to say
    check "spool-full-$i: the report says why: the relay's 452" \
        grep -qE '^failed: +[1-9][0-9]* \(reply [0-9]+: 452@[a-z]+ [0-9]+' "$WORK/spool-full-$i.out"
    rm -rf "${FULL:?}"/* 2>/dev/null
done

# --- the logs on a full filesystem too (TMPDIR on a tmpfs with 64 KiB left,
# no --spool): they cannot be written whole, which is said, not taken for
# lost mail
TINY=$WORK/tiny
mkdir -p "$TINY"
if mount -t tmpfs -o size=512k tmpfs "$TINY"; then
    trap "unmount_and_cleanup '$FULL' '$TINY'" EXIT
    dd if=/dev/zero of="$TINY/fill" bs=4k count=112 2>/dev/null
    never_no "logs-full" "$TINY" -m 2000
    check "logs-full: the damaged logs are named" \
        grep -qE 'not checked \(the message logs could not be written: .*(source|sink)\.log' \
        "$WORK/logs-full.out"
else
    check "a second tmpfs" false
fi
finish
