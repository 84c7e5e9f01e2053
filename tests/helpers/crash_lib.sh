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
    timeout 300 "$RELAY" crash -q -d 1 -s 4 -n 12 --seed 5 --work-dir "$WORK/w" \
        --json "$WORK/$name.json" "$@" >"$WORK/$name.out" 2>"$WORK/$name.err"
    echo $? >"$WORK/$name.rc"
    sed 's/^/# /' "$WORK/$name.out" | tail -3
}
