#!/bin/bash
# lab-nfs.sh - a spool on NFS beside a local one, in the lab (scripts/lab.sh,
# docs/nfs.md): the kernel's NFS server exports a directory of the lab's
# root filesystem, a client in a network namespace of its own mounts it
# across a veth pair with netem's delay on both ends, and `spoolsim ab`
# compares the same directory's filesystem used locally (A) with the NFS
# mount (B) at each round trip asked for.
#
# Usage: scripts/lab-nfs.sh [OPTION...] [-- MODE ARGS...]
#   --rtt LIST       round trips in ms, comma-separated (0,1,10)
#   --runs N         spoolsim ab -n (3); --warmup-runs N (1)
#   --mount-opts O   the client's mount options (hard,vers=4.2,proto=tcp)
#   --export-opts O  the server's export options (rw,sync,no_subtree_check,no_root_squash)
#   --check          fail (exit 1) unless NFS is the slower side at the
#                    largest round trip: the confidence interval of B/A
#                    wholly below 1
#   --root DIR       as lab.sh's: boot an image of DIR, a root holding this
#                    tree, built, in /root/spoolsim (CI's fresh root)
#   --timeout S      lab.sh --timeout (1800)
#   --test FILE      also run the test FILE (tests/it/...) with
#                    SPOOLSIM_NFS_DIR, a directory on the mount, before the
#                    comparisons; it failing fails the script
#   --fetch TREE     only put the NFS programs into TREE (a built tree that a
#                    lab command runs `scripts/lab-nfs.sh --inside` in, as
#                    .ci/lab.sh does), then exit
# MODE ARGS: spoolsim ab's workload (default: raw -d 2); `postmark N/T`
# writes a PostMark command file of N files and T transactions (set number,
# set transactions) in the lab and compares with that.
# Nothing is installed: the NFS server's and mount.nfs's programs come from
# Debian's nfs-kernel-server and nfs-common (apt-get download, dpkg -x)
# into a directory of the tree the lab sees, removed when the script ends.
# Needs root, as lab.sh does. Inside the lab the same script runs with
# --inside (not for use elsewhere: it mounts, exports and makes namespaces).
set -eu
here=$(cd "$(dirname "$0")" && pwd)
top=$(dirname "$here")
LAB=${SPOOLSIM_LAB_DIR:-/var/tmp/spoolsim-lab}
UTILS=.lab-nfs-utils # below the tree
# The packages, and the libraries they need that the lab's root lacks.
PACKAGES="nfs-kernel-server nfs-common libtirpc3 libtirpc-common libnfsidmap1 libwrap0
          libevent-core-2.1-7 libkeyutils1 libsqlite3-0 libgssapi-krb5-2 libkrb5-3
          libk5crypto3 libkrb5support0 libcom-err2"

say() { echo "lab-nfs: $*" >&2; }
usage() {
    [ $# = 0 ] || say "$*"
    echo "usage: $0 [--rtt LIST] [--runs N] [--warmup-runs N] [--mount-opts O]" >&2
    echo "       [--export-opts O] [--check] [--root DIR] [--timeout S] [-- MODE ARGS...]" >&2
    exit 2
}

inside=0 fetch='' tests=() rtts=0,1,10 runs=3 warmup=1 check=0 root_dir='' limit=1800
mount_opts=hard,vers=4.2,proto=tcp
export_opts=rw,sync,no_subtree_check,no_root_squash
args=("$@")
while [ $# -gt 0 ]; do
    case $1 in
    --rtt | --runs | --warmup-runs | --mount-opts | --export-opts | --root | --timeout | --fetch)
        [ $# -ge 2 ] || usage "$1 needs a value"
        case $1 in
        --rtt) rtts=$2 ;;
        --runs) runs=$2 ;;
        --warmup-runs) warmup=$2 ;;
        --mount-opts) mount_opts=$2 ;;
        --export-opts) export_opts=$2 ;;
        --root) root_dir=$2 ;;
        --timeout) limit=$2 ;;
        --fetch) fetch=$2 ;;
        esac
        shift 2
        ;;
    --check) check=1 && shift ;;
    --test)
        [ $# -ge 2 ] || usage "--test needs a value"
        tests+=("$2") && shift 2
        ;;
    --inside) inside=1 && shift ;;
    --) shift && break ;;
    *) usage "unknown option $1" ;;
    esac
done
[[ $rtts =~ ^[0-9]+(,[0-9]+)*$ ]] || usage "--rtt takes whole milliseconds, comma-separated"
{ [[ $runs =~ ^[1-9][0-9]*$ ]] && [ "$runs" -ge 2 ]; } || usage "--runs takes a number of at least 2"
[[ $warmup =~ ^[0-9]+$ ]] || usage "--warmup-runs takes a number"
[[ $limit =~ ^[1-9][0-9]*$ ]] || usage "--timeout takes a positive number"
[[ $mount_opts =~ ^[A-Za-z0-9_.=,]+$ ]] || usage "--mount-opts: letters, digits, _ . = and commas"
[[ $export_opts =~ ^[A-Za-z0-9_.=,]+$ ]] || usage "--export-opts: letters, digits, _ . = and commas"
[ $# -gt 0 ] || set -- raw -d 2
# The workload's seconds (-d), for the operations per message.
dur=0
for ((i = 1; i < $#; i++)); do
    case ${!i} in -d | --duration) j=$((i + 1)) && dur=${!j} ;; esac
done
[ "$(id -u)" = 0 ] || { say "must run as root (lab.sh, mounts, namespaces)"; exit 2; }

# ------------------------------------------------------------- on the host
if [ "$inside" = 0 ]; then
    [ -z "$root_dir" ] || [ -d "$root_dir/root/spoolsim" ] ||
        usage "--root $root_dir holds no /root/spoolsim"
    tree=$top
    [ -z "$root_dir" ] || tree=$root_dir/root/spoolsim
    [ -z "$fetch" ] || tree=$fetch
    [ -x "$tree/spoolsim/spoolsim" ] || { say "build the tree first ($tree/spoolsim/spoolsim)"; exit 2; }
    mkdir -p "$LAB/nfs-debs"
    # shellcheck disable=SC2086 # the list
    if ! (cd "$LAB/nfs-debs" && for p in $PACKAGES; do
        ls "${p}"_*.deb >/dev/null 2>&1 || echo "$p"
    done | xargs -r apt-get download -q >/dev/null 2>&1); then
        apt-get update -qq
        # shellcheck disable=SC2086
        (cd "$LAB/nfs-debs" && apt-get download -q $PACKAGES >&2)
    fi
    rm -rf "${tree:?}/$UTILS"
    [ -n "$fetch" ] || trap 'rm -rf "${tree:?}/$UTILS"' EXIT
    for d in "$LAB"/nfs-debs/*.deb; do dpkg -x "$d" "$tree/$UTILS"; done
    [ -z "$fetch" ] || exit 0
    cmd=$(printf '%q ' scripts/lab-nfs.sh --inside "${args[@]}")
    lab=("$here/lab.sh" --timeout "$limit")
    if [ -n "$root_dir" ]; then
        lab+=(--root "$root_dir" --no-tree)
        cmd="cd /root/spoolsim && $cmd"
    else
        lab+=(--tree "$top")
    fi
    status=0
    (cd "$top" && "${lab[@]}" "$cmd") || status=$?
    exit "$status"
fi

# ------------------------------------------------------------- in the lab
[ "$(hostname)" = lab ] || { say "--inside is for the lab's machine only"; exit 2; }
U=$PWD/$UTILS
[ -x "$U/usr/sbin/rpc.nfsd" ] || { say "no $U: run lab-nfs.sh on the host"; exit 2; }
export LD_LIBRARY_PATH=$U/lib/x86_64-linux-gnu:$U/usr/lib/x86_64-linux-gnu
SRV=10.77.0.1 CLI=10.77.0.2 NS=nfs-cli
BASE=/var/tmp/lab-nfs # on the root image's ext4, not a tmpfs: the same disk for both sides
MNT=/mnt/lab-nfs
MOUNTD=''
# shellcheck disable=SC2317 # the EXIT trap
teardown() {
    local status=$?
    mountpoint -q "$MNT" && { umount "$MNT" 2>/dev/null || umount -f -l "$MNT"; }
    "$U/usr/sbin/rpc.nfsd" 0 2>/dev/null || true
    "$U/usr/sbin/exportfs" -ua 2>/dev/null || true
    [ -z "$MOUNTD" ] || { kill "$MOUNTD" 2>/dev/null; wait "$MOUNTD" 2>/dev/null; }
    ip link del nfs-srv 2>/dev/null || true
    ip netns del "$NS" 2>/dev/null || true
    return "$status"
}
trap teardown EXIT

# The network: the server in the lab's namespace, the client in its own.
ip netns add "$NS"
ip link add nfs-srv type veth peer name nfs-cli netns "$NS"
ip addr add "$SRV/24" dev nfs-srv
ip link set nfs-srv up
ip -n "$NS" addr add "$CLI/24" dev nfs-cli
ip -n "$NS" link set nfs-cli up
ip -n "$NS" link set lo up
# netem on both ends, half the round trip each way.
set_rtt() {
    local us=$(($1 * 1000 / 2)) verb=add
    tc qdisc show dev nfs-srv | grep -q netem && verb=change
    tc qdisc "$verb" dev nfs-srv root netem delay "${us}us" limit 10000
    ip netns exec "$NS" tc qdisc "$verb" dev nfs-cli root netem delay "${us}us" limit 10000
}

# The server: NFSv4 only (no rpcbind, no statd), a short grace period.
[ -f /etc/netconfig ] || cp "$U/etc/netconfig" /etc/netconfig
mkdir -p /proc/fs/nfsd /var/lib/nfs/v4recovery /var/lib/nfs/rpc_pipefs "$BASE/export" "$BASE/local" "$MNT"
mountpoint -q /proc/fs/nfsd || mount -t nfsd nfsd /proc/fs/nfsd
: >/var/lib/nfs/etab
# The lab's root is a snapshot: what is written to /etc is gone after the run.
echo "$BASE/export $SRV/24($export_opts)" >/etc/exports
"$U/usr/sbin/exportfs" -ra
"$U/usr/sbin/rpc.mountd" -F -N 2 -N 3 --no-udp &
MOUNTD=$!
"$U/usr/sbin/rpc.nfsd" -N 3 --no-udp -G 10 -L 10 8
# The client, its transport in its namespace: nsenter keeps this mount namespace.
set_rtt 0
nsenter --net="/run/netns/$NS" "$U/sbin/mount.nfs" "$SRV:$BASE/export" "$MNT" -o "$mount_opts"
t0=$SECONDS
touch "$MNT/.grace" && rm "$MNT/.grace" # the first open waits out the grace period
echo "kernel $(uname -r) ($SPOOLSIM_LAB_ACCEL), $(nproc) CPUs; the grace period took $((SECONDS - t0)) s"
echo "A: $BASE/local, local; B: $MNT, NFS of $BASE/export"
grep " $MNT " /proc/mounts

# The mount's per-operation counts (ops, then the summed round trip and
# execution times in ms) from /proc/self/mountstats.
op_counts() {
    awk -v m="$MNT" '$1 == "device" { on = ($5 == m) } on && /^[ \t]+[A-Z_0-9]+: [0-9]/ {
        sub(":", "", $1); print $1, $2, $8, $9 }' /proc/self/mountstats
}
# What limited NFS: the operations each message waited for, between two op_counts.
op_delta() {
    awk -v msgs="$3" 'NR == FNR { o[$1] = $2; e[$1] = $4; next }
        { n = $2 - o[$1]; if (n <= 0) next; t += n
          if (!msgs || n / msgs >= 0.1)
              line = line sprintf(" %s %.1f (%.2f ms each);", $1, msgs ? n / msgs : n, ($4 - e[$1]) / n) }
        END { printf "NFS operations %s:%s\n", msgs ? "per message" : "(counts)", line }' "$1" "$2"
}

for t in ${tests[@]+"${tests[@]}"}; do
    mkdir -p "$MNT/tests"
    echo "== $t"
    SPOOLSIM_NFS_DIR=$MNT/tests top_srcdir=. top_builddir=. bash "$t"
done

if [ "$1" = postmark ] && [[ ${2:-} =~ ^([0-9]+)/([0-9]+)$ ]]; then
    printf 'set number %s\nset transactions %s\nquit\n' \
        "${BASH_REMATCH[1]}" "${BASH_REMATCH[2]}" >"$BASE/postmark-${2/\//-}.pm"
    set -- postmark "$BASE/postmark-${2/\//-}.pm"
fi

last=''
for rtt in ${rtts//,/ }; do
    set_rtt "$rtt"
    echo "== round trip ${rtt} ms: $(tc qdisc show dev nfs-srv | grep -o 'netem.*') each way"
    json=$BASE/ab-$rtt.json
    op_counts >"$BASE/ops.before"
    spoolsim/spoolsim ab -q -n "$runs" --warmup-runs "$warmup" --json "$json" \
        "$BASE/local" "$MNT" -- "$@"
    last=$json
    op_counts >"$BASE/ops.after"
    # B's messages, its warm-ups counted at its median: what the operations are per
    msgs=$(python3 -c 'import json, sys
r = json.load(open(sys.argv[1])); b = r["sides"]["B"]
d = float(sys.argv[2]); good = [x for x in b["runs"] if x is not None]
print(round((sum(good) + int(sys.argv[3]) * (b["median"] or 0)) * d))' "$json" "$dur" "$warmup" 2>/dev/null || echo 0)
    echo "B: about $msgs messages; $(op_delta "$BASE/ops.before" "$BASE/ops.after" "$msgs")"
done
if [ "$check" = 1 ]; then
    hi=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["ci_high"])' "$last")
    if awk -v h="$hi" 'BEGIN { exit !(h < 1) }'; then
        echo "check: NFS slower at the largest round trip (B/A's interval up to $hi)"
    else
        echo "check FAILED: NFS not slower at the largest round trip (B/A's interval up to $hi)"
        exit 1
    fi
fi
