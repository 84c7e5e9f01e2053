# shellcheck shell=bash
# calibrate-lib.sh - what bench/calibrate-postfix.sh and bench/calibrate-exim.sh
# share: the options, the cgroup, the loads, the bare relay's CPU by role,
# and the fit that turns both into a cost model (docs/fidelity.md).
#
#   cal_init NAME STOP "$@"    parse -o FILE -m N; check root, the binaries,
#                              cgroups; sets OUT, M, CG (a new cgroup directory of
#                              NAME), CG_V (1: cpuacct, 2: unified), TMP (a new
#                              directory with tmpfs mounts queue/ and spool/), and
#                              the traps: at exit the relay, the MTA (the function
#                              STOP), the sink, the cgroups and TMP go; and first
#                              what dead calibrations left (cal_remove_dead)
#   cal_sink                   smtp-sink on a free port: SINK_PORT, SINK_PID
#                              (bench_sink, bench/bench-lib.sh)
#   cg_usage CLASS             CPU nanoseconds of the cgroup CG/CLASS so far
#   cal_send PORT EMPTY QUEUE SESSIONS SIZE MESSAGES RCPTS
#                              the load by smtp-source ($CAL_SOURCE_OPTS too),
#                              then wait until `EMPTY QUEUE' is true
#   cal_measure SYSTEM PORT EMPTY QUEUE SNAPSHOT
#                              a warm-up, then every load of LOADS, each pass
#                              between two `SNAPSHOT's ("CLASS NANOSECONDS"
#                              lines), passes until two agree (CAL_AGREE), the
#                              two closest into TMP/points
#   cal_relay PROFILE EMPTY    the bare relay (--profile PROFILE --model none) at
#                              every load, its CPU by role, into TMP/points (its
#                              spool has the MTA's layout: EMPTY as the MTA's)
#   free_port VAR              (bench/bench-lib.sh)
#   cal_write MTA VERSION ROLES METHOD [SYSCALLS]
#                              fit every class and write the model to OUT. ROLES
#                              (JSON) names, per MTA class, the relay's roles
#                              (loop, cleanup, qmgr) that do its work; a role
#                              named by several classes is shared among them as
#                              the MTA's CPU is. SYSCALLS, where it exists, is the
#                              system calls each class makes per message
#                              (bench/count-postfix.sh), which the relay makes for
#                              real: they are the program's, not the machine's
# The fit and the model's JSON are spoolsim's own (`spoolsim calibrate --fit',
# spoolsim/calibrate/calibrate_fit.h): a calibration needs no python3, so that a
# fresh machine and the installed package can calibrate.
# SPOOLSIM_CALIBRATE_POINTS=FILE keeps a copy of the points measured, which
# `spoolsim calibrate --fit' can fit again.
CAL_ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
SPOOLSIM=${SPOOLSIM:-$CAL_ROOT/spoolsim/spoolsim}
SRC=${SPOOLSIM_SMTP_SOURCE:-$CAL_ROOT/smtp-source/smtp-source}
SINK=${SPOOLSIM_SMTP_SINK:-$CAL_ROOT/smtp-sink/smtp-sink}
. "$CAL_ROOT/bench/bench-lib.sh" # bench_getopts, bench_sink, free_port
. "$CAL_ROOT/bench/scratch-fs.sh" # scratch_fs_mount, for CAL_QUEUE_FS
LOADS="20:1024:1 20:15360:1 5:1024:1 20:1024:5"
CAL_SOURCE_OPTS=()
TMP='' RELAY_PID='' CG='' SINK_PID='' CAL_STOP=:

# cal_own_cgroups: mount the CPU accounting cgroups in this (private) mount
# namespace: cgroup v1's cpuacct hierarchy with the controllers it is
# mounted with elsewhere (/proc/self/cgroup), else the unified one.
cal_own_cgroups() {
    local ctl
    ctl=$(awk -F: '$2 ~ /(^|,)cpuacct(,|$)/ { print $2; exit }' /proc/self/cgroup)
    if [ -n "$ctl" ]; then
        mount -t tmpfs -o mode=755 cgroups /sys/fs/cgroup && mkdir /sys/fs/cgroup/cpuacct &&
            mount -t cgroup -o "$ctl" cgroup /sys/fs/cgroup/cpuacct
    else
        mount -t cgroup2 cgroup2 /sys/fs/cgroup
    fi
}

# cal_mark: TMP is this run's while it lives: TMP/owner, locked (flock) by this
# shell and so by every process it starts, names the run's PID and cgroup for a
# later run that finds it unlocked. Locked before it has its name, so that a
# run cleaning up meanwhile never finds it there and free.
cal_mark() {
    local fd
    exec {fd}>"$TMP/owner.new" && flock -n "$fd" && printf '%s\n%s\n' "$$" "$CG" >&"$fd" &&
        mv "$TMP/owner.new" "$TMP/owner"
}

# cal_remove_dead NAME: what calibrations killed outright (kill -9, the OOM
# killer) left: each /tmp/spoolsim-NAME.* of root's whose owner file nobody
# holds goes, with its cgroup, and a line says so. (Run by `spoolsim
# calibrate', a calibration's daemons and its tmpfs mounts die with it:
# spoolsim/calibrate/calibrate.c.)
cal_remove_dead() {
    local d fd pid cg c m
    for d in /tmp/spoolsim-"$1".*; do
        [ -d "$d" ] && [ ! -L "$d" ] && [ -f "$d/owner" ] && [ ! -L "$d/owner" ] &&
            [ "$(stat -c %u "$d")" = 0 ] || continue
        exec {fd}<"$d/owner" || continue
        if flock -n "$fd"; then
            pid='' cg=''
            { read -r pid; read -r cg; } <"$d/owner"
            # a run not started by spoolsim calibrate mounted where this one sees it
            while read -r m; do umount -l "$m"; done < <(awk -v d="$d/" 'substr($5, 1, length(d)) == d { print $5 }' /proc/self/mountinfo | sort -r)
            if [[ $cg == /sys/fs/cgroup/*spoolsim-"$1".* ]]; then
                for c in "$cg"/*/; do [ -d "$c" ] && rmdir "$c"; done 2>/dev/null
                [ -d "$cg" ] && rmdir "$cg" 2>/dev/null
            fi
            rm -rf "$d"
            echo "calibrate: removed $d${cg:+ and the cgroup $cg}, left by calibration process $pid, which is gone" >&2
        fi
        exec {fd}<&-
    done
}

usage() {
    echo "usage: $0 [-o MODEL.json] [-m MESSAGES]" >&2
    exit 2
}

cal_init() {
    local name=$1
    CAL_STOP=$2
    shift 2
    local args=("$@")
    OUT=- M=2000
    bench_getopts "o:OUT m:M" "$@"
    shift $((OPTIND - 1))
    [ $# = 0 ] || usage
    [[ $M =~ ^[1-9][0-9]*$ ]] && [ "$M" -ge 200 ] || { echo "$0: -m wants at least 200 messages" >&2; exit 2; }
    [ "$(id -u)" = 0 ] || { echo "$0: must run as root (the MTA, tmpfs mounts, cgroups)" >&2; exit 2; }
    for f in "$SPOOLSIM" "$SRC" "$SINK"; do [ -x "$f" ] || { echo "$0: missing $f: run make first" >&2; exit 2; }; done
    # A chroot with /sys bound in without what is mounted below it (CI's fresh
    # root), or a container, may show no cgroups: the script then runs again
    # in a mount namespace of its own with them mounted there, gone at its exit.
    if [ ! -d /sys/fs/cgroup/cpuacct ] && [ ! -f /sys/fs/cgroup/cgroup.controllers ]; then
        if [ -z "${CAL_OWN_CGROUPS:-}" ] && command -v unshare >/dev/null; then
            exec env CAL_OWN_CGROUPS=1 unshare -m --propagation private "$0" "${args[@]}"
        fi
        [ -n "${CAL_OWN_CGROUPS:-}" ] && cal_own_cgroups
    fi
    if [ -d /sys/fs/cgroup/cpuacct ]; then
        CG=/sys/fs/cgroup/cpuacct/spoolsim-$name.$$ CG_V=1
    elif [ -f /sys/fs/cgroup/cgroup.controllers ]; then
        CG=/sys/fs/cgroup/spoolsim-$name.$$ CG_V=2
    else
        echo "$0: neither cgroup v1 cpuacct nor cgroup v2 is mounted" >&2; exit 1
    fi
    cal_remove_dead "$name"
    trap cal_cleanup EXIT
    trap 'echo "interrupted" >&2; exit 130' INT TERM
    TMP=$(mktemp -d "/tmp/spoolsim-$name.XXXXXX") && chmod 755 "$TMP" && cal_mark || exit 1
    mkdir -p "$TMP/queue" "$TMP/spool" "$CG" || exit 1
    "$SPOOLSIM" calibrate --machine >"$TMP/machine.json" || exit 1
    # CAL_QUEUE_FS: the queues on another filesystem (bench/scratch-fs.sh's:
    # ext4, xfs, ...), to see what a disk adds per class (bench/disk-cost.sh
    # and docs/fidelity.md); a model is measured on tmpfs, the default.
    case ${CAL_QUEUE_FS:-tmpfs} in
    tmpfs) mount -t tmpfs -o size=4g,mode=755 tmpfs "$TMP/queue" && mount -t tmpfs -o size=4g tmpfs "$TMP/spool" ;;
    *) scratch_fs_known "$CAL_QUEUE_FS" && scratch_fs_mount "$CAL_QUEUE_FS" "$TMP/queue" "$TMP/queue.img" &&
        scratch_fs_mount "$CAL_QUEUE_FS" "$TMP/spool" "$TMP/spool.img" ;;
    esac || exit 1
    : >"$TMP/points"
}

cal_cleanup() {
    local d m
    trap '' INT TERM
    [ -n "$RELAY_PID" ] && kill "$RELAY_PID" 2>/dev/null && wait "$RELAY_PID" 2>/dev/null
    "$CAL_STOP"
    [ -n "$SINK_PID" ] && kill "$SINK_PID" 2>/dev/null && wait "$SINK_PID" 2>/dev/null
    if [ -n "$CG" ]; then
        for d in "$CG"/*/; do [ -d "$d" ] && rmdir "$d"; done 2>/dev/null
        [ -d "$CG" ] && rmdir "$CG" 2>/dev/null
    fi
    if [ -n "$TMP" ]; then
        for m in "$TMP/queue" "$TMP/spool"; do mountpoint -q "$m" && umount "$m"; done
        rm -f "$TMP/queue.img" "$TMP/spool.img"
        rm -rf "$TMP"
    fi
}

cal_sink() { bench_sink "$SINK" "$TMP"; }

cg_usage() {
    if [ "$CG_V" = 1 ]; then cat "$CG/$1/cpuacct.usage"; else
        awk '$1 == "usage_usec" { print $2 * 1000 }' "$CG/$1/cpu.stat"; fi
}

cal_send() {
    local port=$1 empty=$2 queue=$3 rcpt_opts=()
    [ "$7" -gt 1 ] && rcpt_opts=(-N -r "$7")
    "$SRC" "${CAL_SOURCE_OPTS[@]}" -s "$4" -l "$5" -m "$6" "${rcpt_opts[@]}" 127.0.0.1:"$port" \
        >"$TMP/src.out" 2>&1 || { echo "$0: smtp-source failed:" >&2; cat "$TMP/src.out" >&2; return 1; }
    for _ in $(seq 600); do "$empty" "$queue" && return 0; sleep 0.1; done
    echo "$0: the queue did not drain" >&2
    return 1
}

# cal_messages SIZE RCPTS: M, or half of it for the load with several recipients.
cal_messages() { if [ "$2" -gt 1 ]; then echo $((M / 2)); else echo "$M"; fi; }

# cal_cpu_per_message N: the MTA's CPU per message, in microseconds, between
# the snapshots TMP/before and TMP/after ("CLASS NANOSECONDS" lines) of N messages.
cal_cpu_per_message() {
    awk -v n="$1" 'NR == FNR { was[$1] = $2; next } { sum += $2 - was[$1] }
        END { printf "%.1f\n", sum / n / 1000 }' "$TMP/before" "$TMP/after"
}

# A load is measured until two of its passes agree within CAL_AGREE (5 %) in
# the MTA's CPU per message, CAL_PASSES_MAX (4) passes at most: one pass can
# catch the machine busy with something else (a count of Postfix's CPU ran
# 1.71 ms quiet and 2.52 ms beside a test suite on one VM). The two closest
# passes go to the fit; the spread seen is said, and a load whose passes
# never agreed is said in a warning. CAL_PASSES_MAX=1 takes one pass (the
# tests, which check what a calibration does, not how precisely).
CAL_AGREE=${CAL_AGREE:-0.05}
CAL_PASSES_MAX=${CAL_PASSES_MAX:-4}
# cal_quiet: warn when the machine is busy before the measuring starts. Passes
# that agree do not show a steady load beside them: the CPU a message costs
# rises with it (other work takes the caches, a sibling hyperthread), so the
# passes agree on a wrong figure. On a 2-core VM, a calibration beside one
# build at nice 19 found Postfix's CPU per 1 KiB message 2,625 us, bench
# runs on the quiet machine 2,188 to 2,257 (docs/fidelity.md).
cal_quiet() {
    local a b
    a=$(awk '$1 == "cpu" { print $2 + $3 + $4 + $7 + $8 + $9, $5 + $6; exit }' /proc/stat)
    sleep 2
    b=$(awk '$1 == "cpu" { print $2 + $3 + $4 + $7 + $8 + $9, $5 + $6; exit }' /proc/stat)
    awk -v a="$a" -v b="$b" -v limit="${CAL_BUSY_LIMIT:-0.10}" 'BEGIN {
        split(a, x, " "); split(b, y, " ")
        busy = y[1] - x[1]; all = busy + y[2] - x[2]
        if (all > 0 && busy / all > limit) {
            printf "calibrate: WARNING: the machine is busy: %.0f %% of its CPUs in use over 2 s before measuring; what a message costs is measured with that load beside it, higher than on a quiet machine: calibrate when it is quiet\n", 100 * busy / all
            exit 1 } }' >&2
    return 0
}

cal_measure() {
    local sys=$1 port=$2 empty=$3 queue=$4 snap=$5 load s l r n pass us best lines=() cpus=()
    cal_quiet
    cal_send "$port" "$empty" "$queue" 20 1024 200 1 || return 1 # warm-up
    for load in $LOADS; do
        IFS=: read -r s l r <<<"$load"
        n=$(cal_messages "$l" "$r")
        lines=() cpus=()
        for ((pass = 1; pass <= CAL_PASSES_MAX; pass++)); do
            "$snap" >"$TMP/before"
            cal_send "$port" "$empty" "$queue" "$s" "$l" "$n" "$r" || return 1
            "$snap" >"$TMP/after"
            us=$(cal_cpu_per_message "$n")
            lines+=("$sys $s $l $r $n $(tr '\n' ' ' <"$TMP/before") / $(tr '\n' ' ' <"$TMP/after")")
            cpus+=("$us")
            [ "$pass" -ge 2 ] || continue
            # best: "I J SPREAD" of the two closest passes so far
            best=$(printf '%s\n' "${cpus[@]}" | awk '{ v[NR] = $1 } END {
                b = -1; for (i = 1; i <= NR; i++) for (j = i + 1; j <= NR; j++) {
                    lo = v[i] < v[j] ? v[i] : v[j]; d = (v[i] - v[j]) / (lo > 0 ? lo : 1)
                    if (d < 0) d = -d
                    if (b < 0 || d < b) { b = d; bi = i; bj = j } }
                printf "%d %d %.4f\n", bi, bj, b }')
            read -r bi bj spread <<<"$best"
            awk -v d="$spread" -v a="$CAL_AGREE" 'BEGIN { exit !(d <= a) }' && break
        done
        [ "$pass" -gt "$CAL_PASSES_MAX" ] && pass=$CAL_PASSES_MAX
        if [ "$pass" -lt 2 ]; then # CAL_PASSES_MAX=1: one pass, nothing to agree with
            printf '%s\n' "${lines[0]}" >>"$TMP/points"
            echo "calibrate: $sys, $s sessions, $l bytes, $r recipients: $n messages, 1 pass (${cpus[0]} us a message)" >&2
            continue
        fi
        printf '%s\n' "${lines[bi - 1]}" "${lines[bj - 1]}" >>"$TMP/points"
        echo "calibrate: $sys, $s sessions, $l bytes, $r recipients: $n messages a pass, $pass passes ($(printf '%s ' "${cpus[@]}")us a message), the two kept $(awk -v d="$spread" 'BEGIN { printf "%.1f", d * 100 }') % apart" >&2
        awk -v d="$spread" -v a="$CAL_AGREE" 'BEGIN { exit !(d > a) }' &&
            echo "calibrate: WARNING: $sys's passes at $s x $l never came within $(awk -v a="$CAL_AGREE" 'BEGIN { print a * 100 }') % of each other: is the machine busy?" >&2
    done
    return 0
}

# cal_relay_cpu PROFILE EMPTY SESSIONS SIZE MESSAGES RCPTS: a fresh bare relay takes
# the warm-up and then this load (none for 0 messages); its CPU by role at exit,
# in clock ticks.
# It runs in a command substitution, whose output is what the caller reads
# to its end: the relay's own output goes to a file (a relay left holding
# the pipe would keep the caller waiting for ever), and on every way out the
# relay is stopped here, where its PID is known (the caller's EXIT trap
# runs in another shell and cannot see it).
cal_relay_cpu() {
    local profile=$1 empty=$2
    shift 2
    rm -rf "$TMP/spool/q" "$TMP/relay.port" "$TMP/relay.json"
    "$SPOOLSIM" relay --profile "$profile" --model "${CAL_RELAY_MODEL:-none}" --spool "$TMP/spool/q" --listen 127.0.0.1:0 \
        --port-file "$TMP/relay.port" --next-hop 127.0.0.1:"$SINK_PORT" -q \
        --json "$TMP/relay.json" >"$TMP/relay.out" 2>"$TMP/relay.err" &
    RELAY_PID=$!
    # a busy machine can take seconds to start a relay that burns a model
    for _ in $(seq 600); do [ -s "$TMP/relay.port" ] && break; sleep 0.05; done
    if ! [ -s "$TMP/relay.port" ] ||
        ! cal_send "$(cat "$TMP/relay.port")" "$empty" "$TMP/spool/q" 20 1024 200 1 ||
        { [ "$3" -gt 0 ] && ! cal_send "$(cat "$TMP/relay.port")" "$empty" "$TMP/spool/q" "$@"; }; then
        kill "$RELAY_PID" 2>/dev/null
        wait "$RELAY_PID"
        echo "$0: the relay's run failed; it said:" >&2
        cat "$TMP/relay.err" >&2
        return 1
    fi
    kill "$RELAY_PID" && wait "$RELAY_PID"
    RELAY_PID=
    "$SPOOLSIM" calibrate --relay-cpu "$TMP/relay.json"
}

cal_relay() {
    local profile=$1 empty=$2 load s l r n before after
    for load in $LOADS; do
        IFS=: read -r s l r <<<"$load"
        n=$(cal_messages "$l" "$r")
        before=$(cal_relay_cpu "$profile" "$empty" "$s" "$l" 0 "$r") &&
            after=$(cal_relay_cpu "$profile" "$empty" "$s" "$l" "$n" "$r") || return 1
        echo "relay $s $l $r $n $before / $after" >>"$TMP/points"
        echo "calibrate: relay, $s sessions, $l bytes, $r recipients: $n messages" >&2
    done
}

# cal_relay_own PROFILE EMPTY CAL_WRITE_ARGS...: after cal_relay, the model
# from the bare relay's CPU (not kept), then the relay's own CPU measured again
# with that model burning, and the model written from it. A relay that burns a model spends more of its own than the
# bare relay does (its threads hand commands to the smtpd pool and back, the
# burns take its caches, 40 threads share 2 cores): on a 2-core VM 640 us a
# 1 KiB message against the bare relay's 240. What the model burns is the
# MTA's CPU less what the relay spends of its own while it runs the model,
# measured here on tmpfs, so that nothing is counted twice; what a disk adds
# to the relay's own work stays on top, as it does to the MTA's.
# (--relay-cpu subtracts the burns from the roles' CPU: the cleanup threads
# burn the receiving side's and the deliveries' shares, the qmgr thread
# qmgr's; Postfix's profile.)
cal_relay_own() {
    local profile=$1 empty=$2
    shift 2
    CAL_OUT=$TMP/model-bare-relay.json cal_write "$@" 2>/dev/null && sed -i '/^relay /d' "$TMP/points" ||
        return 1
    echo "calibrate: the relay's own CPU again, with that model burning" >&2
    CAL_RELAY_MODEL=$TMP/model-bare-relay.json cal_relay "$profile" "$empty" || return 1
    cal_write "$@"
}

cal_write() {
    local speed
    speed=$("$SPOOLSIM" calibrate --speed) || return 1
    if [ -n "${SPOOLSIM_CALIBRATE_POINTS:-}" ]; then
        cp "$TMP/points" "$SPOOLSIM_CALIBRATE_POINTS" && cp "$TMP/machine.json" "$SPOOLSIM_CALIBRATE_POINTS.machine" &&
            echo "calibrate: the points are in $SPOOLSIM_CALIBRATE_POINTS (speed $speed)" >&2
    fi
    "$SPOOLSIM" calibrate --fit "$TMP/points" "${CAL_OUT:-$OUT}" "$1" "$2" "$3" "$4" "$speed" "$TMP/machine.json" "${5:-}"
}
