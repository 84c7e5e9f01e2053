#!/bin/bash
# Integration: smtp-source -> spoolsim relay -> smtp-sink on loopback.
# Every acknowledged message must reach the sink intact exactly once and
# leave nothing behind in the spool; deferrals must drain on retry; the
# per-message file operations must be Postfix's (strace, where present).
. "${top_srcdir:-.}/tests/helpers/lib.sh"

SPOOL=$WORK/spool
start_sink sink --msg-log "$WORK/sink.log" --json "$WORK/sink.json" 127.0.0.1:0 100 || exit 1
start_relay relay --spool "$SPOOL" --next-hop "127.0.0.1:$sink_PORT" --json "$WORK/relay.json" \
    || exit 1

check "2000 messages relayed" to "$WORK/src.out" timeout 120 "$SOURCE" -s 20 -m 2000 \
    --size uniform:200:20000 --seed 3 --msg-log "$WORK/src.log" "127.0.0.1:$relay_PORT"
check "every 250 carried a queue ID" test "$(grep -c '^id=[0-9A-F]' "$WORK/src.log")" = 2000
check "the spool drains" wait_spool_empty "$SPOOL" 60
stop "$relay_PID"
stop "$sink_PID"
exactly_once "exactly once, intact" 2000 "$WORK/src.log" "$WORK/sink.log"
check "relay JSON: 2000 in, 2000 out" test "$(json_get "$WORK/relay.json" messages_in) $(json_get "$WORK/relay.json" messages_out)" = "2000 2000"
check "relay JSON states the sync policy" test "$(json_get "$WORK/relay.json" sync)" = fsync
check "summary names the filesystem" grep -q "^spool $SPOOL: " "$WORK/relay.err"
check "nothing left in the spool" test -z "$(spool_files "$SPOOL")"

# One relay per spool.
start_relay again --spool "$SPOOL" || exit 1
check "a second relay on the same spool is refused" \
    sh -c "! timeout 10 '$RELAY' relay --listen 127.0.0.1:0 --spool '$SPOOL' 2>'$WORK/second.err'"
check "and says why" grep -q "in use by another relay" "$WORK/second.err"
stop "$again_PID"

# Usage errors and unusable spools.
check "no --spool: exit 2" sh -c "'$RELAY' relay >/dev/null 2>&1; test \$? = 2"
check "bad --sync: exit 2" sh -c "'$RELAY' relay --spool '$WORK/x' --sync often >/dev/null 2>&1; test \$? = 2"
# Port 0: the default (2525) may be another test's, and the relay listens
# before it makes the spool (CI's fresh root once failed so: "cannot listen").
check "unusable spool: exit 3 with its name" sh -c "'$RELAY' relay --listen 127.0.0.1:0 --spool /proc/nonexistent/q 2>'$WORK/bad.err'; rc=\$?; test \$rc = 3 && grep -q /proc/nonexistent/q '$WORK/bad.err' || { echo \"exit \$rc:\"; cat '$WORK/bad.err'; false; }"

# A sink that soft-fails 30 % of RCPTs: deferred/ fills, then drains on retry.
SPOOL2=$WORK/spool2
start_sink soft --msg-log "$WORK/soft.log" --fault RCPT:450:30 127.0.0.1:0 100 || exit 1
start_relay relay2 --spool "$SPOOL2" --next-hop "127.0.0.1:$soft_PORT" --min-backoff 200ms \
    --max-backoff 1s --json "$WORK/relay2.json" || exit 1
check "500 messages relayed to a flaky sink" to "$WORK/src2.out" timeout 60 "$SOURCE" -s 10 -m 500 \
    --msg-log "$WORK/src2.log" "127.0.0.1:$relay2_PORT"
check "the deferred queue drains on retry" wait_spool_empty "$SPOOL2" 60
stop "$relay2_PID"
stop "$soft_PID"
exactly_once "exactly once after deferrals" 500 "$WORK/src2.log" "$WORK/soft.log"
deferrals=$(json_get "$WORK/relay2.json" deferrals)
check "messages were deferred ($deferrals deferrals)" test "$deferrals" -ge 100
check "defer logs were fsync'ed: fsyncs > messages" \
    test "$(python3 -c "import json; print(json.load(open('$WORK/relay2.json'))['spool_ops']['fsyncs'])")" -gt 500

# 5xx: a sink that rejects 20 % of RCPTs for good. Those messages bounce
# (a bounce log, a notification to the sender, then the unlink); the rest
# are delivered; the notifications go to the same sink, which refuses some
# of them too (those are discarded: a bounce of a bounce); nothing stays.
SPOOL4=$WORK/spool4
start_sink hard --msg-log "$WORK/hard.log" --fault RCPT:550:20 127.0.0.1:0 100 || exit 1
start_relay relay4 --spool "$SPOOL4" --next-hop "127.0.0.1:$hard_PORT" --json "$WORK/relay4.json" \
    || exit 1
check "200 messages relayed to a sink that rejects some" to "$WORK/src4.out" timeout 60 "$SOURCE" \
    -s 5 -m 200 --msg-log "$WORK/src4.log" "127.0.0.1:$relay4_PORT"
check "the spool empties, bounce logs included" wait_spool_empty "$SPOOL4" 30
stop "$relay4_PID"
stop "$hard_PID"
bounced=$(json_get "$WORK/relay4.json" bounced)
delivered=$(grep -c -v ' from=<> ' "$WORK/hard.log")
notices=$(grep -c ' from=<> ' "$WORK/hard.log")
sent=$(json_get "$WORK/relay4.json" bounces_sent)
check "some bounced ($bounced), the rest delivered ($delivered)" \
    test "$bounced" -gt 0 -a $((bounced + delivered)) = 200
check "a notification per bounced message ($sent), $notices of them taken by the sink" \
    test "$sent" = "$bounced" -a "$notices" = "$(json_get "$WORK/relay4.json" bounces_delivered)" -a \
    $((notices + $(json_get "$WORK/relay4.json" bounces_discarded))) = "$sent"
check "no deferrals for a 5xx" test "$(json_get "$WORK/relay4.json" deferrals)" = 0

# maildir:DIR and long queue IDs.
SPOOL5=$WORK/spool5
start_relay relay5 --spool "$SPOOL5" --next-hop "maildir:$WORK/Maildir" --long-ids \
    --json "$WORK/relay5.json" || exit 1
check "100 messages into a Maildir" to "$WORK/src5.out" timeout 60 "$SOURCE" -s 5 -m 100 \
    --msg-log "$WORK/src5.log" "127.0.0.1:$relay5_PORT"
check "the spool empties" wait_spool_empty "$SPOOL5" 30
stop "$relay5_PID"
check "100 files in new/" test "$(find "$WORK/Maildir/new" -type f | wc -l)" = 100
check "none left in tmp/" test -z "$(find "$WORK/Maildir/tmp" -type f)"
check "each one fsync'ed" test "$(python3 -c "import json; print(json.load(open('$WORK/relay5.json'))['maildir_ops']['fsyncs'])")" = 100
check "long queue IDs (enable_long_queue_ids form)" \
    test "$(grep -c -E '^id=[0-9A-Za-z]{10}z[0-9A-Za-z]+ ' "$WORK/src5.log")" = 100

# STARTTLS on the way in: every session encrypted, every message delivered once.
SPOOLT=$WORK/spool-tls
start_sink tsink --msg-log "$WORK/tls.sink.log" 127.0.0.1:0 100 || exit 1
start_relay relayt --spool "$SPOOLT" --next-hop "127.0.0.1:$tsink_PORT" --tls \
    --json "$WORK/relayt.json" || exit 1
check "300 messages relayed over STARTTLS" to "$WORK/srct.out" timeout 60 "$SOURCE" -s 5 -m 300 \
    --tls --msg-log "$WORK/srct.log" "127.0.0.1:$relayt_PORT"
check "the spool drains" wait_spool_empty "$SPOOLT" 30
stop "$relayt_PID"
stop "$tsink_PID"
exactly_once "exactly once over TLS" 300 "$WORK/srct.log" "$WORK/tls.sink.log"
check "every client session used TLS" \
    test "$(json_get "$WORK/relayt.json" tls_sessions)" = "$(json_get "$WORK/relayt.json" sessions)"
check "with TLS sessions counted" test "$(json_get "$WORK/relayt.json" tls_sessions)" -ge 5

# STARTTLS on the way out: --hop-tls encrypt to a sink that offers it.
start_sink hsink --tls --msg-log "$WORK/hop.sink.log" --json "$WORK/hop.sink.json" 127.0.0.1:0 100 \
    || exit 1
start_relay relayh --spool "$WORK/spool-hop" --next-hop "127.0.0.1:$hsink_PORT" --hop-tls encrypt \
    --json "$WORK/relayh.json" || exit 1
check "300 messages relayed to a hop over STARTTLS" to "$WORK/srch.out" timeout 60 "$SOURCE" \
    -s 5 -m 300 --msg-log "$WORK/srch.log" "127.0.0.1:$relayh_PORT"
check "the spool drains" wait_spool_empty "$WORK/spool-hop" 30
stop "$relayh_PID"
stop "$hsink_PID"
exactly_once "exactly once over TLS to the hop" 300 "$WORK/srch.log" "$WORK/hop.sink.log"
check "every hop connection used TLS" test "$(json_get "$WORK/relayh.json" hop_tls_sessions)" = \
    "$(json_get "$WORK/relayh.json" hop_connections)"
check "and the sink saw them as TLS sessions" test "$(json_get "$WORK/hop.sink.json" tls_sessions)" -ge 1

# encrypt to a hop without STARTTLS defers; may goes on in plain text.
start_sink psink2 --msg-log "$WORK/plain.sink.log" 127.0.0.1:0 100 || exit 1
start_relay relaye --spool "$WORK/spool-enc" --next-hop "127.0.0.1:$psink2_PORT" --hop-tls encrypt \
    --min-backoff 10s --json "$WORK/relaye.json" || exit 1
check "encrypt: 5 messages accepted" to "$WORK/srce.out" timeout 30 "$SOURCE" -m 5 \
    --msg-log "$WORK/srce.log" "127.0.0.1:$relaye_PORT"
check "encrypt: all 5 deferred, not sent in plain text" \
    wait_until 10 files_in "$WORK/spool-enc/deferred" 5
check "encrypt: the defer log says why" grep -rq "TLS is required" "$WORK/spool-enc/defer"
stop "$relaye_PID"
check "encrypt: the sink got nothing" test ! -s "$WORK/plain.sink.log"
start_relay relaym --spool "$WORK/spool-may" --next-hop "127.0.0.1:$psink2_PORT" --hop-tls may \
    --json "$WORK/relaym.json" || exit 1
check "may: 20 messages relayed in plain text" to "$WORK/srcm.out" timeout 30 "$SOURCE" -m 20 \
    --msg-log "$WORK/srcm.log" "127.0.0.1:$relaym_PORT"
check "may: the spool drains" wait_spool_empty "$WORK/spool-may" 30
stop "$relaym_PID"
stop "$psink2_PID"
exactly_once "may: exactly once" 20 "$WORK/srcm.log" "$WORK/plain.sink.log"
check "may: no TLS" test "$(json_get "$WORK/relaym.json" hop_tls_sessions)" = 0

# Other MTAs' spool profiles in the relay: their file operations per message,
# the message itself delivered from memory; deferrals through the profile's
# deferral path.
for profile in exim qmail; do
    SPOOLP=$WORK/spool-$profile
    start_sink psink --msg-log "$WORK/$profile.sink.log" --fault RCPT:450:20 127.0.0.1:0 100 \
        || exit 1
    start_relay prelay --spool "$SPOOLP" --profile "$profile" --next-hop "127.0.0.1:$psink_PORT" \
        --min-backoff 100ms --max-backoff 300ms --json "$WORK/$profile.json" || exit 1
    check "$profile profile: 300 messages relayed" to "$WORK/$profile.src.out" timeout 60 \
        "$SOURCE" -s 5 -m 300 --msg-log "$WORK/$profile.src.log" "127.0.0.1:$prelay_PORT"
    check "$profile profile: the sink has them all" \
        wait_until 30 lines_in "$WORK/$profile.sink.log" 300
    stop "$prelay_PID"
    stop "$psink_PID"
    exactly_once "$profile profile: exactly once" 300 "$WORK/$profile.src.log" "$WORK/$profile.sink.log"
    check "$profile profile: the JSON names it" test "$(json_get "$WORK/$profile.json" profile)" = "$profile"
    check "$profile profile: its syncs as the MTA makes them" test "$(json_get "$WORK/$profile.json" sync)" = profile
    # Exim's hints databases and their lock files stay, as a real Exim's do.
    check "$profile profile: no file left" test -z "$(find "$SPOOLP" -type f ! -path '*/pid/*' ! -path '*/db/*')"
done
creates=$(python3 -c "import json; d=json.load(open('$WORK/exim.json'))['profile_ops']; print(d['create'] + d['append'])")
check "exim: 6 creates per message (3 with O_EXCL, 3 appends), plus the deferrals' ($creates)" \
    test "$creates" -ge 1800
check "exim: a directory fsync per accepted message at least" \
    test "$(python3 -c "import json; print(json.load(open('$WORK/exim.json'))['profile_ops']['fsync_dir'])")" -ge 300

# Postfix's postcat (scripts/fetch-peer.sh postfix) reads a queue file held
# in deferred/ without a warning.
if have_peer "Postfix's postcat ($POSTCAT)" "run scripts/fetch-peer.sh postfix" executables "$POSTCAT"; then
    SPOOL3=$WORK/spool3
    start_dead_hop dead || exit 1
    start_relay relay3 --spool "$SPOOL3" --next-hop "127.0.0.1:$dead_PORT" --min-backoff 1h \
        --max-backoff 1h || exit 1
    check "a message for a dead next hop is accepted" to "$WORK/src3.out" timeout 20 "$SOURCE" \
        -m 1 -r 2 -f sender@example.org -t rcpt@example.net "127.0.0.1:$relay3_PORT"
    check "it waits in deferred/X/ (hashed)" wait_until 10 files_in "$SPOOL3/deferred" 1 -mindepth 2
    qf=$(find "$SPOOL3/deferred" -type f | head -1)
    check "with its defer log in defer/X/" test -n "$(find "$SPOOL3/defer" -type f)"
    check "mode 0700, the complete mark" test "$(stat -c %a "$qf")" = 700
    check "postcat reads it" to "$WORK/postcat.out" "$POSTCAT" "$qf"
    check "postcat gave no warning" sh -c "! grep -qi 'warning\|fatal\|error' '$WORK/postcat.out'"
    check "postcat shows the sender" grep -q "sender: sender@example.org" "$WORK/postcat.out"
    check "postcat shows both recipients" test "$(grep -c '^recipient: ' "$WORK/postcat.out")" = 2
    check "postcat reads to the end record" grep -q "^\*\*\* MESSAGE FILE END" "$WORK/postcat.out"
    stop "$relay3_PID"
    check "the message stays queued over a stop" test -f "$qf"
fi

finish
