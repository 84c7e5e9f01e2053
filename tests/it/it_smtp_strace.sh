#!/bin/bash
# Integration: the socket calls smtp-source and smtp-sink make per message,
# counted with strace, in both of bench/smtp-pair.sh's modes (a connection
# per message, and -d). Each reads a socket with one read() per event: no
# ioctl(FIONREAD) and no readv (libevent's bufferevent makes both before
# every read), so no more reads than the peer sends replies or commands.
# smtp-source finds its loopback connection up right after connect(), so it
# neither waits for EPOLLOUT (a getsockopt(SO_ERROR) and two epoll_ctl
# calls more) nor leaves TIME_WAIT behind: like Postfix's, it closes with a
# reset (SO_LINGER 0) once the reply to QUIT is in. One tool is traced at a
# time, against the other untraced. The sink's sessions get TCP_NODELAY from
# its listening socket (Linux's accepted sockets inherit it), seen once with
# a getsockopt, not set with a setsockopt per connection. The sink's loop
# yields its CPU between passes (sched_yield), and with --no-yield does not:
# the close-mode sink runs with the default, the reuse-mode one with it.
. "${top_srcdir:-.}/tests/helpers/lib.sh"

command -v strace >/dev/null || skip "strace is not installed"
strace -f -o /dev/null true 2>/dev/null || skip "strace cannot trace here (ptrace not permitted)"

# LeakSanitizer cannot work under ptrace: off for the traced runs of a sanitizer build.
TRACED_ASAN="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0"
N=200
CALLS=read,readv,recvfrom,recvmsg,ioctl,epoll_ctl,getsockopt,setsockopt,sched_yield

# count FILE: per-message figures of the socket calls in strace output FILE.
count() {
    python3 - "$1" $N <<'PY'
import re, sys
n = int(sys.argv[2])
c = dict.fromkeys(["read", "readv", "recv", "fionread", "epoll_ctl", "so_error"], 0)
# counts, not per message; nodelay_set on connected sockets (a listener's has no "->")
total = dict.fromkeys(["nodelay_set", "nodelay_seen", "yield"], 0)
for line in open(sys.argv[1]):
    m = re.match(r"\d+\s+(\w+)\((.*)\)\s+=\s+(-?\d+)", line)
    if not m:
        continue
    call, args = m.group(1), m.group(2)
    if call == "sched_yield":
        total["yield"] += 1
    elif call == "epoll_ctl":
        c["epoll_ctl"] += 1
    elif "<TCP" not in args.split(",")[0]:
        continue  # files, pipes, the terminal
    elif call == "read" and int(m.group(3)) > 0:
        c["read"] += 1
    elif call == "readv":
        c["readv"] += 1
    elif call.startswith("recv"):
        c["recv"] += 1
    elif call == "ioctl" and "FIONREAD" in args:
        c["fionread"] += 1
    elif call == "getsockopt" and "SO_ERROR" in args:
        c["so_error"] += 1
    elif call == "setsockopt" and "TCP_NODELAY" in args and "->" in args.split(",")[0]:
        total["nodelay_set"] += 1
    elif call == "getsockopt" and "TCP_NODELAY, [1]" in args:
        total["nodelay_seen"] += 1
for k, v in c.items():
    print(f"{k} {v / n:.2f}")
for k, v in total.items():
    print(f"{k} {v}")
PY
}
# per FILE NAME: the figure NAME from count's output FILE.
per() { awk -v k="$2" '$1 == k { print $2 }' "$1"; }
# le A B: A <= B, as decimals.
le() { awk -v a="$1" -v b="$2" 'BEGIN { exit !(a + 0 <= b + 0) }'; }

# read_checks BASE LABEL MOST LEAST WHAT: BASE.trace counted into BASE.counts
# and shown as "  LABEL: ..."; then its reads per message: none by
# FIONREAD, readv or recv, at most MOST, at least LEAST ("one per WHAT").
read_checks() {
    count "$1.trace" >"$1.counts"
    sed "s/^/  $2: /" "$1.counts"
    check "  ... no ioctl(FIONREAD), readv or recv on its sockets" \
        test "$(per "$1.counts" fionread) $(per "$1.counts" readv) $(per "$1.counts" recv)" = "0.00 0.00 0.00"
    check "  ... at most $3 reads per message" le "$(per "$1.counts" read)" "$3"
    check "  ... at least one read per $5" le "$4" "$(per "$1.counts" read)"
}

for mode in close reuse; do
    d=
    [ "$mode" = reuse ] && d=-d
    # Per message the source reads the replies (banner, EHLO, MAIL, RCPT,
    # DATA, dot, QUIT with a connection each; MAIL, RCPT, DATA, dot with
    # -d), the sink the commands (EHLO, MAIL, RCPT, DATA, the text, QUIT;
    # MAIL, RCPT, DATA, the text); half a read more is noise's allowance.
    if [ "$mode" = close ]; then src_reads=7.5 sink_reads=6.5 ctl=2.05; else src_reads=4.5 sink_reads=4.5 ctl=0.1; fi

    # smtp-source traced; the sink untraced.
    start_sink "sink_$mode" 127.0.0.1:0 100 || exit 1
    eval port=\$sink_${mode}_PORT
    # TIME_WAIT of the sink's port from before: another test's connection
    # that had this number as its own port (while the sink listens, no new one can)
    tw_before=$(ss -Htan state time-wait "( sport = :$port or dport = :$port )" 2>/dev/null | wc -l)
    check "$mode: $N messages from smtp-source under strace" to "$WORK/src-$mode.out" \
        env ASAN_OPTIONS="$TRACED_ASAN" timeout 120 \
        strace -f -yy -qq -e trace=$CALLS -o "$WORK/src-$mode.trace" "$SOURCE" $d -s 2 -m $N "127.0.0.1:$port"
    if [ "$mode" = close ] && command -v ss >/dev/null; then
        check "  ... no TIME_WAIT left on either side (a reset, as Postfix's smtp-source)" \
            test "$(ss -Htan state time-wait "( sport = :$port or dport = :$port )" | wc -l)" -le "$tw_before"
    elif [ "$mode" = close ]; then
        skip_part "close: no TIME_WAIT left: counting them needs ss (iproute2)"
    fi
    eval stop \$sink_${mode}_PID
    read_checks "$WORK/src-$mode" "source $mode" $src_reads "$( [ "$mode" = close ] && echo 7 || echo 4)" \
        "reply: the replies were read"
    check "  ... no getsockopt(SO_ERROR): connected without waiting for EPOLLOUT" \
        test "$(per "$WORK/src-$mode.counts" so_error)" = 0.00
    check "  ... at most $ctl epoll_ctl calls per message" le "$(per "$WORK/src-$mode.counts" epoll_ctl)" $ctl

    # smtp-sink traced (until -n: the source's sessions have ended); the source untraced.
    sessions=2 yield=()
    [ "$mode" = close ] && sessions=$N
    [ "$mode" = reuse ] && yield=(--no-yield)
    ASAN_OPTIONS="$TRACED_ASAN" timeout 120 \
        strace -f -yy -qq -e trace=$CALLS -o "$WORK/sink-$mode.trace" "$SINK" "${yield[@]}" --port-file "$WORK/tsink_$mode.port" -n $sessions 127.0.0.1:0 100 \
        2>"$WORK/tsink_$mode.err" &
    started "tsink_$mode" $! smtp-sink || exit 1
    eval port=\$tsink_${mode}_PORT
    check "$mode: $N messages to smtp-sink under strace" to "$WORK/src2-$mode.out" \
        timeout 120 "$SOURCE" $d -s 2 -m $N "127.0.0.1:$port"
    eval pid=\$tsink_${mode}_PID
    check "  ... the sink exits after its -n $sessions sessions" wait "$pid"
    read_checks "$WORK/sink-$mode" "sink $mode" $sink_reads "$( [ "$mode" = close ] && echo 5 || echo 4)" \
        "command: the commands were read"
    check "  ... at most $ctl epoll_ctl calls per message" le "$(per "$WORK/sink-$mode.counts" epoll_ctl)" $ctl
    if [ "$mode" = close ]; then
        check "  ... its loop yields the CPU between passes" test "$(per "$WORK/sink-$mode.counts" yield)" -gt 0
    else
        check "  ... with --no-yield, no sched_yield" test "$(per "$WORK/sink-$mode.counts" yield)" = 0
    fi
    if [ "$(uname -s)" = Linux ]; then
        check "  ... TCP_NODELAY inherited from the listener: seen on, never set per session" \
            test "$(per "$WORK/sink-$mode.counts" nodelay_seen) $(per "$WORK/sink-$mode.counts" nodelay_set)" = "1 0"
    else
        skip_part "$mode: TCP_NODELAY inherited from the listener (Linux's accept)"
    fi
done
finish
