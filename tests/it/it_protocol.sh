#!/bin/bash
# Integration: smtp-sink against hand-made SMTP (tests/helpers/smtp_probe.py), one
# sink configuration per group of docs/security.md statements.
. "${top_srcdir:-.}/tests/helpers/lib.sh"

command -v python3 >/dev/null || skip "python3 is needed for the protocol probe"
probe() {
    local group=$1
    shift
    start_sink "$group" "$@" 127.0.0.1:0 10 || return 1
    smtp_probe "$group"
}

check "default sink" probe default
check "bare-LF policy normalize" probe normalize --bare-lf normalize
check "bare-LF policy strict" probe strict --bare-lf strict
check "STARTTLS" probe tls --tls
check "limits, junk commands" probe limits --error-limit 5 --junk-limit 3 --max-size 1000 -t 1
check "LMTP" probe lmtp -L
check "minimum data rate" probe slow -t 1 --min-data-rate 100
check "greeting delay" probe greet --greet-delay 0.3
check "recipient cap, NUL bytes" probe rcptcap --max-rcpt 3
check "bare-LF policy lenient" probe lenient --bare-lf lenient

# docs/security.md 9: -m 2 caps concurrent sessions; the rest wait in the listen
# queue (not refused), and are served once sessions end.
start_sink cap -m 2 127.0.0.1:0 10 || exit 1
echo | timeout 30 python3 "$top_srcdir/tests/helpers/conn_hold.py" "$cap_PORT" 5 2 >"$WORK/cap.out" 2>&1
check "-m 2: two of five connections greeted, three wait in the listen queue" \
    grep -q "^greeted 2 refused 0 waiting 3" "$WORK/cap.out"
check "  ... and are served once the others leave" to "$WORK/cap.src" timeout 30 "$SOURCE" -m 3 \
    "127.0.0.1:$cap_PORT"
stop "$cap_PID"
# docs/security.md 6: a client talking before a delayed greeting is read (to be
# convicted) but not without bound: the sink stops reading at its input
# high-water mark (64 KiB), so of 4 MiB sent at once only the mark, the
# socket buffers (-T 8192 and the client's 8 KiB) and one 4 KiB read get in.
# At the greeting's time the client gets its 554 and the session ends.
start_sink flood --greet-delay 2 -T 8192 127.0.0.1:0 10 || exit 1
timeout 30 python3 - "$flood_PORT" >"$WORK/flood.out" 2>&1 <<'PY'
import socket, sys, time
s = socket.socket()
s.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, 8192)
s.connect(("127.0.0.1", int(sys.argv[1])))
s.setblocking(False)
sent, chunk, end = 0, b"X" * 65536, time.monotonic() + 1.5
while time.monotonic() < end and sent < 4 << 20:
    try:
        sent += s.send(chunk)
    except BlockingIOError:
        time.sleep(0.01)
print("sent", sent)
s.settimeout(20)
reply = b""
while not reply.endswith(b"\n"):
    data = s.recv(512)
    if not data:
        break
    reply += data
print("reply", reply.decode(errors="replace").strip())
PY
cat "$WORK/flood.out"
check "a client flooding before the greeting gets at most 512 KiB in (4 MiB without the mark)" \
    awk '$1 == "sent" && $2 > 0 && $2 < 524288 { ok = 1 } END { exit !ok }' "$WORK/flood.out"
check "  ... and a 554 at the greeting's time" grep -q "^reply 554 " "$WORK/flood.out"
stop "$flood_PID"
# The sink stopped while it holds a session at the mark, the client still
# there: the session goes with everything it buffered (the sanitizer
# build's leak check in finish() sees what stays), and the sink ends as usual.
start_sink held --greet-delay 30 -T 8192 127.0.0.1:0 10 || exit 1
timeout 30 python3 - "$held_PORT" >"$WORK/held.out" 2>&1 <<'PY' &
import socket, sys, time
s = socket.socket()
s.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, 8192)
s.connect(("127.0.0.1", int(sys.argv[1])))
s.setblocking(False)
sent, chunk, end = 0, b"X" * 65536, time.monotonic() + 1.0
while time.monotonic() < end:
    try:
        sent += s.send(chunk)
    except BlockingIOError:
        time.sleep(0.01)
print("sent", sent, flush=True)
time.sleep(20)
PY
held_client=$!
check "the flooding client has sent what it could" wait_until 20 test -s "$WORK/held.out"
# (Its summary says it ended its own way.)
stop "$held_PID"
check "a sink stopped while holding a flooded session ends its own way" \
    grep -q "^smtp-sink: 0 messages, 0 recipients, 0 bytes, 1 session" "$WORK/held.err"
check "  ... the session was held at the mark" \
    awk '$1 == "sent" && $2 >= 65536 && $2 < 524288 { ok = 1 } END { exit !ok }' "$WORK/held.out"
stop "$held_client"
finish
