#!/bin/bash
# Integration: what the model cache holds is checked before it is taken
# (spoolsim/model/model_cache.h). A FIFO at the cache path does not hang
# the relay's start, a symbolic link (to /dev/zero) is not followed, a file
# larger than a model is not read: each is said once, naming the path and
# why, and the run goes on with the built-in model (a model file named on
# the command line is read up to a model's size too). As root, a cache
# directory another user owns or can write, or a file another user owns, is
# refused with the reason (as ssh refuses keys), and calibrate will not run
# an MTA unpacked there. Root's calibration goes to the machine's cache
# (SPOOLSIM_SYSTEM_CACHE here, /var/cache/spoolsim otherwise), where
# another user's run finds it.
. "${top_srcdir:-.}/tests/helpers/lib.sh"

cache=$("$RELAY" calibrate --cache-path)
name=${cache##*/}
mkdir -p "$SPOOLSIM_CACHE_DIR"
# A model of this machine, which --model postfix takes from a cache it trusts.
"$RELAY" calibrate --machine >"$WORK/machine.json"
python3 - "$WORK/machine.json" "$WORK/here.json" "$top_srcdir/data/postfix-model.json" <<'PY'
import json, sys
model = json.load(open(sys.argv[3]))
model["machine"] = json.load(open(sys.argv[1]))
json.dump(model, open(sys.argv[2], "w"))
PY

# run_relay NAME [RUNNER...]: a relay with --model postfix, as RUNNER runs it,
# started within 30 s with its RSS under 200 MB (killed if it grows past it,
# as one that reads /dev/zero does), then stopped; NAME.err is its standard
# error, NAME.rss says whether it outgrew the bound.
run_relay() {
    local name=$1 pid relay_pid="" rss deadline=$((SECONDS + 30)) status=1
    shift
    mkdir -p "$WORK/$name" && chmod 777 "$WORK/$name"
    timeout -k 3 120 "$@" "$RELAY" relay --listen 127.0.0.1:0 --port-file "$WORK/$name/port" \
        --spool "$WORK/$name/spool" --next-hop discard --model postfix 2>"$WORK/$name.err" &
    pid=$!
    PIDS="$PIDS $pid"
    echo 0 >"$WORK/$name.rss"
    while [ $SECONDS -lt $deadline ]; do
        [ -s "$WORK/$name/port" ] && { status=0; break; }
        [ -n "$relay_pid" ] || relay_pid=$(pgrep -n -P "$pid")
        rss=$(awk '$1 == "VmRSS:" { print $2 }' "/proc/${relay_pid:-0}/status" 2>/dev/null)
        if [ "${rss:-0}" -gt 200000 ]; then
            echo "$rss" >"$WORK/$name.rss"
            kill -KILL "$relay_pid"
            break
        fi
        sleep 0.1
    done
    stop "$pid"
    return $status
}
said() { grep -q "warning: not taking the cached model $2 (going on as if it were not there): $3" "$WORK/$1.err"; }
builtin() { grep -q "^cost model: postfix 3.* (built-in" "$WORK/$1.err"; }
taken() { grep -q "^cost model: postfix 3.* (calibrated on this machine, $2," "$WORK/$1.err"; }

cp "$WORK/here.json" "$cache"
check "a model of this machine in the cache is taken" run_relay good
check "  (calibrated on this machine)" taken good "$cache"
rm -f "$cache"

# this machine's model, but one of its costs past the bounds (cost_model.h)
python3 - "$WORK/here.json" "$cache" <<'PY'
import json, sys
model = json.load(open(sys.argv[1]))
model["stages"][0]["mta"]["base_us"] = 1e9
json.dump(model, open(sys.argv[2], "w"))
PY
check "a cached model with an absurd cost: the relay starts" run_relay absurd
check "  saying why it does not take it" said absurd "$cache" "stages.0.mta.base_us is 1e+09: "
check "  with the built-in model" builtin absurd
rm -f "$cache"

mkfifo "$cache"
check "a FIFO at the cache path: the relay starts all the same" run_relay fifo
check "  saying once that it is not a model" \
    test "$(grep -c "not taking the cached model $cache .*: it is a FIFO, not a regular file" "$WORK/fifo.err")" = 1
check "  with the built-in model" builtin fifo
rm -f "$cache"

ln -s /dev/zero "$cache"
check "a symbolic link to /dev/zero at the cache path: the relay starts" run_relay zero
check "  without reading it (RSS $(cat "$WORK/zero.rss") kB, not past 200 MB)" test "$(cat "$WORK/zero.rss")" = 0
check "  saying it is a symbolic link" said zero "$cache" "it is a symbolic link, which a cache never holds"
check "  with the built-in model" builtin zero
rm -f "$cache"

# this machine's model, padded past a model's 1 MiB with spaces (still JSON)
{ cat "$WORK/here.json"; head -c 1100000 /dev/zero | tr '\0' ' '; } >"$cache"
check "a file larger than 1 MiB in the cache is not taken" run_relay big
check "  saying how large" said big "$cache" "it is 1[0-9]* bytes, more than a model's 1048576 at most"
check "  with the built-in model" builtin big
mv "$cache" "$WORK/big.json"
check "a model file named on the command line past 1 MiB: a usage error" \
    sh -c "'$RELAY' relay --listen 127.0.0.1:0 --spool '$WORK/bigfile.spool' --model '$WORK/big.json' 2>'$WORK/bigfile.err'; test \$? = 2"
check "  saying so" grep -q "cannot read the model $WORK/big.json: more than a model's 1 MiB" "$WORK/bigfile.err"

if [ "$(id -u)" = 0 ]; then
    # A directory of the cache that nobody owns and everybody can write, as
    # under sudo -E with a shared XDG_CACHE_HOME: root takes nothing from it.
    shared=$WORK/shared
    mkdir "$shared" && chown nobody "$shared" && chmod 777 "$shared"
    cp "$WORK/here.json" "$shared/$name"
    check "as root, a cache directory owned by nobody, writable by all: the relay starts" \
        run_relay shared env SPOOLSIM_CACHE_DIR="$shared"
    check "  refusing the model, naming the directory and why" \
        said shared "$shared/$name" "its place is not root's alone: $shared is owned by uid 65534, not by root"
    check "  with the built-in model" builtin shared
    chown root "$shared"
    check "  owned by root but writable by all: refused too" \
        run_relay shared2 env SPOOLSIM_CACHE_DIR="$shared"
    check "  saying so" said shared2 "$shared/$name" "its place is not root's alone: $shared is writable by every user (mode 0777)"
    chmod 755 "$shared"
    chown nobody "$shared/$name"
    check "  root's directory, but a file owned by nobody" \
        run_relay nobodys env SPOOLSIM_CACHE_DIR="$shared"
    check "  refused" said nobodys "$shared/$name" "it is owned by uid 65534, not by root"
    chown root "$shared/$name" && chmod 664 "$shared/$name"
    check "  a file its group can write" \
        run_relay groupw env SPOOLSIM_CACHE_DIR="$shared"
    check "  refused" said groupw "$shared/$name" "it is writable by its group, gid 0 (mode 0664)"

    # calibrate does not run an MTA unpacked in a cache another can write:
    # an installed spoolsim (a copy outside the build tree) unpacks it in
    # the cache's peers/. A script in place of the calibration says what it
    # was given, had it run.
    mkdir -p "$WORK/bin" && cp "$RELAY" "$WORK/bin/spoolsim"
    printf '#!/bin/sh\necho "peers=$SPOOLSIM_PEERS $*" >"$FAKE_MARK"\n' >"$WORK/fake.sh"
    chmod 755 "$WORK/fake.sh"
    chown nobody "$shared"
    # calibrate NAME [ENV-ARG...]: the copy's calibrate postfix, into the cache
    calibrate() {
        env -u SPOOLSIM_PEERS -u XDG_CACHE_HOME "${@:2}" HOME="$WORK/home" \
            SPOOLSIM_CALIBRATE_SCRIPT="$WORK/fake.sh" \
            FAKE_MARK="$WORK/$1.mark" SPOOLSIM_SMTP_SOURCE="$SOURCE" SPOOLSIM_SMTP_SINK="$SINK" \
            SPOOLSIM_DATA_DIR="$top_srcdir/data" \
            timeout 60 "$WORK/bin/spoolsim" calibrate postfix 2>"$WORK/$1.err"
    }
    calibrate evil SPOOLSIM_CACHE_DIR="$shared"
    check "calibrate as root with the cache owned by nobody: exit 3 ($?)" test $? = 3
    check "  saying why" grep -q "not calibrating as root with the MTA to run in $shared: $shared is owned by uid 65534, not by root" "$WORK/evil.err"
    check "  and running nothing" test ! -e "$WORK/evil.mark"

    # The machine's cache: root's calibration goes there, readable by all.
    sys=$SPOOLSIM_SYSTEM_CACHE
    chmod 755 "$WORK" # for nobody, below; $WORK's parent is sticky, and root's
    check "root's model goes to the machine's cache" \
        test "$(env -u SPOOLSIM_CACHE_DIR -u XDG_CACHE_HOME HOME="$WORK/home" "$RELAY" calibrate --cache-path)" = "$sys/$name"
    (umask 077 && calibrate sys -u SPOOLSIM_CACHE_DIR)
    check "calibrate as root unpacks the MTA in the machine's cache, and writes the model there" \
        grep -q "^peers=$sys/peers -o $sys/$name\$" "$WORK/sys.mark"
    check "  which it made readable by every user, whatever the umask" \
        test "$(stat -c %a "$sys")" = 755
    install -D -m 644 "$WORK/here.json" "$sys/$name"
    # another user: nobody, with an own cache of nothing
    as_nobody=(env SPOOLSIM_CACHE_DIR="$WORK/nobody-cache" setpriv --reuid=nobody --regid=nogroup --clear-groups)
    check "another user's run of the relay" run_relay user "${as_nobody[@]}"
    check "  takes root's model from the machine's cache" taken user "$sys/$name"
    chown nobody "$sys/$name"
    check "the machine's cache with a file nobody owns" run_relay user2 "${as_nobody[@]}"
    check "  is refused to every user" said user2 "$sys/$name" "it is owned by uid 65534, not by root"
    check "  who runs the built-in model" builtin user2
else
    skip_part "a cache of another user's, and the machine's cache read by another user: not root"
fi
finish
