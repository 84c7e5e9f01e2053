#!/bin/bash
# Integration: bounces. A recipient the next hop refuses with a 5xx, or one
# still deferred past --max-lifetime, is returned to the sender in a
# delivery status notification (RFC 3464) that the relay queues and
# delivers like any message; a notification that fails itself is not
# returned (no loop): discarded, or sent to --bounce-to-postmaster;
# --no-bounces drops the failed mail and counts it. Nothing stays in the
# spool, bounce logs included. Where strace works, the bounce's file
# operations come in Postfix's order (docs/postfix-observed.md 5.4).
# The next hop is tests/helpers/rcpt_hop.py: "reject*" gets 550 5.1.1, "defer*"
# 450 4.2.0, everyone else 250; it keeps every message it takes.
. "${top_srcdir:-.}/tests/helpers/lib.sh"

HOP="$top_srcdir/tests/helpers/rcpt_hop.py"

# start_hop NAME: the scripted next hop, its messages in $WORK/NAME.out/.
start_hop() {
    mkdir -p "$WORK/$1.out"
    timeout "${TEST_PROCESS_TIMEOUT:-300}" python3 "$HOP" "$WORK/$1.port" "$WORK/$1.out" \
        2>"$WORK/$1.err" &
    started "$1" $! rcpt_hop
}

# send PORT SENDER SUBJECT RCPT...: one message over SMTP ("" = the null sender).
send() {
    python3 - "$@" <<'PY'
import smtplib, sys
port, sender, subject, rcpts = int(sys.argv[1]), sys.argv[2], sys.argv[3], sys.argv[4:]
s = smtplib.SMTP("127.0.0.1", port, timeout=20)
s.sendmail(sender, rcpts, f"From: <{sender}>\r\nSubject: {subject}\r\n"
           f"Message-ID: <{subject.replace(' ', '.')}@example.org>\r\n\r\nthe body\r\n")
s.quit()
PY
}

# hop_count DIR [LINE]: how many messages the hop took (with LINE in the envelope).
hop_count() {
    if [ -n "${2:-}" ]; then
        grep -l -x "$2"$'\r' "$1"/msg.* 2>/dev/null | wc -l
    else
        find "$1" -name 'msg.*' ! -name '*.tmp' | wc -l
    fi
}

# hop_has N DIR [LINE]: the hop took N such messages (for wait_until).
hop_has() {
    test "$(hop_count "$2" "${3:-}")" = "$1"
}

# from_null DIR: how many messages the hop took from the null sender.
from_null() {
    hop_count "$1" "MAIL FROM:<>"
}

# dsn_check FILE TO RCPT STATUS SUBJECT: the notification's structure, with
# Python's email parser: multipart/report; report-type=delivery-status with
# a text/plain, a message/delivery-status and a text/rfc822-headers part;
# the envelope and To:; the report's fields; the original's Subject.
dsn_check() {
    python3 - "$@" <<'PY'
import email, email.policy, re, sys
path, to, rcpt, status, subject = sys.argv[1:]
raw = open(path, "rb").read()
env, text = raw.split(b"\r\n\r\n", 1)
assert env.split(b"\r\n")[0] == b"MAIL FROM:<>", env
assert f"RCPT TO:<{to}>".encode() in env.split(b"\r\n"), env
assert b"\n" not in text.replace(b"\r\n", b""), "a bare LF"
assert all(len(l) <= 998 for l in text.split(b"\r\n")), "a line over 998"
msg = email.message_from_bytes(text, policy=email.policy.compat32)
assert msg.get_content_type() == "multipart/report", msg.get_content_type()
assert msg.get_param("report-type") == "delivery-status", msg.get_param("report-type")
assert msg["To"].strip() == to, msg["To"]
assert "MAILER-DAEMON" in msg["From"], msg["From"]
assert not msg.defects, msg.defects
parts = msg.get_payload()
kinds = [p.get_content_type() for p in parts]
assert kinds == ["text/plain", "message/delivery-status", "text/rfc822-headers"], kinds
report = parts[1].get_payload()  # the per-message block, then one per recipient
fields = "\n".join(str(b) for b in report)
for want in ("Reporting-MTA: dns;", "Arrival-Date: ", f"Final-Recipient: rfc822; {rcpt}",
             "Action: failed", f"Status: {status}", "Diagnostic-Code: smtp; "):
    assert want in fields, (want, fields)
headers = parts[2].get_payload()
assert re.search(r"^Subject: " + re.escape(subject) + r"\s*$", headers, re.M), headers
assert "the body" not in headers
print("ok")
PY
}

# ---------------------------------------------------------------- 5xx
SPOOL=$WORK/spool
start_hop hop || exit 1
start_relay relay --spool "$SPOOL" --next-hop "127.0.0.1:$hop_PORT" -v --json "$WORK/relay.json" \
    || exit 1
check "a message to a refused and an accepted recipient" \
    send "$relay_PORT" alice@example.org "quarterly figures" reject-bob@example.net carol@example.net
check "the spool drains" wait_spool_empty "$SPOOL" 30
check "the hop has the original (for carol) and one notification" \
    wait_until 10 hop_has 2 "$WORK/hop.out"
dsn=$(grep -l -x $'MAIL FROM:<>\r' "$WORK"/hop.out/msg.* | head -1)
check "a notification from <> to the sender" test -n "$dsn"
check "the notification: multipart/report, Status 5.1.1, the original's Subject" \
    to "$WORK/dsn1.check" dsn_check "$dsn" alice@example.org reject-bob@example.net 5.1.1 \
    "quarterly figures"
stop "$relay_PID"
check "relay JSON: 1 bounced, 1 notification sent and delivered, 1 message delivered" \
    test "$(for k in bounced bounces_sent bounces_delivered messages_out bounces_discarded; do
        json_get "$WORK/relay.json" $k; done | tr '\n' ' ')" = "1 1 1 1 0 "
check "the summary counts the notification" \
    grep -q "^bounces: 1 notifications sent (1 delivered), 0 undeliverable ones discarded" \
    "$WORK/relay.err"
check "nothing left in the spool, bounce/ included" test -z "$(spool_files "$SPOOL")"

# A bounce of a bounce is not returned: the null sender's mail fails for
# good, and so does the notice to a sender the hop refuses (reject-alice):
# discarded with a log line, and the queue settles.
SPOOL2=$WORK/spool2
start_relay relay2 --spool "$SPOOL2" --next-hop "127.0.0.1:$hop_PORT" --json "$WORK/relay2.json" \
    || exit 1
before=$(from_null "$WORK/hop.out")
check "a message from <> to a refused recipient" send "$relay2_PORT" "" "a bounce" reject-x@example.net
check "a message from a refused sender to a refused recipient" \
    send "$relay2_PORT" reject-alice@example.org "no way back" reject-y@example.net
check "the spool drains (no loop)" wait_spool_empty "$SPOOL2" 30
sleep 1 # a loop would go on making notices
stop "$relay2_PID"
check "no notification reached the hop" test "$(from_null "$WORK/hop.out")" = "$before"
check "relay JSON: 2 bounced, 1 notice sent (and refused), 2 discarded" \
    test "$(for k in bounced bounces_sent bounces_delivered bounces_discarded; do
        json_get "$WORK/relay2.json" $k; done | tr '\n' ' ')" = "2 1 0 2 "
check "the discard is logged" grep -q "undeliverable notification (from <>) discarded" \
    "$WORK/relay2.err"
check "nothing left in the spool" test -z "$(spool_files "$SPOOL2")"

# --bounce-to-postmaster: a failed notice goes there, from double-bounce@;
# a failed postmaster notice is never returned.
SPOOL3=$WORK/spool3
rm -f "$WORK"/hop.out/msg.*
start_relay relay3 --spool "$SPOOL3" --next-hop "127.0.0.1:$hop_PORT" \
    --bounce-to-postmaster postmaster@example.org --json "$WORK/relay3.json" || exit 1
check "a message from <> to a refused recipient (postmaster)" \
    send "$relay3_PORT" "" "a failed notice" reject-x@example.net
check "the postmaster gets it" \
    wait_until 20 hop_has 1 "$WORK/hop.out" "RCPT TO:<postmaster@example.org>"
pm=$(grep -l -x $'RCPT TO:<postmaster@example.org>\r' "$WORK"/hop.out/msg.* | head -1)
check "from double-bounce@ (not <>), as Postfix's 2bounce notice" \
    grep -q -x $'MAIL FROM:<double-bounce@spoolsim.localdomain>\r' "$pm"
check "a Postmaster Copy with the original's Subject" \
    sh -c "grep -q '^Subject: Postmaster Copy: Undelivered Mail' '$pm' && grep -q '^Subject: a failed notice' '$pm'"
check "a failed notice from double-bounce@ is discarded" \
    send "$relay3_PORT" double-bounce@spoolsim.localdomain "triple" reject-z@example.net
check "the spool drains" wait_spool_empty "$SPOOL3" 30
stop "$relay3_PID"
check "relay JSON: 1 sent, 1 discarded" \
    test "$(json_get "$WORK/relay3.json" bounces_sent) $(json_get "$WORK/relay3.json" bounces_discarded)" = "1 1"
check "that discard is logged" grep -q "undeliverable postmaster notification discarded" \
    "$WORK/relay3.err"

# --max-lifetime: a recipient deferred past it is returned, Action: failed
# with the status it was deferred with (Postfix reads its defer log).
# A message's age is counted in whole seconds, as Postfix counts it: with a
# lifetime of 1 s, one that arrived at x.999 s and failed its first attempt
# at x+1.001 s is already too old, and expires without a deferral.
SPOOL4=$WORK/spool4
rm -f "$WORK"/hop.out/msg.*
start_relay relay4 --spool "$SPOOL4" --next-hop "127.0.0.1:$hop_PORT" --max-lifetime 2s \
    --min-backoff 200ms --max-backoff 400ms --json "$WORK/relay4.json" || exit 1
check "a message to a recipient that is always deferred" \
    send "$relay4_PORT" alice@example.org "stuck" defer-dave@example.net
check "the spool drains after the lifetime" wait_spool_empty "$SPOOL4" 30
check "a notification reaches the hop" wait_until 10 hop_has 1 "$WORK/hop.out" "MAIL FROM:<>"
dsn=$(grep -l -x $'MAIL FROM:<>\r' "$WORK"/hop.out/msg.* | head -1)
check "the notification: Action failed, Status 4.2.0, Final-Recipient, Subject" \
    to "$WORK/dsn4.check" dsn_check "$dsn" alice@example.org defer-dave@example.net 4.2.0 stuck
stop "$relay4_PID"
# The figures, for a failure's log.
echo "# relay4: expired $(json_get "$WORK/relay4.json" expired), bounces_sent $(json_get "$WORK/relay4.json" bounces_sent), deferrals $(json_get "$WORK/relay4.json" deferrals)"
check "relay JSON: expired, deferred first, 1 notice" \
    test "$(json_get "$WORK/relay4.json" expired) $(json_get "$WORK/relay4.json" bounces_sent)" = "1 1" -a \
    "$(json_get "$WORK/relay4.json" deferrals)" -ge 1
check "nothing left in the spool, defer/ included" test -z "$(spool_files "$SPOOL4")"

# --no-bounces: the old way, counted.
SPOOL5=$WORK/spool5
rm -f "$WORK"/hop.out/msg.*
start_relay relay5 --spool "$SPOOL5" --next-hop "127.0.0.1:$hop_PORT" --no-bounces \
    --json "$WORK/relay5.json" || exit 1
check "a message to a refused recipient (--no-bounces)" \
    send "$relay5_PORT" alice@example.org "dropped" reject-bob@example.net
check "the spool drains" wait_spool_empty "$SPOOL5" 30
# The file goes before the relay counts it: stop once it has.
dropped() { json_so_far "$1" "$2" && test "$(json_get "$2" bounces_dropped)" = 1; }
check "the relay counts it dropped" wait_until 30 dropped "$relay5_PID" "$WORK/relay5.json"
stop "$relay5_PID"
check "no notification" test "$(from_null "$WORK/hop.out")" = 0
check "the summary counts the dropped message" \
    grep -q "^bounces: 1 messages dropped without notice (--no-bounces)" "$WORK/relay5.err"
check "relay JSON: 1 dropped, none sent" \
    test "$(json_get "$WORK/relay5.json" bounces_dropped) $(json_get "$WORK/relay5.json" bounces_sent)" = "1 0"
check "nothing left in the spool" test -z "$(spool_files "$SPOOL5")"

# Another profile: no bounce model, said once.
SPOOL6=$WORK/spool6
start_relay relay6 --spool "$SPOOL6" --profile qmail --next-hop "127.0.0.1:$hop_PORT" \
    --json "$WORK/relay6.json" || exit 1
check "a message to a refused recipient (qmail profile)" \
    send "$relay6_PORT" alice@example.org "qmail" reject-bob@example.net
check "the relay counts it dropped (qmail profile)" wait_until 30 dropped "$relay6_PID" "$WORK/relay6.json"
stop "$relay6_PID"
# once in each summary: the one at the stop, and one a SIGUSR1 above
check "the summary says bounces are not modelled, once" \
    test "$(grep -c '^bounces: not modelled for qmail; ' "$WORK/relay6.err")" \
    = $(($(grep -c 'statistics so far (SIGUSR1)' "$WORK/relay6.err") + 1))
check "  ... and, at the stop, the message dropped" sh -c "grep '^bounces: not modelled' '$WORK/relay6.err' |
    tail -1 | grep -q '^bounces: not modelled for qmail; 1 bounced messages dropped without notice'"

# Usage errors.
check "--bounce-to-postmaster with <>: exit 2" \
    sh -c "'$RELAY' relay --spool '$WORK/x' --bounce-to-postmaster '<pm@x>' 2>'$WORK/u1.err'; test \$? = 2"
check "and says why" grep -q "bad --bounce-to-postmaster" "$WORK/u1.err"
check "--no-bounces with --bounce-to-postmaster: exit 2" \
    sh -c "'$RELAY' relay --spool '$WORK/x' --no-bounces --bounce-to-postmaster pm@x 2>/dev/null; test \$? = 2"
check "no spool made by a usage error" test ! -e "$WORK/x"

# ------------------------------------------------- the file operations
if ! command -v strace >/dev/null || ! strace -f -o /dev/null true 2>/dev/null; then
    skip_part "the order of the file operations: strace missing or not permitted"
    finish
fi
SPOOL7=$WORK/spool7
rm -f "$WORK"/hop.out/msg.*
portfile=$WORK/relay7.port
ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0" \
    timeout 120 strace -ff -qq -y -ttt -o "$WORK/trace" \
    -e trace=openat,rename,renameat,renameat2,unlink,unlinkat,newfstatat,fsync,fchmod \
    "$RELAY" relay --listen 127.0.0.1:0 --port-file "$portfile" --model none --spool "$SPOOL7" \
    --next-hop "127.0.0.1:$hop_PORT" -v 2>"$WORK/relay7.err" &
relay7_PID=$!
PIDS="$PIDS $relay7_PID"
check "relay started under strace" wait_until 30 test -s "$portfile"
check "a message to a refused recipient (traced)" \
    send "$(cat "$portfile")" alice@example.org "traced" reject-bob@example.net
check "the spool drains" wait_spool_empty "$SPOOL7" 30
stop "$relay7_PID"
orig=$(sed -n 's/.*: \([0-9A-Za-z]*\): sender non-delivery notification: .*/\1/p' "$WORK/relay7.err")
note=$(sed -n 's/.*: sender non-delivery notification: \([0-9A-Za-z]*\)$/\1/p' "$WORK/relay7.err")
check "the relay named the original ($orig) and its notification ($note)" test -n "$orig" -a -n "$note"
python3 - "$WORK/trace" "$orig" "$note" >"$WORK/order" 2>&1 <<'PY'
import glob, re, sys
trace, orig, note = sys.argv[1:]
# Postfix 3.7's order for one bounced recipient (docs/postfix-observed.md 5.4)
want = [
    ("append", f"bounce/{orig}"),        # the delivery agent's bounce record
    ("fsync", f"bounce/{orig}"),
    ("stat", f"bounce/{orig}"),          # qmgr_active_done
    ("read", f"bounce/{orig}"),          # the bounce service reads the log
    ("read", f"active/{orig}"),          # and the original
    ("create", "incoming/"),             # cleanup: the notice, a new queue file
    ("rename", f"incoming/{note}"),
    ("fchmod", f"incoming/{note}"),
    ("fsync", f"incoming/{note}"),
    ("unlink", f"bounce/{orig}"),        # the log goes once the notice is safe
    ("unlink", f"active/{orig}"),        # then the original
    ("rename", f"active/{note}"),        # the notice is delivered like any message
    ("unlink", f"active/{note}"),
]
# -ff: a file per thread, no call split by another's; merged by the time each call began
lines = sorted(l for f in glob.glob(trace + ".*") for l in open(f) if re.match(r"\d+\.\d+ ", l))
events = []
for line in lines:
    m = re.match(r"\S+ (\w+)\((.*)\)\s+=\s+(-?\d+)", line)
    if not m or int(m.group(3)) < 0:
        continue
    call, args = m.group(1), m.group(2)
    paths = ["/".join(p) for p in re.findall(r"<[^<>]*/(\w+)>, \"(?:\w/)*([^\"]+)\"", args)]
    fd = re.match(r"(\d+)<([^>]*)>", args)
    if call == "openat" and paths:
        kind = "append" if "O_APPEND" in args else "create" if "O_EXCL" in args else "read"
        events.append((kind, paths[0]))
    elif call == "newfstatat" and paths:
        events.append(("stat", paths[0]))
    elif call.startswith("rename") and len(paths) == 2:
        events.append(("rename", paths[1]))
    elif call == "unlinkat" and paths:
        events.append(("unlink", paths[0]))
    elif call in ("fsync", "fchmod") and fd:
        q = fd.group(2).rsplit("/", 2)
        events.append((call, "/".join(q[-2:])))
i = 0
for ev in events:
    if i < len(want) and ev[0] == want[i][0] and ev[1].startswith(want[i][1]):
        i += 1
if i < len(want):
    print("missing from the trace, in order:", want[i], file=sys.stderr)
    print("\n".join(f"{k} {p}" for k, p in events), file=sys.stderr)
    sys.exit(1)
print("ok")
PY
check "the bounce's file operations in Postfix's order" grep -q '^ok$' "$WORK/order"
grep -v '^ok$' "$WORK/order" | head -40
finish
