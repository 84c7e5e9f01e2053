#!/bin/bash
# Integration: the relay's file operations per message are Postfix's
# (docs/spool-profiles.md A.1.3, docs/postfix-observed.md 5.2), counted with strace:
# 1 create in incoming/, 2 renames, 4 expected-ENOENT unlinks (3 by cleanup,
# 1 by the queue manager), 1 fchmod,
# 1 fsync, 1 unlink, 2 flocks; and nothing else creates, syncs or removes files.
# The relay names its files relative to the queue directories' descriptors
# (openat, renameat, unlinkat, mkdirat: the calls Postfix makes with paths
# relative to its queue directory); strace -y shows each descriptor's path.
# The pid file and the layout file (spoolsim.layout) are made once per
# spool, not per message, and left out.
. "${top_srcdir:-.}/tests/helpers/lib.sh"

command -v strace >/dev/null || skip "strace is not installed"
strace -f -o /dev/null true 2>/dev/null || skip "strace cannot trace here (ptrace not permitted)"

N=200
SPOOL=$WORK/spool
start_sink sink --msg-log "$WORK/sink.log" 127.0.0.1:0 100 || exit 1
start_relay_strace relay -y \
    -e trace=openat,open,creat,rename,renameat,renameat2,unlink,unlinkat,fsync,fdatasync,fchmod,chmod,utimensat,utimes,mkdir,mkdirat,flock \
    -- --spool "$SPOOL" --next-hop "127.0.0.1:$sink_PORT"
check "relay started under strace" test -n "$relay_PID"
check "$N messages relayed" to "$WORK/src.out" timeout 60 "$SOURCE" -s 10 -m $N \
    --msg-log "$WORK/src.log" "127.0.0.1:$relay_PORT"
check "the spool drains" wait_spool_empty "$SPOOL" 60
stop "$relay_PID"
stop "$sink_PID"

python3 - "$WORK/trace" "$SPOOL" $N >"$WORK/counts" <<'PY'
import re, sys
import glob
prefix, spool, n = sys.argv[1], sys.argv[2], int(sys.argv[3])
c = dict.fromkeys(["create_incoming", "create_other", "rename", "probe_enoent", "unlink_ok",
                   "unlink_other", "fchmod", "fsync", "fdatasync", "utime", "mkdir", "flock"], 0)
# -ff: one file per thread, so no call is split by another thread's.
lines = [l for f in glob.glob(prefix + ".*") for l in open(f)]
for line in lines:
    m = re.match(r"(\w+)\((.*)\)\s+=\s+(-?\d+)(?:\s+(\w+))?", line)
    if not m:
        continue
    call, args, ret, err = m.group(1), m.group(2), int(m.group(3)), m.group(4)
    if spool not in args and call not in ("fchmod", "fsync", "fdatasync", "flock"):
        continue
    if re.search(r"/pid[/>]", args):
        continue  # the relay's lock file, once per start
    if "spoolsim.layout" in args or (call == "fsync" and args.endswith("<" + spool + ">")):
        continue  # the layout file, written (and its directory synced) once per spool
    if call in ("openat", "open", "creat") and "O_CREAT" in args and ret >= 0:
        c["create_incoming" if re.search(r"/incoming[/>]", args) else "create_other"] += 1
    elif call.startswith("rename") and ret == 0:
        c["rename"] += 1
    elif call in ("unlink", "unlinkat"):
        if ret == 0:
            c["unlink_ok"] += 1
        elif err == "ENOENT":
            c["probe_enoent"] += 1
        else:
            c["unlink_other"] += 1
    elif call == "flock" and ret == 0:
        c["flock"] += 1
    elif call in ("fchmod", "fsync", "fdatasync") and ret == 0:
        c[call] += 1
    elif call in ("utimensat", "utimes") and ret == 0:
        c["utime"] += 1
    elif call in ("mkdir", "mkdirat") and ret == 0 and re.search(r"/(deferred|defer)[/>]", args):
        c["mkdir"] += 1
c["flock"] -= 1  # the relay's lock on pid/relay.pid, once per start
for k, v in c.items():
    print(f"{k} {v / n:.2f}")
PY
cat "$WORK/counts"
per() { awk -v k="$1" '$1 == k { print $2 }' "$WORK/counts"; }
check "1 create in incoming/ per message" test "$(per create_incoming)" = 1.00
check "no other file created" test "$(per create_other)" = 0.00
check "2 renames per message" test "$(per rename)" = 2.00
check "4 expected-ENOENT unlinks per message" test "$(per probe_enoent)" = 4.00
check "1 fchmod per message" test "$(per fchmod)" = 1.00
check "1 fsync per message, no fdatasync" test "$(per fsync) $(per fdatasync)" = "1.00 0.00"
check "1 unlink per message" test "$(per unlink_ok)" = 1.00
check "2 flocks per message (queue manager, delivery agent)" test "$(per flock)" = 2.00
check "no utime, no mkdir on the success path" test "$(per utime) $(per mkdir)" = "0.00 0.00"
exactly_once "exactly once" "$N" "$WORK/src.log" "$WORK/sink.log"
finish
