#!/bin/bash
# Integration: the disk's own counts in `spoolsim raw', `bench' and `ab'
# (issue 35 item 4). On an ext4 image of the test's own, on a loop device
# (root), nothing else writes to the device: the bytes it was sent must
# hold every message, and a spool that fsyncs must have flushed it. On
# tmpfs there is no device: the reports say so, and the JSON has nulls.
. "${top_srcdir:-.}/tests/helpers/lib.sh"

command -v python3 >/dev/null || skip "python3 is not installed"

# at FILE PATH: the value at a dotted PATH of a JSON result ("null" for null).
at() {
    python3 -c '
import json, sys
v = json.load(open(sys.argv[1]))
for k in sys.argv[2].split("."):
    v = v[int(k)] if isinstance(v, list) else v[k]
print("null" if v is None else str(v).lower() if isinstance(v, bool) else v)' "$1" "$2"
}
# holds FILE PYTHON-EXPRESSION: the expression is true of the result r, its
# disk object d, and in ab's, of each side's A and B, and runs_A, the
# disk objects of A's runs.
holds() {
    python3 -c '
import json, sys
r = json.load(open(sys.argv[1]))
d = r.get("disk")
A, B = (r["sides"]["A"], r["sides"]["B"]) if "sides" in r else (None, None)
runs_A = [x["disk"] for x in A["run_details"]] if A else []
try:
    ok = eval("(" + sys.argv[2] + ")")
except (KeyError, TypeError, IndexError) as e:  # a result without the keys
    print("#   no such key:", repr(e))
    ok = False
sys.exit(0 if ok else 1)' "$1" "$2"
}

# ----------------------------------------------- tmpfs: no block device
TMP=""
if [ "$(stat -f -c %T /dev/shm 2>/dev/null)" = tmpfs ] && [ -w /dev/shm ]; then
    TMP=$(mktemp -d /dev/shm/spoolsim-test.XXXXXX)
elif [ "$(id -u)" = 0 ]; then
    TMP=$WORK/tmpfs
    mkdir -p "$TMP" && mount -t tmpfs -o size=64m tmpfs "$TMP" 2>/dev/null || TMP=""
fi
MNT=$WORK/mnt
mkdir -p "$MNT"
trap 'unmount_and_cleanup "$MNT" "$WORK/tmpfs"; case "$TMP" in /dev/shm/*) rm -rf "$TMP" ;; esac' EXIT

if [ -z "$TMP" ]; then
    skip_part "tmpfs: neither /dev/shm is a writable tmpfs nor can one be mounted here"
else
    check "raw on tmpfs" to "$WORK/raw_tmpfs.out" timeout 60 "$RELAY" raw --spool "$TMP" -m 50 \
        -w 2 -q --json "$WORK/raw_tmpfs.json"
    check "  the report says there is no block device" \
        grep -q '^disk: *no block device (tmpfs)$' "$WORK/raw_tmpfs.out"
    check "  JSON: disk.state no_block_device" \
        test "$(at "$WORK/raw_tmpfs.json" disk.state)" = no_block_device
    check "  JSON: disk.note says so" \
        test "$(at "$WORK/raw_tmpfs.json" disk.note)" = "no block device (tmpfs)"
    check "  JSON: no device, every count and figure per message null" holds \
        "$WORK/raw_tmpfs.json" 'd["device"] is None and all(d[k] is None for k in ("bytes_written",
        "write_ios", "flushes", "read_ios", "bytes_read", "busy_s")) and
        all(v is None for v in d["per_message"].values())'
fi

# ----------------------------------------------- ext4 on a loop device
if [ "$(id -u)" != 0 ]; then
    skip_part "ext4 on a loop device: mounting an image needs root"
elif ! command -v mkfs.ext4 >/dev/null; then
    skip_part "ext4 on a loop device: mkfs.ext4 is not installed (e2fsprogs)"
elif ! { truncate -s 128M "$WORK/ext4.img" && mkfs.ext4 -q -F "$WORK/ext4.img" &&
    mount -o loop "$WORK/ext4.img" "$MNT"; } 2>"$WORK/mount.err"; then
    skip_part "ext4 on a loop device: cannot make and mount an image here: $(cat "$WORK/mount.err")"
elif [ ! -r "/sys/dev/block/$(mountpoint -d "$MNT")/stat" ]; then
    skip_part "ext4 on a loop device: this system has no stat file for the loop device"
else
    LOOP=$(basename "$(findmnt -n -o SOURCE "$MNT")")
    # the kernel counts flushes since 5.5 (17 fields): without, flushes are null
    fields=$(wc -w <"/sys/class/block/$LOOP/stat")
    SIZE=4096
    N=300
    check "raw on ext4 ($LOOP)" to "$WORK/raw.out" timeout 120 "$RELAY" raw --spool "$MNT" -m "$N" \
        -w 4 --size "$SIZE" -q --json "$WORK/raw.json"
    check "  the report's disk line names $LOOP, its own counts" \
        grep -q "^disk: *$LOOP: .* KiB written, [0-9.]* write I/Os, .* per message; .* (the whole device's counts)" \
        "$WORK/raw.out"
    check "  and no note: the image is mounted there alone" test -z "$(grep '^note: .*counts' "$WORK/raw.out")"
    check "  JSON: measured, on $LOOP, not shared" holds "$WORK/raw.json" \
        "d['state'] == 'measured' and d['device'] == '$LOOP' and d['shared'] is False and
        d['partition'] is False and d['filesystem'] == 'ext4'"
    check "  JSON: per delivered message" holds "$WORK/raw.json" "d['messages'] == r['delivered'] == $N"
    check "  JSON: at least every message's bytes written" holds "$WORK/raw.json" \
        "d['bytes_written'] >= $N * $SIZE and d['write_ios'] >= $N / 10"
    check "  JSON: the figures per message are the counts over the messages" holds "$WORK/raw.json" \
        "abs(d['per_message']['bytes_written'] - d['bytes_written'] / $N) < 1e-3 * d['bytes_written'] and
        abs(d['per_message']['write_ios'] - d['write_ios'] / $N) < 1e-6 * d['write_ios'] + 1e-9"
    if [ "$fields" -ge 17 ]; then
        check "  JSON: a spool that fsyncs flushed the device" holds "$WORK/raw.json" \
            "d['flushes'] > 0 and d['per_message']['flushes'] > 0"
    else
        skip_part "flushes: this kernel does not count them (its stat file has $fields fields)"
    fi

    check "bench on ext4 ($LOOP)" to "$WORK/bench.out" timeout 180 "$RELAY" bench --spool "$MNT" \
        -m 200 -s 4 --size "$SIZE" -q --json "$WORK/bench.json"
    check "  the report's disk line" grep -q "^disk: *$LOOP: .* written, .* per message" \
        "$WORK/bench.out"
    check "  JSON: measured on $LOOP, per injected message" holds "$WORK/bench.json" \
        "d['state'] == 'measured' and d['device'] == '$LOOP' and d['messages'] == r['injected'] > 0"
    check "  JSON: at least every message's bytes written" holds "$WORK/bench.json" \
        "d['bytes_written'] >= d['messages'] * $SIZE"
    if [ "$fields" -ge 17 ]; then
        check "  JSON: flushed (the relay fsyncs)" holds "$WORK/bench.json" "d['flushes'] > 0"
    fi

    if [ -n "$TMP" ]; then
        check "ab: ext4 against tmpfs" to "$WORK/ab.out" timeout 180 "$RELAY" ab -n 2 --warmup-runs 0 -q \
            --json "$WORK/ab.json" "$MNT" "$TMP" -- raw -m 100 -w 2 --size "$SIZE"
        check "  A's disk line: both runs' counts" \
            grep -q "^   disk: $LOOP: .* per message; .* (the whole device's counts, 2 runs)" "$WORK/ab.out"
        check "  B's: no block device" grep -q '^   disk: no block device (tmpfs)$' "$WORK/ab.out"
        check "  JSON: A's disk is its two runs' added" holds "$WORK/ab.json" \
            "A['disk']['state'] == 'measured' and A['disk']['runs'] == 2 and
            A['disk']['messages'] == 200 and len(runs_A) == 2 and
            all(x['state'] == 'measured' and x['messages'] == 100 for x in runs_A) and
            all(A['disk'][k] == sum(x[k] for x in runs_A) for k in ('bytes_written', 'write_ios',
            'read_ios') + (('flushes',) if $fields >= 17 else ())) and A['disk']['bytes_written'] >= 200 * $SIZE"
        check "  JSON: B's has no device" holds "$WORK/ab.json" \
            "B['disk']['state'] == 'no_block_device' and B['disk']['bytes_written'] is None"
    fi
fi
finish
