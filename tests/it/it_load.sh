#!/bin/bash
# Integration: resources under load. 10,000 idle connections to smtp-sink
# and 2,000 to the relay, with their RSS; every descriptor given back once
# the clients leave. Then a relay and a sink at a small descriptor limit:
# new connections wait or are refused, the sessions already open go on,
# nothing crashes, and service returns when descriptors do.
. "${top_srcdir:-.}/tests/helpers/lib.sh"

SINK_CONNS=${LOAD_SINK_CONNS:-10000}
RELAY_CONNS=${LOAD_RELAY_CONNS:-2000}
ulimit -n $((SINK_CONNS + 200)) 2>/dev/null || skip "cannot raise the descriptor limit to $((SINK_CONNS + 200))"

rss_kib() { awk '/^VmRSS/ { print $2 }' "/proc/$1/status"; }
fds() { ls "/proc/$1/fd" | wc -l; }
real_pid() { pgrep -P "$1" | head -1 || echo "$1"; }

# hold NAME PORT N [SECONDS]: N idle connections held by a background client.
hold() {
    mkfifo "$WORK/$1.in"
    python3 "$top_srcdir/tests/helpers/conn_hold.py" "$2" "$3" "${4:-120}" <"$WORK/$1.in" >"$WORK/$1.out" 2>&1 &
    eval "${1}_HOLDER=$!"
    PIDS="$PIDS $!"
    exec {fd}>"$WORK/$1.in"
    eval "${1}_FD=$fd"
    wait_until 120 test -s "$WORK/$1.out"
}
# fds_back PID N: PID holds N descriptors or fewer.
fds_back() { [ "$(fds "$1")" -le "$2" ]; }
release() {
    local fd
    eval "fd=\$${1}_FD"
    echo >&"$fd"
    exec {fd}>&-
    eval "wait \$${1}_HOLDER"
    rm -f "$WORK/$1.in" # a FIFO left in $WORK would block finish's scan
}

# held NAME LABEL PID PORT N HOLDER: N idle connections held on the server
# PID (by hold HOLDER): all greeted, its RSS bounded, what they cost said
# (LABEL: ...); sets fds0, the descriptors it had before.
held() {
    local name=$1 label=$2 pid=$3 port=$4 n=$5 holder=$6 rss0 rss1 fds1
    rss0=$(rss_kib "$pid") fds0=$(fds "$pid")
    check "$name: $n connections held" hold "$holder" "$port" "$n"
    rss1=$(rss_kib "$pid") fds1=$(fds "$pid")
    echo "$label: $(cat "$WORK/$holder.out"); RSS $rss0 -> $rss1 KiB ($(( (rss1 - rss0) * 1024 / n )) bytes per connection); fds $fds0 -> $fds1"
    check "$name greeted all $n" grep -q "^greeted $n refused 0 waiting 0" "$WORK/$holder.out"
    check "$name RSS stays bounded (< 64 MiB)" test "$rss1" -lt 65536
}
# gave_back NAME PID: once the holder let go, PID is back to the fds0 it had.
gave_back() {
    wait_until 30 fds_back "$2" "$fds0"
    check "$1 gave back every descriptor ($(fds "$2") vs $fds0)" test "$(fds "$2")" -le "$fds0"
}

start_sink sink -m $((SINK_CONNS + 100)) 127.0.0.1:0 4096 || exit 1
sink=$(real_pid "$sink_PID")
held sink smtp-sink "$sink" "$sink_PORT" "$SINK_CONNS" idle
release idle
gave_back sink "$sink"
check "sink still serves" to "$WORK/after.out" timeout 30 "$SOURCE" -m 10 "127.0.0.1:$sink_PORT"
stop "$sink_PID"

SPOOL=$WORK/spool
# Above Postfix's process limit on purpose: what 2,000 idle sessions cost is the question.
start_relay relay --spool "$SPOOL" --backlog 4096 --max-sessions 3000 || exit 1
relay=$(real_pid "$relay_PID")
held relay relay "$relay" "$relay_PORT" "$RELAY_CONNS" ridle
check "relay relays while holding them" to "$WORK/r1.out" timeout 30 "$SOURCE" -m 20 "127.0.0.1:$relay_PORT"
release ridle
gave_back relay "$relay"
stop "$relay_PID"

# at_limit NAME COMMAND...: the server runs with 64 descriptors and 300
# connections are asked for. An early session, opened before the limit is
# reached, must go on working; the rest wait in the backlog (or are
# refused); the server neither dies nor spins; service returns after.
at_limit() {
    local name=$1 port pid early greeting reply line base
    shift
    rm -f "$WORK/$name.port"
    (ulimit -n 64 && exec timeout 120 "$@" --port-file "$WORK/$name.port" 2>"$WORK/$name.err") &
    pid=$!
    PIDS="$PIDS $pid"
    check "$name: started" wait_until 30 test -s "$WORK/$name.port" || return
    port=$(cat "$WORK/$name.port")
    exec {early}<>/dev/tcp/127.0.0.1/"$port"
    read -r -t 5 greeting <&"$early"
    check "$name: an early session is greeted" test "${greeting:0:3}" = 220
    base=$(fds "$(real_pid "$pid")") # the early session's included: it goes before the others
    check "$name: 300 connections asked for" hold "${name}_full" "$port" 300 5
    echo "$name at the limit: $(cat "$WORK/${name}_full.out")"
    check "$name: past the limit, connections wait (or are refused)" \
        sh -c "grep -q 'greeted [0-9]* refused [0-9]* waiting [1-9]' '$WORK/${name}_full.out'"
    check "$name: alive at its limit" kill -0 "$(real_pid "$pid")"
    printf 'EHLO early\r\n' >&"$early"
    reply=""
    while read -r -t 5 line; do
        reply=$line
        [ "${line:3:1}" = " " ] && break
    done <&"$early"
    check "$name: the early session is served at the limit" test "${reply:0:3}" = 250
    check "$name: does not spin at its limit (CPU < 50 %)" \
        test "$(ps -o %cpu= -p "$(real_pid "$pid")" | cut -d. -f1)" -lt 50
    exec {early}>&-
    release "${name}_full"
    check "$name: the descriptors come back ($base)" wait_until 30 fds_back "$(real_pid "$pid")" "$base"
    check "$name: service returns when descriptors do" to "$WORK/$name-back.out" timeout 30 \
        "$SOURCE" -m 5 "127.0.0.1:$port"
    kill "$pid"
    wait "$pid" 2>/dev/null
}

at_limit relay_limit "$RELAY" relay --listen 127.0.0.1:0 --spool "$WORK/spool2"
at_limit sink_limit "$SINK" -m 1000 127.0.0.1:0 1024
finish
