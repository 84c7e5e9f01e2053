#!/bin/bash
# Integration: a relay or a sink listening on a UNIX-domain socket removes
# the socket file it made when it stops (SIGTERM), and only that file: one
# put at the path since (another server's socket, a plain file) stays. A
# relay refused at set-up (a bad --next-hop) leaves no socket file either.
. "${top_srcdir:-.}/tests/helpers/lib.sh"

# inode PATH: the inode number of PATH, or "none".
inode() { stat -c %i "$1" 2>/dev/null || echo none; }

# stand_in PATH: a socket file at PATH that no server owns (python binds and exits).
stand_in() {
    python3 -c 'import socket, sys; socket.socket(socket.AF_UNIX).bind(sys.argv[1])' "$1"
}

# wait_socket PATH PID: until PATH is a socket (10 s at most), while PID runs.
socket_or_gone() { [ -S "$1" ] || ! kill -0 "$2" 2>/dev/null; }
wait_socket() { wait_until 10 socket_or_gone "$1" "$2" && [ -S "$1" ]; }

# unix_sink ERR ARGS...: smtp-sink ARGS in the background, started in
# $WORK (a relative socket path is $WORK's), its errors in $WORK/ERR, its
# PID in sink_pid.
sink_abs=$(realpath "$SINK")
unix_sink() {
    local err=$1
    shift
    (cd "$WORK" && exec timeout --foreground 60 "$sink_abs" "$@" 2>"$WORK/$err") &
    sink_pid=$!
    PIDS="$PIDS $sink_pid"
}

start_sink hop --msg-log "$WORK/hop.log" 127.0.0.1:0 100 || exit 1

# 1. The relay on a unix socket: it serves there, and the file goes at the stop.
RSOCK=$WORK/relay.sock
start_relay relay --spool "$WORK/spool" --next-hop "127.0.0.1:$hop_PORT" --listen "unix:$RSOCK" || exit 1
check "the relay made its socket" wait_socket "$RSOCK" "$relay_PID"
check "smtp-source sends through the relay's unix socket" to "$WORK/src1.out" timeout 60 \
    "$SOURCE" -m 20 -s 2 "unix:$RSOCK"
check "and the next hop has them" wait_until 30 lines_in "$WORK/hop.log" 20
stop "$relay_PID"
check "the relay removed its socket at the stop" test ! -e "$RSOCK"

# 2. Replaced while it ran: the other server's socket stays, and so does a plain file.
start_relay relay2 --spool "$WORK/spool" --next-hop "127.0.0.1:$hop_PORT" --listen "unix:$RSOCK" || exit 1
check "a second relay made its socket" wait_socket "$RSOCK" "$relay2_PID"
mv "$RSOCK" "$WORK/relay.sock.moved"
stand_in "$RSOCK"
other=$(inode "$RSOCK")
stop "$relay2_PID"
check "a socket put at the path since stays" test -S "$RSOCK" -a "$(inode "$RSOCK")" = "$other"
check "  ... and the relay did not chase its own file elsewhere" test -S "$WORK/relay.sock.moved"
rm -f "$RSOCK" "$WORK/relay.sock.moved"

start_relay relay3 --spool "$WORK/spool" --next-hop "127.0.0.1:$hop_PORT" --listen "unix:$RSOCK" || exit 1
check "a third relay made its socket" wait_socket "$RSOCK" "$relay3_PID"
rm -f "$RSOCK"
echo "not a socket" >"$RSOCK"
stop "$relay3_PID"
check "a plain file put at the path since stays" grep -q "not a socket" "$RSOCK"
rm -f "$RSOCK"

# 3. A stale socket (its server gone) is taken over, and removed at the stop as the relay's own.
stand_in "$RSOCK"
start_relay relay4 --spool "$WORK/spool" --next-hop "127.0.0.1:$hop_PORT" --listen "unix:$RSOCK" || exit 1
check "a stale socket is taken over" to "$WORK/src4.out" timeout 60 "$SOURCE" -m 2 "unix:$RSOCK"
stop "$relay4_PID"
check "  ... and removed at the stop" test ! -e "$RSOCK"

# 4. Refused at set-up once listening: exit 2, no socket file, no spool.
to "$WORK/bad.out" timeout 30 "$RELAY" relay --listen "unix:$RSOCK" --spool "$WORK/bad-spool" \
    --next-hop no-such-host.invalid:25
status=$?
check "a bad --next-hop is a usage error (exit 2): $status" test "$status" = 2
check "  ... that names it" grep -q "no-such-host.invalid" "$WORK/bad.out"
check "  ... and leaves no socket file" test ! -e "$RSOCK"
check "  ... and no spool" test ! -e "$WORK/bad-spool"

# 5. smtp-sink: the same, through the same helper.
SSOCK=$WORK/sink.sock
unix_sink sink.err --json "$WORK/sink.json" "unix:$SSOCK" 10
check "the sink made its socket" wait_socket "$SSOCK" "$sink_pid"
check "smtp-source sends to the sink's unix socket" to "$WORK/src5.out" timeout 60 "$SOURCE" -m 5 \
    "unix:$SSOCK"
stop "$sink_pid"
check "  ... the sink counted 5" test "$(json_get "$WORK/sink.json" messages)" = 5
check "the sink removed its socket at the stop" test ! -e "$SSOCK"

rm -f "$SSOCK"
unix_sink sink2.err "unix:$SSOCK" 10
check "a second sink made its socket" wait_socket "$SSOCK" "$sink_pid"
rm -f "$SSOCK"
stand_in "$SSOCK"
other=$(inode "$SSOCK")
stop "$sink_pid"
check "a socket put at the sink's path since stays" test -S "$SSOCK" -a "$(inode "$SSOCK")" = "$other"

# 6. A sink in a chroot (-R) still finds its socket file at the stop: it
# holds the file's directory open, as it does for a relative path.
if [ "$(id -u)" = 0 ]; then
    mkdir -p "$WORK/jail"
    unix_sink sink3.err -R "$WORK/jail" "unix:$WORK/jailed.sock" 10
    check "a sink with -R made its socket" wait_socket "$WORK/jailed.sock" "$sink_pid"
    check "  ... and serves there" to "$WORK/src6.out" timeout 60 "$SOURCE" -m 2 \
        "unix:$WORK/jailed.sock"
    stop "$sink_pid"
    check "  ... and removed its socket at the stop, from inside the chroot" \
        test ! -e "$WORK/jailed.sock"
else
    skip_part "the chroot case (-R) needs root"
fi
unix_sink sink4.err unix:relative.sock 10
check "a sink on a relative path made its socket" wait_socket "$WORK/relative.sock" "$sink_pid"
stop "$sink_pid"
check "  ... and removed it at the stop" test ! -e "$WORK/relative.sock"

check "no warning from the sinks or the relays" \
    test -z "$(grep -l warning "$WORK"/sink*.err "$WORK"/relay*.err)"

stop "$hop_PID"
finish
