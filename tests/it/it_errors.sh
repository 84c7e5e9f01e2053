#!/bin/bash
# Integration: errors are found before any work, with the right exit status.
#
# Bad values are usage errors (exit 2) naming the option and the value,
# before a process is spawned or a file made; a --json path that cannot be
# written is found before the run; the relay finds a busy port or an
# unresolvable next hop before it makes a spool, and removes a spool it
# made when a later step fails; ab checks its directories and PostMark
# command file first; PostMark command files name FILE:LINE and do not
# run; a run whose file operations fail exits 1; an empty directory
# name is a usage error wherever a directory is taken; every program and
# subcommand answers -h and `spoolsim help CMD'; the flags mean one thing;
# every duration option has a floor and a ceiling.
. "${top_srcdir:-.}/tests/helpers/lib.sh"

T=$WORK/tmp
mkdir -p "$T"
empty() { [ -z "$(ls -A "$1")" ]; }

# usage NAME PATTERN COMMAND...: exit status 2, PATTERN on standard error,
# and nothing made in $T (where bench and raw would make theirs).
usage() {
    local name=$1 pattern=$2 status
    shift 2
    TMPDIR=$T timeout 60 "$@" >"$WORK/$name.out" 2>"$WORK/$name.err" </dev/null
    status=$?
    check "$name: exit status 2" test "$status" = 2
    check "$name: says \"$pattern\"" grep -q -e "$pattern" "$WORK/$name.err"
    check "$name: nothing made" empty "$T"
}

# --- values echoed safely: escapes, invalid UTF-8 and line ends as \xNN, long ones cut
usage quote-escape 'usage error: --spool /tmp/\\x1b\[31mx: ' "$RELAY" raw --spool "$(printf '/tmp/\033[31mx')" -m 1
check "quote-escape: no escape byte on the terminal" sh -c "! grep -q \"\$(printf '\\033')\" '$WORK/quote-escape.err'"
usage quote-utf8 'usage error: --spool /tmp/caf\\xe9: ' "$RELAY" raw --spool "$(printf '/tmp/caf\351')" -m 1
usage quote-line 'usage error: unknown option --x\\x0ay' "$RELAY" raw "$(printf -- '--x\ny')"
check "quote-line: one line and the hint" test "$(wc -l <"$WORK/quote-line.err")" = 2
long=$(printf '%0300d' 0)
usage quote-long "--spool $(printf '%080d' 0)\\.\\.\\. " "$RELAY" raw --spool "$long" -m 1
check "quote-long: cut" test "$(wc -c <"$WORK/quote-long.err")" -lt 200

# --- did you mean: the nearest command or option to a mistyped one
usage suggest-command 'unknown command "bnech" (did you mean bench?)' "$RELAY" bnech
usage suggest-option 'unknown option --modle (did you mean --model?)' "$RELAY" bench --modle x
usage suggest-old 'unknown option --dri (did you mean --dir, now --spool?)' "$RELAY" raw --dri "$T"
usage suggest-none 'unknown option --frobnicate$' "$RELAY" raw --frobnicate

# --- what a user tries: sizes in g, the help after calibrate's MTA, the name typed
check "--size 1g: taken (1 GiB, the largest)" sh -c "'$RELAY' raw --spool '$T' --size 1g -m 1 --dry-run >/dev/null"
usage size-2g '"2g" allows sizes larger than the maximum, 1024m' "$RELAY" raw --spool "$T" --size 2g -m 1
check "calibrate postfix --help: calibrate's help, exit 0" sh -c \
    "'$RELAY' calibrate postfix --help 2>&1 | grep -q '^Usage: spoolsim calibrate'"
usage source-try "Try 'spoolsim source --help'" "$RELAY" source --bogus
usage sink-try "Try 'spoolsim sink --help'" "$RELAY" sink --bogus
check "source's errors name spoolsim source" grep -q '^spoolsim source: usage error' "$WORK/source-try.err"
# A time option says what a TIME is, and takes what it says: seconds, or a unit.
for prog in "$RELAY relay" "$SOURCE" "$SINK"; do
    check "${prog##*/} --help: a time is seconds or has a unit" sh -c "$prog --help 2>&1 | grep -q '500ms'"
done
check "relay --help: --timeout and --hop-timeout take a TIME" sh -c \
    "'$RELAY' relay --help | grep -q -e '--timeout TIME' && '$RELAY' relay --help | grep -q -e '--hop-timeout TIME'"
check "relay --timeout 10s and 10 alike" sh -c "'$RELAY' relay --spool '$T/q' --timeout 10s --hop-timeout 1m --dry-run >/dev/null && '$RELAY' relay --spool '$T/q' --timeout 10 --dry-run >/dev/null"

# --- values checked before anything starts
usage bench-size-foo 'usage error: --size: bad size spec "foo"' "$RELAY" bench --size foo -m 1
usage bench-rate-0 'usage error: --rate: "0" is not a number' "$RELAY" bench --rate 0 -m 1
usage bench-size-huge '"99999999999999" allows sizes larger than the maximum, 1024m' \
    "$RELAY" bench --size 99999999999999 -m 1
usage raw-size-huge 'larger than the maximum, 1024m' "$RELAY" raw --spool "$T" --size uniform:1:2000m -m 1
usage source-l-huge '-l: "99999999999999" is larger than the maximum, 1024m' \
    "$SOURCE" -l 99999999999999 127.0.0.1:1
usage source-size-huge 'larger than the maximum, 1024m' "$SOURCE" --size 2000m 127.0.0.1:1
usage relay-max-size 'max-size: "2000m" is larger than the maximum, 1024m' \
    "$RELAY" relay --spool "$T/s" --max-size 2000m
usage sink-max-size 'max-size: "2000m" is larger than the maximum' "$SINK" --max-size 2000m 127.0.0.1:0 1
check "a size of 1024m is allowed" sh -c "'$SOURCE' -l 1024m --help >/dev/null"

# --- an empty directory is no directory (issue 35): an unset $SPOOL gave
# "", which bench, raw and sweep took for the root and ran there
roots_before=$(ls -d /spoolsim-* 2>/dev/null)
usage empty-bench-spool 'usage error: --spool: an empty directory name' "$RELAY" bench --spool "" -m 1
usage empty-raw-dir 'usage error: --spool: an empty directory name' "$RELAY" raw --spool "" -m 1
usage empty-sweep-spool 'usage error: --spool: an empty directory name' "$RELAY" sweep --spool "" --rates 1
usage empty-relay-spool 'usage error: --spool: an empty directory name' "$RELAY" relay --spool ""
usage empty-crash-like 'usage error: --spool: an empty directory name' "$RELAY" crash --spool "" --dry-run
usage empty-crash-work 'usage error: --work-dir: an empty directory name' \
    "$RELAY" crash --work-dir "" --dry-run
usage empty-ab-a 'usage error: DIR_A: an empty directory name' "$RELAY" ab "" "$T" -- raw -m 1
usage empty-ab-one 'usage error: DIR: an empty directory name' \
    "$RELAY" ab --setup-a true --setup-b true "" -- raw -m 1
usage empty-sink-chroot 'usage error: -R: an empty directory name' "$SINK" -R "" 127.0.0.1:0 1
check "an empty directory: nothing made in /" test "$(ls -d /spoolsim-* 2>/dev/null)" = "$roots_before"

# --- a host name goes on the wire as it is: a domain name or an address literal, nothing else
# bad_hostname NAME VALUE PATTERN: the relay's --hostname and smtp-sink's -h refuse VALUE.
bad_hostname() {
    usage "relay-hostname-$1" "usage error: --hostname: $3" "$RELAY" relay --spool "$T/s" --hostname "$2"
    usage "sink-hostname-$1" "usage error: -h: $3" "$SINK" -h "$2" 127.0.0.1:0 1
}
bad_hostname space "a b" '"a b" is not a host name'
bad_hostname crlf $'x\r\ny' 'a CR or LF is not allowed here'
bad_hostname lf $'x\ny' 'a CR or LF is not allowed here'
bad_hostname empty "" 'the host name is empty'
bad_hostname hyphen -x.example '"-x.example" is not a host name'
bad_hostname dots a..b '"a..b" is not a host name'
bad_hostname literal "[300.1.1.1]" '"\[300.1.1.1\]" is not a host name'
for good in mx-1.example.com "[192.0.2.1]" "[IPv6:2001:db8::1]" spoolsim_test; do
    check "--hostname $good is a host name" sh -c "'$RELAY' relay --hostname '$good' --help >/dev/null"
    check "smtp-sink -h $good is a host name" sh -c "'$SINK' -h '$good' --help >/dev/null"
done

# --- the label of a missing value
usage missing-value 'usage error: option -m requires a value' "$RELAY" bench -m
check "  ... and not \"unknown option\"" sh -c "! grep -q 'unknown option' '$WORK/missing-value.err'"
usage missing-long 'usage error: option --spool requires a value' "$RELAY" raw --spool
usage unknown-option 'usage error: unknown option --frob' "$RELAY" raw --frob
usage source-missing 'usage error: option -s requires a value' "$SOURCE" -s
usage sink-unknown 'usage error: unknown option --frob' "$SINK" --frob

# --- --json to a path that cannot be written: before the run
for cmd in "bench -m 1" "raw --spool $T -m 1" "relay --spool $T/s"; do
    name=json-${cmd%% *}
    usage "$name" "--json $WORK/none/x.json: cannot create" $RELAY $cmd --json "$WORK/none/x.json"
done
usage json-ab '--json /: is a directory' "$RELAY" ab --json / "$T" "$T" -- raw -m 1
usage json-source "--json $WORK/none/x: cannot create" "$SOURCE" --json "$WORK/none/x" 127.0.0.1:1
usage json-sink "--json $WORK/none/x: cannot create" "$SINK" --json "$WORK/none/x" 127.0.0.1:0 1
# calibrate writes its model at the end of a long run: -o is checked first
usage calibrate-o-dir "--output $WORK: is a directory" "$RELAY" calibrate postfix -o "$WORK"
usage calibrate-o-missing "--output $WORK/none/m.json: cannot create" "$RELAY" calibrate postfix -o"$WORK/none/m.json"
# ... and the rest of its command line, with the script's own bound for -m
usage calibrate-m "--messages: \"100\" is not a number from 200" "$RELAY" calibrate postfix -m 100
usage calibrate-option "unknown option --frob" "$RELAY" calibrate exim --frob
usage calibrate-extra "unexpected argument \"now\"" "$RELAY" calibrate postfix now
# a symbolic link to a file in a missing directory: writing it would fail
# after the run just the same
ln -s "$WORK/none/target.json" "$WORK/dangling.json"
for cmd in "bench -m 1" "raw --spool $T -m 1" "sweep --rates 1"; do
    name=json-dangling-${cmd%% *}
    usage "$name" "--json $WORK/none/target.json: cannot create" $RELAY $cmd --json "$WORK/dangling.json"
done
usage csv-dangling-raw "--csv $WORK/none/target.json: cannot create" \
    "$RELAY" raw --spool "$T" -m 1 --csv "$WORK/dangling.json"
usage json-dangling-source "--json $WORK/none/target.json: cannot create" \
    "$SOURCE" --json "$WORK/dangling.json" 127.0.0.1:1
ln -s "$WORK/ok-target.json" "$WORK/link-ok.json"
check "a link to a new file in a directory that exists: written through" \
    sh -c "'$RELAY' raw --spool '$T' -m 5 -q --json '$WORK/link-ok.json' >/dev/null && test -s '$WORK/ok-target.json' && test -L '$WORK/link-ok.json'"
ln -s "$WORK/loop.json" "$WORK/loop.json"
usage json-link-loop "--json $WORK/loop.json: Too many levels of symbolic links" \
    "$RELAY" raw --spool "$T" -m 1 --json "$WORK/loop.json"
# --json and --csv to one file: the one written last would be all that is left
usage json-csv-same "--json and --csv name the same file" \
    "$RELAY" raw --spool "$T" -m 1 --json "$WORK/same.out" --csv "$WORK/same.out"
: >"$WORK/same-file"
ln -s same-file "$WORK/same-link"
usage json-csv-same-link "--json and --csv name the same file" \
    "$RELAY" bench -m 1 --json "$WORK/same-file" --csv "$WORK/same-link"
usage source-json-csv-same "--json and --csv name the same file" \
    "$SOURCE" --json "$WORK/same.out" --csv "$WORK/same.out" 127.0.0.1:1
usage source-csv-msglog-same "--csv and --msg-log name the same file" \
    "$SOURCE" --csv "$WORK/same.out" --msg-log "$WORK/same.out" 127.0.0.1:1

# --- relay: a busy port, an unresolvable next hop, then a late failure
BUSY=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
python3 -c "
import socket, time
s = socket.socket(); s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.bind(('127.0.0.1', $BUSY)); s.listen(); time.sleep(30)" &
holder=$!
PIDS="$PIDS $holder"
wait_port "$BUSY"
check "relay on a busy port: exit 3" sh -c "timeout 10 '$RELAY' relay --listen 127.0.0.1:$BUSY --spool '$T/spool' 2>'$WORK/busy.err'; test \$? = 3"
check "  ... says so" grep -q "Address already in use" "$WORK/busy.err"
check "  ... and made no spool" empty "$T"
stop "$holder"
usage relay-hop 'next-hop no.such.host.invalid:25: cannot resolve' \
    timeout 30 "$RELAY" relay --listen 127.0.0.1:0 --spool "$T/spool" --next-hop no.such.host.invalid:25
check "relay whose Maildir cannot be made: exit 3" sh -c "timeout 10 '$RELAY' relay --listen 127.0.0.1:0 --spool '$T/spool' --next-hop maildir:/proc/self/none 2>'$WORK/md.err'; test \$? = 3"
check "  ... and the spool it made is gone" empty "$T"
mkdir "$T/mine"
check "a spool that was there stays" sh -c "timeout 10 '$RELAY' relay --listen 127.0.0.1:0 --spool '$T/mine' --next-hop maildir:/proc/self/none 2>/dev/null; test -d '$T/mine/incoming'"
rm -rf "$T/mine"

# --- ab: its directories before any run; the same one twice warned first
usage ab-missing-dir "DIR_A $WORK/none: No such file or directory" "$RELAY" ab "$WORK/none" "$T" -- raw -m 1
check "ab with DIR_A unwritable: exit 2 before any run" sh -c "'$RELAY' ab /proc/self '$T' -- raw -m 1 >'$WORK/abro.out' 2>'$WORK/abro.err'; test \$? = 2"
check "  ... names it" grep -q "DIR_A /proc/self: cannot write in it" "$WORK/abro.err"
check "  ... no run made" sh -c "! grep -q 'B run\\|A run' '$WORK/abro.err'"
D=$WORK/d
mkdir -p "$D"
check "ab with one directory twice: runs" to "$WORK/same.out" env TMPDIR="$T" "$RELAY" ab -n 2 --warmup-runs 0 "$D" "$D" -- raw -m 20 -w 1
check "  ... warned before the first run" sh -c "grep -n 'same directory\\|A run 1/2' '$WORK/same.out' | head -1 | grep -q 'same directory'"

# --- PostMark command files: FILE:LINE, nothing run, exit 2
W=$WORK
printf 'set number 10\nset transactions 0\nfoo\nrun\n' >$W/bad.pm
check "postmark: a file with errors: exit 2" sh -c "'$RELAY' postmark $W/bad.pm </dev/null >$W/pm.out 2>$W/pm.err; test \$? = 2"
check "  ... line 2 named" grep -q "^$W/bad.pm:2: no transactions specified" $W/pm.err
check "  ... line 3 named" grep -q "^$W/bad.pm:3: unknown command 'foo'" $W/pm.err
check "  ... and nothing ran" sh -c "! grep -q 'Creating files' $W/pm.out"
check "ab -- postmark with that file: exit 2" sh -c "TMPDIR='$T' '$RELAY' ab -n 2 '$D' '$D' -- postmark $W/bad.pm >$W/abpm.out 2>$W/abpm.err; test \$? = 2"
check "  ... the errors shown with the user's line numbers" grep -q "^$W/bad.pm:3: unknown command 'foo'" $W/abpm.err
check "  ... and no rate reported" sh -c "! grep -q 'transactions/s' $W/abpm.out $W/abpm.err"
# issue 35: a directory as the command file, and a size's bounds the wrong way round,
# passed without a word (PostMark 1.53 took the low bound alone)
check "postmark with a directory as its command file: exit 2" sh -c "'$RELAY' postmark '$D' </dev/null >$W/pmdir.out 2>$W/pmdir.err; test \$? = 2"
check "  ... saying it is a directory" grep -q "cannot read command file $D: Is a directory" $W/pmdir.err
printf 'set size 500 10\nset size 10 500\nset size 500\nrun\n' >$W/size.pm
check "postmark: set size 500 10: exit 2" sh -c "'$RELAY' postmark $W/size.pm </dev/null >$W/size.out 2>$W/size.err; test \$? = 2"
check "  ... line 1 named, the others taken" sh -c "grep -q '^$W/size.pm:1: the high bound of the file size is below the low one' $W/size.err && test \$(grep -c '^$W/size.pm:' $W/size.err) = 1"
printf 'set location /proc/self\nset number 20\nset transactions 20\nrun\nquit\n' >$W/fail.pm
check "postmark whose file operations fail: exit 3" sh -c "'$RELAY' postmark -q $W/fail.pm >$W/fail.out 2>$W/fail.err; test \$? = 3"
check "  ... says the run failed" grep -q "file operations failed" $W/fail.err
printf 'set location %s\nset number 20\nset transactions 20\nrun\nquit\n' "$D" >$W/good.pm
check "postmark with a good file: exit 0" to $W/good.out "$RELAY" postmark -q $W/good.pm

# --- durations have bounds (issue 23 item 5): 0 or a few nanoseconds where a timer repeats is
# a hot loop (--min-backoff 0: 5 deferred messages made 5,510 deferrals in 6 s), a huge one
# overflows the deadline it is added to (--drain-timeout 200000d wrapped to no drain at all)
# duration NAME VALUE RANGE COMMAND... OPTION: COMMAND with OPTION VALUE is refused, naming both bounds.
duration() {
    local name=$1 value=$2 range=$3
    shift 3
    local option=${*: -1}
    usage "duration-$name" "usage error: $option: \"$value\" is out of range ($range)" "${@}" "$value"
}
R=("$RELAY" relay --listen 127.0.0.1:0 --spool "$T/s")
duration relay-min-backoff-0 0 "100ms to 30d" "${R[@]}" --min-backoff
duration relay-min-backoff-1ns 1ns "100ms to 30d" "${R[@]}" --min-backoff
duration relay-max-backoff-0 0 "100ms to 30d" "${R[@]}" --max-backoff
duration relay-max-backoff-huge 200000d "100ms to 30d" "${R[@]}" --max-backoff
duration relay-max-lifetime-huge 101d "0 to 100d" "${R[@]}" --max-lifetime
duration relay-in-flow-delay 11s "0 to 10s" "${R[@]}" --in-flow-delay
duration relay-timeout-1ns 1ns "100ms to 30d" "${R[@]}" --timeout
duration relay-hop-timeout-huge 200000d "100ms to 30d" "${R[@]}" --hop-timeout
duration sink-t-0 0 "100ms to 30d" "$SINK" 127.0.0.1:0 1 -t
duration sink-t-huge 200000d "100ms to 30d" "$SINK" 127.0.0.1:0 1 -t
duration sink-w-huge 2h "0 to 1h" "$SINK" 127.0.0.1:0 1 -w
duration sink-A-huge 2h "0 to 1h" "$SINK" 127.0.0.1:0 1 -A
duration sink-H-huge 2h "0 to 1h" "$SINK" 127.0.0.1:0 1 -H
duration sink-greet-huge 2h "0 to 1h" "$SINK" 127.0.0.1:0 1 --greet-delay
usage duration-sink-W-huge 'usage error: -W: "2h" is out of range (0 to 1h)' "$SINK" -W rcpt:2h 127.0.0.1:0 1
duration source-timeout-1ns 1ns "100ms to 30d" "$SOURCE" 127.0.0.1:1 --timeout
duration source-w-huge 2h "0 to 1h" "$SOURCE" 127.0.0.1:1 -w
duration source-R-huge 2h "0 to 1h" "$SOURCE" 127.0.0.1:1 -R
duration source-duration-huge 200000d "0 to 30d" "$SOURCE" 127.0.0.1:1 --duration
duration bench-duration-huge 200000d "0 to 30d" "$RELAY" bench --duration
duration raw-duration-huge 31d "0 to 30d" "$RELAY" raw --spool "$T" --duration
duration bench-drain-huge 200000d "0 to 30d" "$RELAY" bench -m 1 --drain-timeout
duration bench-hop-jitter 61s "0 to 1m" "$RELAY" bench -m 1 --hop-jitter
duration bench-client-jitter 61s "0 to 1m" "$RELAY" bench -m 1 --client-jitter
duration sweep-warmup 2h "0 to 1h" "$RELAY" sweep --rates 1 --warmup
duration sweep-slo 2h "0 to 1h" "$RELAY" sweep --rates 1 --slo
usage duration-sweep-window 'usage error: --window must be at most 1h' "$RELAY" sweep --rates 1 --window 2h
check "--min-backoff 100ms --max-backoff 30d are allowed" \
    sh -c "'$RELAY' relay --min-backoff 100ms --max-backoff 30d --max-lifetime 0 --help >/dev/null"

# --- the option groups (common/util/optgroup.c): one check, one message, in every command
# that takes them; the others refuse them as unknown
usage grp-bench-d0 'usage error: --duration must be positive' "$RELAY" bench -d 0
usage grp-raw-d0 'usage error: --duration must be positive' "$RELAY" raw --spool "$T" -d 0
usage grp-bench-dm 'usage error: --messages and --duration cannot be combined' "$RELAY" bench -m 1 -d 1
usage grp-raw-dm 'usage error: --messages and --duration cannot be combined' "$RELAY" raw --spool "$T" -m 1 -d 1
usage grp-bench-m0 'usage error: --messages: "0" is not a number from 1 to 1000000000' "$RELAY" bench -m 0
usage grp-raw-mbig 'usage error: --messages: "1000000001" is not a number from 1 to 1000000000' \
    "$RELAY" raw --spool "$T" -m 1000000001
usage grp-bench-s 'usage error: --sessions: "10001" is not a number from 1 to 10000' "$RELAY" bench -s 10001
usage grp-sweep-s 'usage error: --sessions: "0" is not a number from 1 to 10000' "$RELAY" sweep -s 0
usage grp-sweep-size 'usage error: --size: bad size spec "foo"' "$RELAY" sweep --size foo
usage grp-raw-size 'usage error: --size: bad size spec "foo"' "$RELAY" raw --spool "$T" --size foo
usage grp-bench-r 'usage error: --rcpts: "0" is not a number from 1 to 1000' "$RELAY" bench -r 0
usage grp-raw-r 'usage error: --rcpts: "1001" is not a number from 1 to 1000' "$RELAY" raw --spool "$T" -r 1001
usage grp-sweep-json '--json /: is a directory' "$RELAY" sweep --json /
for cmd in "bench" "raw --spool $T" "relay --spool $T/s"; do
    name=grp-${cmd%% *}
    usage "$name-interval" 'usage error: --interval: "5ms" is out of range (10ms to 1h)' $RELAY $cmd --interval 5ms
    usage "$name-csv" 'usage error: --csv /: is a directory' $RELAY $cmd --csv /
    usage "$name-progress" 'usage error: option --progress takes no value' $RELAY $cmd --progress=1
done
usage grp-relay-stats 'usage error: --stats-interval: "2h" is out of range (10ms to 1h)' \
    "$RELAY" relay --spool "$T/s" --stats-interval 2h
for cmd in "bench" "sweep" "raw --spool $T"; do
    usage "grp-${cmd%% *}-keep" 'usage error: option --keep takes no value' $RELAY $cmd --keep=yes
done
usage grp-ab-progress 'usage error: option --progress takes no value' "$RELAY" ab --progress=1 "$T" "$T" -- raw -m 1
usage grp-pm-progress 'usage error: option --no-progress takes no value' "$RELAY" postmark --no-progress=1
usage grp-sweep-progress 'usage error: option --progress takes no value' "$RELAY" sweep --progress=1
for cmd in bench sweep raw relay ab; do
    usage "grp-$cmd-json-missing" 'usage error: option --json requires a value' "$RELAY" $cmd --json
done
# what a command does not take is not an option of it
usage grp-sweep-no-interval 'usage error: unknown option --interval' "$RELAY" sweep --interval 1s
usage grp-ab-no-keep 'usage error: unknown option --keep' "$RELAY" ab --keep "$T" "$T" -- raw -m 1
usage grp-relay-no-keep 'usage error: unknown option --keep' "$RELAY" relay --spool "$T/s" --keep
usage grp-relay-no-m 'usage error: unknown option -m' "$RELAY" relay --spool "$T/s" -m 1
usage grp-pm-no-json 'usage error: unknown option --json' "$RELAY" postmark --json -
usage grp-plot-no-q 'usage error: unknown option -q' "$RELAY" plot -q x.json
usage grp-merge-no-json 'usage error: unknown option --json' "$RELAY" merge --json - x.json
for c in bench sweep raw relay postmark ab plot merge; do
    check "spoolsim $c --version" sh -c "'$RELAY' $c --version | grep -q '^spoolsim $c [0-9]'"
    check "spoolsim $c --help: exit 0" sh -c "'$RELAY' $c --help >/dev/null"
done

# --- help everywhere, -h everywhere
for c in bench sweep raw relay postmark ab plot merge; do
    check "spoolsim help $c" sh -c "'$RELAY' help $c | grep -q '^Usage: spoolsim $c'"
    check "spoolsim $c -h" sh -c "'$RELAY' $c -h | grep -q '^Usage: spoolsim $c'"
done
check "spoolsim help" sh -c "'$RELAY' help | grep -q '^Usage: spoolsim COMMAND'"
check "spoolsim help nope: exit 2" sh -c "'$RELAY' help nope 2>/dev/null; test \$? = 2"
check "smtp-source -h" sh -c "'$SOURCE' -h | grep -q '^Usage: smtp-source'"
check "smtp-sink -h alone" sh -c "'$SINK' -h | grep -q '^Usage: smtp-sink'"

# --- one meaning per flag
usage relay-s '-s is --sessions in spoolsim.s other commands: say --spool' "$RELAY" relay -s "$T/s"
usage relay-n '-n is --runs in spoolsim ab: say --next-hop' "$RELAY" relay --spool "$T/s" -n discard
usage source-quiet '--quiet: say --no-summary' "$SOURCE" --quiet 127.0.0.1:1
usage sink-quiet '--quiet: say --no-summary' "$SINK" --quiet 127.0.0.1:0 1
start_sink sink --no-summary 127.0.0.1:0 10 || exit 1
check "smtp-source --no-summary: nothing on standard output" sh -c "timeout 30 '$SOURCE' --no-summary -m 2 127.0.0.1:$sink_PORT >'$WORK/ns.out' && test ! -s '$WORK/ns.out'"
stop "$sink_PID"
check "smtp-sink --no-summary: no summary" sh -c "! grep -q 'messages' '$WORK/sink.err'"

finish
