#!/bin/bash
# Integration: the relay's connection cache to the next hop. A connection
# that has delivered a message stays open for the next one (no second
# EHLO), is closed with QUIT once it has been idle for the cache time
# (2 s, Postfix's smtp_connection_cache_time_limit), not long before, and
# the next message then opens a new one.
. "${top_srcdir:-.}/tests/helpers/lib.sh"

count() { grep -c ": $1\$" "$WORK/sink.err" || true; }
quit_seen() { [ "$(count QUIT)" -ge 1 ]; }

start_sink sink -s EHLO,QUIT 127.0.0.1:0 10 || exit 1
SPOOL=$WORK/spool
start_relay relay --spool "$SPOOL" --next-hop "127.0.0.1:$sink_PORT" --concurrency 1 || exit 1
check "a first message relayed" to "$WORK/src1.out" timeout 30 "$SOURCE" -m 1 "127.0.0.1:$relay_PORT"
check "and delivered" wait_spool_empty "$SPOOL" 30
check "a second one at once" to "$WORK/src2.out" timeout 30 "$SOURCE" -m 1 "127.0.0.1:$relay_PORT"
check "delivered too" wait_spool_empty "$SPOOL" 30
idle_from=$(date +%s.%N)
check "on the same connection: one EHLO ($(count 'EHLO .*'))" test "$(count 'EHLO .*')" = 1
check "the idle connection is closed with QUIT" wait_until 15 quit_seen
idle_s=$(python3 -c "import sys, time; print('%.2f' % (time.time() - float(sys.argv[1])))" "$idle_from")
check "after the cache time, not long before (${idle_s} s idle)" \
    python3 -c "import sys; sys.exit(float(sys.argv[1]) < 1.5)" "$idle_s"
check "a third message" to "$WORK/src3.out" timeout 30 "$SOURCE" -m 1 "127.0.0.1:$relay_PORT"
check "delivered" wait_spool_empty "$SPOOL" 30
check "on a new connection: a second EHLO" test "$(count 'EHLO .*')" = 2
stop "$relay_PID"
stop "$sink_PID"
finish
