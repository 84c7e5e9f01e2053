# shellcheck shell=bash
# exim-instance.sh - a private, loopback-only Exim relay for the benchmarks
# (sourced by bench/calibrate-exim.sh and bench/fidelity.sh).
#
# Exim comes from scripts/fetch-peer.sh (Debian's exim4-daemon-light
# extracted into $SPOOLSIM_PEERS, never installed). Exim reads its
# configuration from a compiled-in path (/etc/exim4/exim4.conf), looks up
# its compiled-in user (Debian-exim) and re-execs itself by a compiled-in
# path (/usr/sbin/exim4) to deliver each message, so it runs in a private
# mount namespace where /etc and /usr/sbin are overlays whose changes stay
# in DIR: the host keeps its own mail system, users and files. It accepts
# mail from 127.0.0.1 for any domain and relays it to 127.0.0.1:SINKPORT,
# as Debian runs it: a daemon (-bd -q30m) that forks a receiving process
# per connection, which forks a delivery (a re-exec'd exim -Mc) as soon as
# a message is accepted.
#
#   exi_init ROOT                  find (or fetch) Exim; sets EXI_BIN, EXI_VERSION
#   exi_config SPOOL LOGDIR PORT SINKPORT
#                                  print its configuration (also for
#                                  tests/it/it_profile_daemons.sh)
#   exi_setup DIR QUEUE SINKPORT PORT [CGROUP]
#                                  write DIR's configuration for a spool at
#                                  QUEUE, the daemon on 127.0.0.1:PORT; with
#                                  CGROUP (a cgroup directory with daemon/ and
#                                  delivery/ in it), the daemon starts in
#                                  CGROUP/daemon and every re-exec'd exim moves
#                                  itself into CGROUP/delivery first (a shell
#                                  wrapper at /usr/sbin/exim4)
#   exi_start / exi_stop           start or stop it (stop also kills what is left);
#                                  EXI_PID is the daemon, EXI_OWN_PID the same as
#                                  the instance's processes see it
#   exi_queue_empty QUEUE          no message file in input/
#   peer_ns_libs ROOT              (in a private mount namespace) the libraries
#                                  fetched beside a peer, found by the loader
#   EXI_PID                        the daemon's PID once started
# Everything is stopped by the caller's EXIT trap calling exi_stop.

. "$(dirname "${BASH_SOURCE[0]}")/bench-lib.sh" # bench_kill_left
EXI_DIR='' EXI_PID='' EXI_NS='' EXI_OWN_PID=''
exi_init() {
    local peer=${SPOOLSIM_PEERS:-$1/tests/peers}/exim4-daemon-light
    if [ ! -s "$peer/version" ]; then
        "$1/scripts/fetch-peer.sh" exim4-daemon-light >&2 ||
            { echo "cannot fetch Exim (scripts/fetch-peer.sh exim4-daemon-light)" >&2; return 1; }
    fi
    EXI_BIN=$(cd "$peer/root/usr/sbin" 2>/dev/null && pwd)/exim4
    EXI_VERSION=$(cut -d- -f1 "$peer/version")
    [ -x "$EXI_BIN" ] || { echo "no Exim in $peer" >&2; return 1; }
    command -v unshare >/dev/null || { echo "unshare(1) is needed (util-linux)" >&2; return 1; }
}

# An ID for Debian-exim that the host does not use (the namespace's passwd only).
exi_free_id() {
    local id=64100
    while getent passwd "$id" >/dev/null || getent group "$id" >/dev/null; do id=$((id + 1)); done
    echo "$id"
}

# exi_config SPOOL LOGDIR PORT SINKPORT: the configuration of a relay from
# 127.0.0.1 for any domain to 127.0.0.1:SINKPORT; Debian's defaults where a
# relay meets them; no DNS, no ident, no TLS. smtp_accept_max is 100, not
# 20: with 20 sessions a new connection can come while the last one's
# process still exits, and would get a 421.
exi_config() {
    cat <<EOF
primary_hostname = bench.localdomain
spool_directory = $1
log_file_path = $2/%slog
daemon_smtp_ports = $3
local_interfaces = 127.0.0.1
smtp_accept_max = 100
hostlist relay_from_hosts = 127.0.0.1
acl_smtp_rcpt = acl_check_rcpt
host_lookup =
rfc1413_hosts =
begin acl
acl_check_rcpt:
  accept hosts = +relay_from_hosts
  deny
begin routers
smarthost:
  driver = manualroute
  route_list = * 127.0.0.1
  transport = remote_smtp
  self = send
begin transports
remote_smtp:
  driver = smtp
  port = $4
  hosts_avoid_tls = *
begin retry
* * F,1h,15m
EOF
}

exi_setup() {
    local dir=$1 queue=$2 sink_port=$3 port=$4 cg=${5:-} id
    EXI_DIR=$dir EXI_PORT=$port EXI_CG=$cg
    id=$(getent passwd Debian-exim | cut -d: -f3)
    [ -n "$id" ] || id=$(exi_free_id)
    mkdir -p "$dir/log" "$queue" && chmod 755 "$dir" "$queue" && chown "$id:$id" "$queue" "$dir/log" ||
        return 1
    echo "$id" >"$dir/uid"
    exi_config "$queue" "$dir/log" "$port" "$sink_port" >"$dir/exim4.conf" || return 1
    if [ -n "$cg" ]; then
        # The receiving process runs as Debian-exim; the wrapper moves itself before the real
        # exim (set-user-ID root) takes root back: the exim user may write the PID (and, in
        # cgroup v2, into the parent, the common ancestor of the two).
        chown "$id" "$cg/delivery/cgroup.procs" "$cg/cgroup.procs" ||
            return 1
        printf '#!/bin/sh\necho $$ >%s/delivery/cgroup.procs || exit 1\nexec /usr/sbin/exim4.bin "$@"\n' \
            "$cg" >"$dir/exim4"
        chmod 755 "$dir/exim4"
    else
        rm -f "$dir/exim4"
    fi
}

# peer_ns_libs ROOT: in a private mount namespace, the shared libraries that
# scripts/fetch-peer.sh unpacked beside the package under ROOT (those the host
# lacks, such as libidn12) join the host's directories of the same name, below
# them, in read-only overlays. LD_LIBRARY_PATH cannot carry them: Exim clears
# its environment, and the loader ignores it for the set-user-ID re-exec.
peer_ns_libs() {
    local root=$1 d
    while IFS= read -r d; do
        [ -d "/${d#"$root"/}" ] || continue
        mount -t overlay overlay -o "lowerdir=/${d#"$root"/}:$d" "/${d#"$root"/}" || return 1
    done < <(find "$root" \( -name '*.so' -o -name '*.so.*' \) -type f -printf '%h\n' | sort -u)
}

# exi_ns DIR BIN CG QUEUE_RUNS: in the new mount namespace, the overlays, then
# the daemon, with QUEUE_RUNS (-q30m; "" for none) as its queue runs.
exi_ns() {
    local d=$1 bin=$2 cg=$3 runs=$4 p
    mount --make-rprivate / || exit 1
    peer_ns_libs "${bin%/usr/sbin/exim4}" || exit 1
    for p in /etc /usr/sbin; do
        mkdir -p "$d/ov$p/u" "$d/ov$p/w"
        mount -t overlay overlay -o "lowerdir=$p,upperdir=$d/ov$p/u,workdir=$d/ov$p/w" "$p" || exit 1
    done
    getent passwd Debian-exim >/dev/null ||
        echo "Debian-exim:x:$(cat "$d/uid"):$(cat "$d/uid")::/nonexistent:/usr/sbin/nologin" >>/etc/passwd
    getent group Debian-exim >/dev/null || echo "Debian-exim:x:$(cat "$d/uid"):" >>/etc/group
    mkdir -p /etc/exim4 && cp "$d/exim4.conf" /etc/exim4/exim4.conf || exit 1
    rm -f /etc/exim4/exim4.conf.template /etc/exim4/update-exim4.conf.conf
    # A copy, not a link: the receiving process (Debian-exim) re-execs it, and
    # may not reach the tree's own copy (below /root, mode 700, say).
    if [ -e "$d/exim4" ]; then
        cp -p "$bin" /usr/sbin/exim4.bin && cp "$d/exim4" /usr/sbin/exim4 || exit 1
    else
        cp -p "$bin" /usr/sbin/exim4 || exit 1
    fi
    [ -z "$cg" ] || echo $$ >"$cg/daemon/cgroup.procs" || exit 1
    # The namespace as /proc names it, from /proc/self: under spoolsim crash or
    # calibrate this runs in a PID namespace of their own, whose PIDs are not
    # those of the /proc the scripts read (the parent's).
    readlink /proc/self/ns/mnt >"$d/mntns" || exit 1
    # shellcheck disable=SC2086 # none, or one option
    exec "$bin" -bdf $runs
}

exi_start() {
    unshare -m bash -c "$(declare -f peer_ns_libs exi_ns); exi_ns \"\$@\"" exi "$EXI_DIR" "$EXI_BIN" "$EXI_CG" \
        "${EXI_QUEUE_RUNS--q30m}" \
        >>"$EXI_DIR/exim.out" 2>&1 &
    EXI_PID=$!
    rm -f "$EXI_DIR/mntns"
    for _ in $(seq 100); do
        if (exec 3<>"/dev/tcp/127.0.0.1/$EXI_PORT") 2>/dev/null; then
            EXI_NS=$(cat "$EXI_DIR/mntns")
            # the daemon's PID as the processes of the run see it, in the lists they
            # read (cgroup.procs): $! is already one of theirs (unshare -m execs,
            # and so does exi_ns), whatever PID namespace the run is in
            EXI_OWN_PID=$EXI_PID
            return 0
        fi
        kill -0 "$EXI_PID" 2>/dev/null || break
        sleep 0.1
    done
    echo "Exim does not listen on $EXI_PORT:" >&2
    tail -n 5 "$EXI_DIR/exim.out" "$EXI_DIR/log/paniclog" >&2 2>/dev/null
    return 1
}

# The processes of this instance: those in its mount namespace, by the PIDs
# kill takes here (bench_own_pid).
exi_pids() {
    local p
    [ -n "$EXI_NS" ] || return 0
    for p in /proc/[0-9]*; do
        [ "$(readlink "$p/ns/mnt" 2>/dev/null)" = "$EXI_NS" ] && bench_own_pid "$p"
    done
    return 0
}

exi_stop() {
    [ -n "$EXI_PID" ] || return 0
    kill -TERM "$EXI_PID" 2>/dev/null
    bench_kill_left exi_pids
    wait "$EXI_PID" 2>/dev/null
    EXI_PID='' EXI_NS='' EXI_OWN_PID=''
}

# exi_run ARG...: the instance's exim run with ARGs in its mount namespace
# (its configuration, its users), entered through a process of it that /proc
# names (EXI_PID is not one under spoolsim crash: bench_own_pid).
exi_run() {
    local p
    for p in /proc/[0-9]*; do
        if [ "$(readlink "$p/ns/mnt" 2>/dev/null)" = "$EXI_NS" ]; then
            nsenter --mount="$p/ns/mnt" /usr/sbin/exim4 "$@"
            return
        fi
    done
    echo "exim's mount namespace has no process left" >&2
    return 1
}

exi_queue_empty() {
    [ -z "$(find "$1/input" -type f 2>/dev/null | head -1)" ]
}
