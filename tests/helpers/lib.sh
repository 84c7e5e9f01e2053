# lib.sh - shared helpers for spoolsim's integration tests (sourced, not run).
#
# Every test runs the real binaries on 127.0.0.1, takes free ports from the
# kernel (port 0 + --port-file), bounds each command with timeout(1) (servers:
# TEST_PROCESS_TIMEOUT seconds, for long runs), and
# stops every process it started by PID when it exits, pass or fail.
# KEEP_WORK=1 keeps the work directory for a look afterwards.

set -u
top_builddir=${top_builddir:-.}
top_srcdir=${top_srcdir:-.}
SINK="$top_builddir/smtp-sink/smtp-sink"
SOURCE="$top_builddir/smtp-source/smtp-source"
# The real peers: POSTFIX_SMTP_SOURCE, POSTFIX_SMTP_SINK, POSTCAT, SWAKS, POSTMARK.
. "$top_srcdir/scripts/peers.sh"

WORK=$(mktemp -d "${TMPDIR:-/tmp}/spoolsim-test.XXXXXX")
# A model calibrated on this machine (~/.cache/spoolsim, or the machine's
# /var/cache/spoolsim) would change what --model postfix spends: every test
# sees empty caches of its own, and never writes the machine's.
export SPOOLSIM_CACHE_DIR="$WORK/model-cache"
export SPOOLSIM_SYSTEM_CACHE="$WORK/system-cache"
# As root, bench calibrates the MTA's model first when the cache has none (a
# minute a test, each with a cache of its own): a test that wants it says so.
export SPOOLSIM_NO_CALIBRATE=1
# A calibration a test runs measures each load once, not until two passes agree.
export CAL_PASSES_MAX=1
MAIN_PID=$BASHPID # the test's own shell: the only one whose exit cleans up
PIDS=""
FAILURES=0
CHECKS=0
SKIPPED_PARTS="" # what skip_part recorded, "; " between them

# stop_all: stop every process the test started, by PID.
stop_all() {
    for pid in $PIDS; do
        kill "$pid" 2>/dev/null
    done
    for pid in $PIDS; do
        wait "$pid" 2>/dev/null
    done
    PIDS=""
}
cleanup() {
    # A subshell (a watchdog `( sleep; kill ) &' killed as it starts) can run
    # the EXIT trap too: it must not remove $WORK under the running test.
    [ "$BASHPID" = "$MAIN_PID" ] || return 0
    stop_all
    [ -n "${KEEP_WORK:-}" ] && echo "kept $WORK" || rm -rf "$WORK"
}
trap cleanup EXIT

# unmount_and_cleanup MOUNT...: the EXIT trap of a test that mounts. The
# processes go first (a busy mount cannot be unmounted), then the mounts,
# lazily if they must, then $WORK.
unmount_and_cleanup() {
    local m
    [ "$BASHPID" = "$MAIN_PID" ] || return 0
    stop_all
    for m in "$@"; do
        if mountpoint -q "$m"; then umount "$m" 2>/dev/null || umount -l "$m"; fi
    done
    cleanup
}

# small_tmpfs DIR SIZE: a tmpfs of SIZE (as mount's size=) mounted on DIR
# for the test, unmounted at its exit; the test skips without root or
# where it cannot mount.
small_tmpfs() {
    [ "$(id -u)" = 0 ] || skip "mounting a small tmpfs needs root"
    mkdir -p "$1"
    mount -t tmpfs -o "size=$2" tmpfs "$1" 2>/dev/null || skip "cannot mount tmpfs here"
    trap "unmount_and_cleanup '$1'" EXIT
}

# netns_hosts N: N network namespaces as hosts, each with its own address
# on a bridge to this one, all removed at the test's exit (the EXIT trap
# becomes netns_cleanup). Host I is namespace ${NETNS_TAG}I at
# $NETNS_NET.$((10 + I)); this one is $NETNS_NET.1 on the bridge. Returns 1,
# having made nothing, where it cannot (not root, no ip netns); 2 when a
# step failed (its message above).
NETNS=""
NETNS_BR=""
NETNS_TAG="ssm$$"
netns_hosts() {
    local n=$1 i try
    [ "$(id -u)" = 0 ] && command -v ip >/dev/null && ip netns add "${NETNS_TAG}t" 2>/dev/null || return 1
    ip netns del "${NETNS_TAG}t"
    trap netns_cleanup EXIT
    # a /24 of 10.x.y.0 from the PID, so that tests run at once do not collide;
    # the next one if another test has it
    for try in 0 1 2 3 4 5 6 7; do
        NETNS_NET="10.$((200 + ($$ + try) % 50)).$(((($$ + try) / 50) % 250))"
        ip -o addr show | grep -q " $NETNS_NET\." || break
    done
    NETNS_BR="${NETNS_TAG}br"
    ip link add "$NETNS_BR" type bridge && ip addr add "$NETNS_NET.1/24" dev "$NETNS_BR" &&
        ip link set "$NETNS_BR" up || return 2
    for i in $(seq 1 "$n"); do
        ip netns add "$NETNS_TAG$i" || return 2
        NETNS="$NETNS $NETNS_TAG$i"
        ip link add "${NETNS_TAG}h$i" type veth peer name eth0 netns "$NETNS_TAG$i" &&
            ip link set "${NETNS_TAG}h$i" master "$NETNS_BR" up &&
            ip -n "$NETNS_TAG$i" addr add "$NETNS_NET.$((10 + i))/24" dev eth0 &&
            ip -n "$NETNS_TAG$i" link set eth0 up &&
            ip -n "$NETNS_TAG$i" link set lo up || return 2
    done
}
netns_cleanup() {
    local ns
    [ "$BASHPID" = "$MAIN_PID" ] || return 0
    stop_all
    for ns in $NETNS; do ip netns del "$ns" 2>/dev/null; done
    [ -n "$NETNS_BR" ] && ip link del "$NETNS_BR" 2>/dev/null
    cleanup
}

# check DESCRIPTION COMMAND...: run a check and count the result.
check() {
    local what=$1
    shift
    CHECKS=$((CHECKS + 1))
    if "$@"; then
        echo "ok - $what"
    else
        echo "FAIL - $what"
        FAILURES=$((FAILURES + 1))
        # A check that kept the output (check WHAT to FILE ...) shows it,
        # so that a failure in CI says why without a second run.
        if [ "$1" = to ] && [ -f "$2" ]; then
            tail -n 20 "$2" | sed 's/^/#   /'
        fi
    fi
}

# finish: the closing line automake and CI read; exit status for automake.
# Any sanitizer report in any output a test kept is a failure too.
finish() {
    local reports
    # -D skip: a FIFO a test left (a program's stdin) would block the read forever.
    reports=$(grep -D skip -l -E "ERROR: (Address|Leak)Sanitizer|runtime error:" "$WORK"/* 2>/dev/null)
    CHECKS=$((CHECKS + 1))
    if [ -n "$reports" ]; then
        echo "FAIL - sanitizer reports in: $reports"
        cat $reports
        FAILURES=$((FAILURES + 1))
    else
        echo "ok - no sanitizer reports"
    fi
    echo "$((CHECKS - FAILURES)) passed, $FAILURES failed"
    [ "$FAILURES" -eq 0 ] || exit 1
    if [ -n "$SKIPPED_PARTS" ]; then
        echo "SKIP: part of the test did not run: $SKIPPED_PARTS"
        exit 77
    fi
    exit 0
}

# in_chroot: this test runs where a process in a mount namespace of its own
# shows its files' paths from another root than ours (a chroot, as CI's
# fresh Debian root): tried, with a file of $WORK held open from such a
# namespace. What a run left (its loop devices' files, its descriptors)
# cannot be told by path there.
in_chroot() {
    local f=$WORK/.mount-ns-probe p got='' i
    command -v unshare >/dev/null && unshare -m true 2>/dev/null || return 1
    : >"$f"
    unshare -m --propagation private sh -c 'exec 3<"$1"; sleep 5' _ "$f" &
    p=$!
    for i in $(seq 50); do
        got=$(readlink "/proc/$p/fd/3" 2>/dev/null) && [ -n "$got" ] && break
        sleep 0.1
    done
    kill "$p" 2>/dev/null
    wait "$p" 2>/dev/null
    rm -f "$f"
    [ -n "$got" ] && [ "$got" != "$f" ]
}

# started_tied SECONDS ERRFILE PID WHAT READY: wait until READY (a command)
# is true for the command PID started; a build that cannot tie its children
# (AddressSanitizer's: platform.h) says "cannot tie" in ERRFILE at once, and
# the test then stops PID and skips. Fails the test if neither comes.
started_tied() {
    local seconds=$1 err=$2 pid=$3 what=$4
    shift 4
    # shellcheck disable=SC2317 # called through wait_until
    ready_or_untied() { grep -q "cannot tie" "$err" || "$@"; }
    if ! wait_until "$seconds" ready_or_untied "$@"; then
        cat "$err"
        check "$what got going" false
        finish
    fi
    if grep -q "cannot tie" "$err"; then
        stop "$pid"
        skip "this build cannot tie its children to $what: $(grep -m1 "cannot tie" "$err")"
    fi
}

# refused NAME PATTERN COMMAND...: two checks, that COMMAND exits 2 (a usage
# error) and that its standard error says PATTERN; its output stays in
# $WORK/NAME.out and NAME.err for the caller's further checks.
refused() {
    local name=$1 pattern=$2 rc
    shift 2
    timeout 60 "$@" >"$WORK/$name.out" 2>"$WORK/$name.err"
    rc=$?
    check "$name: exit 2 (got $rc)" test $rc = 2
    check "$name: says \"$pattern\"" grep -q -- "$pattern" "$WORK/$name.err"
}

# to FILE COMMAND...: run a command with its output in FILE; its exit status.
to() {
    local out=$1
    shift
    "$@" >"$out" 2>&1
}

skip() {
    echo "SKIP: $*"
    exit 77
}

# skip_part WHAT: a part of the test cannot run here (it needs root, say).
# The rest runs on; finish then ends in SKIP (77) rather than PASS when
# every check passed, naming WHAT, since a PASS would claim the part too.
skip_part() {
    echo "# SKIP: $*"
    SKIPPED_PARTS="${SKIPPED_PARTS:+$SKIPPED_PARTS; }$*"
}

# have_peer WHAT HOW COMMAND...: whether a peer the test compares against is
# there (COMMAND succeeds). If not, say so and how to get it, and return 1:
# the caller skips those checks, a part skipped (skip_part). Under SPOOLSIM_REQUIRE_PEERS=1 (CI, after
# scripts/test.sh has fetched them) a missing peer is a set-up defect: it
# counts as a failed check.
have_peer() {
    local what=$1 how=$2
    shift 2
    "$@" >/dev/null 2>&1 && return 0
    if [ "${SPOOLSIM_REQUIRE_PEERS:-}" = 1 ]; then
        CHECKS=$((CHECKS + 1))
        FAILURES=$((FAILURES + 1))
        echo "FAIL - $what not found (SPOOLSIM_REQUIRE_PEERS=1): $how"
    elif [ -z "${PEER_WHOLE_TEST:-}" ]; then
        skip_part "$what not found: $how"
    fi
    return 1
}

# need_peer WHAT HOW COMMAND...: have_peer for the whole test: skip it (or,
# under SPOOLSIM_REQUIRE_PEERS=1, fail it) when the peer is missing.
need_peer() {
    PEER_WHOLE_TEST=1 have_peer "$@" && return 0
    [ "${SPOOLSIM_REQUIRE_PEERS:-}" = 1 ] && finish
    skip "$1 not found: $2"
}

# executables FILE...: every FILE is there and executable.
executables() {
    local f
    for f; do [ -f "$f" ] && [ -x "$f" ] || return 1; done
}

# start_sink NAME ARGS...: our smtp-sink on a free port; sets NAME_PID, NAME_PORT.
start_sink() {
    local name=$1
    shift
    local portfile="$WORK/$name.port"
    rm -f "$portfile"
    # --foreground here and for the relay below: a stop reaches the server
    # once, with no SIGCONT after it. Without it timeout(1) sends the
    # signal to the server and again to its whole process group, then
    # SIGCONT to both; a SIGCONT that comes as a sanitizer build's leak
    # check starts (it stops the threads with ptrace, by SIGSTOP) cancels
    # that stop, and the check waits for ever: CI's sanitizer step hung so.
    timeout --foreground "${TEST_PROCESS_TIMEOUT:-300}" "$SINK" --port-file "$portfile" "$@" \
        2>"$WORK/$name.err" &
    started "$name" $! smtp-sink
}

# started NAME PID WHAT: wait for the server just started to write its port
# file; then set NAME_PID and NAME_PORT, or show its errors and fail.
started() {
    local name=$1 pid=$2 portfile="$WORK/$1.port"
    PIDS="$PIDS $pid"
    # 60 s, since a server that is alive is still starting: a sanitizer
    # build on a loaded machine takes several, and a relay whose model
    # comes from another machine first measures this one (7.6 s at load 28)
    wait_until 60 port_file_or_gone "$portfile" "$pid"
    if [ ! -s "$portfile" ]; then
        echo "$3 did not start:" >&2
        cat "$WORK/$name.err" >&2
        return 1
    fi
    eval "${name}_PID=$pid"
    eval "${name}_PORT=$(cat "$portfile")"
}

port_file_or_gone() { [ -s "$1" ] || ! kill -0 "$2" 2>/dev/null; }

# stop PID: SIGTERM, then wait for it (the sink writes its report on exit).
stop() {
    kill "$1" 2>/dev/null
    wait "$1" 2>/dev/null
    return 0
}

# smtp_probe NAME: tests/helpers/smtp_probe.py's group NAME of hand-made
# sessions against the server started as NAME (start_sink, start_relay),
# which is stopped after; the probe's status.
smtp_probe() {
    local port pid status
    eval "port=\$${1}_PORT pid=\$${1}_PID"
    timeout 60 python3 "$top_srcdir/tests/helpers/smtp_probe.py" "$1" "$port"
    status=$?
    stop "$pid"
    return $status
}

# free_port VAR...: each VAR a TCP port that no socket has and no call
# before gave, for peers without --port-file: bench/bench-lib.sh's, the
# benchmarks' own.
. "$top_srcdir/bench/bench-lib.sh"

# start_dead_hop NAME: a next hop that refuses every connection, on a port
# held bound (never listening) for the test's life, so that no other test's
# server can take it (free_port's port could be, and a "dead" hop then took
# the mail: it_relay_badfile under make -j2); sets NAME_PID, NAME_PORT.
start_dead_hop() {
    timeout "${TEST_PROCESS_TIMEOUT:-300}" python3 -c '
import os, socket, sys, time
s = socket.socket()
s.bind(("127.0.0.1", 0))
open(sys.argv[1] + ".tmp", "w").write("%d\n" % s.getsockname()[1])
os.rename(sys.argv[1] + ".tmp", sys.argv[1])
while True:
    time.sleep(3600)
' "$WORK/$1.port" 2>"$WORK/$1.err" &
    started "$1" $! "a dead next hop"
}

# wait_port PORT: until something listens on 127.0.0.1:PORT (30 s at most:
# Python helpers start slowly on a loaded machine).
wait_port() {
    wait_until 30 python3 -c "import socket,sys; s=socket.socket(); sys.exit(s.connect_ex(('127.0.0.1',$1)))"
}

# json_complete FILE: FILE holds a whole JSON document (one written in place,
# as the relay's at SIGUSR1, can be read half-written).
json_complete() {
    python3 -c "import json,sys; json.load(open(sys.argv[1]))" "$1" 2>/dev/null
}

# json_so_far PID FILE: the relay PID (or the timeout(1) that runs it)
# rewrites its --json FILE with the figures so far (SIGUSR1); until FILE
# is whole again. Each signal adds a summary to the relay's standard error.
json_so_far() {
    local real
    real=$(pgrep -P "$1" spoolsim || echo "$1")
    rm -f "$2"
    kill -USR1 "$real" || return 1
    wait_until 10 json_complete "$2"
}

# json_get FILE KEY: a top-level number from a JSON report.
json_get() {
    python3 -c "import json,sys; print(json.load(open(sys.argv[1]))[sys.argv[2]])" "$1" "$2"
}

# json_expect FILE EXPR WANT: a check that the Python expression EXPR, over
# the JSON of FILE as j, prints WANT ("j['messages'], j['bytes']" "5 25200").
json_expect() {
    local got
    got=$(python3 -c "import json,sys; j=json.load(open(sys.argv[1])); print($2)" "$1" 2>&1)
    check "$2 = $3 (got $got)" test "$got" = "$3"
}

# msglog_keys FILE: "message-id size sum" per line, sorted, from a --msg-log file.
msglog_keys() {
    sed -n 's/.*size=\([0-9]*\) sum=\([0-9a-f]*\).*message-id=\([^ ]*\).*/\3 \1 \2/p' "$1" | sort
}

RELAY="$top_builddir/spoolsim/spoolsim"

# start_relay NAME ARGS...: spoolsim relay on a free port; sets NAME_PID, NAME_PORT.
# Its standard error (the summary) goes to $WORK/NAME.err, appended across restarts.
# TEST_RELAY_THREADS=N runs every such relay with --threads N (at most its
# --cleanup-threads), unless the test gives --threads itself: the whole
# suite against several event loops.
start_relay() {
    local name=$1
    shift
    local portfile="$WORK/$name.port" threads=() a prev= cleanup=20
    rm -f "$portfile"
    if [ -n "${TEST_RELAY_THREADS:-}" ]; then
        for a in "$@"; do
            case $prev in --cleanup-threads) cleanup=$a ;; esac
            case $a in --threads | --threads=*) cleanup=0 ;; esac
            prev=$a
        done
        if [ "$cleanup" -gt 0 ]; then
            threads=(--threads $((TEST_RELAY_THREADS < cleanup ? TEST_RELAY_THREADS : cleanup)))
        fi
    fi
    # --model none: the tests count operations, not CPU; a test that wants a model says so.
    timeout --foreground "${TEST_PROCESS_TIMEOUT:-300}" "$RELAY" relay --listen 127.0.0.1:0 \
        --port-file "$portfile" --model none "${threads[@]}" "$@" \
        2>>"$WORK/$name.err" &
    started "$name" $! "spoolsim relay"
}

# start_relay_strace NAME STRACE_OPTION... -- RELAY_OPTION...: a relay on a
# free port under strace -ff -qq, one trace file a thread ($WORK/trace.TID);
# sets NAME_PID and NAME_PORT as start_relay does (no --model of its own).
start_relay_strace() {
    local name=$1 trace=()
    shift
    while [ $# -gt 0 ] && [ "$1" != -- ]; do
        trace+=("$1")
        shift
    done
    shift
    rm -f "$WORK/$name.port"
    timeout "${TEST_PROCESS_TIMEOUT:-300}" strace -ff -qq -o "$WORK/trace" "${trace[@]}" \
        "$RELAY" relay --listen 127.0.0.1:0 --port-file "$WORK/$name.port" "$@" 2>>"$WORK/$name.err" &
    started "$name" $! "spoolsim relay under strace"
}

# raw_op_counts PROFILE N OUT [OPTION...]: the file operations `spoolsim raw
# --profile PROFILE' makes per message, one "KIND VALUE" a line
# (tests/helpers/strace_count.py), from a run of 2N messages minus a run of N with
# one worker, so that making and removing the spool cancel out.
raw_op_counts() {
    local p=$1 n=$2 out=$3 d m
    shift 3
    d=$(mktemp -d "$WORK/raw-ops.XXXXXX")
    mkdir "$d/dir"
    for m in "$n" $((2 * n)); do
        # LeakSanitizer cannot work under ptrace: off for the traced run of a sanitizer build.
        ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0" \
            strace -f -y -qq -s 64 -o "$d/trace.$m" "$RELAY" raw --spool "$d/dir" -p "$p" -m "$m" -w 1 -q \
            "$@" >"$d/raw.$m.out" 2>&1 || { cat "$d/raw.$m.out" >&2; return 1; }
        python3 "$top_srcdir/tests/helpers/strace_count.py" --spool "$d/dir" "$d/trace.$m" >"$d/c.$m" || return 1
    done
    awk -v n="$n" 'NR == FNR { once[$1] = $2; next } { printf "%s %.2f\n", $1, ($2 - once[$1]) / n }' \
        "$d/c.$n" "$d/c.$((2 * n))" >"$out"
}

# fill_to_refusal LABEL PORT PID: 40 messages of 64 KiB, 4 sessions, to the
# relay PID on PORT, whose spool has no room for them all: sets ACCEPTED
# (from $WORK/src.log) and REFUSED (452 at the end of data, from
# $WORK/src.json), and checks that there were both, that they add up, and
# that the relay still runs.
fill_to_refusal() {
    local label=$1 port=$2 pid=$3
    to "$WORK/src.out" timeout 60 "$SOURCE" -s 4 -m 40 -l 65536 --ignore-failures \
        --json "$WORK/src.json" --msg-log "$WORK/src.log" "127.0.0.1:$port"
    REFUSED=$(python3 -c "import json, sys; print(json.load(open(sys.argv[1]))['failures_by_code'].get('452@dot', 0))" "$WORK/src.json")
    ACCEPTED=$(wc -l <"$WORK/src.log")
    echo "# $label: $ACCEPTED accepted, $REFUSED refused with 452"
    check "$label: some messages were accepted" test "$ACCEPTED" -gt 0
    check "$label: the rest got 452 at the end of data" test "$REFUSED" -gt 0
    check "$label: accepted + refused = 40" test $((ACCEPTED + REFUSED)) = 40
    check "$label: the relay is still running" kill -0 "$pid"
}

# spool_files DIR: the message files and logs in a spool's queues, for every
# profile (Postfix's, Exim's input/ and msglog/, sendmail's mqueue/,
# OpenSMTPD's, qmail's): a wait for an empty spool that knew Postfix's alone
# ended at once for the others, and stopped their relays mid-delivery.
spool_files() {
    local d
    for d in incoming active deferred defer bounce input msglog mqueue temporary queue \
        todo intd mess info local remote; do
        [ -d "$1/$d" ] && find "$1/$d" -type f
    done 2>/dev/null
}

# wait_until SECONDS COMMAND...: until COMMAND succeeds (its status), polling.
wait_until() {
    local deadline=$((SECONDS + $1))
    shift
    until "$@"; do
        [ $SECONDS -lt "$deadline" ] || return 1
        sleep 0.1
    done
}

# wait_spool_empty DIR SECONDS: until no message is queued in DIR.
spool_empty() { [ -z "$(spool_files "$1")" ]; }
wait_spool_empty() { wait_until "$2" spool_empty "$1"; }

# files_in DIR N [FIND-ARGS...]: DIR holds N files (as find counts them with FIND-ARGS).
files_in() {
    local dir=$1 n=$2
    shift 2
    [ "$(find "$dir" "$@" -type f | wc -l)" = "$n" ]
}

# lines_in FILE N: FILE has N lines or more (a file not there yet has none).
lines_in() {
    [ "$(cat "$1" 2>/dev/null | wc -l)" -ge "$2" ]
}

# defer_one SPOOL NAME [RELAY-OPTION...]: one more message queued in SPOOL
# and deferred (its next hop is down, its retry an hour away), its client's
# --msg-log in $WORK/NAME.log; the relay is then stopped.
defer_one() {
    local spool=$1 name=$2 before hop
    shift 2
    before=$(find "$spool/deferred" -type f 2>/dev/null | wc -l)
    free_port hop || return 1
    start_relay "$name" --spool "$spool" --next-hop "127.0.0.1:$hop" --min-backoff 1h \
        --max-backoff 1h "$@" || return 1
    to "$WORK/$name.src" timeout 30 "$SOURCE" -m 1 --msg-log "$WORK/$name.log" \
        "127.0.0.1:$(eval echo \$${name}_PORT)" || return 1
    wait_until 10 files_in "$spool/deferred" $((before + 1))
    stop "$(eval echo \$${name}_PID)"
    files_in "$spool/deferred" $((before + 1))
}

# exactly_once SRC_LOG SINK_LOG: every message the client saw acknowledged
# arrived intact, none twice. Prints "acked N, lost L, duplicated D".
delivery_report() {
    python3 - "$1" "$2" <<'PY'
import sys
def load(path):
    seen = {}
    for line in open(path):
        f = dict(x.split("=", 1) for x in line.split() if "=" in x)
        seen.setdefault(f["message-id"], []).append((f["size"], f["sum"]))
    return seen
src, sink = load(sys.argv[1]), load(sys.argv[2])
lost = [m for m in src if m not in sink or src[m][0] not in sink[m]]
dup = sum(len(v) - 1 for v in sink.values())
print(f"acked {len(src)}, lost {len(lost)}, duplicated {dup}")
PY
}

# crash_survived WHAT SENT RECEIVED RELAY_JSON SPOOL: after the relay's
# crashes, "WHAT, " and the delivery report of the source's SENT against the
# sink's RECEIVED; then the checks that no acknowledged message was lost,
# that recovery found no corrupt queue file (RELAY_JSON), and that SPOOL has
# nothing in corrupt/ and no temporary file.
crash_survived() {
    local report
    report=$(delivery_report "$2" "$3")
    echo "$1, $report"
    check "no acknowledged message lost: $report" sh -c "echo '$report' | grep -q 'lost 0,'"
    check "recovery found no corrupt queue file" test "$(json_get "$4" corrupt)" = 0
    check "nothing in corrupt/" test -z "$(find "$5/corrupt" -type f)"
    check "no temporary files left" test -z "$(find "$5" -type f -name '*.*' ! -path '*/pid/*' ! -name spoolsim.layout)"
}

# exactly_once TITLE N SENT RECEIVED: a check that the N messages of the
# source's --msg-log SENT each arrived once, intact, in the sink's RECEIVED
# (delivery_report), titled "TITLE: " and the report.
exactly_once() {
    local report
    report=$(delivery_report "$3" "$4")
    check "$1: $report" test "$report" = "acked $2, lost 0, duplicated 0"
}

# marks SPOOL: how many files marked complete (0700) in incoming/, active/ and
# deferred/ do not end with their E record (docs/spool-profiles.md E.1); a file
# that moves away while it looks is none.
marks() {
    python3 - "$1" <<'PY'
import os, stat, sys
bad = 0
for q in ("incoming", "active", "deferred"):
    for root, _, files in os.walk(os.path.join(sys.argv[1], q)):
        for f in files:
            p = os.path.join(root, f)
            try:
                if not os.stat(p).st_mode & stat.S_IXUSR:
                    continue
                with open(p, "rb") as fh:
                    fh.seek(0, 2)
                    if fh.tell() < 2:
                        bad += 1
                        continue
                    fh.seek(-2, 2)
                    bad += fh.read() != b"E\x00"
            except FileNotFoundError:
                pass
print(bad)
PY
}

# unmarked SPOOL QUEUE...: queue files in those queues without the 0700
# mark, or with a temporary name. A running relay moves files all the
# time: a file judged by its mode must be stat'ed by us, as find's -perm
# on a file that has just moved away counts as a mismatch; one that is
# gone when we look is no finding.
unmarked() {
    local spool=$1 q f mode
    shift
    for q in "$@"; do
        find "$spool/$q" -type f 2>/dev/null
    done | while read -r f; do
        mode=$(stat -c %a "$f" 2>/dev/null) || continue
        if [ "$mode" != 700 ] || [[ ${f##*/} == *.* ]]; then echo "$f"; fi
    done
}

# descendants PID: every process below PID, one a line.
descendants() {
    local p
    for p in $(pgrep -P "$1"); do
        echo "$p"
        descendants "$p"
    done
}

# none_left DIR PID...: none of the PIDs lives, and no process has DIR/ in
# its command line (what a killed program's children would show).
none_left() {
    local dir=$1 p
    shift
    for p in "$@"; do kill -0 "$p" 2>/dev/null && return 1; done
    ! pgrep -f -- "$dir/" >/dev/null
}

# mount_ns_gone NS DIR: no process is in the mount namespace NS (as
# /proc/PID/ns/mnt names it), so that it and its mounts are gone; and
# nothing below DIR is mounted in this one.
mount_ns_gone() {
    local p
    grep -q " $2/" /proc/self/mountinfo && return 1
    [ "$1" != "$(readlink /proc/self/ns/mnt)" ] || return 1 # this one's own: it stays
    for p in /proc/[0-9]*/ns/mnt; do
        [ "$(readlink "$p" 2>/dev/null)" = "$1" ] && return 1
    done
    return 0
}
