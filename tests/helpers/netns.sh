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
    # its work directory (reports, logs) beside the spool's, in the same place
    to "$WORK/$name.out" env TMPDIR="$WORK/$name" timeout 120 "$RELAY" bench --sync none --no-progress \
        --spool "$WORK/$name" --keep --json "$WORK/$name.json" "$@"
}

# netns_gone NS LINK ID: neither the namespace NS<ID> nor the host's link
# LINK<ID>h is left (bench names them by its PID, ID); without an ID, false
netns_gone() {
    [ -n "$3" ] || return 1
    command -v ip >/dev/null || return 0
    ! ip netns list 2>/dev/null | grep -q "^$1$3\b" && ! ip link show "$2${3}h" >/dev/null 2>&1
}

# netns_leg LEG RUN NS LINK EMULATED_BY PEER OPTION VALUE: the checks of the
# run RUN (bench NAME) whose LEG (hop, client) is 40 ms away, on how that
# delay was made. Without root: by EMULATED_BY (the report and the JSON say
# why; the network is a part skipped). As root without netem: the same, and
# bench with OPTION VALUE, which only netem can do, is a usage error. With
# netem: a network, the namespace NS<PID> with PEER (a pattern) in it.
# Either way, the namespace and its host's link LINK<PID>h are gone after.
# Returns 0 where the leg was a network, for the caller's further checks.
netns_leg() {
    local leg=$1 run=$2 ns=$3 link=$4 by=$5 peer=$6 opt=$7 value=$8 id why
    local line="^\[sync none\] $leg: *emulated by $by, not a network: 40.00 ms"
    id=$(grep -o -E "($link|$ns)[0-9]+" "$WORK/$run.out" | head -1 | grep -o -E '[0-9]+')
    why=$(pyget "$WORK/$run.json" "d['$leg']['why']")
    if [ "$(id -u)" != 0 ]; then
        skip_part "the $leg through a network namespace with netem needs root; the fallback only is checked"
        check "not root: the report says the $leg is emulated" grep -q "$line .*not root" "$WORK/$run.out"
        check "not root: the JSON says why" test "${why#not root}" != "$why"
        return 1
    fi
    if [ "$(pyget "$WORK/$run.json" "d['$leg']['kind']")" = emulated ]; then
        echo "# root, but no netem here ($why): the namespace is made and removed, the $leg emulated"
        # the lab (scripts/lab.sh, Debian's kernel) has netem: there, emulation is a failure
        [ "${SPOOLSIM_REQUIRE_NETEM:-0}" = 1 ] && check "netem is required here (SPOOLSIM_REQUIRE_NETEM=1)" false
        check "emulated: the report says so" grep -q "$line" "$WORK/$run.out"
        check "emulated: the JSON says why" test "$why" != None
        check "emulated: ${opt#--} cannot be: exit 2" sh -c "TMPDIR='$TMP' '$RELAY' bench -m 5 --$leg-delay 40ms $opt $value >/dev/null 2>'$WORK/netem-only.err'; test \$? = 2 && grep -q '${opt#--} needs netem' '$WORK/netem-only.err'"
        check "and leaves no directory" test -z "$(ls -A "$TMP")"
        check "the namespace and links it tried are gone" netns_gone "$ns" "$link" "$id"
        return 1
    fi
    check "netem: the report says a network" \
        grep -q "^\[sync none\] $leg: *a network (namespace ${ns}[0-9]*, $peer" "$WORK/$run.out"
    check "netem: the namespace and links are gone" netns_gone "$ns" "$link" "$id"
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
    check "the run's namespace exists while it runs" wait_until 10 sh -c "ip netns list | grep -q '^$ns$pid\b'"
    sleep 1
    kill -INT "$pid"
    wait "$pid"
    check "SIGINT: exit 130" test $? = 130
    check "SIGINT: the namespace and links are gone" netns_gone "$ns" "$link" "$pid"
    check "SIGINT: the work directory too" test -z "$(ls -A "$TMP")"
}
