#!/bin/bash
# Integration: smtp-sink against hand-made SMTP (tests/smtp_probe.py), one
# sink configuration per group of security.md statements.
. "${top_srcdir:-.}/tests/lib.sh"

command -v python3 >/dev/null || skip "python3 is needed for the protocol probe"
probe() {
    local group=$1
    shift
    start_sink "$group" "$@" 127.0.0.1:0 10 || return 1
    local port
    eval "port=\$${group}_PORT"
    timeout 60 python3 "$top_srcdir/tests/smtp_probe.py" "$group" "$port"
    local status=$?
    eval "stop \$${group}_PID"
    return $status
}

check "default sink" probe default
check "bare-LF policy normalize" probe normalize --bare-lf normalize
check "bare-LF policy strict" probe strict --bare-lf strict
check "STARTTLS" probe tls --tls
check "limits" probe limits --error-limit 5 --max-size 1000 -t 1
check "LMTP" probe lmtp -L
check "minimum data rate" probe slow -t 1 --min-data-rate 100
check "greeting delay" probe greet --greet-delay 0.3
finish
