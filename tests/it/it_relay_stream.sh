#!/bin/bash
# Integration: a delivery holds a window of its message, not the message
# (issue 23, item 7). As Postfix's smtp reads the queue file a record at a
# time while it writes to the socket, the relay reads the content of a
# large queue file in pieces and stuffs each into the connection's output
# only once the output has drained below its low-water mark. So the peak
# resident memory of a relay that received and delivered one message of
# 16 MB and of one that did the same with 64 MB differ by far less than the
# 48 MB between them, and neither comes near its message (before: the
# whole file read, then all of its text queued: about 2 x the message).
# The messages arrive intact at smtp-sink, once; with --hop-tls the same
# holds through OpenSSL's bufferevent.
. "${top_srcdir:-.}/tests/helpers/lib.sh"

[ -r /proc/self/status ] || skip "/proc/PID/status is required to read the relay's memory"
# A sanitizer build keeps freed memory resident on purpose (AddressSanitizer's quarantine):
# that is the sanitizer's memory, not the relay's. (Ignored by a normal build.)
export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}quarantine_size_mb=0"
MB=1000000
GROWTH_KIB=$((4 * 1024)) # what 48 MB more of message may cost at most

real_pid() { pgrep -P "$1" spoolsim || echo "$1"; }
hwm_kib() { awk '$1 == "VmHWM:" { print $2 }' "/proc/$1/status"; }

declare -A HWM BASE
for tls in plain tls; do
    sink_tls=() relay_tls=()
    if [ $tls = tls ]; then
        sink_tls=(--tls)
        relay_tls=(--hop-tls encrypt)
    fi
    for mb in 16 64; do
        name=$tls$mb
        size=$((mb * MB))
        start_sink "s$name" "${sink_tls[@]}" --msg-log "$WORK/$name.sink.log" 127.0.0.1:0 100 ||
            exit 1
        eval "sport=\$s${name}_PORT"
        start_relay "r$name" --spool "$WORK/$name.spool" --next-hop "127.0.0.1:$sport" \
            "${relay_tls[@]}" --max-size $((size + MB)) || exit 1
        eval "rport=\$r${name}_PORT rpid=\$r${name}_PID spid=\$s${name}_PID"
        BASE[$name]=$(hwm_kib "$(real_pid "$rpid")") # before any message: the program's own
        check "$tls, $mb MB: accepted" to "$WORK/$name.src" timeout 60 "$SOURCE" -l "$size" -m 1 \
            --msg-log "$WORK/$name.src.log" "127.0.0.1:$rport"
        check "$tls, $mb MB: delivered" wait_spool_empty "$WORK/$name.spool" 60
        HWM[$name]=$(hwm_kib "$(real_pid "$rpid")")
        stop "$rpid"
        stop "$spid"
        report=$(delivery_report "$WORK/$name.src.log" "$WORK/$name.sink.log")
        check "$tls, $mb MB: intact, once ($report)" test "$report" = "acked 1, lost 0, duplicated 0"
        echo "# $tls, one $size-byte message: relay VmHWM ${HWM[$name]} KiB"
    done
    small=${HWM[${tls}16]:-0} big=${HWM[${tls}64]:-0} base=${BASE[${tls}64]:-0}
    check "$tls: 48 MB more of message, peak RSS $((big - small)) KiB more (< $GROWTH_KIB KiB)" \
        test $((big - small)) -lt $GROWTH_KIB
    # What the message added to the peak, over the relay's own before it (its libraries; in a
    # sanitizer build some 20 MiB of shadow memory, which put the peak itself past the bound)
    check "$tls: the 64 MB message added $((big - base)) KiB to the peak, below half of it ($((64 * MB / 1024 / 2)) KiB)" \
        test "$big" -gt 0 -a "$base" -gt 0 -a $((big - base)) -lt $((64 * MB / 1024 / 2))
done

# A queue file damaged in the middle of its content: the delivery has sent a part when it finds
# out. It must not end with a dot: the connection is dropped, the hop keeps nothing, and the file
# goes to corrupt/ as one found damaged at activation does; an intact one beside it goes through.
# qfile.py SPOOL: what it does to the deferred files, and the text of the one it leaves intact.
cat >"$WORK/qfile.py" <<'PY'
import glob, os, sys

def records(data):
    off = 0
    while off < len(data):
        start, rtype, n, shift = off, data[off], 0, 0
        off += 1
        while True:
            b = data[off]
            off += 1
            n |= (b & 0x7F) << shift
            shift += 7
            if not b & 0x80:
                break
        yield start, chr(rtype), data[off:off + n]
        off += n

spool, expected = sys.argv[1], sys.argv[2]
files = sorted(glob.glob(os.path.join(spool, "deferred", "*", "*")))
assert len(files) == 2, files
damaged, intact = files
data = bytearray(open(damaged, "rb").read())
content = [(o, t) for o, t, _ in records(bytes(data)) if t in "NL"]
offset = content[len(content) // 2][0]
data[offset] = ord("Z")  # no record type Postfix has, half-way through the content
open(damaged, "wb").write(data)
text = b"".join(d + (b"\r\n" if t == "N" else b"") for _, t, d in records(open(intact, "rb").read())
                if t in "NL")
open(expected, "wb").write(text)
print(os.path.basename(damaged), offset)
PY

# two_deferred NAME: two 4 MB messages deferred in $WORK/NAME.spool, one of them damaged; the
# intact one's text in $WORK/NAME.expected; their retry is due.
two_deferred() {
    local spool=$WORK/$1.spool
    start_dead_hop "dead$1" || return 1
    eval "dead_port=\$dead${1}_PORT"
    start_relay "d$1" --spool "$spool" --next-hop "127.0.0.1:$dead_port" --min-backoff 1h \
        --max-backoff 1h --max-size $((5 * MB)) || return 1
    eval "local port=\$d${1}_PORT pid=\$d${1}_PID"
    to "$WORK/d$1.src" timeout 60 "$SOURCE" -m 2 -l $((4 * MB)) --msg-log "$WORK/$1.src.log" \
        "127.0.0.1:$port" || return 1
    wait_until 20 files_in "$spool/deferred" 2 || { stop "$pid"; return 1; }
    stop "$pid"
    python3 "$WORK/qfile.py" "$spool" "$WORK/$1.expected" >"$WORK/$1.damaged" || return 1
    find "$spool/deferred" -type f -exec touch -d "1 hour ago" {} +
}

check "two messages deferred, one damaged half-way" two_deferred hop
bad=$(awk '{ print $1 }' "$WORK/hop.damaged")
start_sink shop --msg-log "$WORK/hop.sink.log" 127.0.0.1:0 100 || exit 1
start_relay rhop --spool "$WORK/hop.spool" --next-hop "127.0.0.1:$shop_PORT" --max-size $((5 * MB)) ||
    exit 1
check "SMTP: the damaged file goes to corrupt/" wait_until 30 test -f "$WORK/hop.spool/corrupt/$bad"
check "SMTP: the spool drains" wait_spool_empty "$WORK/hop.spool" 30
stop "$rhop_PID"
stop "$shop_PID"
check "SMTP: the hop took one message, the intact one" test "$(wc -l <"$WORK/hop.sink.log")" = 1
check "SMTP: the relay says why" grep -q "$bad: corrupt queue file moved to corrupt/: queue file content at offset" \
    "$WORK/rhop.err"
check "SMTP: no end of data was sent for it" grep -q "$bad: .*dropping the connection .* before the end of data" \
    "$WORK/rhop.err"
check "SMTP: counted corrupt, not delivered" grep -q "^received 0 .*" "$WORK/rhop.err"

check "two messages deferred, one damaged half-way" two_deferred md
bad=$(awk '{ print $1 }' "$WORK/md.damaged")
start_relay rmd --spool "$WORK/md.spool" --next-hop "maildir:$WORK/Maildir" --max-size $((5 * MB)) ||
    exit 1
check "maildir: the damaged file goes to corrupt/" wait_until 30 test -f "$WORK/md.spool/corrupt/$bad"
check "maildir: the spool drains" wait_spool_empty "$WORK/md.spool" 30
stop "$rmd_PID"
check "maildir: one message in new/, none left in tmp/" \
    test "$(find "$WORK/Maildir/new" -type f | wc -l) $(find "$WORK/Maildir/tmp" -type f | wc -l)" = "1 0"
check "maildir: the intact one, byte for byte" cmp -s "$WORK/md.expected" "$WORK/Maildir/new/"*
check "maildir: the relay says why" grep -q "$bad: corrupt queue file moved to corrupt/: queue file content at offset" \
    "$WORK/rmd.err"
finish
