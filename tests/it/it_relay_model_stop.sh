#!/bin/bash
# Integration: a cost model cannot make the relay deaf to a stop. A model's
# costs are bounded (cost_model.h): one of 1,000 s a message (base_us 1e9),
# which once left the relay answering no client and running 90 s after
# SIGTERM, is refused as a usage error that names the bound, and nothing is
# made. A model within the bounds can still make a burn of many seconds
# (1 s a message at most, scaled by the speed of the CPU it was measured
# on): SIGTERM in the middle of one ends the relay within a few seconds,
# with its summary, not when the burn is done.
. "${top_srcdir:-.}/tests/helpers/lib.sh"

# model FILE BASE_US SPEED: a Postfix model whose smtpd costs BASE_US a message.
model() {
    cat >"$1" <<EOF
{"mta": "postfix", "reference_speed": $3, "stages": [
  {"name": "smtpd", "mta": {"base_us": $2, "per_kib_us": 0, "per_rcpt_us": 0},
   "relay": {"base_us": 0, "per_kib_us": 0, "per_rcpt_us": 0}}]}
EOF
}

model "$WORK/absurd.json" 1e9 400
check "a model of 1,000 s a message is a usage error" \
    sh -c "timeout 30 '$RELAY' relay --listen 127.0.0.1:0 --spool '$WORK/absurd.spool' \
        --model '$WORK/absurd.json' 2>'$WORK/absurd.err'; test \$? = 2"
check "  naming the cost and its bound" \
    grep -q "stages.0.mta.base_us is 1e+09: no real MTA's process costs that (0 to 1000000 us a message)" \
    "$WORK/absurd.err"
check "  and nothing was made" test ! -e "$WORK/absurd.spool"

# The dearest model the bounds allow, 1 s of smtpd a message, measured on a
# CPU 100 times this one's speed (within the bounds too, where this one is
# not too fast): the greeting alone, a sixth of smtpd's cost, burns for about
# 17 s on an smtpd thread.
speed=$("$RELAY" calibrate --speed)
ref=$(python3 -c "import sys; print(min(1e5, 100 * float(sys.argv[1])))" "$speed")
model "$WORK/dear.json" 1000000 "$ref"
timeout --foreground 120 "$RELAY" relay --listen 127.0.0.1:0 --port-file "$WORK/dear.port" \
    --spool "$WORK/dear.spool" --next-hop discard --model "$WORK/dear.json" 2>"$WORK/dear.err" &
timeout_pid=$!
PIDS="$PIDS $timeout_pid"
check "the relay with the dearest model starts" wait_until 60 test -s "$WORK/dear.port"
relay_pid=$(pgrep -P "$timeout_pid" spoolsim)
# cpu_ticks: the relay's CPU so far, in clock ticks (utime + stime).
cpu_ticks() { awk '{ print $14 + $15 }' "/proc/$relay_pid/stat"; }
ticks0=$(cpu_ticks)
hz=$(getconf CLK_TCK)
timeout 60 python3 -c '
import socket, sys, time
s = socket.create_connection(("127.0.0.1", int(sys.argv[1])))
time.sleep(60)' "$(cat "$WORK/dear.port")" &
PIDS="$PIDS $!"
burning() { [ $(($(cpu_ticks) - ticks0)) -ge "$hz" ]; }
check "a client's greeting burns (a second of the relay's CPU)" wait_until 30 burning
start=$(date +%s.%N)
kill -TERM "$relay_pid"
gone() { ! kill -0 "$relay_pid" 2>/dev/null; }
wait_until 20 gone
took=$(python3 -c "import sys, time; print('%.1f' % (time.time() - float(sys.argv[1])))" "$start")
echo "SIGTERM in the middle of the burn: the relay was gone after $took s"
check "SIGTERM mid-burn ends the relay within 5 s ($took s)" \
    python3 -c "import sys; sys.exit(not float(sys.argv[1]) < 5)" "$took"
wait "$timeout_pid"
status=$?
check "  as a stop: exit 0 ($status)" test "$status" = 0
check "  with its summary, its one client counted" grep -q "^client sessions 1 " "$WORK/dear.err"
finish
