#!/bin/bash
# Integration: the benchmarks' ports, taken from a high PID with mawk as awk
# (root; util-linux's unshare, mawk). bench/scratch-fs.sh's free_port once
# seeded awk's srand() with "$$$RANDOM", and mawk takes every seed from
# 2^31 - 1 up as one: from a PID of 21475 up most calls gave one port, so
# calibrate started its sink and Postfix's smtpd on it, and Postfix's
# failure said no reason. Each part runs in a PID namespace of its own whose
# next PID is 30000 (its last PID written to /proc/sys/kernel/ns_last_pid),
# with mawk first in PATH as awk; what it starts dies with the namespace.
#
# 1. bench/bench-lib.sh's free_port: 100 ports in a row, each a TCP port
#    of 127.0.0.1, no two the same.
# 2. calibrate's start (bench/calibrate-postfix.sh): the sink (bench_sink,
#    port 0), a port from free_port, a Postfix instance on it
#    (bench/postfix-instance.sh): Postfix starts, and it is Postfix that
#    answers there. (calibrate itself takes 10 s of both CPUs here.)
# 3. The same instance set on the sink's port: pfi_start fails and says
#    why, in the words of Postfix's log ("fatal: bind 127.0.0.1 port N:
#    Address already in use").
. "${top_srcdir:-.}/tests/helpers/lib.sh"

[ "$(id -u)" = 0 ] || skip "needs root (a PID namespace whose next PID it sets, Postfix)"
MAWK=$(command -v mawk) || skip "no mawk, the awk whose srand() made the defect (apt-get install mawk)"
command -v unshare >/dev/null || skip "no unshare (util-linux)"
unshare --pid --fork --mount-proc sh -c 'echo 30000 >/proc/sys/kernel/ns_last_pid' 2>"$WORK/ns.err" ||
    skip "cannot set the next PID of a PID namespace of its own: $(head -n 1 "$WORK/ns.err")"
mkdir "$WORK/bin" && ln -s "$MAWK" "$WORK/bin/awk" || exit 1
BENCH=$(cd "$top_srcdir/bench" && pwd)

# high_pid SCRIPT ARG...: bash runs SCRIPT (its $1... the ARGs) as PID 30001
# or so of a new PID namespace, mawk as awk; its first line of output is
# that PID, from SCRIPT's `echo $$'.
# shellcheck disable=SC2016 # bash -c's script
high_pid() {
    timeout 300 unshare --pid --fork --mount-proc env PATH="$WORK/bin:$PATH" bash -c '
        echo 30000 >/proc/sys/kernel/ns_last_pid || exit 1
        bash -c "$@"
        status=$?
        exit $status' high_pid "$@"
}
pid_high() { [ "$(head -n 1 "$1")" -gt 21474 ] 2>/dev/null; }

# 1. free_port
# shellcheck disable=SC2016 # a script for high_pid
high_pid 'echo $$
    case $(awk -W version 2>&1) in mawk*) ;; *) echo "awk is not mawk" >&2; exit 1 ;; esac
    . "$1/bench-lib.sh" || exit 1
    for _ in {1..100}; do free_port P || exit 1; echo "$P"; done' _ "$BENCH" >"$WORK/ports" 2>"$WORK/ports.err"
status=$?
check "free_port from a high PID: runs (status $status)" test "$status" = 0
check "  from PID $(head -n 1 "$WORK/ports")" pid_high "$WORK/ports"
tail -n +2 "$WORK/ports" >"$WORK/ports.list"
check "  100 ports, each from 1024 to 65535" test "$(awk '$1 >= 1024 && $1 <= 65535' "$WORK/ports.list" | wc -l)" = 100
check "  no two the same (repeated: $(sort "$WORK/ports.list" | uniq -d | head -n 3 | tr '\n' ' '))" \
    test "$(sort -u "$WORK/ports.list" | wc -l)" = 100

if have_peer "Postfix (for its instance)" "run scripts/fetch-peer.sh postfix" \
    test -x "$PEER_POSTFIX/bin/postfix" -a -s "$PEER_POSTFIX/version"; then
    export SPOOLSIM_PEERS
    # Postfix's daemons run as nobody: the instance's directory must be theirs to reach.
    mkdir "$WORK/pf" && chmod 711 "$WORK" && chmod 755 "$WORK/pf" || exit 1
    # shellcheck disable=SC2016 # a script for high_pid
    high_pid 'echo $$
        . "$1/postfix-instance.sh" || exit 1
        pfi_init "$1/.." || exit 1
        bench_sink "$2" "$3" && free_port PORT || exit 1
        echo "ports $SINK_PORT $PORT"
        pfi_setup "$3/ok" "$3/ok/queue" "$SINK_PORT" "$PORT" && pfi_start || exit 1
        exec 3<>"/dev/tcp/127.0.0.1/$PORT" && read -r -t 20 banner <&3 && echo "banner $banner"
        exec 3>&-
        pfi_stop
        pfi_setup "$3/busy" "$3/busy/queue" "$SINK_PORT" "$SINK_PORT" || exit 1
        pfi_start && echo "started on a port in use"
        pfi_stop' _ "$BENCH" "$SINK" "$WORK/pf" >"$WORK/pf.out" 2>"$WORK/pf.err"
    sed 's/^/# /' "$WORK/pf.err" | head -n 5
    read -r _ sink_port port < <(grep '^ports ' "$WORK/pf.out")
    # 2.
    check "Postfix and its sink from a high PID: two ports (${sink_port:-none}, ${port:-none})" \
        test -n "${port:-}" -a "${sink_port:-}" != "${port:-}"
    check "  from PID $(head -n 1 "$WORK/pf.out")" pid_high "$WORK/pf.out"
    check "  Postfix answers on its own" grep -q "^banner 220 .*Postfix" "$WORK/pf.out"
    # 3.
    check "Postfix on its sink's port: it does not start" \
        sh -c "grep -q '^banner ' '$WORK/pf.out' && ! grep -q 'started on a port in use' '$WORK/pf.out'"
    check "  and says why, from Postfix's log" grep -Eq \
        "^postfix start failed \(exit [0-9]+\): fatal: bind 127.0.0.1 port ${sink_port:-none}: Address already in use$" \
        "$WORK/pf.err"
fi
finish
