#!/bin/bash
# Integration: a large message's text reaches the next hop without a
# stall. The relay keeps Nagle's algorithm on towards the hop, as Postfix's
# smtp does; a text that went out in pieces ending in a short segment made
# the next piece wait for the hop's delayed ACK (40 ms or more a message:
# 64 KiB messages relayed at a few dozen a second per connection, whatever
# the disk). Like Postfix's VSTREAM, the relay now writes a text in whole
# stream units (twice the MSS), so that only its tail, with the dot, is
# short.
#
# Two checks, one on the cause and one on the symptom:
# - under strace, a 64 KiB message's text goes to the hop in one write,
#   with its dot (on loopback a stream unit, twice the 65,483-byte MSS,
#   holds the whole text), as Postfix writes it;
# - on one hop connection, 64 KiB messages drain at most a few times
#   slower than 16 KiB ones (a quarter of the bytes) measured in the same
#   run: a stall would cost at least 40 ms each, 6 s for the 150 here.
. "${top_srcdir:-.}/tests/helpers/lib.sh"

# drain_seconds NAME SIZE N: N messages of SIZE from one session through a
# relay with one hop connection; the seconds from the load's start until
# the spool is empty, on stdout.
drain_seconds() {
    local name=$1 size=$2 n=$3 t0 t1 port
    start_relay "$name" --spool "$WORK/$name.spool" --concurrency 1 \
        --next-hop "127.0.0.1:$sink_PORT" || return 1
    eval "port=\$${name}_PORT"
    t0=$(date +%s%N)
    timeout 120 "$SOURCE" -s 1 -m "$n" -l "$size" "127.0.0.1:$port" >"$WORK/$name.src" 2>&1 ||
        return 1
    wait_spool_empty "$WORK/$name.spool" 60 || return 1
    t1=$(date +%s%N)
    eval "stop \$${name}_PID"
    echo $(((t1 - t0) / 1000000))
}

start_sink sink 127.0.0.1:0 100 || exit 1

# The symptom: two passes, alternating sizes, the faster pass of each.
N=150
best16='' best64=''
for pass in 1 2; do
    ms=$(drain_seconds small$pass 16384 $N) || { check "pass $pass, 16 KiB relayed" false; break; }
    [ -z "$best16" ] || [ "$ms" -lt "$best16" ] && best16=$ms
    ms=$(drain_seconds large$pass 65536 $N) || { check "pass $pass, 64 KiB relayed" false; break; }
    [ -z "$best64" ] || [ "$ms" -lt "$best64" ] && best64=$ms
done
if [ -n "$best16" ] && [ -n "$best64" ]; then
    echo "# $N messages on one hop connection: 16 KiB in $best16 ms, 64 KiB in $best64 ms"
    check "64 KiB messages drain within 5 times the 16 KiB time plus 2 s ($best64 ms against $best16 ms)" \
        test "$best64" -le $((5 * best16 + 2000))
fi

# The cause: the writes to the hop, per message.
if command -v strace >/dev/null && strace -f -o /dev/null true 2>/dev/null; then
    M=10
    SPOOL=$WORK/traced.spool
    start_relay_strace traced -yy -e trace=write,writev,sendto,sendmsg \
        -- --spool "$SPOOL" --model none --concurrency 1 --next-hop "127.0.0.1:$sink_PORT"
    check "relay started under strace" test -n "${traced_PID:-}"
    check "$M messages of 64 KiB relayed" to "$WORK/traced.src" timeout 60 "$SOURCE" -s 1 -m $M \
        -l 65536 "127.0.0.1:$traced_PORT"
    check "the spool drains" wait_spool_empty "$SPOOL" 60
    stop "$traced_PID"
    # Per message the envelope group and the text; EHLO and QUIT once.
    writes=$(cat "$WORK"/trace.* |
        grep -cE "^(write|writev|sendto|sendmsg)\([0-9]+<TCP:\[[0-9.:]+->[0-9.]+:$sink_PORT\]>")
    echo "# $M messages of 64 KiB on one connection: $writes writes to the hop"
    check "two writes a 64 KiB message, as Postfix's ($writes for $M, EHLO and QUIT besides)" \
        test "$writes" -le $((2 * M + 2))
else
    skip_part "strace cannot trace here: the writes to the hop are not counted"
fi

stop "$sink_PID"
finish
