#!/bin/bash
# Integration: the hop count ends a mail loop that no name gives away
# (issue 23 item 3), as Postfix's: the relay's smtpd adds its Received:
# header and, when the message's Received: fields, ours among them, reach
# --hopcount-limit (Postfix's hopcount_limit, 50), refuses the message at
# the end of its data with 554 5.4.0 "too many hops", keeping nothing.
# Two relays of different names pointing at each other pass a message to
# and fro until then; the relay refused bounces it, once, and the
# notification goes the same way until it is refused and discarded. A
# message under the limit goes through, and smtp-source and smtp-sink
# still match it exactly once by content (the trace fields at its top left
# out of both logs). Before the change the pair never went idle.
. "${top_srcdir:-.}/tests/helpers/lib.sh"

command -v python3 >/dev/null || skip "python3 is required"

# message N FILE: N Received: fields (some folded), a header, a body that
# holds a Received: line, which is no field.
message() {
    python3 - "$1" "$2" <<'PY'
import sys
n, path = int(sys.argv[1]), sys.argv[2]
with open(path, "w") as f:
    for i in range(n):
        f.write("Received: from h%d.example (h%d.example [192.0.2.%d])\n" % (i, i, i % 250 + 1))
        f.write("\tby h%d.example with ESMTP id HOP%d; Tue, 1 Dec 2026 10:00:00 +0000\n" % (i + 1, i))
    f.write("From: a@example.com\nTo: b@example.com\nSubject: %d hops\n" % n)
    f.write("Message-ID: <hops.%d@example.com>\n\nbody\nReceived: in the body\n" % n)
PY
}

spools_empty() {
    local d
    for d; do [ -z "$(spool_files "$d")" ] || return 1; done
}

# sum KEY JSON...: the key's total over the reports.
sum() {
    local key=$1 total=0 f
    shift
    for f; do total=$((total + $(json_get "$f" "$key"))); done
    echo "$total"
}

# usage: the limit's bounds, as Postfix's (at least 1), and not absurd
for bad in 0 1001 x; do
    out=$(timeout 10 "$RELAY" relay --hopcount-limit $bad --spool "$WORK/bad.spool" 2>&1 >/dev/null)
    rc=$?
    check "--hopcount-limit $bad: exit 2, the option named, no spool made" \
        test "$rc,$(echo "$out" | grep -c -- '--hopcount-limit'),$([ -e "$WORK/bad.spool" ] && echo made)" = 2,1,
done
# --- one relay in front of a sink: the limit and its edge
start_sink sink --msg-log "$WORK/sink.log" 127.0.0.1:0 100 || exit 1
start_relay one --spool "$WORK/one.spool" --next-hop "127.0.0.1:$sink_PORT" \
    --json "$WORK/one.json" || exit 1
for n in 48 49 51; do
    message $n "$WORK/m$n.eml"
    to "$WORK/src$n.out" timeout 30 "$SOURCE" -m 1 -F "$WORK/m$n.eml" -f sender@example.com \
        -t rcpt@example.com --msg-log "$WORK/src$n.log" "127.0.0.1:$one_PORT"
done
check "48 Received: fields and ours, 49 hops: delivered" wait_until 30 test -s "$WORK/sink.log"
check "49 and ours, the limit: refused with 554 at the end of data" grep -q "554@dot=1" "$WORK/src49.out"
check "51 and ours: refused with 554 at the end of data" grep -q "554@dot=1" "$WORK/src51.out"
check "the relay's spool is empty" wait_until 30 spools_empty "$WORK/one.spool"
stop "$one_PID"
stop "$sink_PID"
check "each refusal said once" \
    test "$(grep -c 'reject: too many hops (5[02] Received: headers, limit 50)' "$WORK/one.err")" = 2
check "counted as refused for hops" test "$(json_get "$WORK/one.json" refused_hops)" = 2
check "one received, one delivered, none bounced" \
    test "$(json_get "$WORK/one.json" messages_in)/$(json_get "$WORK/one.json" messages_out)/$(json_get "$WORK/one.json" bounced)" = 1/1/0
check "the sink got one message, with ours on top of its 48" \
    test "$(grep -c . "$WORK/sink.log")" = 1
# -F sends no Message-ID of smtp-source's: the size and checksum are the key
check "matched by content, the trace fields left out on both sides" \
    test "$(msglog_keys "$WORK/src48.log" | cut -d' ' -f2-)" = "$(msglog_keys "$WORK/sink.log" | cut -d' ' -f2-)"

# --- two relays of different names, each the other's next hop
N=3 LIMIT=6
free_port PA PB || exit 1
start_relay a --hostname a.example --hopcount-limit $LIMIT --spool "$WORK/a.spool" \
    --listen "127.0.0.1:$PA" --next-hop "127.0.0.1:$PB" --json "$WORK/a.json" || exit 1
start_relay b --hostname b.example --hopcount-limit $LIMIT --spool "$WORK/b.spool" \
    --listen "127.0.0.1:$PB" --next-hop "127.0.0.1:$PA" --json "$WORK/b.json" || exit 1
to "$WORK/pair.out" timeout 30 "$SOURCE" -s 1 -m $N -f sender@example.com -t rcpt@example.com \
    "127.0.0.1:$a_PORT"
check "pair: both go idle (their spools empty)" wait_until 60 spools_empty "$WORK/a.spool" "$WORK/b.spool"
stop "$a_PID"
stop "$b_PID"
J=("$WORK/a.json" "$WORK/b.json")
check "pair: no loop seen by name" test "$(sum mail_loops "${J[@]}")" = 0
# the relay refused bounces: a message once (its sender notified), a
# notification once (from the null sender: discarded)
check "pair: each message and each notification refused once at the limit" \
    test "$(sum refused_hops "${J[@]}")" = $((2 * N))
check "pair: each of them bounced once" test "$(sum bounced "${J[@]}")" = $((2 * N))
check "pair: a notification for each message" test "$(sum bounces_sent "${J[@]}")" = $N
check "pair: the notifications, refused in their turn, discarded" \
    test "$(sum bounces_discarded "${J[@]}")" = $N
# a message passes LIMIT - 1 relays (client to a, then to and fro), a
# notification LIMIT - 1 from the relay that made it: each of those but the
# first is a delivery of the relay before it
check "pair: every pass to the other relay is a delivery" \
    test "$(sum messages_out "${J[@]}")" = $((2 * N * (LIMIT - 2)))
check "pair: the refusals name the limit" \
    test "$(cat "$WORK/a.err" "$WORK/b.err" | grep -c "reject: too many hops ($LIMIT Received: headers, limit $LIMIT)")" = $((2 * N))

finish
