#!/bin/bash
# Integration: the relay's SMTP server against the same hand-made sessions
# as smtp-sink (tests/helpers/smtp_probe.py): over-long commands, sequencing,
# pipelining, early talkers, and the nine smuggling endings under the
# normalize and strict bare-LF policies, STARTTLS injection and the state
# reset after TLS, the error limit, SIZE, the idle timeout, a minimum data
# rate, the recipient cap and NUL bytes (docs/security.md items 1-3 and 5-9).
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
check "relay: error limit, SIZE, idle timeout" probe limits --error-limit 5 --max-size 1000 \
    --timeout 1
check "relay: minimum data rate" probe slow --min-data-rate 100 --timeout 1
check "relay: recipient cap, NUL bytes" probe rcptcap --max-rcpt 3
check "relay: a usage error for --tls-key alone" test "$(
    "$RELAY" relay --spool "$WORK/x" --tls-key /nonexistent >/dev/null 2>&1
    echo $?
)" = 2
check "relay: nothing left queued" test -z "$(spool_files "$WORK/spool-default")"
finish
