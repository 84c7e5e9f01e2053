#!/bin/bash
# Integration: the live status line (spoolsim(1), LIVE STATUS). With
# standard error on a pseudo-terminal (tests/helpers/pty_run.py), relay, raw,
# bench, sweep, ab, postmark and smtp-source rewrite one line in place ("\r" TEXT
# "\033[K") with the fields each knows, and erase it ("\r\033[K") before
# the report, at the end and at SIGINT. With standard error in a file
# there is no carriage return nor escape sequence, and with --progress
# there are plain "progress: " lines instead; --no-progress turns the
# terminal's line off.
. "${top_srcdir:-.}/tests/helpers/lib.sh"

PTY="python3 $top_srcdir/tests/helpers/pty_run.py --timeout 120"
SPOOLSIM="$top_builddir/spoolsim/spoolsim"

# tty_lines FILE LABEL REGEX MIN: FILE holds at least MIN lines rewritten in
# place, "\r" LABEL ... "\033[K", each matching REGEX (Python's), and
# every one of them is erased later: nothing is written after the last
# but the erase, or the erase and then other lines.
tty_lines() {
    python3 - "$@" <<'PY'
import re, sys
path, label, regex, least = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
data = open(path, "rb").read().decode("utf-8", "replace")
lines = re.findall("\r(" + re.escape(label) + r" [^\r\n\x1b]*)\x1b\[K", data)
ok = True
if len(lines) < least:
    print(f"{path}: {len(lines)} status lines of {label!r}, wanted {least}: {data[-600:]!r}")
    ok = False
bad = [l for l in lines if not re.search(regex, l)]
if bad:
    print(f"{path}: lines not matching {regex!r}: {bad[:3]}")
    ok = False
# after the last status line: its erase, before anything else
tail = data[data.rfind("\r" + label):]
after = tail[tail.index("\x1b[K") + 3:] if "\x1b[K" in tail else tail
if not after.startswith("\r\x1b[K"):
    print(f"{path}: the last status line is not erased: {after[:80]!r}")
    ok = False
sys.exit(0 if ok else 1)
PY
}

# tty_count FILE LABEL N: FILE, still being written, holds at least N lines
# "\r" LABEL ... "\033[K" (what tty_lines then checks whole).
tty_count() {
    python3 - "$@" <<'PY'
import re, sys
path, label, least = sys.argv[1], sys.argv[2], int(sys.argv[3])
try:
    data = open(path, "rb").read().decode("utf-8", "replace")
except FileNotFoundError:
    sys.exit(1)
sys.exit(len(re.findall("\r" + re.escape(label) + r" [^\r\n\x1b]*\x1b\[K", data)) < least)
PY
}

# no_control FILE: no carriage return and no escape in FILE.
no_control() {
    ! grep -q "$(printf '[\r\033]')" "$1"
}

# plain_lines FILE LABEL REGEX MIN: at least MIN lines "progress: LABEL ..." matching REGEX.
plain_lines() {
    [ "$(grep -c "^progress: $2 " "$1")" -ge "$4" ] && ! grep "^progress: $2 " "$1" | grep -qvE "$3"
}

# ---------------------------------------------------------------- relay
# A relay and a client; SIGINT (as ^C) stops the relay once the client is
# done and the relay has shown three lines.
mkdir -p "$WORK/r"
start_sink sink 127.0.0.1:0 100 || exit 1
$PTY --sigint-on "$WORK/relay.stop" "$WORK/relay.tty" -- "$SPOOLSIM" relay --listen 127.0.0.1:0 \
    --port-file "$WORK/relay.port" --spool "$WORK/r/spool" --model none \
    --next-hop "127.0.0.1:$sink_PORT" >"$WORK/relay.out" &
relay_pty=$!
PIDS="$PIDS $relay_pty"
check "relay on a terminal: it starts" wait_until 30 test -s "$WORK/relay.port"
check "relay on a terminal: a client's 2.5 s of mail" to "$WORK/relay-source.out" \
    "$SOURCE" -s 2 --rate 100 --duration 2.5s "127.0.0.1:$(cat "$WORK/relay.port")"
check "relay on a terminal: three status lines come" wait_until 30 tty_count "$WORK/relay.tty" relay 3
touch "$WORK/relay.stop"
wait "$relay_pty"
check "relay on a terminal: a line a second rewritten in place, with its fields" \
    tty_lines "$WORK/relay.tty" relay \
    '^relay [0-9]:[0-9]{2} \| in [0-9.]+/s out [0-9.]+/s \| queue [0-9]+/[0-9]+/[0-9]+ \| (p99 [0-9.]+(us|ms|s) \| )?failed [0-9]+$' 3
check "relay on a terminal: messages went through while it showed them" \
    grep -qE $'\rrelay [^\r]*in [1-9][0-9]*(\\.[0-9])?/s' "$WORK/relay.tty"
check "relay: the summary follows the erased line (SIGINT)" \
    grep -q $'\r\033\\[Kspool ' "$WORK/relay.tty"

# The quiet relay runs for as long as the other takes to write its lines.
start_relay quiet --spool "$WORK/r/spool3" || exit 1
start_relay plain --spool "$WORK/r/spool2" --progress || exit 1
check "relay --progress to a file: two lines come" \
    wait_until 30 plain_lines "$WORK/plain.err" relay '' 2
stop "$plain_PID"
stop "$quiet_PID"
check "relay --progress to a file: plain lines" \
    plain_lines "$WORK/plain.err" relay '\| queue [0-9]+/[0-9]+/[0-9]+ \|' 2
check "relay --progress to a file: no control characters" no_control "$WORK/plain.err"
check "relay to a file: no status line by default" \
    sh -c "! grep -q '^progress: ' '$WORK/quiet.err' && ! grep -q 'relay 0:' '$WORK/quiet.err'"
check "relay to a file: no control characters by default" no_control "$WORK/quiet.err"
$PTY --sigint-after 2.5 "$WORK/relay-off.tty" -- "$SPOOLSIM" relay --listen 127.0.0.1:0 \
    --spool "$WORK/r/spool4" --model none --no-progress >/dev/null
check "relay --no-progress on a terminal: no status line" \
    sh -c "! grep -q 'relay 0:' '$WORK/relay-off.tty'"

# ---------------------------------------------------------------- smtp-source
$PTY "$WORK/source.tty" -- "$SOURCE" -s 2 --rate 200 -m 500 "127.0.0.1:$sink_PORT" \
    >"$WORK/source.out"
check "smtp-source -m on a terminal: done of total and an ETA" \
    tty_lines "$WORK/source.tty" smtp-source \
    '^smtp-source [0-9]:[0-9]{2} ETA [0-9]:[0-9]{2} \| [0-9]+/500 msgs \| in [0-9.]+/s out [0-9.]+/s \| (p99 [^|]+ \| )?failed 0$' 1
check "smtp-source: its summary on standard output as before" \
    grep -q "500 messages delivered" "$WORK/source.out"
"$SOURCE" -s 2 --rate 200 --duration 2.5s "127.0.0.1:$sink_PORT" >/dev/null 2>"$WORK/source-file.err"
check "smtp-source to a file: no control characters by default" no_control "$WORK/source-file.err"
"$SOURCE" -s 2 --rate 200 --duration 2.5s --progress "127.0.0.1:$sink_PORT" \
    >/dev/null 2>"$WORK/source-plain.err"
check "smtp-source --duration --progress to a file: plain lines with the ETA" \
    plain_lines "$WORK/source-plain.err" smtp-source '^progress: smtp-source [0-9]:[0-9]{2} ETA ' 2
check "smtp-source --progress to a file: no control characters" no_control "$WORK/source-plain.err"
stop "$sink_PID"

# ---------------------------------------------------------------- raw
mkdir -p "$WORK/raw"
$PTY "$WORK/raw.tty" -- "$SPOOLSIM" raw --spool "$WORK/raw" -d 2.5 -w 2 >"$WORK/raw.out"
check "raw on a terminal: the ETA of --duration, rates, p99" \
    tty_lines "$WORK/raw.tty" raw \
    '^raw [0-9]:[0-9]{2} ETA [0-9]:[0-9]{2} \| in [0-9.]+/s out [0-9.]+/s \| p99 [0-9.]+(us|ms|s) \| failed 0$' 2
"$SPOOLSIM" raw --spool "$WORK/raw" -m 100000000 -w 2 --progress >/dev/null 2>"$WORK/raw-plain.err" &
raw_pid=$!
PIDS="$PIDS $raw_pid"
check "raw --progress to a file: two lines come" wait_until 30 plain_lines "$WORK/raw-plain.err" raw '' 2
kill -INT "$raw_pid"
wait "$raw_pid"
check "raw -m --progress to a file: done of total" \
    plain_lines "$WORK/raw-plain.err" raw '^progress: raw [^|]* \| [0-9]+/100000000 msgs \|' 2
check "raw --progress to a file: no control characters" no_control "$WORK/raw-plain.err"
# A terminal that cannot erase (TERM=dumb, or no TERM) gets the line
# rewritten after a carriage return and padded with spaces, never "\033[K".
for term in dumb ''; do
    $PTY --term "$term" "$WORK/raw-dumb.tty" -- "$SPOOLSIM" raw --spool "$WORK/raw" -d 2.5 -w 2 \
        >/dev/null
    check "raw on a terminal with TERM='$term': the line rewritten after a carriage return" \
        grep -qE $'\rraw [0-9]:[0-9]{2} ETA' "$WORK/raw-dumb.tty"
    check "raw on a terminal with TERM='$term': no escape sequence" \
        sh -c "! grep -q \"\$(printf '\033')\" '$WORK/raw-dumb.tty'"
done
"$SPOOLSIM" raw --spool "$WORK/raw" -d 1.5 -w 2 >/dev/null 2>"$WORK/raw-file.err"
check "raw to a file: no control characters by default" no_control "$WORK/raw-file.err"

# ---------------------------------------------------------------- bench
$PTY "$WORK/bench.tty" -- "$SPOOLSIM" bench -d 2.5 -s 2 --rate 100 --model none >"$WORK/bench.out"
check "bench on a terminal: its phase and ETA, with the relay's fields" \
    tty_lines "$WORK/bench.tty" "bench load" \
    '^bench load [0-9]:[0-9]{2} ETA [0-9]:[0-9]{2}( \| in [0-9.]+/s out [0-9.]+/s \| queue [0-9/]+ \| .*failed [0-9]+)?$' 2
check "bench on a terminal: the relay's line reached it" \
    grep -qE $'\rbench load [^\r]* \\| in [0-9.]+/s out [0-9.]+/s \\| queue ' "$WORK/bench.tty"
check "bench: the report is whole" grep -q "exactly once" "$WORK/bench.out"
"$SPOOLSIM" bench -d 1.5 -s 2 --rate 100 --model none >/dev/null 2>"$WORK/bench-file.err"
check "bench to a file: no control characters by default" no_control "$WORK/bench-file.err"

# ---------------------------------------------------------------- ab
mkdir -p "$WORK/a" "$WORK/b"
$PTY "$WORK/ab.tty" -- "$SPOOLSIM" ab -n 2 --warmup-runs 0 "$WORK/a" "$WORK/b" -- raw -d 1.5 -w 2 \
    >"$WORK/ab.out" 2>/dev/null
check "ab on a terminal: run i of n, the side, the child's line" \
    tty_lines "$WORK/ab.tty" ab '^ab [1-4]/4 [AB] [0-9]:[0-9]{2}( ETA [0-9]:[0-9]{2})?( \| raw .*)?$' 2
# the first second of a run has no line of the child's yet; later ones do
check "ab on a terminal: the running child's own line passed through" \
    grep -qE $'\rab [1-4]/4 [AB] [^\r]* \\| raw [0-9]:[0-9]{2} ETA [^\r]* \\| in [0-9.]+/s' "$WORK/ab.tty"
check "ab on a terminal: an ETA of the comparison once a run is done" \
    grep -qE $'\rab [2-4]/4 [AB] [0-9]:[0-9]{2} ETA ' "$WORK/ab.tty"
check "ab: every run reported" grep -q "B/A" "$WORK/ab.out"
"$SPOOLSIM" ab -n 2 --warmup-runs 0 --progress "$WORK/a" "$WORK/b" -- raw -d 1.5 -w 2 \
    >/dev/null 2>"$WORK/ab-plain.err"
check "ab --progress to a file: plain lines" plain_lines "$WORK/ab-plain.err" ab '^progress: ab [1-4]/4 [AB] ' 2
check "ab --progress to a file: no control characters" no_control "$WORK/ab-plain.err"

# ---------------------------------------------------------------- postmark
mkdir -p "$WORK/pm"
printf 'set location %s\nset number 200\nset transactions 100000000\nset sync fsync\nrun\nquit\n' \
    "$WORK/pm" >"$WORK/pm.cmd"
$PTY --sigint-on "$WORK/pm.stop" "$WORK/pm.tty" -- "$SPOOLSIM" postmark "$WORK/pm.cmd" >"$WORK/pm.out" &
pm_pty=$!
PIDS="$PIDS $pm_pty"
check "postmark on a terminal: two status lines come" wait_until 30 tty_count "$WORK/pm.tty" postmark 2
touch "$WORK/pm.stop"
wait "$pm_pty"
check "postmark on a terminal: done of total of the phase" \
    tty_lines "$WORK/pm.tty" postmark \
    '^postmark [0-9]:[0-9]{2}( ETA [0-9:]+)? \| [0-9]+/(200 files created|100000000 transactions)$' 2
"$SPOOLSIM" postmark --progress "$WORK/pm.cmd" >/dev/null 2>"$WORK/pm-plain.err" &
pm_pid=$!
PIDS="$PIDS $pm_pid"
check "postmark --progress to a file: two lines come" \
    wait_until 30 plain_lines "$WORK/pm-plain.err" postmark '' 2
kill -INT "$pm_pid"
wait "$pm_pid"
check "postmark --progress to a file: plain lines" \
    plain_lines "$WORK/pm-plain.err" postmark '^progress: postmark [^|]* \| [0-9]+/' 2
check "postmark --progress to a file: no control characters" no_control "$WORK/pm-plain.err"
check "postmark left nothing in its location" sh -c "[ -z \"\$(ls -A '$WORK/pm')\" ]"

# ---------------------------------------------------------------- sweep
# Two short steps from a list: the step of how many, its rate and phase,
# the time left; plain lines off a terminal with --progress, none without.
mkdir -p "$WORK/sweep"
sweep_run() { # sweep_run NAME OPTIONS...: a two-step sweep, its stderr in NAME.err
    local name=$1
    shift
    timeout 120 "$SPOOLSIM" sweep --spool "$WORK/sweep" --rates 40,60 --warmup 1s --window 2s \
        --slo 1s -s 4 -q "$@" >"$WORK/$name.out" 2>"$WORK/$name.err"
}
check "sweep --progress: exit 0" sweep_run sweep-plain --progress
check "sweep --progress to a file: a line a second, the step, rate, phase and time left" \
    plain_lines "$WORK/sweep-plain.err" step \
    '^progress: step [12]/2 at [46]0 msgs/s: (warm-up|window|grace) [0-9]:[0-9]{2} ETA [0-9]:[0-9]{2}$' 4
check "  ... both steps" grep -q '^progress: step 2/2 at 60 msgs/s' "$WORK/sweep-plain.err"
check "sweep --progress to a file: no control characters" no_control "$WORK/sweep-plain.err"
check "sweep without --progress, off a terminal: no line" sweep_run sweep-none
check "  ... none" sh -c "! grep -q '^progress:' '$WORK/sweep-none.err'"

finish
