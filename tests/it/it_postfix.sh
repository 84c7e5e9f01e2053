#!/bin/bash
# Integration with the real peers: Postfix's smtp-source -> our smtp-sink,
# and our smtp-source -> Postfix's smtp-sink, including the seed's command
# line against both. Postfix's tools are the ones scripts/fetch-peer.sh
# extracts from the Debian package (scripts/peers.sh); skipped without them.
. "${top_srcdir:-.}/tests/helpers/lib.sh"

need_peer "Postfix's smtp-source and smtp-sink ($POSTFIX_SMTP_SOURCE)" \
    "run scripts/fetch-peer.sh postfix" executables "$POSTFIX_SMTP_SOURCE" "$POSTFIX_SMTP_SINK"

# Postfix's smtp-source -> our smtp-sink: new connections, then reuse, then LMTP-less -d.
start_sink ours --msg-log "$WORK/ours.log" --json "$WORK/ours.json" 127.0.0.1:0 100 || exit 1
check "Postfix smtp-source, seed command line, to our sink" to "$WORK/p1" timeout 60 \
    "$POSTFIX_SMTP_SOURCE" -m1000 -s20 -l15360 -c -tnulllocalhost "127.0.0.1:$ours_PORT"
check "Postfix smtp-source -d -r 2 to our sink" to "$WORK/p2" timeout 60 \
    "$POSTFIX_SMTP_SOURCE" -d -m 300 -s 3 -r 2 -l 2000 "127.0.0.1:$ours_PORT"
stop "$ours_PID"
check "our sink counted 1300 messages" test "$(json_get "$WORK/ours.json" messages)" = 1300
check "our sink counted 1600 recipients" test "$(json_get "$WORK/ours.json" recipients)" = 1600
check "no protocol errors seen" test "$(json_get "$WORK/ours.json" protocol_errors)" = 0
check "Postfix's messages carry a Message-Id the sink logged" \
    test "$(grep -vc 'message-id=-' "$WORK/ours.log")" = 1300

# Our smtp-source -> Postfix's smtp-sink. Postfix's sink refuses root without -u.
free_port port || exit 1
user_opt=""
[ "$(id -u)" = 0 ] && user_opt="-u nobody"
# shellcheck disable=SC2086
timeout 120 "$POSTFIX_SMTP_SINK" $user_opt "127.0.0.1:$port" 100 2>"$WORK/psink.err" &
psink=$!
PIDS="$PIDS $psink"
check "Postfix smtp-sink is listening" wait_port "$port"
check "our smtp-source, seed command line, to Postfix's sink" to "$WORK/o1" timeout 60 \
    "$SOURCE" -m1000 -s20 -l15360 -c -tnulllocalhost "127.0.0.1:$port"
check "  ... delivered 1000" grep -q "1000 messages delivered, 0 failed" "$WORK/o1"
check "our smtp-source -d --pipelining -r 3 to Postfix's sink" to "$WORK/o2" timeout 60 \
    "$SOURCE" -d --pipelining -r 3 -m 500 -s 5 -l 4000 "127.0.0.1:$port"
check "  ... delivered 500" grep -q "500 messages delivered, 0 failed" "$WORK/o2"
stop "$psink"

# Postfix's sink rejecting RCPT softly: our source counts 450s and exits 1.
# shellcheck disable=SC2086
timeout 60 "$POSTFIX_SMTP_SINK" $user_opt -r rcpt "127.0.0.1:$port" 100 2>/dev/null &
psink=$!
PIDS="$PIDS $psink"
wait_port "$port"
to "$WORK/o3" timeout 30 "$SOURCE" -m 20 -s 2 --json "$WORK/o3.json" "127.0.0.1:$port"
check "source exits 1 when messages failed" test $? = 1
check "failures counted by code and phase" python3 -c "
import json; r = json.load(open('$WORK/o3.json'))
assert r['failed'] == 20 and r['failures_by_code'] == {'450@rcpt': 20}, r"
stop "$psink"
finish
