# Helpers for the tests of bench across a network (it_bench_hop.sh,
# it_bench_client_delay.sh), sourced after lib.sh.

pyget() { # pyget FILE EXPR: a Python expression over the JSON as d
    python3 -c "import json,sys; d=json.load(open(sys.argv[1])); print($2)" "$1"
}

# compared DESCRIPTION COMMAND...: a check between two runs, or a ceiling,
# that a machine much slower than a round trip can break (the lab under
# qemu's emulation, scripts/lab.sh): with SPOOLSIM_FLOORS_ONLY=1 it runs and
# says its outcome, uncounted; the floors stay checks everywhere.
compared() {
    if [ "${SPOOLSIM_FLOORS_ONLY:-0}" != 1 ]; then
        check "$@"
        return
    fi
    local what=$1
    shift
    if "$@"; then
        echo "# ok (not counted: SPOOLSIM_FLOORS_ONLY=1) - $what"
    else
        echo "# would fail (not counted: SPOOLSIM_FLOORS_ONLY=1) - $what"
    fi
}

# bench NAME ARGS...: a kept run in $WORK/NAME, its report NAME.out, NAME.json
bench() {
    local name=$1
    shift
    mkdir -p "$WORK/$name"
    to "$WORK/$name.out" timeout 120 "$RELAY" bench --sync none --no-progress \
        --spool "$WORK/$name" --keep --json "$WORK/$name.json" "$@"
}

# netns_gone NS LINK: neither the namespace NS nor the host's link LINK is left
netns_gone() {
    command -v ip >/dev/null || return 0
    ! ip netns list 2>/dev/null | grep -q "^$1\b" && ! ip link show "$2" >/dev/null 2>&1
}

# netns_sigint NS_PREFIX LINK_PREFIX OPTION...: as root with netem, a bench
# with OPTION... interrupted in the middle of its run exits 130 and removes
# its namespace NS_PREFIX<PID>, its link LINK_PREFIX<PID>h and its work
# directory in $TMP
netns_sigint() {
    local ns=$1 link=$2 pid
    shift 2
    TMPDIR="$TMP" "$RELAY" bench -q --no-progress --duration 20s -s 2 "$@" \
        >"$WORK/int.out" 2>&1 &
    pid=$!
    PIDS="$PIDS $pid"
    wait_until 10 sh -c "ip netns list | grep -q '^$ns$pid\b'"
    check "the run's namespace exists while it runs" sh -c "ip netns list | grep -q '^$ns$pid\b'"
    sleep 1
    kill -INT "$pid"
    wait "$pid"
    check "SIGINT: exit 130" test $? = 130
    check "SIGINT: the namespace and links are gone" netns_gone "$ns$pid" "$link${pid}h"
    check "SIGINT: the work directory too" test -z "$(ls -A "$TMP")"
}
