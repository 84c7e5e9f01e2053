#!/bin/bash
# Integration: the sendmail, exim and opensmtpd spool profiles make, per
# message, the file operations the real daemons make. Each daemon is
# fetched from Debian without being installed (scripts/fetch-peer.sh:
# apt-get download + dpkg -x into a private directory), run as a
# loopback-only relay in a private mount namespace under strace -f, and
# sent messages by smtp-source, which it relays to smtp-sink. Then
# `spoolsim raw --profile NAME' runs under strace too, and the two are
# counted by the same tests/helpers/strace_count.py and compared kind by kind.
#
# The namespace keeps the host as it is: /etc (and, where a daemon needs a
# file at a compiled-in path, /usr/sbin or /var/lib) is an overlay whose
# changes go to $WORK, /var/spool is a bind mount of a directory in $WORK.
# The users a daemon insists on (Debian-exim; opensmtpd and opensmtpq) are
# added to the overlay's /etc/passwd only, so no account is made on the
# host; Sendmail runs as root, as it does on Debian.
#
# Counted: the spool directory's operations between the end of a warm-up
# (3 messages: the hints databases and caches are made) and the drain,
# divided by the messages; for spoolsim raw (one worker, nothing else on
# its disk), a run of 2N messages minus a run of N, divided by N, so that
# set-up and clean-up cancel. One session per message, one recipient,
# 1000-byte bodies: every file is written in one write(2), so writes
# compare exactly too. All kinds are compared exactly except close, fstat
# and read: the daemons hand descriptors between processes (OpenSMTPD's
# queue passes the message file to its smtp process, Sendmail and Exim
# fork a delivery child that inherits them), so how often a descriptor is
# closed or fstat'ed (stdio sizing its buffer) says how the daemon is
# split into processes, not what the file system does; and the profiles
# model writes, not reads.
#
# Needs root, unshare(1), overlayfs, strace, python3 and Debian's package
# archive (m4 as well for Sendmail's configuration); skips, saying why,
# where they are missing, and skips each daemon it cannot fetch or start
# (the others checked, it then ends in SKIP, naming the daemons skipped).
# fetch-peer.sh may apt-install the shared libraries a daemon needs, as it
# says; the daemons themselves are never installed.
. "${top_srcdir:-.}/tests/helpers/lib.sh"
. "$top_srcdir/bench/exim-instance.sh" # exi_config

N=${PROFILE_DAEMONS_MESSAGES:-20}
WARM=3
HELPER="$top_srcdir/tests/helpers/strace_count.py"
FETCH="$top_srcdir/scripts/fetch-peer.sh"

[ "$(id -u)" = 0 ] || skip "needs root (a mount namespace with overlays, the daemons' own users)"
command -v unshare >/dev/null || skip "unshare(1) is not installed"
command -v strace >/dev/null || skip "strace is not installed"
strace -f -o /dev/null true 2>/dev/null || skip "strace cannot trace here (ptrace not permitted)"
[ -x "$FETCH" ] || skip "scripts/fetch-peer.sh is absent: the daemons cannot be fetched"
mkdir -p "$WORK/ovtest/u" "$WORK/ovtest/w" "$WORK/ovtest/l"
unshare -m sh -c "mount -t overlay overlay -o lowerdir=$WORK/ovtest/l,upperdir=$WORK/ovtest/u,workdir=$WORK/ovtest/w $WORK/ovtest/l" 2>/dev/null ||
    skip "no private mount namespace with overlayfs here (unshare -m, mount -t overlay)"

# where fetch-peer.sh puts the daemons (its default), as an absolute path:
# the namespace and the daemons' configuration name files in it
PEERS=${SPOOLSIM_PEERS:-$top_srcdir/tests/peers}
mkdir -p "$PEERS" && PEERS=$(cd "$PEERS" && pwd) || skip "cannot make $PEERS"
export SPOOLSIM_PEERS=$PEERS

RAN=0
# TRACED: the strace processes, each with a daemon as its child.
TRACED=""
trap 'for t in $TRACED; do stop_traced "$t"; done; cleanup' EXIT
# SKIPPED: the daemons that could not be checked; each is a part of the
# test skipped (the test ends in SKIP unless one failed).
SKIPPED=""
skip_daemon() {
    skip_part "$1: $2"
    SKIPPED="$SKIPPED$1 "
}

# free_id: a user and group ID that neither the host's passwd nor group uses.
free_id() {
    local id=${1:-64000}
    while getent passwd "$id" >/dev/null || getent group "$id" >/dev/null; do
        id=$((id + 1))
    done
    echo "$id"
}

# ---- run in the namespace (passed to unshare as functions)

# ns_common DIR: /etc as an overlay, /var/spool a directory of DIR.
ns_common() {
    local d=$1
    mount --make-rprivate /
    mkdir -p "$d/ov/etc/u" "$d/ov/etc/w" "$d/spool"
    mount -t overlay overlay -o "lowerdir=/etc,upperdir=$d/ov/etc/u,workdir=$d/ov/etc/w" /etc
    mount --bind "$d/spool" /var/spool
    chmod 755 /var/spool
}
# ns_overlay DIR PATH: PATH writable, its changes kept in DIR.
ns_overlay() {
    local u=$1/ov/${2//\//_}
    mkdir -p "$u/u" "$u/w"
    mount -t overlay overlay -o "lowerdir=$2,upperdir=$u/u,workdir=$u/w" "$2"
}
# ns_user NAME ID: NAME in the overlay's passwd and group, unless the host has it.
ns_user() {
    getent passwd "$1" >/dev/null || echo "$1:x:$2:$2::/nonexistent:/usr/sbin/nologin" >>/etc/passwd
    getent group "$1" >/dev/null || echo "$1:x:$2:" >>/etc/group
}

ns_sendmail() { # DIR PORT SINK_PORT PEERS
    local d=$1 port=$2 sink=$3 peers=$4 host
    ns_common "$d"
    peer_ns_libs "$peers/sendmail-bin/root" || return 1
    mkdir -p /etc/mail /var/spool/mqueue
    chmod 700 /var/spool/mqueue
    # Sendmail sleeps for a minute on a host name it cannot qualify.
    host=$(hostname)
    { echo "127.0.0.1 $host.relay.test $host"; cat /etc/hosts; } >"$d/hosts"
    cat "$d/hosts" >/etc/hosts
    touch /etc/mail/local-host-names
    cat >"$d/relay.mc" <<EOF
divert(0)dnl
include(\`$peers/sendmail-cf/root/usr/share/sendmail/cf/m4/cf.m4')dnl
OSTYPE(\`linux')dnl
define(\`confDOMAIN_NAME', \`relay.test')dnl
define(\`confPID_FILE', \`/var/spool/sendmail.pid')dnl
define(\`confQUEUE_DIR', \`/var/spool/mqueue')dnl
define(\`confSTATUS_FILE', \`')dnl
define(\`confHOST_STATUS_DIRECTORY', \`')dnl
define(\`confDONT_PROBE_INTERFACES', \`True')dnl
define(\`SMART_HOST', \`esmtp:[127.0.0.1]')dnl
define(\`ESMTP_MAILER_ARGS', \`TCP \$h $sink')dnl
undefine(\`ALIAS_FILE')dnl
FEATURE(\`nocanonify')dnl
FEATURE(\`promiscuous_relay')dnl
FEATURE(\`accept_unresolvable_domains')dnl
DAEMON_OPTIONS(\`Port=$port, Addr=127.0.0.1, Name=MTA')dnl
MAILER(\`smtp')dnl
EOF
    m4 "$d/relay.mc" >/etc/mail/sendmail.cf 2>"$d/m4.err" || return 1
    exec strace -f -ttt -y -qq -s 64 -o "$d/trace" \
        "$peers/sendmail-bin/root/usr/libexec/sendmail/sendmail" -bD
}

ns_exim() { # DIR PORT SINK_PORT PEERS ID
    local d=$1 port=$2 sink=$3 peers=$4 id=$5
    ns_common "$d"
    peer_ns_libs "$peers/exim4-daemon-light/root" || return 1
    # Exim re-execs itself by its compiled-in path to deliver with privilege.
    ns_overlay "$d" /usr/sbin
    # a copy: the receiving process (Debian-exim) may not reach the tree (below /root, say)
    cp -p "$peers/exim4-daemon-light/root/usr/sbin/exim4" /usr/sbin/exim4
    # its compiled-in user, looked up before the configuration is read
    ns_user Debian-exim "$id"
    mkdir -p /etc/exim4 /var/spool/exim4 /var/spool/exim4-log
    chown Debian-exim:Debian-exim /var/spool/exim4 /var/spool/exim4-log
    # the benchmarks' configuration (bench/exim-instance.sh)
    exi_config /var/spool/exim4 /var/spool/exim4-log "$port" "$sink" >/etc/exim4/exim4.conf
    exec strace -f -ttt -y -qq -s 64 -o "$d/trace" /usr/sbin/exim4 -bdf -oX "$port"
}

ns_opensmtpd() { # DIR PORT SINK_PORT PEERS ID
    local d=$1 port=$2 sink=$3 peers=$4 id=$5 b
    ns_common "$d"
    ns_overlay "$d" /var/lib
    # its compiled-in users: the privilege-separated processes and the queue
    ns_user opensmtpd "$id"
    ns_user opensmtpq "$((id + 1))"
    mkdir -p /var/lib/opensmtpd/empty
    # A warm spool: OpenSMTPD keeps a bucket once it has made it.
    mkdir -m 711 /var/spool/smtpd
    mkdir -m 700 /var/spool/smtpd/queue
    for b in $(seq 0 255); do mkdir "/var/spool/smtpd/queue/$(printf %02x "$b")"; done
    chown -R opensmtpq:root /var/spool/smtpd/queue
    cat >"$d/smtpd.conf" <<EOF
listen on 127.0.0.1 port $port
action "relay" relay host smtp://127.0.0.1:$sink
match from any for any action "relay"
EOF
    exec strace -f -ttt -y -qq -s 64 -o "$d/trace" "$peers/opensmtpd/root/usr/sbin/smtpd" -d -f "$d/smtpd.conf"
}

# ---- run here

now() { python3 -c 'import time; print(f"{time.time():.6f}")'; }
# no_files DIR: no regular file is left below DIR.
no_files() { [ -z "$(find "$1" -type f 2>/dev/null | head -1)" ]; }
gone() { ! kill -0 "$1" 2>/dev/null; }
# stop_traced PID: stop the daemon strace started, then strace.
stop_traced() {
    local child
    for child in $(pgrep -P "$1"); do kill "$child" 2>/dev/null; done
    if ! wait_until 10 gone "$1"; then
        for child in $(pgrep -P "$1"); do kill -KILL "$child" 2>/dev/null; done
        kill "$1" 2>/dev/null
    fi
    wait "$1" 2>/dev/null
    return 0
}

# daemon_counts NAME NSFUNC SPOOLDIR QUEUE ARG...: run the daemon, send the
# messages, write its per-message counts to $WORK/NAME.daemon. QUEUE is the
# directory (outside the namespace) that is empty once every message is gone.
daemon_counts() {
    local name=$1 fn=$2 spool=$3 queue=$4 d=$WORK/$1 port pid t0 t1
    shift 4
    mkdir -p "$d"
    start_sink "${name}sink" --msg-log "$d/sink.log" 127.0.0.1:0 100 || return 1
    local sinkpid sinkport
    eval "sinkpid=\$${name}sink_PID sinkport=\$${name}sink_PORT"
    free_port port || return 1
    # unshare and bash exec strace: $! is strace's, the daemon its child
    unshare -m bash -c "$(declare -f ns_common ns_overlay ns_user exi_config peer_ns_libs "$fn"); $fn \"\$@\"" ns \
        "$d" "$port" "$sinkport" "$PEERS" "$@" >"$d/daemon.out" 2>&1 &
    pid=$!
    TRACED="$TRACED $pid"
    if ! wait_port "$port" && ! wait_port "$port" && ! wait_port "$port"; then
        echo "$name did not start:"
        tail -5 "$d/daemon.out"
        stop_traced "$pid"
        return 1
    fi
    local src=("$SOURCE" -s 1 -l 1000 -t rcpt@example.com -f sender@example.org --timeout 20s)
    to "$d/warm.out" timeout 60 "${src[@]}" -m $WARM "127.0.0.1:$port" &&
        wait_until 30 lines_in "$d/sink.log" $WARM && wait_until 30 no_files "$d/$queue" || {
        echo "$name: the warm-up messages did not go through:"
        cat "$d/warm.out"
        stop_traced "$pid"
        return 1
    }
    sleep 0.5
    t0=$(now)
    check "$name: $N messages accepted" to "$d/src.out" timeout 60 "${src[@]}" -m "$N" \
        --msg-log "$d/src.log" "127.0.0.1:$port"
    check "$name: $N messages relayed to the sink" wait_until 60 lines_in "$d/sink.log" $((WARM + N))
    check "$name: its spool drains" wait_until 60 no_files "$d/$queue"
    sleep 0.5 # what a delivery does after its last unlink
    t1=$(now)
    stop_traced "$pid"
    stop "$sinkpid"
    python3 "$HELPER" --spool "$spool" --since "$t0" --until "$t1" --messages "$N" "$d/trace" \
        >"$d/counts.daemon"
}

# compare NAME PROFILE: the daemon's counts against the profile's, kind by kind.
compare() {
    local name=$1 profile=$2 d=$WORK/$1 kind dv pv
    check "$profile: spoolsim raw runs under strace" raw_op_counts "$profile" "$N" "$d/counts.profile" \
        --size 1024
    awk -v a="$name" -v b="$profile" 'NR == FNR { p[$1] = $2; next }
        FNR == 1 { printf "%-12s %10s %10s\n", "per message", a, b }
        $2 != "0.00" || p[$1] != "0.00" { printf "%-12s %10s %10s\n", $1, $2, p[$1] }' \
        "$d/counts.profile" "$d/counts.daemon"
    while read -r kind dv; do
        case $kind in close | fstat | read) continue ;; esac
        pv=$(awk -v k="$kind" '$1 == k { print $2 }' "$d/counts.profile")
        case $name:$kind in
        opensmtpd:opendir | opensmtpd:stat)
            # smtpd's scheduler also walks its queue on a timer, not per message: a run of
            # N messages may meet one walk (an opendir and a stat), so up to 2/N more.
            check "$name vs $profile: $kind $dv = ${pv:-missing} (+ a timed queue walk at most)" \
                awk -v d="$dv" -v p="${pv:-0}" -v n="$N" 'BEGIN { exit !(d >= p && d - p <= 2 / n + 0.001) }'
            ;;
        *) check "$name vs $profile: $kind $dv = ${pv:-missing}" test "$dv" = "${pv:-missing}" ;;
        esac
    done <"$d/counts.daemon"
}

# fetch PACKAGE...: into $PEERS, quietly; its output kept for a skip message.
fetch() {
    "$FETCH" "$@" >"$WORK/fetch.out" 2>&1
}
version() { cat "$PEERS/$1/version" 2>/dev/null; }

# Sendmail
if ! command -v m4 >/dev/null; then
    skip_daemon sendmail "m4 is not installed (it makes sendmail.cf)"
elif ! fetch sendmail-bin sendmail-cf; then
    skip_daemon sendmail "cannot fetch sendmail-bin and sendmail-cf: $(tail -1 "$WORK/fetch.out")"
elif daemon_counts sendmail ns_sendmail /var/spool/mqueue spool/mqueue; then
    echo "sendmail-bin $(version sendmail-bin):"
    compare sendmail sendmail
    RAN=$((RAN + 1))
else
    skip_daemon sendmail "Sendmail $(version sendmail-bin) did not run here"
fi

# Exim
if ! fetch exim4-daemon-light; then
    skip_daemon exim "cannot fetch exim4-daemon-light: $(tail -1 "$WORK/fetch.out")"
elif daemon_counts exim ns_exim /var/spool/exim4 spool/exim4/input "$(free_id 64000)"; then
    echo "exim4-daemon-light $(version exim4-daemon-light):"
    case $(version exim4-daemon-light) in
    4.96*) compare exim exim ;;
    4.98* | 4.99*) compare exim exim-4.98 ;;
    *) skip_daemon exim "no profile for Exim $(version exim4-daemon-light)" ;;
    esac
    RAN=$((RAN + 1))
else
    skip_daemon exim "Exim $(version exim4-daemon-light) did not run here"
fi

# OpenSMTPD
if ! fetch opensmtpd; then
    skip_daemon opensmtpd "cannot fetch opensmtpd: $(tail -1 "$WORK/fetch.out")"
elif daemon_counts opensmtpd ns_opensmtpd /var/spool/smtpd spool/smtpd/queue "$(free_id 64010)"; then
    echo "opensmtpd $(version opensmtpd):"
    compare opensmtpd opensmtpd
    RAN=$((RAN + 1))
else
    skip_daemon opensmtpd "OpenSMTPD $(version opensmtpd) did not run here"
fi

[ "$RAN" -gt 0 ] || skip "no daemon could be checked (${SKIPPED% })"
finish
