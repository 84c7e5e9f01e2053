#!/bin/bash
# Integration: STARTTLS both ways, swaks against our sink, and the client
# side of docs/security.md against a scripted server: no talking before the
# greeting or the EHLO reply, no pipelining unless offered, waiting for 354
# and the end-of-data reply, plaintext injected with the STARTTLS 220
# ignored and EHLO sent again in TLS, an over-long reply line refused.
. "${top_srcdir:-.}/tests/helpers/lib.sh"

command -v python3 >/dev/null || skip "python3 is needed"
command -v openssl >/dev/null || skip "the openssl command is needed to make a test certificate"

# Our source -> our sink over STARTTLS, throw-away certificate made in memory.
start_sink tls --tls --msg-log "$WORK/sink.log" --json "$WORK/sink.json" 127.0.0.1:0 100 || exit 1
check "source --tls, new connection per message" to "$WORK/o1" timeout 60 "$SOURCE" --tls \
    -m 200 -s 10 -l 2000 --msg-log "$WORK/src.log" --json "$WORK/o1.json" "127.0.0.1:$tls_PORT"
check "source --tls -d --pipelining" to "$WORK/o2" timeout 60 "$SOURCE" --tls -d --pipelining \
    -m 200 -s 4 -l 2000 --msg-log "$WORK/src2.log" --json "$WORK/o2.json" "127.0.0.1:$tls_PORT"
check "200 TLS handshakes for 200 connections" test "$(json_get "$WORK/o1.json" tls_sessions)" = 200
check "4 TLS handshakes for 4 reused connections" test "$(json_get "$WORK/o2.json" tls_sessions)" = 4
check "TLS handshake latency reported" python3 -c "
import json; assert json.load(open('$WORK/o1.json'))['latency']['tls']['count'] == 200"
# swaks does STARTTLS only with Net::SSLeay and IO::Socket::SSL, which it merely recommends.
swaks_tls() { executables "$SWAKS" && "$SWAKS" --support | grep -q "^=== TLS supported"; }
if have_peer "swaks with TLS support" \
    "apt-get install swaks libnet-ssleay-perl libio-socket-ssl-perl (scripts/install-deps.sh --test)" swaks_tls; then
    check "swaks STARTTLS to our sink" to "$WORK/swaks" timeout 30 "$SWAKS" --server 127.0.0.1 \
        --port "$tls_PORT" --tls --to user@example.org --from me@example.org \
        --header "Message-Id: <swaks-test@example.org>"
    check "  ... swaks saw a 250 for its message inside TLS" grep -q "<~  250 2.0.0 Ok: queued" "$WORK/swaks"
fi
stop "$tls_PID"
check "sink counted the TLS sessions" python3 -c "
import json; r = json.load(open('$WORK/sink.json'))
assert r['tls_sessions'] >= 204 and r['messages'] >= 400, r"
cat "$WORK/src.log" "$WORK/src2.log" >"$WORK/both.log"
msglog_keys "$WORK/both.log" >"$WORK/src.keys"
msglog_keys "$WORK/sink.log" >"$WORK/sink.keys"
check "every TLS message arrived exactly once, intact" \
    test "$(comm -12 "$WORK/src.keys" "$WORK/sink.keys" | wc -l)" = 400

# Certificate files: a good pair works, a missing file is a clear error.
openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -days 1 \
    -subj /CN=spoolsim.test -keyout "$WORK/key.pem" -out "$WORK/cert.pem" 2>/dev/null
start_sink certs --tls-cert "$WORK/cert.pem" --tls-key "$WORK/key.pem" 127.0.0.1:0 10 || exit 1
check "sink with certificate files serves STARTTLS" to "$WORK/o3" timeout 30 "$SOURCE" --tls \
    -m 3 "127.0.0.1:$certs_PORT"
stop "$certs_PID"
to "$WORK/o4" timeout 10 "$SINK" --tls-cert "$WORK/nonexistent.pem" 127.0.0.1:0 10
check "missing certificate: exit 3" test $? = 3
check "  ... the message names the file" grep -q "nonexistent.pem" "$WORK/o4"

# A sink that does not offer STARTTLS: --tls messages fail as tls, counted.
start_sink plain 127.0.0.1:0 10 || exit 1
to "$WORK/o5" timeout 30 "$SOURCE" --tls -m 2 --json "$WORK/o5.json" "127.0.0.1:$plain_PORT"
check "STARTTLS not offered: failures of kind tls" python3 -c "
import json; r = json.load(open('$WORK/o5.json')); assert r['failures']['tls'] == 2, r"
stop "$plain_PID"

# The client side, against the scripted server (tests/helpers/fake_server.py).
fake() {
    local mode=$1
    shift
    rm -f "$WORK/fake.port"
    timeout 60 python3 "$top_srcdir/tests/helpers/fake_server.py" "$mode" "$WORK/fake.port" \
        "$WORK/cert.pem" "$WORK/key.pem" >"$WORK/fake.$mode" 2>&1 &
    local fpid=$!
    PIDS="$PIDS $fpid"
    wait_until 30 test -s "$WORK/fake.port" || { echo "fake_server.py $mode did not start"; return 1; }
    timeout 30 "$SOURCE" "$@" -l 300 --json "$WORK/src.$mode.json" \
        "127.0.0.1:$(cat "$WORK/fake.port")" >"$WORK/src.$mode" 2>&1
    echo $? >"$WORK/src.$mode.status"
    wait "$fpid"
    local status=$?
    cat "$WORK/fake.$mode"
    return $status
}
# source_json MODE EXIT_STATUS PYTHON_CONDITION: the source's exit status and JSON report (r).
source_json() {
    test "$(cat "$WORK/src.$1.status")" = "$2" && python3 -c "
import json, sys; r = json.load(open(sys.argv[1])); assert $3, r" "$WORK/src.$1.json"
}
check "client: no pipelining when not offered, even with --pipelining" \
    fake nopipe --pipelining -d -m 2 -r 2
check "  ... both messages delivered, 4 recipients" source_json nopipe 0 \
    "r['delivered'] == 2 and r['recipients'] == 4"
check "client: every reply cut inside a line, over two reads" fake split -d -m 2 -r 2
check "  ... both messages delivered, 4 recipients" source_json split 0 \
    "r['delivered'] == 2 and r['recipients'] == 4"
check "client: pipelines when offered, waits for 354 and the end-of-data reply" \
    fake pipe --pipelining -d -m 2 -r 2
check "  ... both messages delivered, 4 recipients" source_json pipe 0 \
    "r['delivered'] == 2 and r['recipients'] == 4"
check "client: no message text when the pipelined DATA gets 554" fake reject --pipelining -r 2
check "  ... the message counted as failed" source_json reject 1 "r['failed'] == 1"
check "client: ignores plaintext injected with the 220, EHLO again in TLS, forgets PIPELINING" \
    fake inject --tls --pipelining
check "  ... delivered over TLS" source_json inject 0 "r['delivered'] == 1 and r['tls_sessions'] == 1"
check "client: gives up on a 100 kB reply line" fake longreply
check "  ... a protocol failure, no crash" source_json longreply 1 \
    "r['failed'] == 1 and r['failures']['protocol'] == 1"

# -M 1 reached with a TLS session that keeps sending: the sink drains, stops
# taking that session's commands and holds its input at the mark until it
# exits. Its bufferevent, freed then, had callbacks pending: unless the sink
# runs its loop once more, the sanitizer build's leak check (finish) sees
# it and the buffers it held go unfreed.
start_sink drain --tls -M 1 127.0.0.1:0 10 || exit 1
timeout 30 python3 - "$drain_PORT" >"$WORK/drain.out" 2>&1 <<'PY'
import socket, ssl, sys
s = socket.create_connection(("127.0.0.1", int(sys.argv[1])), timeout=10)
f = s.makefile("rb")
def reply(rf):
    while True:
        line = rf.readline()
        if line[3:4] != b"-":
            return line
reply(f)
s.sendall(b"EHLO x\r\n"); reply(f)
s.sendall(b"STARTTLS\r\n"); reply(f)
ctx = ssl.create_default_context()
ctx.check_hostname, ctx.verify_mode = False, ssl.CERT_NONE
t = ctx.wrap_socket(s)
t.settimeout(10)
tf = t.makefile("rb")
t.sendall(b"EHLO x\r\n"); reply(tf)
for cmd in (b"MAIL FROM:<a@b>", b"RCPT TO:<c@d>", b"DATA"):
    t.sendall(cmd + b"\r\n"); reply(tf)
try:
    # the message, then far more than the input mark of NOOPs behind it
    t.sendall(b"Subject: x\r\n\r\nhi\r\n.\r\n" + b"NOOP\r\n" * 40000)
    print("reply", reply(tf).decode().strip())
except OSError as e:
    print("error", e)
PY
cat "$WORK/drain.out"
check "a TLS client sending on after -M 1: its message was accepted" grep -q "^reply 250 " "$WORK/drain.out"
wait "$drain_PID"
check "  ... and the sink ends by itself, its summary printed" \
    grep -q "^smtp-sink: 1 message," "$WORK/drain.err"
finish
