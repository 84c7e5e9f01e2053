#!/bin/bash
# Integration: a full spool filesystem. On a 1 MiB tmpfs mounted by the
# test (root only), with the next hop down so that nothing leaves, the
# relay must answer 452 4.3.1 once space runs out, leave no partial file,
# keep serving, and deliver everything it acknowledged once the next hop
# returns and space with it.
. "${top_srcdir:-.}/tests/helpers/lib.sh"

MNT=$WORK/full
small_tmpfs "$MNT" 1m

SPOOL=$MNT/spool
free_port port || exit 1
start_relay relay --spool "$SPOOL" --next-hop "127.0.0.1:$port" --min-backoff 200ms \
    --max-backoff 500ms --json "$WORK/relay.json" || exit 1
fill_to_refusal "disk full" "$relay_PORT" "$relay_PID"
accepted=$ACCEPTED refused=$REFUSED
check "no partial or temporary file in the spool" \
    test -z "$(unmarked "$SPOOL" incoming active deferred)"

# The next hop comes back: the queue drains and space returns.
start_sink sink --msg-log "$WORK/sink.log" "127.0.0.1:$port" 100 || exit 1
check "the spool drains once the next hop is back" wait_spool_empty "$SPOOL" 60
check "service resumes: 10 more accepted" to "$WORK/src2.out" timeout 60 "$SOURCE" -s 2 -m 10 \
    -l 65536 --msg-log "$WORK/src2.log" "127.0.0.1:$relay_PORT"
check "and delivered" wait_spool_empty "$SPOOL" 60
stop "$relay_PID"
stop "$sink_PID"
cat "$WORK/src.log" "$WORK/src2.log" >"$WORK/src-all.log"
exactly_once "every acknowledged message delivered once" "$((accepted + 10))" "$WORK/src-all.log" "$WORK/sink.log"
check "the relay counted the refusals" test "$(json_get "$WORK/relay.json" refused_storage)" = "$refused"
finish
