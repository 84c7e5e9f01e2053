# postfix-instance.sh - a private, loopback-only Postfix relay for the
# benchmarks (sourced by bench/calibrate-postfix.sh and bench/fidelity.sh).
#
# Postfix comes from scripts/fetch-peer.sh (Debian's package extracted into
# $SPOOLSIM_PEERS/postfix, never installed); the instance shares nothing
# with a system Postfix: its own config directory, queue, data directory,
# log file and port, and it relays everything to 127.0.0.1:SINKPORT.
#
#   pfi_init ROOT                  find (or fetch) Postfix; sets PFI_PF, PFI_PC,
#                                  PFI_VERSION, PFI_DAEMONS (its daemon directory)
#   pfi_setup DIR QUEUE SINKPORT PORT [DAEMON_DIR]
#                                  write DIR/conf for a queue at QUEUE, smtpd on
#                                  127.0.0.1:PORT; DAEMON_DIR replaces Postfix's
#                                  own (wrappers: calibrate-postfix.sh)
#   pfi_relay_cf                   the main.cf lines every private instance shares
#   pfi_start / pfi_stop           start or stop it (stop also kills what is left)
#   pfi_queue_empty QUEUE          no queue file in incoming/, active/, deferred/
# Everything is stopped by the caller's EXIT trap calling pfi_stop; what is
# left of it after a stop, `bench_kill_left pfi_pids' kills (bench-lib.sh).

. "$(dirname "${BASH_SOURCE[0]}")/bench-lib.sh" # bench_kill_left
PFI_CONF=''
pfi_init() {
    local peer=${SPOOLSIM_PEERS:-$1/tests/peers}/postfix
    if [ ! -s "$peer/version" ]; then
        "$1/scripts/fetch-peer.sh" postfix >&2 ||
            { echo "cannot fetch Postfix (scripts/fetch-peer.sh postfix)" >&2; return 1; }
    fi
    PFI_PEER=$peer PFI_PF=$peer/bin/postfix PFI_PC=$peer/bin/postconf
    PFI_VERSION=$(cut -d- -f1 "$peer/version")
    PFI_DAEMONS=$peer/root/usr/lib/postfix/sbin
    [ -x "$PFI_PF" ] && [ -d "$PFI_DAEMONS" ] || { echo "no Postfix in $peer" >&2; return 1; }
}

# pfi_relay_cf: the main.cf lines of every private instance here (this one and
# bench/relay.sh's): IPv4, a relay for the loopback only that looks nothing up
# in DNS or for its clients' names, and delivers nothing locally.
pfi_relay_cf() {
    cat <<'EOF'
inet_protocols = ipv4
local_recipient_maps =
local_transport = error:local delivery is disabled
mynetworks = 127.0.0.0/8
smtpd_relay_restrictions = permit_mynetworks, reject
smtpd_recipient_restrictions =
smtp_dns_support_level = disabled
smtp_host_lookup = native
smtpd_peername_lookup = no
biff = no
append_dot_mydomain = no
EOF
}

pfi_setup() {
    local dir=$1 queue=$2 sink_port=$3 port=$4 daemons=${5:-}
    PFI_CONF=$dir/conf
    mkdir -p "$PFI_CONF" "$dir/data" "$queue" && chown nobody "$dir/data" && chmod 755 "$queue" ||
        return 1
    # Its log, where the mail owner writes too: postsuper, run at start-up
    # before the log daemon is up, writes the file itself once it has dropped
    # to the mail owner (a warning of a temporary file a crash left in
    # incoming/, say); a log it cannot open is fatal to the start.
    : >>"$dir/postfix.log" && chown nobody "$dir/postfix.log" || return 1
    grep -Ev '^(daemon_directory|queue_directory|data_directory) ' "$PFI_PEER/conf/main.cf" \
        >"$PFI_CONF/main.cf"
    cat >>"$PFI_CONF/main.cf" <<EOF
${daemons:+daemon_directory = $daemons}
queue_directory = $queue
data_directory = $dir/data
myhostname = bench.localdomain
mydomain = localdomain
relayhost = [127.0.0.1]:$sink_port
$(pfi_relay_cf)
maillog_file_prefixes = $dir
maillog_file = $dir/postfix.log
EOF
    [ -n "$daemons" ] || grep -E '^daemon_directory ' "$PFI_PEER/conf/main.cf" >>"$PFI_CONF/main.cf"
    cp "$PFI_PEER/conf/master.cf" "$PFI_CONF/master.cf" &&
        "$PFI_PC" -c "$PFI_CONF" -F '*/*/chroot = n' || return 1
    sed -i -E "s/^smtp( +inet )/127.0.0.1:$port\1/" "$PFI_CONF/master.cf"
    PFI_PORT=$port
}

# Postfix may say why it did not start in its log only, not on its output
# (master's "fatal: bind 127.0.0.1 port N: Address already in use"): the
# message names the first error this start logged, then shows its output
# and its log lines.
pfi_start() {
    local dir=${PFI_CONF%/*} size status new
    size=$(stat -c %s "$dir/postfix.log" 2>/dev/null || echo 0)
    "$PFI_PF" -c "$PFI_CONF" start >>"$dir/postfix.out" 2>&1 && status=0 || status=$?
    if [ "$status" != 0 ]; then
        new=$(tail -c +$((size + 1)) "$dir/postfix.log" 2>/dev/null)
        echo "postfix start failed (exit $status): $(pfi_log_errors <<<"$new" | head -n 1)" >&2
        {
            echo "its output ($dir/postfix.out):"
            tail -n 10 "$dir/postfix.out"
            echo "what this start logged ($dir/postfix.log):"
            echo "${new:-nothing}" | tail -n 15
        } | sed 's/^/  /' >&2
        return 1
    fi
    for _ in $(seq 100); do
        (exec 3<>"/dev/tcp/127.0.0.1/$PFI_PORT") 2>/dev/null && return 0
        sleep 0.1
    done
    echo "Postfix does not listen on $PFI_PORT" >&2
    return 1
}

# pfi_log_errors: of Postfix's log lines on standard input, the fatal errors
# and panics, without their syslog prefix; not postfix-script's "startup
# failed", which follows the reason. "unknown reason" when there is none.
pfi_log_errors() {
    sed -n -E '/mail system startup failed/d; s/^.*: ((fatal|panic|error): )/\1/p' | grep . || echo "unknown reason"
}

# The processes of this instance: MAIL_CONFIG=conf in their environment.
pfi_pids() {
    local p
    for p in /proc/[0-9]*; do
        grep -qzxF "MAIL_CONFIG=$PFI_CONF" "$p/environ" 2>/dev/null && bench_own_pid "$p"
    done
    return 0
}

pfi_stop() {
    [ -n "$PFI_CONF" ] && [ -f "$PFI_CONF/main.cf" ] || return 0
    "$PFI_PF" -c "$PFI_CONF" stop >/dev/null 2>&1
    bench_kill_left pfi_pids
}

pfi_queue_empty() {
    [ -z "$(find "$1/incoming" "$1/active" "$1/deferred" -type f 2>/dev/null | head -1)" ]
}
