#!/bin/bash
# Integration: recovery at start keeps every acknowledged message (issue 23,
# items 2 and 9). The complete mark (the owner's execute bit) says "never
# acknowledged" only in incoming/: a deferred message whose file lost it (a
# chmod, a restore through a file system without execute bits), or one left
# in active/ so, is marked again, with a warning, and delivered once; what
# is not a queue file (another name, a link) is left where it is, with a
# warning naming it; only incoming/'s unmarked queue files are removed.
# Then a bounce log that cannot be read: the message waits with that reason
# and one warning.
. "${top_srcdir:-.}/tests/helpers/lib.sh"

SP=$WORK/spool
check "a first message deferred" defer_one "$SP" relay1
file1=$(find "$SP/deferred" -type f)
check "a second message deferred" defer_one "$SP" relay2
file2=$(find "$SP/deferred" -type f ! -path "$file1")
id2=${file2##*/}
hashdir=${file1%/*}

# What a restore without execute bits leaves, and what a human may have put there.
chmod 0600 "$file1"
mv "$file2" "$SP/active/$id2"
chmod 0600 "$SP/active/$id2"
echo "notes" >"$hashdir/README"
echo "precious" >"$WORK/victim"
ln -s "$WORK/victim" "$hashdir/ABCDEF0123"
echo "notes" >"$SP/incoming/notes"
printf 'C partial' >"$SP/incoming/ABCDEF99" # never marked: a crash in the middle of its writing
chmod 0600 "$SP/incoming/ABCDEF99"

# drained: no queue file is left in incoming/, active/ or deferred/, odd entries apart.
drained() {
    test -z "$(find "$SP/incoming" "$SP/active" "$SP/deferred" -type f ! -name README ! -name notes)"
}
start_sink sink --msg-log "$WORK/sink.log" 127.0.0.1:0 100 || exit 1
start_relay relay --spool "$SP" --next-hop "127.0.0.1:$sink_PORT" --min-backoff 100ms \
    --max-backoff 200ms || exit 1
check "the queue drains" wait_until 30 drained
stop "$relay_PID"
stop "$sink_PID"
cat "$WORK/relay1.log" "$WORK/relay2.log" >"$WORK/src.log"
report=$(delivery_report "$WORK/src.log" "$WORK/sink.log")
echo "# $report"
check "both unmarked messages delivered, each once: $report" test "$report" = "acked 2, lost 0, duplicated 0"
check "the recovery's account" grep -q "1 back from active/, 1 incomplete removed, 2 marked complete again, 3 left alone" "$WORK/relay.err"
check "a warning names the deferred file marked again" \
    grep -qF "$file1: acknowledged, but without its complete mark (0700): marked again" "$WORK/relay.err"
check "a warning names the active/ file marked again" \
    grep -qF "$SP/active/$id2: acknowledged, but without its complete mark (0700): marked again" "$WORK/relay.err"
check "a file that is no queue file stays in deferred/" test "$(cat "$hashdir/README")" = notes
check "a warning names it" grep -qF "$hashdir/README: not a queue ID; left alone" "$WORK/relay.err"
check "a link in deferred/ stays a link, its target untouched" \
    sh -c "test -L '$hashdir/ABCDEF0123' && test \"\$(cat '$WORK/victim')\" = precious"
check "a warning names it" grep -qF "$hashdir/ABCDEF0123: a symbolic link, not followed; left alone" "$WORK/relay.err"
check "a file that is no queue file stays in incoming/" test "$(cat "$SP/incoming/notes")" = notes
check "a warning names it" grep -qF "$SP/incoming/notes: not a queue ID; left alone" "$WORK/relay.err"
check "an unmarked queue file in incoming/ is removed" test ! -e "$SP/incoming/ABCDEF99"

# A bounce log that cannot be read (a directory in its place): the message
# waits for it, saying why, and the warning comes once, not at every retry.
SP2=$WORK/spool2
check "a message deferred" defer_one "$SP2" relay3
id3=$(basename "$(find "$SP2/deferred" -type f)")
mkdir "$SP2/bounce/$id3"
start_sink sink2 --msg-log "$WORK/sink2.log" 127.0.0.1:0 100 || exit 1
start_relay relay4 -v --spool "$SP2" --next-hop "127.0.0.1:$sink2_PORT" --min-backoff 100ms \
    --max-backoff 100ms || exit 1
# retried: at least 3 deferrals after the delivery, each failing on the log
retried() { test "$(grep -c "$id3: deferred (" "$WORK/relay4.err")" -ge 3; }
check "the message is retried" wait_until 30 retried
stop "$relay4_PID"
stop "$sink2_PID"
check "its recipient was delivered, once" test "$(wc -l <"$WORK/sink2.log")" = 1
check "the reason it waits is the log" \
    grep -q "$id3: deferred (cannot send the notification of its bounce log: reading bounce/$id3" "$WORK/relay4.err"
check "no deferral without a reason" sh -c "! grep -q '$id3: deferred ()' '$WORK/relay4.err'"
check "one warning about the log, for all the retries" \
    test "$(grep -c "warning: $id3: cannot send the notification" "$WORK/relay4.err")" = 1
finish
