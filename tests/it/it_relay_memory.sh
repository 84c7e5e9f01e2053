#!/bin/bash
# Integration: the relay's memory does not grow with the messages in flight.
# As Postfix's cleanup, the relay creates the queue file in incoming/ (0600)
# at the first accepted RCPT and writes the text into it as it arrives, so a
# session costs a small constant whatever it sends: 20 sessions holding 8 MiB
# of unfinished DATA each stay far below 20 x 8 MiB of resident memory, and a
# 100 MB message goes through without the relay ever holding it, on the way
# in or out. RSET, a message over --max-size (552) and a dropped connection
# leave no file behind.
. "${top_srcdir:-.}/tests/helpers/lib.sh"

command -v python3 >/dev/null || skip "python3 is required"
[ -r /proc/self/status ] || skip "/proc/PID/status is required to read the relay's memory"
HOLD="$top_srcdir/tests/helpers/data_hold.py"
# A sanitizer build keeps freed memory resident on purpose (AddressSanitizer's quarantine,
# 256 MiB): that is the sanitizer's memory, not the relay's. (Ignored by a normal build.)
export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}quarantine_size_mb=0"
MIB=$((1024 * 1024))

# relay_kib NAME FIELD: VmHWM or VmRSS of the relay NAME (not of the timeout(1) that runs it), KiB.
relay_kib() {
    local pid
    eval "pid=\$${1}_PID"
    pid=$(pgrep -P "$pid" spoolsim || echo "$pid")
    awk -v f="$2:" '$1 == f { print $2 }' "/proc/$pid/status"
}

# incoming_bytes SPOOL: what the files in incoming/ hold together.
incoming_bytes() {
    find "$1/incoming" -type f -printf '%s\n' 2>/dev/null | awk '{ t += $1 } END { print t + 0 }'
}

# on_disk_at_least SPOOL BYTES / incoming_empty SPOOL: for wait_until, looked at anew each time.
on_disk_at_least() { [ "$(incoming_bytes "$1")" -ge "$2" ]; }
incoming_empty() { [ -z "$(find "$1/incoming" -type f)" ]; }

# At the first RCPT, not before; gone after RSET, a 552, a dropped connection.
start_relay steps --spool "$WORK/steps.spool" --next-hop discard --max-size 100000 || exit 1
timeout 60 python3 "$HOLD" steps "$steps_PORT" "$WORK/steps.spool" 150000 >"$WORK/steps.out" 2>&1
cat "$WORK/steps.out"
check "after MAIL: no queue file yet" grep -qx "mail files=0 modes=-" "$WORK/steps.out"
check "the first RCPT is accepted" grep -qx "rcpt-reply 250" "$WORK/steps.out"
check "after the first RCPT: one file in incoming/, mode 0600 (not yet complete)" \
    grep -qx "rcpt files=1 modes=600" "$WORK/steps.out"
check "a second RCPT: still that one file" grep -qx "rcpt2 files=1 modes=600" "$WORK/steps.out"
check "RSET is answered" grep -qx "rset-reply 250" "$WORK/steps.out"
check "after RSET: the file is gone" grep -qx "rset files=0 modes=-" "$WORK/steps.out"
check "in DATA: the file is there" grep -qx "data files=1 modes=600" "$WORK/steps.out"
check "a message over --max-size gets 552" grep -qx "big-reply 552" "$WORK/steps.out"
check "  ... and leaves no file" grep -qx "big files=0 modes=-" "$WORK/steps.out"
check "a whole message gets 250" grep -qx "whole-reply 250" "$WORK/steps.out"
check "a dropped connection in DATA: its file is gone" grep -qx "drop files=0 modes=-" \
    "$WORK/steps.out"
stop "$steps_PID"
check "the relay counted the one message" grep -q "^received 1 " "$WORK/steps.err"
check "nothing is left in the spool" test -z "$(spool_files "$WORK/steps.spool")"

# 20 sessions with 8 MiB of unfinished DATA each: on disk, not in memory.
sessions=20
each=$((8 * MIB))
bound_kib=$((64 * 1024))
start_relay hold --spool "$WORK/hold.spool" --next-hop discard --max-size 20000000 || exit 1
mkfifo "$WORK/hold.in"
timeout 120 python3 "$HOLD" hold "$hold_PORT" "$sessions" "$each" <"$WORK/hold.in" \
    >"$WORK/hold.out" 2>&1 &
hold_client=$!
PIDS="$PIDS $hold_client"
exec 3>"$WORK/hold.in"
check "the sessions hold their unfinished DATA" wait_until 90 grep -q "^holding" "$WORK/hold.out"
# The last 4 KiB of each session wait in the stream buffer, as in Postfix's cleanup.
check "their text reaches incoming/" \
    wait_until 30 on_disk_at_least "$WORK/hold.spool" $((sessions * (each - 65536)))
on_disk=$(incoming_bytes "$WORK/hold.spool")
hwm=$(relay_kib hold VmHWM)
rss=$(relay_kib hold VmRSS)
echo "# $sessions sessions x $((each / MIB)) MiB unfinished: VmHWM ${hwm} KiB, VmRSS ${rss} KiB," \
    "$on_disk bytes in incoming/"
check "the clients sent everything ($(cat "$WORK/hold.out"))" \
    grep -q "^holding $sessions unsent 0" "$WORK/hold.out"
check "the unfinished text is in incoming/ ($on_disk bytes)" \
    test "$on_disk" -ge $((sessions * (each - 65536)))
check "peak RSS ${hwm} KiB < ${bound_kib} KiB (20 x 8 MiB would be $((sessions * each / 1024)))" \
    test "$hwm" -lt "$bound_kib"
exec 3>&-
rm -f "$WORK/hold.in" # finish() greps every file in $WORK: no FIFO may stay
wait "$hold_client"
check "dropped sessions leave no file in incoming/" wait_until 20 incoming_empty "$WORK/hold.spool"
stop "$hold_PID"

# One 100 MB message, received and delivered: neither way holds a copy of it. The way out reads
# the queue file a window at a time (it_relay_stream.sh shows the peak does not grow with the
# message; before, the file read whole and its stuffed text made ~2 x, and before that the
# receiving side's copy too, ~4 x).
bound_big_kib=$((100000000 / 1024 / 2))
size=100000000
start_sink big --msg-log "$WORK/big.sink.log" 127.0.0.1:0 100 || exit 1
start_relay bigr --spool "$WORK/big.spool" --next-hop "127.0.0.1:$big_PORT" \
    --max-size 200000000 || exit 1
check "a 100 MB message is accepted" to "$WORK/big.src" timeout 120 "$SOURCE" -l "$size" -m 1 \
    --msg-log "$WORK/big.src.log" "127.0.0.1:$bigr_PORT"
check "  ... and delivered" wait_spool_empty "$WORK/big.spool" 120
hwm=$(relay_kib bigr VmHWM)
echo "# one $size-byte message: VmHWM ${hwm} KiB"
check "  ... intact ($(delivery_report "$WORK/big.src.log" "$WORK/big.sink.log"))" \
    grep -q "acked 1, lost 0, duplicated 0" <(delivery_report "$WORK/big.src.log" "$WORK/big.sink.log")
check "peak RSS ${hwm} KiB < ${bound_big_kib} KiB, half the message" \
    test "$hwm" -lt "$bound_big_kib"
stop "$bigr_PID"
stop "$big_PID"
finish
