#!/usr/bin/env bash
# journal-commits.sh - benchmark (not a test): how the same spool operations
# fall into ext4's journal commits under a real Postfix and under the relay's
# model of it. On a fresh ext4 image per run, Postfix (`spoolsim bench --mta
# postfix') and the model (`--model postfix') alternate, 20 sessions of
# 15 KiB, 5,000 messages a run (JC_SESSIONS, JC_SIZE and JC_MESSAGES change
# them); each row gives the rate, the journal's
# commits a message (jbd2's transaction count in /proc/fs/jbd2), the disk's
# bytes and flushes a message, and jbd2's own averages (handles and logged
# blocks a transaction). As root, after `make'; Postfix from fetch-peer.sh.
# JC_SYSTEMS: the runs, in order (postfix model postfix model); `scan' is
# the model with SPOOLSIM_QMGR_SCAN=1, `model' with it 0 (docs/durability.md).
set -u
S=${JC_SESSIONS:-20} L=${JC_SIZE:-15360} M=${JC_MESSAGES:-5000}
for sys in ${JC_SYSTEMS:-}; do
  case $sys in postfix | model | scan) ;; *) echo "$0: JC_SYSTEMS: $sys is not postfix, model or scan" >&2; exit 2 ;; esac
done
ROOT=$(cd "$(dirname "$0")/.." && pwd)
. "$ROOT/bench/scratch-fs.sh"
. "$ROOT/bench/bench-lib.sh"
bench_positive "$S" "$L" "$M"
TMP=$(mktemp -d /var/tmp/spoolsim-jbd.XXXXXX) && chmod 711 "$TMP" || exit 1
MNT=$TMP/mnt IMG=$TMP/img
mkdir -p "$MNT"
trap 'mountpoint -q "$MNT" && umount "$MNT"; rm -rf "$TMP"' EXIT
echo "# $(bench_machine); ext4, $S sessions x $L bytes, $M messages a run"
echo "# system    msgs/s commits/msg KiB/msg flushes/msg handles/commit logged-blocks/commit"
for sys in ${JC_SYSTEMS:-postfix model postfix model}; do
  scratch_fs_mount ext4 "$MNT" "$IMG" || exit 1
  chmod 755 "$MNT"
  dev=$(findmnt -n -o SOURCE "$MNT"); d=$(basename "$dev")
  info=$(ls -d /proc/fs/jbd2/"$d"-*/info | head -1)
  t0=$(awk 'NR==1{print $1}' "$info")
  if [ $sys = postfix ]; then what="--mta postfix"; else what="--model postfix"; fi
  case $sys in scan) export SPOOLSIM_QMGR_SCAN=1 ;; model) export SPOOLSIM_QMGR_SCAN=0 ;; *) unset SPOOLSIM_QMGR_SCAN ;; esac
  "$ROOT/spoolsim/spoolsim" bench -q --no-calibrate --spool "$MNT" -m "$M" -s "$S" --size "$L" $what \
      --json "$TMP/run.json" >"$TMP/run.out" 2>&1 || { echo "$0: $sys failed:" >&2; tail -5 "$TMP/run.out" >&2; exit 1; }
  t1=$(awk 'NR==1{print $1}' "$info")
  python3 - "$sys" "$t0" "$t1" "$TMP/run.json" "$info" <<'PY'
import json, re, sys
j = json.load(open(sys.argv[4]))
n = j["delivered"]
d = (j.get("disk") or {}).get("per_message") or {}
info = open(sys.argv[5]).read()
avg = lambda what: re.search(r"(\d+) " + what, info).group(1)
print("%-8s %8.1f %8.3f %8.1f %8.2f %8s %8s" % (sys.argv[1], j["delivered_per_s"],
      (int(sys.argv[3]) - int(sys.argv[2])) / n, d.get("bytes_written", 0) / 1024,
      d.get("flushes", 0), avg("handles per transaction"), avg("logged blocks per transaction")))
PY
  for _ in 1 2 3 4 5 6 7 8 9 10; do umount "$MNT" 2>/dev/null && break; sleep 0.5; done
  rm -rf "$IMG" "$IMG.d"
done
