#!/bin/bash
# Integration: bench/multi-host/run-parallel.sh for real. Three network
# namespaces are the load hosts, each with its own sshd (Debian's
# openssh-server, unpacked by scripts/fetch-peer.sh, never installed) on its
# own address, a host key made here, and a client key made here; GNU
# parallel (fetched the same way) runs ssh to each, each runs smtp-source
# against one smtp-sink at this side of the bridge, and spoolsim merge's
# counts are the sink's, count for count. A host that refuses the login
# fails the run (exit 1) without a merge; logins that are not safe as a
# file name or an ssh argument are refused before anything runs. Needs
# root (namespaces, sshd as root); skips without it, or without the peers
# (fails then under SPOOLSIM_REQUIRE_PEERS=1).
. "${top_srcdir:-.}/tests/helpers/lib.sh"
S=$(realpath "$top_builddir/spoolsim/spoolsim")
SRC=$(realpath "$SOURCE")
RUN="$top_srcdir/bench/multi-host/run-parallel.sh"
# How far ahead the hosts start: every ssh login must be done by then, and
# on a busy machine (load 36) one took 23.6 s.
LEAD=30
N=3

[ "$(id -u)" = 0 ] || skip "needs root: the load hosts are network namespaces, each with an sshd run as root"
for c in ip unshare mount; do
    command -v "$c" >/dev/null || skip "$c is not installed"
done
need_peer "OpenSSH's sshd" "scripts/fetch-peer.sh openssh-server" executables "$OPENSSH_SSHD"
need_peer "OpenSSH's ssh and ssh-keygen" "scripts/fetch-peer.sh openssh-client" \
    executables "$OPENSSH_SSH" "$OPENSSH_KEYGEN"
need_peer "GNU parallel" "scripts/fetch-peer.sh parallel" executables "$GNU_PARALLEL"
# run-parallel.sh finds parallel and ssh on PATH; parallel keeps its cache
# here, not in ~/.parallel.
PATH="$(dirname "$GNU_PARALLEL"):$(dirname "$OPENSSH_SSH"):$PATH"
export PARALLEL_HOME="$WORK/parallel-home"
mkdir "$PARALLEL_HOME"

# Refused before anything runs: a login ssh would take for an option (its
# ProxyCommand would run here), one that is not a file name, one twice.
refused() {
    local what=$1 word=$2
    shift 2
    printf '%s\n' "$@" >"$WORK/bad.hosts"
    rm -rf "$WORK/bad"
    to "$WORK/bad.out" timeout 30 "$RUN" -d 1 -o "$WORK/bad" "$WORK/bad.hosts" 127.0.0.1:1 -m 1
    check "refused, $what: exit 2" test $? = 2
    check "  ... saying \"$word\"" grep -q -- "$word" "$WORK/bad.out"
    check "  ... and nothing run" test ! -e "$WORK/bad" -a ! -e "$WORK/pwned"
}
refused "a login starting with -" "not a login" "-oProxyCommand=touch $WORK/pwned"
refused "a login with a /" "not a login" "a/b"
refused "a login twice" "twice" a b a
refused "no hosts" "no hosts" "# none"
to "$WORK/bad.out" "$RUN" "$WORK/none.hosts" 127.0.0.1:1
check "refused, a hosts file that is not there: exit 2" test $? = 2

netns_hosts $N
case $? in
0) ;;
1) skip "cannot make network namespaces here (ip netns)" ;;
*) exit 1 ;;
esac
NET=$NETNS_NET
# Any port is free in a namespace of our own; the kernel picks one in the first.
PORT=$(ip netns exec "${NETNS_TAG}1" python3 -c \
    'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
echo "# $N load hosts $NET.11-$NET.$((10 + N)), sshd on port $PORT each; the sinks at $NET.1"

# The keys, and what sshd needs of the machine, made here: sshd as root
# separates privileges into the account "sshd" chrooted in /run/sshd, which
# only openssh-server's postinst makes. Each sshd runs in a mount namespace
# of its own, with a copy of /etc/passwd that has that account and a tmpfs
# on /run: the machine's /etc and /run are left as they are.
"$OPENSSH_KEYGEN" -q -t ed25519 -N '' -C spoolsim-test-client -f "$WORK/client_key" || exit 1
cp "$WORK/client_key.pub" "$WORK/authorized_keys"
cp /etc/passwd "$WORK/passwd"
if ! getent passwd sshd >/dev/null; then
    uid=$(awk -F: '{ used[$3] } END { for (u = 64000; u in used; u++); print u }' /etc/passwd)
    echo "sshd:x:$uid:65534:sshd privilege separation:/run/sshd:/usr/sbin/nologin" >>"$WORK/passwd"
fi
: >"$WORK/known_hosts"
for i in $(seq 1 $N); do
    "$OPENSSH_KEYGEN" -q -t ed25519 -N '' -C "spoolsim-test-host$i" -f "$WORK/host$i" || exit 1
    echo "[$NET.$((10 + i))]:$PORT $(cat "$WORK/host$i.pub")" >>"$WORK/known_hosts"
    # StrictModes no: the key file's directories include /tmp, which anyone may write.
    cat >"$WORK/sshd$i.conf" <<EOF
ListenAddress $NET.$((10 + i)):$PORT
HostKey $WORK/host$i
AuthorizedKeysFile $WORK/authorized_keys
AllowUsers root
PermitRootLogin prohibit-password
PasswordAuthentication no
KbdInteractiveAuthentication no
UsePAM no
StrictModes no
PidFile none
AllowTcpForwarding no
X11Forwarding no
LogLevel VERBOSE
EOF
    timeout "${TEST_PROCESS_TIMEOUT:-300}" ip netns exec "$NETNS_TAG$i" unshare -m --propagation private \
        /bin/sh -c 'mount --bind "$1" /etc/passwd && mount -t tmpfs -o mode=755,size=1m tmpfs /run &&
            mkdir -m 755 /run/sshd && exec "$2" -D -e -f "$3"' sh \
        "$WORK/passwd" "$OPENSSH_SSHD" "$WORK/sshd$i.conf" 2>"$WORK/sshd$i.err" &
    PIDS="$PIDS $!"
done
for i in $(seq 1 $N); do
    if ! wait_until 20 grep -q "Server listening on $NET.$((10 + i)) port $PORT" "$WORK/sshd$i.err"; then
        echo "sshd $i did not start:" >&2
        cat "$WORK/sshd$i.err" >&2
        exit 1
    fi
done
# ssh's own configuration: this test's known hosts only, and no other
# identity; run-parallel.sh adds the key (-i) and the port (-p).
cat >"$WORK/ssh_config" <<EOF
Host *
    User root
    UserKnownHostsFile $WORK/known_hosts
    GlobalKnownHostsFile /dev/null
    StrictHostKeyChecking yes
    IdentitiesOnly yes
    ConnectTimeout 20
    LogLevel ERROR
EOF
ssh_opts=(-F "$WORK/ssh_config" -i "$WORK/client_key" -p "$PORT")
export SMTP_SOURCE="$SRC" SPOOLSIM="$S"
LOAD=(-m 120 -s 3 --size uniform:500:5000 --interval 0.5)

# sessions I: how many commands host I's sshd has started.
sessions() {
    grep -c "Starting session: command for root from $NET.1 port" "$WORK/sshd$1.err"
}

# A host that refuses the login (only root may log in): the run fails
# without a merge, naming it; the other host's result stays in DIR.
start_sink sink1 --json "$WORK/sink1.json" "$NET.1:0" 100 || exit 1
printf '%s\n' "$NET.11" "nobody@$NET.12" >"$WORK/fail.hosts"
timeout 120 "$RUN" -d "$LEAD" -o "$WORK/out" "${ssh_opts[@]}" "$WORK/fail.hosts" "$NET.1:$sink1_PORT" "${LOAD[@]}" \
    >"$WORK/fail.out" 2>&1
check "a host refusing the login: exit 1" test $? = 1
check "  ... saying so" grep -q "1 of 2 hosts failed" "$WORK/fail.out"
check "  ... with ssh's message tagged with the login" grep -q "^nobody@$NET.12.*Permission denied" "$WORK/fail.out"
check "  ... no merge" test ! -e "$WORK/out/merged.json"
check "  ... the other host ran" test "$(json_get "$WORK/out/$NET.11.json" delivered)" = 120
stop "$sink1_PID"

# The run: DIR still holds the failed run's files, which must not be merged.
start_sink sink --json "$WORK/sink.json" "$NET.1:0" 100 || exit 1
{
    echo "# the load hosts: network namespaces"
    # blanks around a login (a CRLF file's \r too) are no part of it
    for i in $(seq 1 $N); do
        printf '  %s \r\n\n' "$NET.$((10 + i))"
    done
} >"$WORK/hosts"
t0=$SECONDS
timeout 120 "$RUN" -d "$LEAD" -o "$WORK/out" "${ssh_opts[@]}" "$WORK/hosts" "$NET.1:$sink_PORT" "${LOAD[@]}" \
    >"$WORK/run.out" 2>&1
st=$?
echo "# run-parallel.sh took $((SECONDS - t0)) s (a start $LEAD s ahead)"
check "run-parallel.sh over $N hosts: exit 0" test $st = 0
stop "$sink_PID"
sed 's/^/# /' "$WORK/run.out"
for i in $(seq 1 $N); do
    # one from the failed run for host 1, one from this run for each
    check "host $i's sshd ran this run's command" test "$(sessions "$i")" = $((i == 1 ? 2 : 1))
    check "  ... its result names it (--id)" test "$(python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["id"])' \
        "$WORK/out/$NET.$((10 + i)).json")" = "$NET.$((10 + i))"
done
AT=$(sed -n 's/.* hosts start at \([^ ]*\): .*/\1/p' "$WORK/run.out")
check "the $N started together (start_time within 1 s of $AT)" python3 - "$AT" "$WORK/out/$NET".1?.json <<'PY'
import datetime, json, sys
at = datetime.datetime.strptime(sys.argv[1], "%Y-%m-%dT%H:%M:%SZ").replace(tzinfo=datetime.timezone.utc).timestamp()
starts = [json.load(open(f))["start_time"] for f in sys.argv[2:]]
print("# start_time - start-at:", ", ".join("%+.3f s" % (s - at) for s in starts))
sys.exit(0 if all(0 <= s - at < 1 for s in starts) else 1)
PY
check "the summary names $N results" grep -q "spoolsim merge: $N results" "$WORK/out/merged.txt"
SINK_N=$(json_get "$WORK/sink.json" messages)
check "merged delivered = what the sink received ($SINK_N)" \
    test "$(json_get "$WORK/out/merged.json" delivered)" = "$SINK_N"
check "  ... = $N hosts x 120" test "$SINK_N" = $((N * 120))
check "merged bytes = the sink's bytes" test "$(json_get "$WORK/out/merged.json" bytes)" = "$(json_get "$WORK/sink.json" bytes)"
check "merged connections = the sink's sessions" \
    test "$(json_get "$WORK/out/merged.json" connections)" = "$(json_get "$WORK/sink.json" sessions)"

finish
