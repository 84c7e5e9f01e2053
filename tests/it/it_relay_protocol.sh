#!/bin/bash
# Integration: the relay's SMTP server against the same hand-made sessions
# as smtp-sink (tests/helpers/smtp_probe.py): over-long commands, sequencing,
# pipelining, early talkers, and the nine smuggling endings under the
# normalize and strict bare-LF policies, STARTTLS injection and the state
# reset after TLS, the error limit, SIZE, the idle timeout, a minimum data
# rate, the recipient cap and NUL bytes (docs/security.md items 1-3 and 5-9);
# quoted local parts and SMTPUTF8 (not offered), and a quoted path passed on
# to the next hop as it came.
# The relay discards what it accepts; what matters is what it answers.
. "${top_srcdir:-.}/tests/helpers/lib.sh"

command -v python3 >/dev/null || skip "python3 is needed for the protocol probe"
probe() {
    local group=$1
    shift
    start_relay "$group" --spool "$WORK/spool-$group" --next-hop discard "$@" || return 1
    smtp_probe "$group"
}

check "relay: commands, sequencing, pipelining, early talkers" probe default
check "relay: bare-LF policy normalize" probe normalize --bare-lf normalize
check "relay: bare-LF policy strict" probe strict --bare-lf strict
check "relay: bare-LF policy lenient" probe lenient --bare-lf lenient
check "relay: STARTTLS injection, state reset after TLS" probe tls --tls
check "relay: error and junk limits, SIZE, idle timeout" probe limits --error-limit 5 --junk-limit 3 \
    --max-size 1000 --timeout 1
check "relay: minimum data rate" probe slow --min-data-rate 100 --timeout 1
check "relay: recipient cap, NUL bytes" probe rcptcap --max-rcpt 3
check "relay: a usage error for --tls-key alone" test "$(
    "$RELAY" relay --spool "$WORK/x" --tls-key /nonexistent >/dev/null 2>&1
    echo $?
)" = 2
check "relay: nothing left queued" test -z "$(spool_files "$WORK/spool-default")"

# RFC 5321 4.1.2: a quoted local part holding '>', a space and quoted pairs
# goes through the relay and reaches the next hop (our smtp-sink, which
# dumps the envelope it was given) as it was sent.
start_sink qsink -D "$WORK/qsink.dump" 127.0.0.1:0 10 || exit 1
start_relay qrelay --spool "$WORK/spool-q" --next-hop "127.0.0.1:$qsink_PORT" || exit 1
timeout 30 python3 - "$qrelay_PORT" >"$WORK/quoted.out" 2>&1 <<'PY'
import socket, sys
s = socket.create_connection(("127.0.0.1", int(sys.argv[1])), timeout=10)
f = s.makefile("rb")
def reply():
    lines = [f.readline()]
    while lines[-1][3:4] == b"-":
        lines.append(f.readline())
    return lines[-1][:3].decode()
codes = [reply()]
for cmd in (b'EHLO q', b'MAIL FROM:<"a b>c"@b>', b'RCPT TO:<"x y>z\\"w"@d>', b"DATA",
            b"Subject: q\r\n\r\nquoted\r\n.", b"QUIT"):
    s.sendall(cmd + b"\r\n")
    codes.append(reply())
print("codes", " ".join(codes))
PY
check "relay: a quoted local part with '>' and a space is accepted" \
    grep -qx "codes 220 250 250 250 354 250 221" "$WORK/quoted.out"
check "  ... and reaches the next hop as sent" \
    wait_until 30 grep -qxF 'X-Rcpt-Args: <"x y>z\"w"@d>' "$WORK/qsink.dump"
check "  ... its sender too" grep -qxF 'X-Mail-Args: <"a b>c"@b>' "$WORK/qsink.dump"
stop "$qrelay_PID"
stop "$qsink_PID"
finish
