#!/bin/bash
# Integration: mail loops end, as in Postfix (issue 23 item 3). A relay
# whose next hop is itself, and two relays under one name that point at
# each other, hear the hop answer EHLO with their own name: each message
# bounces once with 5.4.6 ("mail for X loops back to myself"), is counted
# a loop and never delivered; its notification, which would go the same
# way, bounces too and (from the null sender) is discarded; the relays go
# idle. Before the fix 5 such messages made hundreds of "deliveries" and
# never left the spool.
. "${top_srcdir:-.}/tests/helpers/lib.sh"

command -v python3 >/dev/null || skip "python3 is required"
N=5

# bounced_ids ERR: the queue ID of each message from sender@example.com
# that the relay logged as bounced for a loop, one a line.
bounced_ids() {
    sed -n 's/^.*\([0-9A-Za-z]\{8,\}\): from=<sender@example.com>, status=bounced 5\.4\.6 (mail for .* loops back to myself)$/\1/p' "$1"
}

# spools_empty DIR...: no message file or log in any of them.
spools_empty() {
    local d
    for d; do [ -z "$(spool_files "$d")" ] || return 1; done
}

# send PORT: N messages, one session, from sender@example.com.
send() {
    to "$WORK/src.$1.out" timeout 60 "$SOURCE" -s 1 -m "$N" -f sender@example.com -t rcpt@example.com \
        "127.0.0.1:$1"
}

# loop_report LABEL JSON ERR: the relay bounced each of the N messages once
# as a loop, delivered none, and discarded their notifications.
loop_report() {
    local label=$1 json=$2 err=$3 ids
    ids=$(bounced_ids "$err")
    check "$label: $N messages in" test "$(json_get "$json" messages_in)" = "$N"
    check "$label: none delivered" test "$(json_get "$json" messages_out)" = 0
    check "$label: $N bounced" test "$(json_get "$json" bounced)" = "$N"
    check "$label: all $N as mail loops" test "$(json_get "$json" mail_loops)" = "$N"
    check "$label: each bounced with 5.4.6 once ($(echo $ids))" \
        test "$(echo "$ids" | grep -c .)" = "$N" -a "$(echo "$ids" | sort -u | grep -c .)" = "$N"
    check "$label: the hop named as a loop" grep -q "replied to EHLO with my own hostname" "$err"
    check "$label: the notifications discarded, not sent round again" \
        test "$(json_get "$json" bounces_discarded)" = "$N"
    check "$label: the summary says so" grep -q "mail loops: $N of the bounced messages" "$err"
}

# --- a relay whose next hop is itself
free_port P || exit 1
start_relay self --spool "$WORK/self.spool" --listen "127.0.0.1:$P" --next-hop "127.0.0.1:$P" \
    --json "$WORK/self.json" || exit 1
send "$self_PORT"
check "self: the relay goes idle (its spool empty)" wait_until 30 spools_empty "$WORK/self.spool"
stop "$self_PID"
loop_report self "$WORK/self.json" "$WORK/self.err"

# --- two relays under one name, each the other's next hop
free_port PA PB || exit 1
start_relay a --spool "$WORK/a.spool" --listen "127.0.0.1:$PA" --next-hop "127.0.0.1:$PB" \
    --json "$WORK/a.json" || exit 1
start_relay b --spool "$WORK/b.spool" --listen "127.0.0.1:$PB" --next-hop "127.0.0.1:$PA" \
    --json "$WORK/b.json" || exit 1
send "$a_PORT"
check "pair: both go idle (their spools empty)" wait_until 30 spools_empty "$WORK/a.spool" "$WORK/b.spool"
stop "$a_PID"
stop "$b_PID"
loop_report pair "$WORK/a.json" "$WORK/a.err"
check "pair: the other relay took nothing" test "$(json_get "$WORK/b.json" messages_in)" = 0

finish
