#!/bin/bash
# Integration: our smtp-source -> our smtp-sink on loopback, plain text.
# Every message is logged on both sides (Message-ID, size, content checksum);
# the two logs must hold the same set, each message exactly once.
. "${top_srcdir:-.}/tests/helpers/lib.sh"

start_sink sink --msg-log "$WORK/sink.log" --json "$WORK/sink.json" 127.0.0.1:0 100 || exit 1

# The seed's command line, unchanged but for the address.
check "seed command line runs" to "$WORK/seed.out" timeout 60 "$SOURCE" -m1000 -s20 -l15360 -c \
    -tnulllocalhost "127.0.0.1:$sink_PORT"
check "seed run delivered 1000" grep -q "1000 messages delivered, 0 failed" "$WORK/seed.out"

check "new connection per message, lognormal sizes" to "$WORK/out1" timeout 60 "$SOURCE" -m 500 -s 10 \
    --size lognormal:4k:1.0:200k --seed 7 --msg-log "$WORK/src1.log" --json "$WORK/src1.json" \
    "127.0.0.1:$sink_PORT"
check "connection reuse with pipelining and 3 recipients" to "$WORK/out2" timeout 60 "$SOURCE" -d --pipelining \
    -r 3 -N -m 500 -s 5 --size uniform:100:5000 --msg-log "$WORK/src2.log" \
    --json "$WORK/src2.json" "127.0.0.1:$sink_PORT"
check "client JSON counts 500 delivered" test "$(json_get "$WORK/src1.json" delivered)" = 500
check "reuse used 5 connections" test "$(json_get "$WORK/src2.json" connections)" = 5
check "recipients counted" test "$(json_get "$WORK/src2.json" recipients)" = 1500
stop "$sink_PID"

check "sink counted every message" test "$(json_get "$WORK/sink.json" messages)" = 2000
check "sink counted every recipient" test "$(json_get "$WORK/sink.json" recipients)" = 3000
cat "$WORK/src1.log" "$WORK/src2.log" >"$WORK/src.log"
# Only the runs with --msg-log are compared: the seed run sent 1000 more.
msglog_keys "$WORK/src.log" >"$WORK/src.keys"
msglog_keys "$WORK/sink.log" >"$WORK/sink.keys"
check "1000 messages logged by the source" test "$(wc -l <"$WORK/src.keys")" = 1000
check "message ids are unique" test "$(cut -d' ' -f1 "$WORK/src.keys" | sort -u | wc -l)" = 1000
check "every sent message arrived exactly once, intact" \
    test -z "$(comm -23 "$WORK/src.keys" "$WORK/sink.keys")"
check "sink holds no message twice" test -z "$(cut -d' ' -f1 "$WORK/sink.keys" | uniq -d)"

# docs/security.md 4: no bare CR or LF on the wire from the command line either.
# A strict sink answers 550 to any bare line end in the text; -S has its
# CR and LF turned into spaces, -f, -t and -M refuse them (a CR LF there
# would inject a command).
mkdir "$WORK/dumps"
start_sink strict --bare-lf strict -d "$WORK/dumps/m." 127.0.0.1:0 10 || exit 1
check "-S with CR and LF: the strict sink accepts the message" to "$WORK/subj.out" timeout 30 \
    "$SOURCE" -m 1 -l 100 -S $'one\ntwo\rthree\r\nfour' "127.0.0.1:$strict_PORT"
check "  ... the Subject: is one line, line ends made spaces" \
    grep -q $'^Subject: one two three  four\r$' "$WORK"/dumps/m.*
for opt in -f -t -M; do
    to "$WORK/crlf$opt.out" timeout 30 "$SOURCE" -m 1 "$opt" $'a@example.org\r\nRSET' \
        "127.0.0.1:$strict_PORT"
    check "$opt with CR LF: usage error (exit 2)" test $? = 2
    check "  ... naming $opt" grep -q -- "$opt: a CR or LF" "$WORK/crlf$opt.out"
    to "$WORK/lf$opt.out" timeout 30 "$SOURCE" -m 1 "$opt" $'a\nb' "127.0.0.1:$strict_PORT"
    check "$opt with a bare LF: usage error (exit 2)" test $? = 2
done

# docs/security.md 5: over-long text lines (5000 and 3000 octets, one starting
# with a dot) are never truncated: smtp-source sends them whole and
# stuffed, and the sink's dump holds them byte for byte.
rm -f "$WORK"/dumps/m.*
python3 -c "
import sys
sys.stdout.buffer.write(b'Subject: long lines\r\n\r\n' + b'y' * 5000 + b'\r\n.' + b'z' * 2999
                        + b'\r\nend\r\n')" >"$WORK/long.payload"
check "a 5000-octet line: sent and accepted" to "$WORK/long.out" timeout 30 "$SOURCE" -m 1 \
    -F "$WORK/long.payload" "127.0.0.1:$strict_PORT"
tail -c "$(wc -c <"$WORK/long.payload")" "$WORK"/dumps/m.* >"$WORK/long.dump"
check "  ... the dump holds the long lines whole" cmp -s "$WORK/long.dump" "$WORK/long.payload"
stop "$strict_PID"

# Started as root with -u, the sink drops its privileges once listening.
if [ "$(id -u)" = 0 ] && id nobody >/dev/null 2>&1; then
    start_sink priv -u nobody 127.0.0.1:0 10 || exit 1
    sink_pid=$(pgrep -P "$priv_PID" smtp-sink || echo "$priv_PID")
    check "-u nobody: the sink runs as nobody" \
        test "$(awk '/^Uid:/ {print $2}' "/proc/$sink_pid/status")" = "$(id -u nobody)"
    check "  ... and still takes mail" to "$WORK/priv.out" timeout 30 "$SOURCE" -m 5 \
        "127.0.0.1:$priv_PORT"
    stop "$priv_PID"
else
    skip_part "-u (dropping privileges) needs root and a user nobody"
fi

# A UNIX-domain socket instead of TCP.
timeout --foreground 60 "$SINK" --json "$WORK/unix.json" "unix:$WORK/sink.sock" 10 2>"$WORK/unix.err" &
unix_pid=$!
PIDS="$PIDS $unix_pid"
check "the sink makes its UNIX socket" wait_until 10 test -S "$WORK/sink.sock"
check "source to a sink on a UNIX socket" to "$WORK/unix.out" timeout 60 "$SOURCE" -m 50 -s 2 \
    "unix:$WORK/sink.sock"
stop "$unix_pid"
check "  ... the sink counted 50" test "$(json_get "$WORK/unix.json" messages)" = 50

# Open loop: 200 messages at 400/s take about half a second, whatever the sink does.
start_sink sink2 127.0.0.1:0 100 || exit 1
check "open loop with poisson arrivals" to "$WORK/out3" timeout 60 "$SOURCE" --rate 400 --arrivals poisson \
    -m 200 -s 4 -l 500 --json "$WORK/open.json" "127.0.0.1:$sink2_PORT"
check "open loop delivered all" test "$(json_get "$WORK/open.json" delivered)" = 200
check "open loop ran at the asked rate" python3 -c "
import json; r = json.load(open('$WORK/open.json'))
assert 0.3 < r['elapsed_s'] < 1.5, r['elapsed_s']"
check "duration bounds the run" to "$WORK/out4" timeout 30 "$SOURCE" --duration 1s -s 2 -d \
    --json "$WORK/dur.json" "127.0.0.1:$sink2_PORT"
check "duration run lasted about 1 s" python3 -c "
import json; r = json.load(open('$WORK/dur.json'))
assert 0.9 < r['elapsed_s'] < 3, r['elapsed_s']; assert r['delivered'] > 0"
stop "$sink2_PID"

# SIGHUP (a terminal gone) ends smtp-sink as SIGTERM does: its summary, its
# JSON, exit 0 (issue 23 item 9; before, the signal killed it with neither).
# The signal goes to the sink itself, not to the timeout(1) that runs it.
for threads in 1 2; do
    start_sink "hup$threads" --threads "$threads" --json "$WORK/hup$threads.json" 127.0.0.1:0 100 ||
        exit 1
    pid=$(eval echo "\$hup${threads}_PID")
    check "SIGHUP, $threads loop(s): three messages in" to "$WORK/hup$threads.src" timeout 30 "$SOURCE" \
        -m 3 "127.0.0.1:$(eval echo "\$hup${threads}_PORT")"
    kill -HUP "$(pgrep -P "$pid" smtp-sink || echo "$pid")"
    wait "$pid"
    status=$?
    check "SIGHUP, $threads loop(s): exit status 0 (got $status)" test "$status" = 0
    check "  its summary" grep -q "^smtp-sink: 3 messages" "$WORK/hup$threads.err"
    check "  its JSON, with the three" test "$(json_get "$WORK/hup$threads.json" messages 2>/dev/null)" = 3
done

# The opening: what follows the greeting, EHLO and STARTTLS (smtp_txn_opening(),
# with smtp-source's own rules). opening NAME SINK STATUS DELIVERED FAILURES
# SOURCE-OPTION...: two messages to the sink SINK (a name of start_sink's);
# the exit status, the messages delivered and failures_by_code (JSON) must be
# as given.
opening() {
    local name=$1 port_var="${2}_PORT" status=$3 delivered=$4 failures=$5 got
    shift 5
    timeout 30 "$SOURCE" -m 2 "$@" --json "$WORK/open.$name.json" "127.0.0.1:${!port_var}" \
        >"$WORK/open.$name.out" 2>&1
    got="$? $(python3 -c "import json, sys; r = json.load(open(sys.argv[1]))
print(r['delivered'], json.dumps(r['failures_by_code'], separators=(',', ':')))" \
        "$WORK/open.$name.json")"
    check "opening, $name: exit, delivered, failures: $got" test "$got" = "$status $delivered $failures"
}
start_sink noesmtp -e 127.0.0.1:0 10 || exit 1
start_sink ehlo4xx -r EHLO 127.0.0.1:0 10 || exit 1
start_sink ehlo5xx -f EHLO 127.0.0.1:0 10 || exit 1
start_sink nohelo -e -f HELO 127.0.0.1:0 10 || exit 1
start_sink greet554 --fault connect:554 127.0.0.1:0 10 || exit 1
start_sink tls4xx --tls -r STARTTLS 127.0.0.1:0 10 || exit 1
opening "EHLO refused (5xx): HELO" noesmtp 0 2 '{}'
opening "EHLO refused, -f: HELO" ehlo5xx 0 2 '{}'
opening "-o: no EHLO, no HELO" nohelo 0 2 '{}' -o
opening "EHLO refused with 4xx: no HELO" ehlo4xx 1 0 '{"450@helo":2}'
opening "EHLO and HELO refused" nohelo 1 0 '{"500@helo":2}'
opening "EHLO refused, --tls: no HELO" noesmtp 1 0 '{"502@helo":2}' --tls
opening "LHLO refused: no HELO" ehlo5xx 1 0 '{"502@helo":2}' -L
opening "a greeting that is not 220" greet554 1 0 '{"554@banner":2}'
opening "STARTTLS refused" tls4xx 1 0 '{"450@tls":2}' --tls
for s in noesmtp ehlo4xx ehlo5xx nohelo greet554 tls4xx; do
    stop "$(eval echo "\$${s}_PID")"
done

# --skip-quit-reply closes once QUIT has left, as Postfix's smtp client does:
# a server that holds its QUIT reply (Exim waits up to 200 ms for the client
# to close first) holds such a client no longer. The sink holds it 20 s
# here, so that waiting for it (the default) cannot finish in the bound.
start_sink quitdelay -W QUIT:20 127.0.0.1:0 10 || exit 1
check "--skip-quit-reply: two messages, the QUIT reply not awaited" to "$WORK/skipquit.out" \
    timeout 15 "$SOURCE" --skip-quit-reply -m 2 -s 2 --json "$WORK/skipquit.json" "127.0.0.1:$quitdelay_PORT"
check "  ... both delivered" test "$(json_get "$WORK/skipquit.json" delivered)" = 2
check "  ... the summary says so" grep -q "QUIT reply skipped" "$WORK/skipquit.out"
stop "$quitdelay_PID"
finish
