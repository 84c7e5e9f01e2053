#!/bin/bash
# Integration: the text the relay sends its next hop is the text it took in,
# byte for byte: awkward lines (leading dots, a lone ".", bare CR and LF,
# a last line without end) and a large message of long lines (queue file
# records split in pieces, output reserved in several pieces), through a
# hop with PIPELINING and one without, one and three recipients.
. "${top_srcdir:-.}/tests/helpers/lib.sh"

printf 'Subject: relay text\n\n.foo\r\n.\nbare\rcr\n..two dots\n.\r\nlast line without end' \
    >"$WORK/small"
printf 'Subject: relay text\r\n\r\n.foo\r\n.\r\nbare\r\ncr\r\n..two dots\r\n.\r\nlast line without end\r\n' \
    >"$WORK/small.expected"
# About 300 KiB: lines of 1 to 12000 bytes, one in five starting with a dot.
python3 - "$WORK/large" <<'PY' || exit 1
import random, sys
rnd = random.Random(7)
lines = ["Subject: large"]
while sum(len(l) + 2 for l in lines) < 300000:
    n = rnd.choice((1, 60, 78, 998, 4095, 4096, 4097, 12000))
    body = "".join(rnd.choice("abc .xyz") for _ in range(n))
    lines.append(("." if rnd.random() < 0.2 else "") + body)
open(sys.argv[1], "w").write("\r\n".join(lines) + "\r\n")
PY
cp "$WORK/large" "$WORK/large.expected"

for hop in pipelining plain; do
    opt=
    [ "$hop" = plain ] && opt=-p
    mkdir "$WORK/dumps-$hop"
    start_sink "sink_$hop" $opt -d "$WORK/dumps-$hop/m." 127.0.0.1:0 10 || exit 1
    port_var=sink_${hop}_PORT
    start_relay "relay_$hop" --spool "$WORK/spool-$hop" --next-hop "127.0.0.1:${!port_var}" || exit 1
    relay_port_var=relay_${hop}_PORT
    for payload in small large; do
        for rcpts in 1 3; do
            check "$hop hop: $payload, $rcpts recipients, relayed" to "$WORK/$hop.$payload.$rcpts.out" \
                timeout 60 "$SOURCE" -m 2 -r "$rcpts" -F "$WORK/$payload" "127.0.0.1:${!relay_port_var}"
        done
    done
    check "$hop hop: the spool drains" wait_spool_empty "$WORK/spool-$hop" 60
    relay_pid_var=relay_${hop}_PID sink_pid_var=sink_${hop}_PID
    stop "${!relay_pid_var}"
    stop "${!sink_pid_var}"
    for payload in small large; do
        size=$(wc -c <"$WORK/$payload.expected")
        count=0
        for f in $(grep -l "^Subject: $( [ $payload = small ] && echo 'relay text' || echo large)" \
            "$WORK/dumps-$hop"/m.*); do
            count=$((count + 1))
            tail -c "$size" "$f" >"$WORK/tail"
            check "$hop hop: $payload dump $count is the text, byte for byte" \
                cmp -s "$WORK/tail" "$WORK/$payload.expected"
        done
        check "$hop hop: four $payload messages reached the hop" test "$count" = 4
    done
done
finish
