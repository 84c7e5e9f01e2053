#!/bin/bash
# Integration: next hops that are slow, odd or hostile in ways the relay's
# client (smtp_client, smtp_txn) must survive without losing or doubling a
# message. Each run sends messages through a hop whose first connections
# play the modes given (tests/helpers/hostile_hop.py), then pass to a sink;
# every message must arrive exactly once, and a hop that only behaved must
# cost no deferral.
. "${top_srcdir:-.}/tests/helpers/lib.sh"

command -v python3 >/dev/null || skip "python3 is required"
command -v ss >/dev/null || skip "ss is required"

# no_conn_to PORT: no established TCP connection to 127.0.0.1:PORT.
no_conn_to() {
    [ -z "$(ss -Htn state established "( dport = :$1 )")" ]
}

# attack_run NAME COUNT SIZE MODES DEFERRALS RELAY_OPTION...: COUNT messages of
# SIZE bytes through a hop playing MODES; DEFERRALS: "0" (none allowed) or
# "+N" (at least N) or "-" (not counted).
attack_run() {
    local name=$1 count=$2 size=$3 modes=$4 deferrals=$5 report got
    shift 5
    start_sink "${name}_sink" --msg-log "$WORK/$name.sink.log" 127.0.0.1:0 100 || return 1
    local sink_port_var="${name}_sink_PORT"
    timeout 120 python3 "$top_srcdir/tests/helpers/hostile_hop.py" "$WORK/$name.hop.port" \
        "${!sink_port_var}" "$modes" "$WORK/$name.gate" 2>"$WORK/$name.hop.err" &
    local hop_pid=$!
    PIDS="$PIDS $hop_pid"
    check "$name: hop started" wait_until 30 test -s "$WORK/$name.hop.port"
    start_relay "${name}_relay" --spool "$WORK/$name.spool" \
        --next-hop "127.0.0.1:$(cat "$WORK/$name.hop.port")" -v --concurrency 1 \
        --min-backoff 100ms --max-backoff 300ms --json "$WORK/$name.relay.json" "$@" || return 1
    local relay_pid_var="${name}_relay_PID" relay_port_var="${name}_relay_PORT"
    check "$name: $count messages of $size bytes accepted" to "$WORK/$name.src.out" timeout 60 \
        "$SOURCE" -s 3 -m "$count" -l "$size" --msg-log "$WORK/$name.src.log" \
        "127.0.0.1:${!relay_port_var}"
    case $modes in
    idle*)
        # The idle modes hold the first 250 to an end of data until every
        # message is in active/: the others then wait for that connection.
        check "$name: all $count messages in active/" wait_until 30 files_in \
            "$WORK/$name.spool/active" "$count"
        ;;
    esac
    touch "$WORK/$name.gate"
    check "$name: the spool drains" wait_spool_empty "$WORK/$name.spool" 60
    # The cache time (2 s) over, no connection of the relay's to the hop is left open.
    check "$name: no connection left to the hop" wait_until 15 no_conn_to \
        "$(cat "$WORK/$name.hop.port")"
    stop "${!relay_pid_var}"
    stop "$hop_pid"
    report=$(delivery_report "$WORK/$name.src.log" "$WORK/$name.sink.log")
    got=$(json_get "$WORK/$name.relay.json" deferrals)
    echo "$name: $report; $got deferrals; relay said: $(grep -E 'lost connection|said' "$WORK/${name}_relay.err" | head -3)"
    check "$name: exactly once through $modes: $report" \
        test "$report" = "acked $count, lost 0, duplicated 0"
    case $deferrals in
    0) check "$name: no deferral ($got)" test "$got" = 0 ;;
    +*) check "$name: at least ${deferrals#+} deferrals ($got)" test "$got" -ge "${deferrals#+}" ;;
    esac
}

# A hop that reads a long text slowly but steadily: the transfer takes longer
# than --hop-timeout, yet the hop never stops taking bytes for that long. The
# timeout is for a hop that does nothing, so this must deliver at the first
# try. 4 MB: the relay waits for the kernel's send buffer, not only for the
# reply to the dot, longer than the timeout (about 13 s on this AMD EPYC VM).
# The timeout is 3 s, not 1: at a load of 12 on two cores the hop (a Python
# process) was once starved of the CPU for over a second, and the relay
# rightly took that for a hop that had stopped.
attack_run slow 1 4000000 slow 0 --hop-timeout 3
# ... but one that stops reading half-way is a timeout, not a hang.
attack_run stop 1 1000000 stoptext +1 --hop-timeout 1
# Replies that come one byte per segment are still replies.
attack_run split 3 3000 split,split,split 0 --hop-timeout 5
# Four connections at once, each reused for several messages, replies a byte
# at a time: no deferral, and the cached connections closed at the end.
attack_run many 20 2000 split,split,split,split 0 --hop-timeout 5 --concurrency 4
# A hop that closes as soon as it has said 250 to the dot, before QUIT: the
# message was delivered (no second copy), the next one is not lost.
attack_run dotclose 3 300 dotclose,dotclose,dotclose - --hop-timeout 5
# A hop that says its 250 to the dot twice: the second answers nothing the
# relay asked (or is taken for the next MAIL's): never a second delivery;
# and, in the same write as the first, it is there when the relay reads
# that: the connection is not given the next message (no deferral).
attack_run dottwice 3 300 dottwice,dottwice,dottwice 0 --hop-timeout 5
# ... or a stray 550 behind it: it answers no command, so it must not be
# taken for the reply to the next message's MAIL (which would bounce it).
attack_run dotstray 3 300 dotstray,dotstray,dotstray 0 --hop-timeout 5
# A hop that has sent a 421 and closed by the time the relay reads its 250
# to the dot, one that has closed, one that has sent bytes that answer
# nothing: the connection is idle, and unfit for another message. The
# relay must find that out before it gives the connection the next one,
# not from its MAIL: the message goes on another connection, with no
# deferral (--hop-timeout: the first 250 waits until all are queued).
attack_run idle421 3 300 idle421,idle421,idle421 0 --hop-timeout 30
attack_run idleclose 3 300 idleclose,idleclose,idleclose 0 --hop-timeout 30
attack_run idlejunk 3 300 idlejunk,idlejunk,idlejunk 0 --hop-timeout 30
# A multi-line reply whose lines disagree on the code is no reply.
attack_run mixed 2 300 mixed +1 --hop-timeout 5

finish
