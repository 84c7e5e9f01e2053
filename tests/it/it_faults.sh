#!/bin/bash
# Integration: smtp-sink's fault injection, as smtp-source reports it.
. "${top_srcdir:-.}/tests/helpers/lib.sh"

# 30 % of RCPTs get 450: about 30 % of 1000 single-recipient messages fail.
start_sink s1 --seed 3 --fault rcpt:450:30 --json "$WORK/s1.json" 127.0.0.1:0 100 || exit 1
to "$WORK/o1" timeout 60 "$SOURCE" -d -m 1000 -s 4 --json "$WORK/o1.json" "127.0.0.1:$s1_PORT"
check "source exits 1 when some messages failed" test $? = 1
check "about 30% failed with 450 at RCPT, the rest delivered" python3 -c "
import json; r = json.load(open('$WORK/o1.json'))
f = r['failures_by_code'].get('450@rcpt', 0)
assert 200 < f < 400 and r['failed'] == f and r['delivered'] + f == 1000, r"
stop "$s1_PID"
check "sink and source agree on deliveries" python3 -c "
import json; s = json.load(open('$WORK/s1.json')); r = json.load(open('$WORK/o1.json'))
assert s['messages'] == r['delivered'] and s['replies']['450'] == r['failed'], (s, r)"

# A 421 greeting once 50 messages were accepted: the rest fail at the banner.
start_sink s2 --fault connect:421@50 127.0.0.1:0 100 || exit 1
to "$WORK/o2" timeout 60 "$SOURCE" -m 80 -s 1 --ignore-failures --json "$WORK/o2.json" \
    "127.0.0.1:$s2_PORT"
check "--ignore-failures exits 0" test $? = 0
check "50 delivered, then 421 greetings" python3 -c "
import json; r = json.load(open('$WORK/o2.json'))
assert r['delivered'] == 50 and r['failures_by_code'] == {'421@banner': 30}, r"
stop "$s2_PID"

# Postfix-style lists: -f (hard) on MAIL, -r (soft) on '.', -q (drop) on DATA.
start_sink s3 -f mail 127.0.0.1:0 10 || exit 1
to "$WORK/o3" timeout 30 "$SOURCE" -m 5 --json "$WORK/o3.json" "127.0.0.1:$s3_PORT"
check "-f mail: 500 at MAIL" python3 -c "
import json; r = json.load(open('$WORK/o3.json')); assert r['failures_by_code'] == {'500@mail': 5}, r"
stop "$s3_PID"
start_sink s4 -r . -b "451 4.3.0 try later" 127.0.0.1:0 10 || exit 1
to "$WORK/o4" timeout 30 "$SOURCE" -m 5 -d --json "$WORK/o4.json" "127.0.0.1:$s4_PORT"
check "-r . with -b: 451 after the message" python3 -c "
import json; r = json.load(open('$WORK/o4.json')); assert r['failures_by_code'] == {'451@dot': 5}, r"
stop "$s4_PID"
start_sink s5 -q data 127.0.0.1:0 10 || exit 1
to "$WORK/o5" timeout 30 "$SOURCE" -m 3 --json "$WORK/o5.json" "127.0.0.1:$s5_PORT"
check "-q data: dropped connections counted as disconnects" python3 -c "
import json; r = json.load(open('$WORK/o5.json')); assert r['failures']['disconnect'] == 3, r"
stop "$s5_PID"

# A refused connection is a failure, counted, never a crash.
free_port port || exit 1
to "$WORK/o6" timeout 30 "$SOURCE" -m 3 --json "$WORK/o6.json" "127.0.0.1:$port"
check "refused connections are counted" python3 -c "
import json; r = json.load(open('$WORK/o6.json')); assert r['failures']['connect'] == 3, r"

to "$WORK/o6b" timeout 30 "$SOURCE" -m 2000 -s 2 --json "$WORK/o6b.json" "unix:$WORK/no-such-socket"
check "a missing UNIX socket fails every message, quickly, without a crash" python3 -c "
import json; r = json.load(open('$WORK/o6b.json')); assert r['failures']['connect'] == 2000, r"

# -W rcpt:0.2 delays each RCPT reply by 0.2 s; the source's rcpt p50 shows it.
start_sink s7 -W rcpt:0.2 127.0.0.1:0 10 || exit 1
to "$WORK/o7" timeout 30 "$SOURCE" -m 3 --json "$WORK/o7.json" "127.0.0.1:$s7_PORT"
check "-W delay visible in the rcpt latency" python3 -c "
import json; r = json.load(open('$WORK/o7.json'))
assert 190 < r['latency']['rcpt']['p50_ms'] < 400, r['latency']['rcpt']"
stop "$s7_PID"

# -M: the sink exits by itself after 10 messages.
start_sink s8 -M 10 --json "$WORK/s8.json" 127.0.0.1:0 10 || exit 1
to "$WORK/o8" timeout 30 "$SOURCE" -m 10 -s 2 "127.0.0.1:$s8_PORT"
wait "$s8_PID"
check "-M 10: the sink exited after 10 messages" test "$(json_get "$WORK/s8.json" messages)" = 10

# Usage errors: exit status 2 and a message naming the problem.
to "$WORK/u1" "$SINK" --fault rcpt:999 127.0.0.1:0 10
check "bad fault code: exit 2" test $? = 2
check "  ... names the option" grep -q -- "--fault" "$WORK/u1"
to "$WORK/u2" "$SOURCE" --size uniform:9:3 127.0.0.1:25
check "bad size distribution: exit 2" test $? = 2
to "$WORK/u3" "$SOURCE" -m 1
check "missing target: exit 2" test $? = 2
to "$WORK/u4" "$SINK" -W nosuch:1 127.0.0.1:0 10
check "unknown command in -W: exit 2" test $? = 2
finish
