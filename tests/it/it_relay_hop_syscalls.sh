#!/bin/bash
# Integration: the system calls the relay makes on its connections to the
# next hop, counted with strace -yy (each socket named by its ports). Per
# message: the safety checks of relay_smtp.c stay (a MSG_PEEK as a
# connection takes the message, that the hop has not closed it or spoken
# out of turn, and one before the text goes out; SIOCOUTQ before the reply
# to the dot is believed), and
# nothing else asks the kernel about the socket: no FIONREAD before a read
# (the bufferevent's habit). Two writes a message with PIPELINING: the
# envelope group and the text.
. "${top_srcdir:-.}/tests/helpers/lib.sh"

command -v strace >/dev/null || skip "strace is not installed"
strace -f -o /dev/null true 2>/dev/null || skip "strace cannot trace here (ptrace not permitted)"

N=100
SPOOL=$WORK/spool
start_sink sink 127.0.0.1:0 100 || exit 1
start_relay_strace relay -yy -e trace=ioctl,recvfrom,recvmsg,read,readv,write,writev,sendto,sendmsg \
    -- --spool "$SPOOL" --model none --next-hop "127.0.0.1:$sink_PORT"
check "relay started under strace" test -n "$relay_PID"
check "$N messages relayed" to "$WORK/src.out" timeout 60 "$SOURCE" -s 5 -m $N \
    "127.0.0.1:$relay_PORT"
check "the spool drains" wait_spool_empty "$SPOOL" 60
stop "$relay_PID"
stop "$sink_PID"

python3 - "$WORK/trace" "$sink_PORT" >"$WORK/counts" <<'PY'
import collections, glob, re, sys
prefix, port = sys.argv[1], sys.argv[2]
c = collections.Counter()
for f in glob.glob(prefix + ".*"):
    for line in open(f):
        m = re.match(r"(\w+)\(\d+<TCP:\[[\d.]+:\d+->[\d.]+:(\d+)\]>(.*)", line)
        if not m or m.group(2) != port:
            continue
        call, rest = m.group(1), m.group(3)
        if call == "ioctl":
            call = "FIONREAD" if "FIONREAD" in rest else "OUTQ" if "OUTQ" in rest else "ioctl"
        elif call == "recvfrom" and "MSG_PEEK" in rest:
            call = "peek"
        elif call in ("read", "readv", "recvfrom", "recvmsg"):
            call = "read"
        elif call in ("write", "writev", "sendto", "sendmsg"):
            call = "write"
        c[call] += 1
print(" ".join("%s=%d" % (k, c[k]) for k in ("FIONREAD", "OUTQ", "peek", "read", "write", "ioctl")))
PY
counts=$(cat "$WORK/counts")
echo "next-hop sockets, $N messages: $counts"
get() { echo "$counts" | tr ' ' '\n' | sed -n "s/^$1=//p"; }
check "no FIONREAD on the hop's sockets ($(get FIONREAD))" test "$(get FIONREAD)" = 0
check "SIOCOUTQ before every reply to the dot ($(get OUTQ) for $N)" test "$(get OUTQ)" -ge $N
check "a peek as each message is taken and before its text ($(get peek) for $N)" \
    test "$(get peek)" -ge $((2 * N))
# Per connection EHLO and QUIT are writes too: at most 20 connections.
check "two writes a message, with PIPELINING ($(get write) for $N)" \
    test "$(get write)" -ge $((2 * N)) -a "$(get write)" -le $((2 * N + 2 * 20))
finish
