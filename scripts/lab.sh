#!/bin/bash
# lab.sh - run a command as root in a virtual machine that boots Debian's own
# kernel (linux-image-amd64 of bookworm), for what this host's kernel lacks:
# sch_netem (bench --hop-delay, --hop-loss, --client-delay for real) and
# device-mapper (dm-log-writes, dm-flakey, dm-delay). See docs/lab.md.
#
# Usage: scripts/lab.sh [OPTION...] CMD [ARG...]
#   --root DIR      boot this Debian root directory (CI's fresh root): a
#                   throw-away image is made of it (only DIR's own
#                   filesystem, not what is mounted below it)
#   --image FILE    boot this ext4 image of a root (never written to)
#   (neither: the cached root image, made once, see SPOOLSIM_LAB_DIR)
#   --tree DIR      share DIR into the machine, read-write, at the same path
#                   (default: this project tree); --no-tree: share nothing
#   --console FILE  the machine's console (kernel messages) goes to FILE
#                   (default: $SPOOLSIM_LAB_DIR/console.log)
#   --accel kvm|tcg KVM, or qemu's emulation; default: KVM when /dev/kvm can
#                   be opened and the CPU shows vmx or svm, else TCG
#   --memory MB     the machine's memory (3072); --cpus N (2)
#   --timeout S     stop the machine after S seconds (3600): exit 124
# CMD runs as root with bash -c in the machine, in the current directory if
# it is inside the shared tree, else in the tree (or /root), with
# SPOOLSIM_LAB_ACCEL set to kvm or tcg. Its output
# comes out on lab.sh's standard output as it runs, and lab.sh exits with
# its status; 125 when the machine could not run it (see the console).
# /tmp, /run and /dev/shm in the machine are tmpfs; the root image is
# opened with snapshot=on, so what CMD writes outside the shared tree is
# gone when it ends. The loaded modules: virtio, 9p, ext4, xfs, loop, fuse,
# veth, sch_netem, dm-mod, dm-log-writes, dm-flakey, dm-delay, the NFS
# server (nfsd) and client (nfs, nfsv3, nfsv4: the lab has no modprobe of
# its own to load them at the first mount) (and what they need).
#
# Env: SPOOLSIM_LAB_DIR (/var/tmp/spoolsim-lab): the cache: kernel/ (the
# kernel, busybox and the modules, from apt-get download and dpkg -x; made
# again when the list of modules changes) and
# root.img (mmdebstrap minbase of bookworm, with the build's and the tests'
# packages from scripts/install-deps.sh --test, Postfix's libraries and
# dmsetup, xfsprogs); each made when missing. Remove the directory to make
# them again. CI_MIRROR as in .ci/run (mmdebstrap's mirror).
# Needs root (mkfs, 9p as root, mounts for --root). Every process, image,
# mount and file it made for the run is gone when it exits, on failure and
# on an interrupt too (the cache stays).
set -eu
here=$(cd "$(dirname "$0")" && pwd)
top=$(dirname "$here")
LAB=${SPOOLSIM_LAB_DIR:-/var/tmp/spoolsim-lab}
# The modules loaded at boot, with what each needs (modprobe --show-depends).
MODULES="virtio_pci virtio_blk ext4 9p 9pnet_virtio xfs loop fuse veth sch_netem dm_mod
         dm_log_writes dm_flakey dm_delay nfsd nfs nfsv3 nfsv4"

usage() {
    [ $# = 0 ] || echo "lab.sh: $*" >&2
    echo "usage: $0 [--root DIR | --image FILE] [--tree DIR | --no-tree] [--console FILE]" >&2
    echo "       [--accel kvm|tcg] [--memory MB] [--cpus N] [--timeout S] CMD [ARG...]" >&2
    exit 2
}
say() { echo "lab.sh: $*" >&2; }

root_dir='' image='' tree=$top console='' accel='' memory=3072 cpus=2 limit=3600
while [ $# -gt 0 ]; do
    case $1 in
    --root | --image | --tree | --console | --accel | --memory | --cpus | --timeout)
        [ $# -ge 2 ] || usage "$1 needs a value"
        case $1 in
        --root) root_dir=$2 ;;
        --image) image=$2 ;;
        --tree) tree=$2 ;;
        --console) console=$2 ;;
        --accel) accel=$2 ;;
        --memory) memory=$2 ;;
        --cpus) cpus=$2 ;;
        --timeout) limit=$2 ;;
        esac
        shift 2
        ;;
    --no-tree) tree='' && shift ;;
    --) shift && break ;;
    -*) usage "unknown option $1" ;;
    *) break ;;
    esac
done
[ $# -ge 1 ] || usage "no command"
[ -z "$root_dir" ] || [ -z "$image" ] || usage "--root and --image exclude each other"
[ -z "$root_dir" ] || [ -d "$root_dir" ] || usage "--root $root_dir: not a directory"
[ -z "$image" ] || [ -f "$image" ] || usage "--image $image: not a file"
[ -z "$tree" ] || [ -d "$tree" ] || usage "--tree $tree: not a directory"
case $accel in '' | kvm | tcg) ;; *) usage "--accel is kvm or tcg" ;; esac
for n in "$memory" "$cpus" "$limit"; do
    [[ $n =~ ^[1-9][0-9]*$ ]] || usage "--memory, --cpus and --timeout take a positive number"
done
[ "$(id -u)" = 0 ] || { say "must run as root (mkfs, 9p, mounts)"; exit 2; }
[ -z "$tree" ] || tree=$(cd "$tree" && pwd)
[ -z "$image" ] || image=$(cd "$(dirname "$image")" && pwd)/$(basename "$image")

"$here/install-deps.sh" --only qemu-system-x86 kmod cpio e2fsprogs >&2

# ------------------------------------------------------------- clean-up
RUN='' QEMU_PID='' BIND='' CACHE_TMP=''
# shellcheck disable=SC2317 # the EXIT trap
cleanup() {
    local status=$?
    if [ -n "$QEMU_PID" ]; then
        # timeout(1) passes the signal on to qemu, and kills it 10 s later
        kill "$QEMU_PID" 2>/dev/null
        wait "$QEMU_PID" 2>/dev/null
        QEMU_PID=''
    fi
    if [ -n "$BIND" ] && mountpoint -q "$BIND"; then
        umount "$BIND" 2>/dev/null || umount -l "$BIND"
    fi
    # A cache entry cut short (an interrupt while it was made) goes too.
    [ -z "$CACHE_TMP" ] || rm -rf --one-file-system "$CACHE_TMP"
    # Never remove through a mount.
    if [ -n "$RUN" ] && ! awk -v r="$RUN" 'index($5, r "/") == 1 { f = 1 } END { exit !f }' \
        /proc/self/mountinfo; then
        rm -rf --one-file-system "$RUN"
    fi
    return "$status"
}
trap cleanup EXIT
trap 'say interrupted; exit 130' INT TERM HUP

# ------------------------------------------------------------- the cache
# kernel/: vmlinuz, busybox, mods/ (the modules, in the order to load them)
# and version, from Debian's packages; made in a directory beside it and
# renamed into place, so a half-made one is never used.
# The package linux-image-amd64 depends on: the kernel itself.
kernel_package() {
    apt-cache depends linux-image-amd64 2>/dev/null |
        awk '/Depends: linux-image-[0-9]/ { print $2; exit }'
}
make_kernel() {
    local tmp pkg kver m f
    tmp=$(mktemp -d "$LAB/kernel.new.XXXXXX")
    CACHE_TMP=$tmp
    (
        cd "$tmp"
        pkg=$(kernel_package)
        [ -n "$pkg" ] || { apt-get update -qq && pkg=$(kernel_package); }
        [ -n "$pkg" ] || { say "apt knows no linux-image-amd64"; exit 1; }
        apt-get download -q "$pkg" busybox-static >/dev/null 2>&1 ||
            apt-get download "$pkg" busybox-static >&2
        mkdir k bb out out/mods
        dpkg -x linux-image-*.deb k
        dpkg -x busybox-static_*.deb bb
        kver=$(ls k/lib/modules)
        depmod -b k "$kver"
        cp "k/boot/vmlinuz-$kver" out/vmlinuz
        cp bb/bin/busybox out/busybox
        for m in $MODULES; do
            modprobe -d k -S "$kver" --show-depends "$m"
        done | awk '$1 == "insmod" && !seen[$2]++ { print $2 }' | while IFS= read -r f; do
            cp "$f" out/mods/
            basename "$f" >>out/mods/order
        done
        echo "$pkg $kver" >out/version
        printf '%s\n' "$MODULES" >out/modules
    ) || { rm -rf "$tmp"; return 1; }
    rm -rf "$LAB/kernel"
    mv "$tmp/out" "$LAB/kernel"
    rm -rf "$tmp"
    CACHE_TMP=''
}

# host_mirrors as .ci/run has it: the host's sources when it runs bookworm.
host_mirrors() {
    local f
    # shellcheck disable=SC1091
    [ "$(. /etc/os-release && echo "${VERSION_CODENAME:-}")" = bookworm ] || return 0
    for f in /etc/apt/sources.list /etc/apt/sources.list.d/*.list /etc/apt/sources.list.d/*.sources; do
        [ -f "$f" ] && grep -Eq '^[^#]*/debian(-security)?/?([[:space:]]|$)' "$f" &&
            grep -Eq '^[^#]*bookworm' "$f" && echo "$f"
    done
    return 0
}

# make_image DIR IMAGE: an ext4 image holding DIR, with room to spare
# (sparse: the room costs nothing until written).
make_image() {
    local kb
    kb=$(du -sxk "$1" | cut -f1)
    truncate -s $(((kb * 5 / 4 + 1024 * 1024) / 1024))M "$2"
    mkfs.ext4 -q -F -L lab-root -d "$1" "$2"
}

# root.img: mmdebstrap's minbase of bookworm, with what the build and the
# tests need installed by the project's own scripts.
make_root() {
    local tmp mirrors
    "$here/install-deps.sh" --only mmdebstrap >&2
    read -ra mirrors <<<"${CI_MIRROR:-$(host_mirrors | paste -sd' ')}"
    tmp=$(mktemp -d "$LAB/root.new.XXXXXX")
    CACHE_TMP=$tmp
    say "making the root image once, in $LAB (mmdebstrap)"
    # shellcheck disable=SC2016 # mmdebstrap's hooks expand $1, the root
    if mmdebstrap --quiet --variant=minbase --include=ca-certificates bookworm "$tmp/root" \
        "${mirrors[@]}" \
        --customize-hook="copy-in $here/install-deps.sh $here/fetch-peer.sh /tmp" \
        --customize-hook='chroot "$1" /tmp/install-deps.sh --test' \
        --customize-hook='chroot "$1" /tmp/install-deps.sh --only dmsetup xfsprogs kmod' \
        --customize-hook='chroot "$1" env SPOOLSIM_PEERS=/tmp/peers /tmp/fetch-peer.sh postfix' \
        --customize-hook='rm -rf "$1"/tmp/peers "$1"/tmp/install-deps.sh "$1"/tmp/fetch-peer.sh' >&2 &&
        make_image "$tmp/root" "$tmp/root.img"; then
        mv "$tmp/root.img" "$LAB/root.img"
    else
        return 1 # the trap removes $tmp
    fi
    rm -rf --one-file-system "$tmp"
    CACHE_TMP=''
}

mkdir -p "$LAB"
if [ ! -f "$LAB/kernel/version" ] || [ "$(cat "$LAB/kernel/modules" 2>/dev/null)" != "$MODULES" ]; then
    make_kernel
fi
RUN=$(mktemp -d "${TMPDIR:-/tmp}/spoolsim-lab.XXXXXX")
if [ -n "$root_dir" ]; then
    # A bind mount of DIR alone: what is mounted below DIR (CI's /proc,
    # /dev) is not in it, so not in the image.
    BIND=$RUN/root
    mkdir "$BIND"
    mount --bind "$root_dir" "$BIND"
    mount -o remount,bind,ro "$BIND"
    t0=$SECONDS
    make_image "$BIND" "$RUN/root.img"
    umount "$BIND"
    BIND=''
    rmdir "$RUN/root"
    image=$RUN/root.img
    say "image of $root_dir made in $((SECONDS - t0)) s"
elif [ -z "$image" ]; then
    [ -f "$LAB/root.img" ] || make_root
    image=$LAB/root.img
fi
[ -n "$console" ] || console=$LAB/console.log

# ------------------------------------------------------------- the run
if [ -z "$accel" ]; then
    accel=tcg
    if [ -r /dev/kvm ] && [ -w /dev/kvm ] && grep -Eqw 'vmx|svm' /proc/cpuinfo; then
        accel=kvm
    fi
fi
cpu=max
[ "$accel" = kvm ] && cpu=host

# The command, and where it runs: the caller's directory when it is inside
# the tree (the same path in the machine), else the tree, else /root.
dir=/root
if [ -n "$tree" ]; then
    case $PWD/ in "$tree"/*) dir=$PWD ;; *) dir=$tree ;; esac
fi
{
    echo "export SPOOLSIM_LAB_ACCEL=$accel"
    printf 'cd %q || exit 125\n' "$dir"
    printf 'exec bash -c %q' "$*"
    echo
} >"$RUN/cmd"

# /init of the initramfs: busybox as PID 1 loads the modules, mounts the
# root image and the shares, and runs the command chrooted in the root,
# its output on the second serial port; then it powers the machine off.
mkdir -p "$RUN/initrd/bin" "$RUN/initrd/mods" "$RUN/initrd/newroot" "$RUN/initrd/io"
cp "$LAB/kernel/busybox" "$RUN/initrd/bin/busybox"
cp "$LAB/kernel/mods/"* "$RUN/initrd/mods/"
cat >"$RUN/initrd/init" <<'EOF'
#!/bin/busybox sh
/bin/busybox mkdir -p /proc /sys /dev /sbin /usr/bin /usr/sbin
/bin/busybox --install -s
export PATH=/sbin:/bin:/usr/sbin:/usr/bin
mount -t proc proc /proc
mount -t sysfs sys /sys
mount -t devtmpfs dev /dev
out=/dev/ttyS1
stty -F $out raw -echo 2>/dev/null
fail() { echo "lab init: $*" >$out; echo "lab init: $*"; poweroff -f; }
while read -r m; do
    insmod "/mods/$m" 2>/dev/null || echo "lab init: insmod $m failed (not needed on this CPU?)"
done </mods/order
o=trans=virtio,version=9p2000.L,msize=262144
mount -t 9p -o $o labio /io || fail "cannot mount the run's share"
mount -t ext4 /dev/vda /newroot || fail "cannot mount the root image"
r=/newroot
mount -t proc proc $r/proc
mount -t sysfs sys $r/sys
mount -t devtmpfs dev $r/dev
mkdir -p $r/dev/pts $r/dev/shm
mount -t devpts -o newinstance,ptmxmode=0666 devpts $r/dev/pts
mount -t tmpfs -o mode=1777 tmpfs $r/dev/shm
mount -t tmpfs -o mode=755 tmpfs $r/run
mount -t tmpfs -o mode=1777 tmpfs $r/tmp
tree=$(sed -n 's/.*lab.tree=\([^ ]*\).*/\1/p' /proc/cmdline)
if [ -n "$tree" ]; then
    mkdir -p "$r$tree"
    mount -t 9p -o $o,cache=loose tree "$r$tree" || fail "cannot mount the tree"
fi
cp /io/cmd $r/run/lab-cmd
hostname lab
ip link set lo up
cut -d' ' -f1 /proc/uptime >/io/boot_s
chroot $r /usr/bin/env -i PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
    HOME=/root LANG=C.UTF-8 TERM=dumb /bin/bash /run/lab-cmd </dev/null >$out 2>&1
echo $? >/io/status.new
cut -d' ' -f1 /proc/uptime >/io/end_s
sync
[ -z "$tree" ] || umount "$r$tree"
mv /io/status.new /io/status
umount /io
poweroff -f
EOF
chmod +x "$RUN/initrd/init"
(cd "$RUN/initrd" && find . | cpio -o -H newc --quiet | gzip -1) >"$RUN/initrd.gz"
rm -rf "$RUN/initrd"

append="console=ttyS0 quiet panic=-1"
share=()
if [ -n "$tree" ]; then
    append="$append lab.tree=$tree"
    # shellcheck disable=SC2054 # qemu's commas
    share=(-fsdev "local,id=tree,path=$tree,security_model=passthrough"
        -device virtio-9p-pci,fsdev=tree,mount_tag=tree)
fi
: >"$console"
say "booting $(cut -d' ' -f2 "$LAB/kernel/version") ($accel, $cpus cpus, ${memory} MB) over $image"
t0=$SECONDS
timeout -k 10 "$limit" qemu-system-x86_64 -accel "$accel" -cpu "$cpu" -smp "$cpus" -m "$memory" \
    -nodefaults -no-user-config -display none -no-reboot \
    -kernel "$LAB/kernel/vmlinuz" -initrd "$RUN/initrd.gz" -append "$append" \
    -chardev "file,id=con,path=$console" -device isa-serial,chardev=con \
    -chardev stdio,id=out,signal=off -device isa-serial,chardev=out \
    -drive "file=$image,format=raw,if=virtio,snapshot=on" \
    -fsdev "local,id=io,path=$RUN,security_model=passthrough" \
    -device virtio-9p-pci,fsdev=io,mount_tag=labio \
    "${share[@]}" </dev/null &
QEMU_PID=$!
qemu_status=0
wait "$QEMU_PID" || qemu_status=$?
QEMU_PID=''
wall=$((SECONDS - t0))

if [ ! -f "$RUN/status" ]; then
    if [ "$qemu_status" = 124 ]; then
        say "stopped after --timeout $limit s (console: $console)"
        exit 124
    fi
    say "the machine did not run the command to its end (console: $console):"
    tail -n 5 "$console" >&2
    exit 125
fi
boot=$(cat "$RUN/boot_s")
cmd_s=$(awk -v a="$boot" '{ printf "%.1f", $1 - a }' "$RUN/end_s")
say "booted in $(awk -v w="$wall" -v c="$cmd_s" 'BEGIN { printf "%.0f", w - c }') s" \
    "(the kernel's ${boot} s), the command took ${cmd_s} s, ${wall} s in all ($accel)"
exit "$(cat "$RUN/status")"
