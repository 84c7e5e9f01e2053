#!/bin/bash
# Integration: a spool that runs out of room, two ways (root only: the
# test mounts its own small tmpfs file systems).
#
# 1. Crashes while space runs out. On a 2 MiB tmpfs, with the next hop
#    down (a free port) so that nothing leaves, smtp-source fills the
#    spool with messages of 20-60 KiB until 452s come, and the relay is
#    killed with SIGKILL, RELAY_FILL_CYCLES times (3), restarted on the
#    same spool each time. The file system grows by 1 MiB a cycle, and the
#    kill comes at a random moment while that room fills (50-99 % of it
#    used) or 0-0.3 s after the first 452 (always so in the last cycle).
#    After each kill, every file marked complete (0700) must end with its
#    E record, and a file not so marked may only be in incoming/ (a
#    message being written); once the restarted relay has recovered (its
#    greeting comes after recovery), those must be gone and nothing
#    unmarked or temporary may be queued. Then the next hop comes back:
#    the spool drains and no acknowledged message is lost (a duplicate is
#    allowed after a crash, and counted).
# 2. Inode exhaustion. The relay is started on a roomy tmpfs, the inodes
#    its spool layout takes are counted, and the file system is remounted
#    with nr_inodes leaving RELAY_FILL_INODES (4) to spare: so few that the
#    first queue files take them all before a hash directory of deferred/
#    or defer/ can be made. Creates fail with ENOSPC: the client must get
#    452 4.3.1, no partial file may stay, the relay keeps serving. A
#    message whose move to deferred/ fails for want of an inode must still
#    be delivered once the next hop is back (the relay used to retry only
#    the move, forever); the spool drains, service resumes, and every
#    acknowledged message is delivered exactly once.
. "${top_srcdir:-.}/tests/helpers/lib.sh"

[ "$(id -u)" = 0 ] || skip "mounting small tmpfs file systems needs root"
CYCLES=${RELAY_FILL_CYCLES:-3}
SPARE_INODES=${RELAY_FILL_INODES:-4}
MNT1=$WORK/fill
MNT2=$WORK/inodes
mkdir -p "$MNT1" "$MNT2"
mount -t tmpfs -o size=2m tmpfs "$MNT1" 2>/dev/null || skip "cannot mount tmpfs here"

trap 'unmount_and_cleanup "$MNT1" "$MNT2"' EXIT

# banner PORT: wait for the relay's 220. The relay recovers its spool
# before its event loop runs, so after the banner recovery is over.
greets() {
    timeout 10 python3 - "$1" <<'PY'
import socket, sys
try:
    s = socket.create_connection(("127.0.0.1", int(sys.argv[1])), timeout=5)
    line = s.makefile("rb").readline()
    s.sendall(b"QUIT\r\n")
except OSError:
    sys.exit(1)
sys.exit(0 if line.startswith(b"220") else 1)
PY
}
banner() { wait_until 30 greets "$1"; }

# kill_moment MNT KIB MS SRC_OUT: return when KIB KiB of the file system
# are used, or, with KIB 0, MS ms after the client's first 452 (smtp-source
# -v logs the replies); 10 s at most. Prints the moment.
kill_moment() {
    python3 - "$@" <<'PY'
import os, sys, time
mnt, kib, ms, out = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4]
deadline = time.time() + 10
while time.time() < deadline:
    if kib:
        s = os.statvfs(mnt)
        if (s.f_blocks - s.f_bfree) * s.f_frsize >= kib * 1024:
            sys.exit(print(f"at {kib} KiB used"))
    else:
        try:
            if b"< 452 " in open(out, "rb").read():
                time.sleep(ms / 1000)
                sys.exit(print(f"{ms} ms after the first 452"))
        except FileNotFoundError:
            pass
    time.sleep(0.005)
print("after 10 s without the moment")
PY
}

# ---------------------------------------------------- 1. crashes while filling
SPOOL=$MNT1/spool
free_port port || exit 1
RANDOM=$$
: >"$WORK/src.log"
: >"$WORK/incomplete.prev"
refused_total=0
texts_total=0
for cycle in $(seq 1 "$CYCLES"); do
    mount -o remount,size=$((cycle + 1))m "$MNT1" || { echo "cannot grow $MNT1" >&2; exit 1; }
    start_relay relay --spool "$SPOOL" --next-hop "127.0.0.1:$port" --min-backoff 100ms \
        --max-backoff 300ms || exit 1
    relay_real=$(pgrep -P "$relay_PID" spoolsim || echo "$relay_PID")
    check "cycle $cycle: the relay recovers and greets" banner "$relay_PORT"
    if [ "$cycle" -gt 1 ]; then
        left=$(while read -r f; do [ -e "$f" ] && echo "$f"; done <"$WORK/incomplete.prev")
        check "cycle $cycle: recovery removed the $(wc -l <"$WORK/incomplete.prev") incomplete file(s) of the last crash" \
            test -z "$left"
        found=$(unmarked "$SPOOL" incoming active deferred)
        check "cycle $cycle: after recovery no unmarked or temporary file is queued" test -z "$found"
        [ -z "$found" ] || ls -l $found
    fi
    timeout 30 "$SOURCE" -v -s 4 --rate 60 -m 90 --size uniform:20k:60k --seed "$cycle$RANDOM" \
        --ignore-failures --json "$WORK/src.$cycle.json" --msg-log "$WORK/src.$cycle.log" \
        "127.0.0.1:$relay_PORT" >"$WORK/src.$cycle.out" 2>&1 &
    src_pid=$!
    PIDS="$PIDS $src_pid"
    # The moment: while this cycle's new room fills (at 50-99 % of it), or
    # 0-0.3 s after space ran out; the last cycle always the latter.
    base=$(df -k --output=used "$MNT1" | tail -1)
    pct=$((RANDOM % 100))
    [ "$cycle" = "$CYCLES" ] && pct=100
    kib=$((pct < 50 ? base + ((cycle + 1) * 1024 - base) * (50 + pct) / 100 : 0))
    moment=$(kill_moment "$MNT1" "$kib" $((RANDOM % 300)) "$WORK/src.$cycle.out")
    check "cycle $cycle: the relay is alive until the kill" kill -0 "$relay_real"
    kill -KILL "$relay_real"
    wait "$relay_PID" 2>/dev/null
    wait "$src_pid"
    cat "$WORK/src.$cycle.log" >>"$WORK/src.log"
    refused=$(python3 -c "import json,sys; print(json.load(open(sys.argv[1]))['failures_by_code'].get('452@dot', 0))" \
        "$WORK/src.$cycle.json")
    refused_total=$((refused_total + refused))
    texts_total=$((texts_total + $(grep -c '< 452 4\.3\.1 ' "$WORK/src.$cycle.out")))
    other=$(python3 -c "import json,sys; print(sum(v for k, v in json.load(open(sys.argv[1]))['failures_by_code'].items() if k.startswith('451')))" \
        "$WORK/src.$cycle.json")
    check "cycle $cycle: no 451 (a storage error other than ENOSPC)" test "$other" = 0
    unmarked "$SPOOL" incoming >"$WORK/incomplete.prev"
    echo "cycle $cycle: killed $moment: $(wc -l <"$WORK/src.$cycle.log") acknowledged, $refused refused with 452," \
        "spool $(df -k --output=used "$MNT1" | tail -1 | tr -d ' ') KiB of $((cycle + 1)) MiB," \
        "$(wc -l <"$WORK/incomplete.prev") incomplete in incoming/"
    check "cycle $cycle: every 0700 file ends with its E record" test "$(marks "$SPOOL")" = 0
    check "cycle $cycle: unmarked files only in incoming/" \
        test -z "$(unmarked "$SPOOL" active deferred)"
done
check "space ran out: some messages were refused with 452" test "$refused_total" -gt 0
check "every 452 says 4.3.1 (Insufficient system storage)" test "$texts_total" = "$refused_total"

# The last restart: recovery, then the next hop comes back.
start_relay relay --spool "$SPOOL" --next-hop "127.0.0.1:$port" --min-backoff 100ms \
    --max-backoff 300ms --json "$WORK/relay.json" || exit 1
check "final start: the relay recovers and greets" banner "$relay_PORT"
left=$(while read -r f; do [ -e "$f" ] && echo "$f"; done <"$WORK/incomplete.prev")
check "final start: recovery removed the $(wc -l <"$WORK/incomplete.prev") incomplete file(s) of the last crash" \
    test -z "$left"
check "final start: no unmarked or temporary file is queued" \
    test -z "$(unmarked "$SPOOL" incoming active deferred)"
start_sink sink --msg-log "$WORK/sink.log" "127.0.0.1:$port" 100 || exit 1
check "the spool drains once the next hop is back" wait_spool_empty "$SPOOL" 30
check "the relay is still running" kill -0 "$relay_PID"
stop "$relay_PID"
stop "$sink_PID"
acked=$(wc -l <"$WORK/src.log")
check "messages were acknowledged before the crashes" test "$acked" -gt 0
crash_survived "fill and crash: $CYCLES cycles, $refused_total refused with 452" "$WORK/src.log" "$WORK/sink.log" "$WORK/relay.json" "$SPOOL"
umount "$MNT1"

# --------------------------------------------------------- 2. out of inodes
mount -t tmpfs -o size=8m,nr_inodes=1000 tmpfs "$MNT2" || { echo "cannot mount $MNT2" >&2; exit 1; }
SPOOL2=$MNT2/spool
free_port port2 || exit 1
start_relay relay2 --spool "$SPOOL2" --next-hop "127.0.0.1:$port2" --min-backoff 100ms \
    --max-backoff 300ms --json "$WORK/relay2.json" || exit 1
banner "$relay2_PORT" || { echo "relay2 does not greet" >&2; exit 1; }
used=$(python3 -c "import os,sys; s=os.statvfs(sys.argv[1]); print(s.f_files - s.f_ffree)" "$MNT2")
counted=$(find "$MNT2" | wc -l)
echo "out of inodes: the spool layout takes $used inodes ($counted entries with the mount point); $SPARE_INODES to spare"
check "the inode count is the spool layout: $used" test "$used" = "$counted"
mount -o remount,nr_inodes=$((used + SPARE_INODES)) "$MNT2" ||
    { echo "cannot remount $MNT2 with nr_inodes=$((used + SPARE_INODES))" >&2; exit 1; }
to "$WORK/src3.out" timeout 30 "$SOURCE" -v -s 4 -m 30 -l 2000 --ignore-failures \
    --json "$WORK/src3.json" --msg-log "$WORK/src3.log" "127.0.0.1:$relay2_PORT"
# The file is made at the first RCPT, as Postfix's smtpd opens its cleanup stream there:
# without an inode the RCPT gets the 452; a file made may still run out of space at the dot.
refused=$(python3 -c "import json,sys; f = json.load(open(sys.argv[1]))['failures_by_code']
print(f.get('452@rcpt', 0) + f.get('452@dot', 0))" "$WORK/src3.json")
accepted=$(wc -l <"$WORK/src3.log")
texts=$(grep -c '< 452 4\.3\.1 ' "$WORK/src3.out")
echo "out of inodes: $accepted accepted, $refused refused with 452 ($texts with 4.3.1)"
check "some messages were accepted" test "$accepted" -gt 0
check "the rest got 452, at the first RCPT or at the end of data" test "$refused" -gt 0
check "accepted + refused = 30" test $((accepted + refused)) = 30
check "every 452 says 4.3.1 (Insufficient system storage)" test "$texts" = "$refused"
check "no partial or temporary file in the spool" test -z "$(unmarked "$SPOOL2" incoming active deferred)"
check "every 0700 file ends with its E record" test "$(marks "$SPOOL2")" = 0
# A few retries with the next hop still down, the inodes all taken.
tried=$(json_so_far "$relay2_PID" "$WORK/relay2.json" && json_get "$WORK/relay2.json" hop_failures)
retried() {
    json_so_far "$relay2_PID" "$WORK/relay2.json" &&
        [ "$(json_get "$WORK/relay2.json" hop_failures)" -ge $((tried + 2)) ]
}
check "the relay retries, the hop down and no inode free" wait_until 30 retried
check "the relay keeps serving" banner "$relay2_PORT"

start_sink sink2 --msg-log "$WORK/sink2.log" "127.0.0.1:$port2" 100 || exit 1
check "the spool drains once the next hop is back" wait_spool_empty "$SPOOL2" 20
if [ -n "$(spool_files "$SPOOL2")" ]; then
    echo "left in the spool:"; spool_files "$SPOOL2" | sed "s|$SPOOL2/||"
    grep -v 'cannot queue' "$WORK/relay2.err" | tail -5
fi
free=$(python3 -c "import os,sys; print(os.statvfs(sys.argv[1]).f_ffree)" "$MNT2")
echo "drained: $free inodes free, $(find "$SPOOL2/deferred" "$SPOOL2/defer" -mindepth 1 -type d | wc -l) hash directories made"
check "service resumes: 10 more accepted" to "$WORK/src4.out" timeout 30 "$SOURCE" -s 1 -m 10 \
    -w 20ms -l 2000 --msg-log "$WORK/src4.log" "127.0.0.1:$relay2_PORT"
check "and delivered" wait_spool_empty "$SPOOL2" 20
check "the relay is still running" kill -0 "$relay2_PID"
stop "$relay2_PID"
stop "$sink2_PID"
cat "$WORK/src3.log" "$WORK/src4.log" >"$WORK/src34.log"
report=$(delivery_report "$WORK/src34.log" "$WORK/sink2.log")
echo "out of inodes: $report; $(grep -c 'cannot defer' "$WORK/relay2.err") failed moves to deferred/"
check "every acknowledged message delivered once: $report" \
    test "$report" = "acked $((accepted + 10)), lost 0, duplicated 0"
check "the relay counted the refusals" test "$(json_get "$WORK/relay2.json" refused_storage)" = "$refused"
umount "$MNT2"
finish
