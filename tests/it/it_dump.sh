#!/bin/bash
# Integration: what smtp-source sends is what smtp-sink -d and -D store.
# The payload holds every awkward case of docs/security.md item 4: bare LF, bare
# CR, lines starting with "." and a lone "." line. The source must put only
# CR LF and stuffed dots on the wire; the sink's dump, after un-stuffing,
# must equal the payload with its line ends made CR LF, byte for byte.
. "${top_srcdir:-.}/tests/helpers/lib.sh"

printf 'Subject: dump test\n\n.foo\r\n.\nbare\rcr\n..two dots\nlast line without end' \
    >"$WORK/payload"
printf 'Subject: dump test\r\n\r\n.foo\r\n.\r\nbare\r\ncr\r\n..two dots\r\nlast line without end\r\n' \
    >"$WORK/expected"

mkdir "$WORK/dumps"
start_sink d --bare-lf strict -d "$WORK/dumps/%Y/msg." -D "$WORK/all.mbox" 127.0.0.1:0 10 || exit 1
check "source sends the -F payload 3 times" to "$WORK/o1" timeout 30 "$SOURCE" -m 3 -d \
    -F "$WORK/payload" "127.0.0.1:$d_PORT"
check "  ... strict sink accepted all (no bare CR/LF reached it)" \
    grep -q "3 messages delivered, 0 failed" "$WORK/o1"
stop "$d_PID"

count=0
for f in "$WORK"/dumps/*/msg.*; do
    count=$((count + 1))
    size=$(wc -c <"$WORK/expected")
    tail -c "$size" "$f" >"$WORK/tail"
    check "dump $count ends with exactly the payload" cmp -s "$WORK/tail" "$WORK/expected"
    check "dump $count has the envelope headers" grep -q "^X-Rcpt-Args: <foo@" "$f"
done
check "three dump files, in the directory the template made" test "$count" = 3
check "-D appended three whole messages" test "$(grep -c '^X-Client-Addr: 127.0.0.1' "$WORK/all.mbox")" = 3

# A message the sink refuses leaves no dump file behind.
mkdir "$WORK/dumps2"
start_sink r -r . -d "$WORK/dumps2/m." 127.0.0.1:0 10 || exit 1
to "$WORK/o2" timeout 30 "$SOURCE" -m 2 -l 100 "127.0.0.1:$r_PORT"
stop "$r_PID"
check "refused messages leave no dump files" test -z "$(ls -A "$WORK/dumps2")"
finish
