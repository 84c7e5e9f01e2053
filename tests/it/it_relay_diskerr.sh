#!/bin/bash
# Integration: the spool's disk fails under the relay (root: the spool is
# an ext4 image on a loop device, shut down with FS_IOC_SHUTDOWN, as
# `xfs_io -x -c shutdown' does, without its journal's next commit: what a
# crash would leave).
#
# 1. A 4xx stays true after a restart. The sync of one message's queue
#    file fails (tests/helpers/fsync_eio.c, preloaded: the sync is done,
#    then EIO, as a disk says when it cannot tell what it wrote), and its
#    client gets 451; at once the file system is shut down. Mounted again,
#    the relay recovers the spool and delivers: every message answered 250
#    arrives, the one answered 451 does not. (The relay used to remove
#    such a file without syncing the removal: it came back marked complete
#    and was delivered, besides the copy its client sends again.)
# 2. A dead disk does not flood the log. The file system is shut down
#    under load, and every message then fails the same way, thousands a
#    second: the relay says each kind of failure once, then counts it
#    (it used to print a line a message: 55,348 in 5 s).
. "${top_srcdir:-.}/tests/helpers/lib.sh"

[ "$(id -u)" = 0 ] || skip "mounting an ext4 image on a loop device needs root"
command -v mkfs.ext4 >/dev/null || skip "mkfs.ext4 is not installed (e2fsprogs)"
MNT=$WORK/mnt
mkdir -p "$MNT"
trap 'unmount_and_cleanup "$MNT"' EXIT

# image NAME: a new ext4 image $WORK/NAME mounted on $MNT; commit=600, so
# that only a sync puts the journal on disk, never its timer, within the test.
image() {
    truncate -s 64M "$WORK/$1" && mkfs.ext4 -q -F "$WORK/$1" &&
        mount -o loop,commit=600 "$WORK/$1" "$MNT"
}
# after_crash FROM TO: what image FROM holds after its crash, as TO, mounted
# (its journal replayed). A copy, not FROM again: a loop device that is
# still detaching after the unmount would be reused, and with it the dead
# file system.
after_crash() {
    umount "$MNT" && cp --sparse=always "$WORK/$1" "$WORK/$2" && rm -f "$WORK/$1" &&
        mount -o loop,commit=600 "$WORK/$2" "$MNT"
}
# fs_shutdown: the file system on $MNT dies now, its journal's running
# transaction lost (FS_IOC_SHUTDOWN, flag 2: no log flush).
fs_shutdown() {
    python3 -c '
import fcntl, os, struct, sys
fd = os.open(sys.argv[1], os.O_RDONLY)
fcntl.ioctl(fd, 0x8004587D, struct.pack("I", 2))' "$MNT"
}
image probe.img 2>"$WORK/mount.err" || skip "cannot make and mount an ext4 image here: $(cat "$WORK/mount.err")"
# the feature itself, on a file system of its own
mkdir "$MNT/probe"
fs_shutdown 2>"$WORK/shutdown.err" || skip "this kernel cannot shut ext4 down: $(cat "$WORK/shutdown.err")"
umount "$MNT" && rm -f "$WORK/probe.img"

# ----------------------------------------------- 1. 451, then a crash
if ! command -v "${CC:-cc}" >/dev/null; then
    skip_part "a 451 after a failed sync, then a crash: no C compiler for tests/helpers/fsync_eio.c"
else
    SHIM=$WORK/fsync_eio.so
    MARK=X-Diskerr-Fail-Fsync
    check "the fsync shim builds" ${CC:-cc} -shared -fPIC -o "$SHIM" \
        "$top_srcdir/tests/helpers/fsync_eio.c" -ldl
    check "a fresh ext4 image is mounted" image one.img
    SPOOL=$MNT/spool
    start_sink sink --msg-log "$WORK/sink.log" 127.0.0.1:0 100 || exit 1
    # A sanitizer build's runtime wants to be first: the shim comes before it here.
    LD_PRELOAD=$SHIM FSYNC_EIO_MARK=$MARK \
        ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}verify_asan_link_order=0 \
        start_relay relay --spool "$SPOOL" --next-hop "127.0.0.1:$sink_PORT" || exit 1
    # Three messages, then one whose file carries the mark: "MESSAGE-ID CODE" each.
    timeout 60 python3 - "$relay_PORT" "$MARK" >"$WORK/replies" 2>"$WORK/client.err" <<'PY'
import smtplib, sys
port, mark = int(sys.argv[1]), sys.argv[2]
s = smtplib.SMTP("127.0.0.1", port, timeout=30)
for i, bad in enumerate([0, 0, 0, 1]):
    mid = f"<diskerr.{i}@spoolsim.test>"
    text = f"Message-ID: {mid}\r\nSubject: {mark if bad else 'fine'}\r\n\r\nmessage {i}\r\n"
    try:
        s.sendmail("a@spoolsim.test", ["b@spoolsim.test"], text)
        code = 250
    except smtplib.SMTPDataError as e:
        code = e.smtp_code
    print(mid, code, flush=True)
s.quit()
PY
    # at once, before anything else syncs: a crash right after the answer
    fs_shutdown
    cat "$WORK/replies" "$WORK/client.err"
    check "three messages answered 250, the one whose sync failed 451" \
        test "$(awk '{print $2}' "$WORK/replies" | tr '\n' ' ')" = "250 250 250 451 "
    stop "$relay_PID"
    check "the file system mounts again" after_crash one.img one-after.img
    start_relay relay --spool "$SPOOL" --next-hop "127.0.0.1:$sink_PORT" || exit 1
    check "after recovery the spool drains" wait_spool_empty "$SPOOL" 30
    stop "$relay_PID"
    stop "$sink_PID"
    grep -o 'message-id=[^ ]*' "$WORK/sink.log" | sort | uniq -c
    for i in 0 1 2; do
        check "message $i, answered 250, is delivered" \
            grep -q "message-id=<diskerr.$i@spoolsim.test>" "$WORK/sink.log"
    done
    check "the message answered 451 is not delivered after the restart" \
        sh -c "! grep -q 'message-id=<diskerr.3@spoolsim.test>' '$WORK/sink.log'"
    umount "$MNT" && rm -f "$WORK/one-after.img"
fi

# ------------------------------------------- 2. a dead disk under load
check "a fresh ext4 image is mounted" image two.img
SPOOL=$MNT/spool
start_sink sink2 127.0.0.1:0 100 || exit 1
: >"$WORK/relay2.err"
start_relay relay2 --spool "$SPOOL" --next-hop "127.0.0.1:$sink2_PORT" || exit 1
timeout 60 "$SOURCE" -s 20 --duration 8s --ignore-failures --msg-log "$WORK/src2.log" \
    --json "$WORK/src2.json" "127.0.0.1:$relay2_PORT" >"$WORK/src2.out" 2>&1 &
src_pid=$!
PIDS="$PIDS $src_pid"
check "mail is acknowledged before the disk dies" wait_until 30 test -s "$WORK/src2.log"
fs_shutdown
# the load goes on against the dead disk, to its end: every message now fails alike
wait "$src_pid"
stop "$relay2_PID"
stop "$sink2_PID"
grep 'warning:' "$WORK/relay2.err" | head -40
refused=$(python3 -c "import json,sys; print(json.load(open(sys.argv[1]))['failures_by_code'].get('451@rcpt', 0))" \
    "$WORK/src2.json")
# the relay's count: each line without one is one, a line with one says how many
said=$(grep "cannot create a queue file" "$WORK/relay2.err" |
    sed -n 's/.*(\([0-9]*\) more times* in .*/\1/p; t; s/.*/1/p' | awk '{n += $1} END {print n + 0}')
lines=$(grep -c "cannot create a queue file" "$WORK/relay2.err")
threads=${TEST_RELAY_THREADS:-1}
echo "refused at RCPT for want of a queue file: $refused as the client saw it, $said as the relay says, in $lines lines"
check "the client got many a 451 at RCPT ($refused, over 100)" test "$refused" -gt 100
check "the relay's count has them all ($said)" test "$said" -ge "$refused"
# A run of one error is said in a line, a count when another error ends it, and
# a count at the end: 3 lines. A dead ext4 answers EIO mostly, but now and then
# EROFS; each error that comes starts a run of its own.
errors=$(grep "cannot create a queue file" "$WORK/relay2.err" | sed 's/ ([0-9]* more time.*//; s/.*: //' | sort -u | wc -l)
runs=$(grep "cannot create a queue file in " "$WORK/relay2.err" | wc -l)
check "a line for each run of an error, a loop: $runs runs of $errors errors" \
    test "$runs" -le $((2 * errors * threads))
check "in 3 lines or fewer a run of an error ($lines lines, $runs runs)" test "$lines" -le $((3 * runs))
check "the relay's warnings are a handful ($(grep -c 'warning:' "$WORK/relay2.err"))" \
    test "$(grep -c 'warning:' "$WORK/relay2.err")" -le $((40 * threads))
finish
