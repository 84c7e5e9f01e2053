# crash_lib.sh - what the spoolsim crash tests share (sourced after lib.sh).

# crash_need_machine: skip (77) unless this machine can run spoolsim crash.
crash_need_machine() {
    [ "$(id -u)" = 0 ] || skip "spoolsim crash needs root (loop devices, FUSE, mounts)"
    [ -x "$top_builddir/spoolsim/crash/spoolsim-recorder" ] ||
        skip "no spoolsim-recorder (configure found no libfuse3)"
    [ -c /dev/fuse ] || skip "no /dev/fuse"
    [ -e /dev/loop-control ] || skip "no loop devices"
    command -v mkfs.ext4 >/dev/null || skip "no mkfs.ext4"
    command -v python3 >/dev/null || skip "no python3"
}

# crash_nothing_left DIR: no mount under DIR, no loop device on a file
# under it, no spoolsim-recorder, relay, sink or source running with it
# in their command line, and nothing left in DIR. (spoolsim crash mounts in
# a namespace of its own, which the test's shell does not see: its mounts
# are gone when no process of it is left, which pgrep checks.)
crash_nothing_left() {
    local dir=$1 ok=0
    if grep -q " $dir/" /proc/self/mountinfo; then
        echo "# still mounted: $(grep " $dir/" /proc/self/mountinfo)"
        ok=1
    fi
    if losetup -l -n -O BACK-FILE 2>/dev/null | grep -q "$dir/"; then
        echo "# loop devices left: $(losetup -l -n | grep "$dir/")"
        ok=1
    fi
    if pgrep -f -- "$dir/" >/dev/null; then
        echo "# processes left: $(pgrep -a -f -- "$dir/")"
        ok=1
    fi
    if [ -n "$(ls -A "$dir")" ]; then
        echo "# files left: $(ls -A "$dir")"
        ok=1
    fi
    return $ok
}

# crash_run NAME ARGS...: spoolsim crash with a small load (1 s from 4
# sessions, 12 points, seed 5) in $WORK/w, its report in WORK/NAME.out
# and WORK/NAME.json, its exit status in WORK/NAME.rc; the report's last
# lines shown as comments.
crash_run() {
    local name=$1
    shift
    timeout 300 "$RELAY" crash -q -d 1 -s 4 --points 12 --seed 5 --work-dir "$WORK/w" \
        --json "$WORK/$name.json" "$@" >"$WORK/$name.out" 2>"$WORK/$name.err"
    echo $? >"$WORK/$name.rc"
    sed 's/^/# /' "$WORK/$name.out" | tail -3
}

# crash_dm_log_writes DIR: whether this kernel can make a dm-log-writes
# device, tried on two loop devices of 1 MiB files in DIR (all removed
# after); if not, dmsetup's or losetup's word on standard output. Neither
# /dev/mapper/control (any dmsetup call creates the node, with or without
# the device-mapper in the kernel) nor `dmsetup targets' (the module loads
# at the first table that names it) can tell.
crash_dm_log_writes() {
    local dir=$1 name=spoolsim-dmprobe-$$ dev log out status=1
    truncate -s 1M "$dir/dmprobe.dev" "$dir/dmprobe.log" || return 1
    if dev=$(losetup -f --show "$dir/dmprobe.dev" 2>&1); then
        if log=$(losetup -f --show "$dir/dmprobe.log" 2>&1); then
            # --noudevsync, as spoolsim crash: a root without udev would wait
            if out=$(timeout 30 dmsetup create --noudevsync "$name" \
                --table "0 2048 log-writes $dev $log" 2>&1); then
                status=0
                timeout 30 dmsetup remove --noudevsync "$name" || status=1
            else
                echo "$out" | grep -v '^Command failed' | head -n 1
                # a failed create may leave the device without a table
                dmsetup remove --noudevsync "$name" >/dev/null 2>&1
            fi
            losetup -d "$log"
        else
            echo "$log"
        fi
        losetup -d "$dev"
    else
        echo "$dev"
    fi
    rm -f "$dir/dmprobe.dev" "$dir/dmprobe.log"
    return $status
}
