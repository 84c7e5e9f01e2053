#!/bin/bash
# Integration: the figures the programs print are the right ones: rates
# over the offered window at low open-loop rates, the reason of a failed
# connection, plurals, one mount option once, a note for a spool in
# memory, the relay saying where it listens and relays, the relay's rates
# each over its own window (clients at a steady rate and a next hop that
# starts failing early: the arrival rate is still the clients'), and -m
# with --duration refused instead of one silently winning.
. "${top_srcdir:-.}/tests/helpers/lib.sh"

start_sink sink --no-summary --json "$WORK/sink.json" 127.0.0.1:0 100 || exit 1
T=127.0.0.1:$sink_PORT

# -- rates over the offered window
check "--rate 1 --duration 1: runs" to "$WORK/r1.out" timeout 30 \
    "$SOURCE" --rate 1 --duration 1 --json "$WORK/r1.json" "$T"
check "--rate 1 --duration 1: 1 message in 1 s is 1 msgs/s" python3 - "$WORK/r1.json" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
print(f"  {r['delivered']} in {r['elapsed_s']:.3f} s = {r['delivered_per_s']:.2f} msgs/s")
assert r["delivered"] == 1 and 0.99 <= r["elapsed_s"] < 1.5
assert 0.66 < r["delivered_per_s"] <= 1.01
PY
check "--rate 10 -m 5: runs" to "$WORK/r2.out" timeout 30 \
    "$SOURCE" --rate 10 -m 5 --json "$WORK/r2.json" "$T"
check "--rate 10 -m 5: 5 arrivals offer 0.5 s, so 10 msgs/s" python3 - "$WORK/r2.json" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
print(f"  {r['delivered']} in {r['elapsed_s']:.3f} s = {r['delivered_per_s']:.2f} msgs/s")
assert r["delivered"] == 5 and 0.499 <= r["elapsed_s"] < 0.75
assert 6.6 < r["delivered_per_s"] <= 10.02
PY
check "the text says the same rate" grep -q "^smtp-source: 10\.0 msgs/s" "$WORK/r2.out"
check "bench --rate 1 -d 1: runs" to "$WORK/b1.out" timeout 60 \
    "$RELAY" bench --rate 1 -d 1 -s 2 --json "$WORK/b1.json"
check "bench --rate 1 -d 1: injected/s over the 1 s offered" python3 - "$WORK/b1.json" <<'PY'
import json, sys
b = json.load(open(sys.argv[1]))
print(f"  {b['injected']} injected, {b['injected_per_s']:.2f} msgs/s")
assert b["injected"] >= 1 and b["injected"] / 1.5 < b["injected_per_s"] <= b["injected"] / 0.99
PY

# -- a failed connection says why
start_dead_hop closedhop || exit 1
CLOSED=$closedhop_PORT
check "a closed port: smtp-source runs" sh -c "'$SOURCE' -m 5 --json '$WORK/c.json' 127.0.0.1:$CLOSED >'$WORK/c.out' 2>&1; test \$? = 1"
check "and names the reason" grep -q "^failures: connect=5 (Connection refused)$" "$WORK/c.out"
check "in the JSON too" python3 -c "import json,sys; sys.exit(0 if json.load(open('$WORK/c.json'))['connect_errors'] == {'Connection refused': 5} else 1)"

# -- plurals
check "one message, one session: runs" to "$WORK/p.out" timeout 30 "$SOURCE" -s 1 -m 1 "$T"
check "  '1 message delivered'" grep -q "^smtp-source: 1 message delivered, 0 failed, of 1 attempted" "$WORK/p.out"
check "  '1 session', '1 connection'" grep -q "^smtp-source: 1 session, new connection per message, 1 connection," "$WORK/p.out"
check "bench -s 1 -m 1: runs" to "$WORK/p2.out" timeout 60 "$RELAY" bench -s 1 -m 1 -q
check "  'load: 1 session'" grep -q "^load: *1 session, " "$WORK/p2.out"
check "  'injected: 1 message'" grep -q "^injected: *1 message in " "$WORK/p2.out"
start_sink one 127.0.0.1:0 10
check "a sink that took one message: runs" to "$WORK/p3.out" timeout 30 "$SOURCE" -m 1 "127.0.0.1:$one_PORT"
stop "$one_PID"
check "  '1 message, 1 recipient, ... 1 session'" grep -q "^smtp-sink: 1 message, 1 recipient, [0-9]* bytes, 1 session" "$WORK/one.err"

# -- -m and --duration: a usage error, not one silently winning
usage_error() { # what, command...
    local what=$1
    shift
    "$@" >"$WORK/u.out" 2>&1
    [ $? = 2 ] && grep -q "cannot be combined" "$WORK/u.out" && grep -q -- "--duration" "$WORK/u.out"
}
check "smtp-source -m 5 --duration 1: exit 2" usage_error source "$SOURCE" -m 5 --duration 1 "$T"
check "bench -m 5 -d 1: exit 2" usage_error bench "$RELAY" bench -m 5 -d 1
check "raw -m 5 -d 1: exit 2" usage_error raw "$RELAY" raw --spool "$WORK" -m 5 -d 1

# -- the relay says where it listens and where it relays, once, when it starts
start_relay relay --spool "$WORK/spool" --next-hop "127.0.0.1:$sink_PORT"
check "the relay's first line: where it listens and relays" \
    grep -qx "spoolsim relay: listening on 127.0.0.1:$relay_PORT, relaying to 127.0.0.1:$sink_PORT; spool $WORK/spool, profile postfix" \
    <(head -1 "$WORK/relay.err")
stop "$relay_PID"
check "  and only once" test "$(grep -c "listening on" "$WORK/relay.err")" = 1

# -- the relay's rates, each over its own window: clients at 100 msgs/s for
# 3 s, a next hop that defers every recipient after its 60th message. The
# rate in is the clients' (not 300 over the 0.6 s until the last delivery),
# in the report at SIGUSR1 mid-run as at the end (before: 500/s and more).
# A busy machine's clients fall behind their 100/s (49/s seen at a load of
# 28): mid-run the rate is held to at most 150/s, at the end to within 30 %
# of the rate the clients themselves report.
start_sink failing --fault rcpt:450@60 127.0.0.1:0 100
start_relay rates --spool "$WORK/rates.spool" --next-hop "127.0.0.1:$failing_PORT" \
    --min-backoff 1h --max-backoff 1h --json "$WORK/rates.json"
timeout 60 "$SOURCE" -s 4 --rate 100 -m 300 --json "$WORK/rates.src.json" "127.0.0.1:$rates_PORT" \
    >"$WORK/rates.src" 2>&1 &
src=$!
PIDS="$PIDS $src"
relay=$(pgrep -P "$rates_PID" spoolsim || echo "$rates_PID")
deferred_100() { [ "$(find "$WORK/rates.spool/deferred" -type f | wc -l)" -ge 100 ]; }
check "100 messages deferred, the clients still sending" wait_until 30 deferred_100
check "SIGUSR1: the JSON so far, whole" json_so_far "$relay" "$WORK/rates.json"
rates_ok() { # JSON, what the run has done by then[, the clients' JSON]
    python3 - "$@" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
rin, rout = r["messages_in_per_s"], r["messages_out_per_s"]
print(f"  {sys.argv[2]}: in {r['messages_in']} at {rin:.1f}/s over {r['in_window_s']:.3f} s, "
      f"out {r['messages_out']} at {rout:.1f}/s over {r['out_window_s']:.3f} s, busy {r['busy_s']:.3f} s")
assert 0 < rin <= 150, "the rate in is above the clients' 100/s"
if len(sys.argv) > 3:
    src = json.load(open(sys.argv[3]))
    sent = src["attempted"] / src["elapsed_s"]
    print(f"  the clients: {src['attempted']} at {sent:.1f}/s over {src['elapsed_s']:.3f} s")
    assert abs(rin / sent - 1) < 0.3, "the rate in is not the clients'"
assert rout <= 150, "more out than could come in"
assert 0 < r["messages_out"] < r["messages_in"]
assert r["busy_s"] >= r["in_window_s"] >= r["out_window_s"] > 0
assert abs(rin * r["in_window_s"] - r["messages_in"]) < 1e-6 * r["messages_in"]
PY
}
check "SIGUSR1 mid-run, the hop failing: the rate in is the clients'" rates_ok "$WORK/rates.json" "mid-run"
check "the clients are done" wait "$src"
stop "$rates_PID"
stop "$failing_PID"
check "at the end: the rate in is the clients'" rates_ok "$WORK/rates.json" "at the end" \
    "$WORK/rates.src.json"
check "  all 300 came in" test "$(json_get "$WORK/rates.json" messages_in)" = 300
check "  the text names each window" \
    grep -Eq "^received 300 \([0-9]+\.[0-9] msgs/s over [0-9.]+ s, first in to last in\), delivered [0-9]+ \([0-9.]+ msgs/s over [0-9.]+ s, first in to last out\); busy [0-9.]+ s " \
    "$WORK/rates.err"

# -- each mount option once; a note for a spool in memory
options_once() { # report: the options in "(...)" after the file system type, none twice
    local opts
    opts=$(sed -n 's/^ *[a-z0-9]* (\([^)]*\)) on .*/\1/p; s/^filesystem: *[a-z0-9]* (\([^)]*\)) on .*/\1/p' "$1" | head -1)
    [ -n "$opts" ] && [ -z "$(echo "$opts" | tr , '\n' | sort | uniq -d)" ]
}
check "bench: the spool's mount options, each once" options_once "$WORK/p2.out"
check "raw: runs" to "$WORK/raw.out" timeout 60 "$RELAY" raw --spool "$WORK" -m 20 -q
check "raw: the mount options, each once" options_once "$WORK/raw.out"
# mounted_type PATH: the type of the mount that holds PATH, as the programs
# read it (/proc/self/mountinfo). Not statfs's: devtmpfs has tmpfs's magic,
# so /dev/shm in a root with /dev bound in and no tmpfs of its own (a
# container, a chroot) is "tmpfs" to stat -f and "devtmpfs" to the relay.
# Of mounts stacked on one point, the last one listed is the one seen.
mounted_type() { findmnt -n -l -o FSTYPE -T "$1" 2>/dev/null | tail -n 1; }
if ! command -v findmnt >/dev/null; then
    skip_part "the tmpfs note: no findmnt (util-linux) to tell a spool's filesystem"
else
    if [ "$(mounted_type "$WORK")" != tmpfs ]; then
        check "no memory note for a spool on $(mounted_type "$WORK")" sh -c "! grep -q 'not a disk' '$WORK/raw.out'"
    fi
    SHM_TYPE=$(mounted_type /dev/shm)
    if [ "$SHM_TYPE" != tmpfs ]; then
        skip_part "the tmpfs note: /dev/shm is on ${SHM_TYPE:-no filesystem findmnt knows}, not a tmpfs"
    elif [ ! -w /dev/shm ]; then
        skip_part "the tmpfs note: the tmpfs at /dev/shm is not writable"
    else
        check "raw on tmpfs: runs" to "$WORK/shm.out" timeout 60 "$RELAY" raw --spool /dev/shm -m 20 -q
        check "raw on tmpfs: a note that it is not a disk" \
            grep -q "^note: *tmpfs is memory, not a disk: fsync costs nothing there$" "$WORK/shm.out"
        check "bench on tmpfs: runs" to "$WORK/shm2.out" timeout 60 "$RELAY" bench -m 20 --spool /dev/shm -q
        check "bench on tmpfs: the note" grep -q "^note: *tmpfs is memory, not a disk" "$WORK/shm2.out"
        check "  once" test "$(grep -c "not a disk" "$WORK/shm2.out")" = 1
    fi
fi
stop "$sink_PID"
finish
