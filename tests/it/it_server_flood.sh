#!/bin/bash
# Integration: a client that pipelines commands and never reads its replies
# (docs/security.md item 11, issue 33 item 1). Both servers stop taking
# commands while more than 32 KiB of replies wait to be sent, so the input
# fills to its mark, reading stops and TCP holds the client back: smtp-sink
# and the relay stay a few MB whatever is sent (before: 4 GB for 200 MB of
# EHLO). Once the client reads, every command that waited is answered, in
# plain text and inside TLS. A client that never reads is dropped after the
# idle timeout. tests/helpers/smtp_flood.py is the client; --junk-limit 0
# here, so that the junk limit (probe limits) does not end the floods first.
. "${top_srcdir:-.}/tests/helpers/lib.sh"

command -v python3 >/dev/null || skip "python3 is needed for the flooding client"
[ -r /proc/self/status ] || skip "/proc/PID/status is required to read the servers' memory"
# A sanitizer build keeps freed memory resident on purpose (AddressSanitizer's quarantine):
# that is the sanitizer's memory, not the server's. (Ignored by a normal build.)
export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}quarantine_size_mb=0"
FLOOD="$top_srcdir/tests/helpers/smtp_flood.py"
BOUND_KIB=$((64 * 1024))

real_pid() { pgrep -P "$1" || echo "$1"; }
value() { awk -v k="$1" '$1 == k { print $2 }' "$2"; }
hwm_kib() { awk '$1 == "VmHWM:" { print $2 }' "/proc/$1/status"; }

# flood NAME PID PORT MODE [FLOOD_OPTION...]: one connection; its facts in $WORK/NAME.MODE.out.
flood() {
    local name=$1 pid=$2 port=$3 mode=$4 out label
    shift 4
    out="$WORK/$name.$mode${1:+.tls}.out" label="$mode${1:+ over TLS}"
    timeout 240 python3 "$FLOOD" "$mode" "$port" "$pid" --bound-kib $BOUND_KIB "$@" >"$out" 2>&1
    echo "# $name $mode $*: $(tr '\n' ' ' <"$out")"
    check "$name, $label: the server stopped reading (TCP held the client back)" \
        test "$(value stalled "$out")" = 1
    check "  ... and stayed under $((BOUND_KIB / 1024)) MB meanwhile" \
        test "$(value over "$out")" = 0 -a "$(value rss_max "$out")" -lt $BOUND_KIB
    check "  ... without spinning meanwhile ($(value idle_cpu_ms "$out") ms of CPU in 1 s)" \
        test "$(value idle_cpu_ms "$out")" -lt 300
    check "  ... once the client read, every command was answered ($(value commands "$out"))" \
        test "$(value replies "$out")" = "$(value commands "$out")"
    check "  ... the last one (QUIT) with 221, and the session closed" \
        test "$(value last "$out")" = 221 -a "$(value closed "$out")" = 1
}

for server in sink relay; do
    if [ $server = sink ]; then
        start_sink $server --tls --junk-limit 0 127.0.0.1:0 10 || exit 1
    else
        start_relay $server --spool "$WORK/spool" --next-hop discard --tls --junk-limit 0 || exit 1
    fi
    eval "pid=\$${server}_PID port=\$${server}_PORT"
    pid=$(real_pid "$pid")
    for mode in ehlo noop rcpt; do
        flood $server "$pid" "$port" $mode
    done
    flood $server "$pid" "$port" noop --tls
    hwm=$(hwm_kib "$pid")
    echo "# $server: peak resident memory (VmHWM) after the floods: $hwm KiB"
    check "$server: its peak resident memory stayed under $((BOUND_KIB / 1024)) MB" \
        test "$hwm" -lt $BOUND_KIB
    eval "stop \$${server}_PID"
done

# A paused session is not read from, so only the timeout on writing ends it:
# a client that never reads is dropped once it has read nothing for that long.
start_sink idle --junk-limit 0 -t 1 127.0.0.1:0 10 || exit 1
start_relay ridle --spool "$WORK/spool-idle" --next-hop discard --junk-limit 0 --timeout 1 || exit 1
clients=
for name in idle ridle; do
    eval "pid=\$${name}_PID port=\$${name}_PORT"
    timeout 120 python3 "$FLOOD" noop "$port" "$(real_pid "$pid")" --idle 3 >"$WORK/$name.out" 2>&1 &
    clients="$clients $!"
done
wait $clients
for name in idle ridle; do
    echo "# $name: $(tr '\n' ' ' <"$WORK/$name.out")"
    check "$name: a client that reads nothing for the timeout is dropped, its replies unsaid" \
        test "$(value closed "$WORK/$name.out")" = 1 -a "$(value last "$WORK/$name.out")" != 221
    eval "stop \$${name}_PID"
done
finish
