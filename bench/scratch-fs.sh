# shellcheck shell=bash
# scratch-fs.sh - the scratch filesystems of the benchmarks (sourced by
# bench/fidelity.sh, bench/capacity.sh and bench/bench-vs-raw.sh).
#
#   scratch_fs_known FS           FS is one of tmpfs, ext4, ext4-dirsync,
#                                 ext4-journal (data=journal), xfs, btrfs,
#                                 here
#   scratch_fs_usable "FS..."     each FS is known, and the program that makes
#                                 it is installed; if not, says so and exits 2
#   scratch_fs_mount FS MNT IMG   a fresh FS on MNT: tmpfs in memory, here a
#                                 new directory IMG.d beside IMG bound onto
#                                 MNT (the filesystem the benchmark runs on,
#                                 as spoolsim bench's default spool), the
#                                 others in a new 2 GiB loop image IMG
#                                 (MNT unmounted first if mounted)
# The caller unmounts MNT and removes IMG in its EXIT trap.

scratch_fs_known() {
    case $1 in tmpfs | ext4 | ext4-dirsync | ext4-journal | xfs | btrfs | here) return 0 ;; *) return 1 ;; esac
}

scratch_fs_usable() {
    local fs
    for fs in $1; do
        scratch_fs_known "$fs" ||
            { echo "$0: unknown filesystem $fs (tmpfs, ext4, ext4-dirsync, ext4-journal, xfs, btrfs, here)" >&2; exit 2; }
    done
    case " $1 " in *" ext4"*) command -v mkfs.ext4 >/dev/null || { echo "$0: mkfs.ext4 is needed" >&2; exit 2; } ;; esac
    case " $1 " in *" xfs "*) command -v mkfs.xfs >/dev/null || { echo "$0: mkfs.xfs is needed (xfsprogs)" >&2; exit 2; } ;; esac
    case " $1 " in *" btrfs "*) command -v mkfs.btrfs >/dev/null || { echo "$0: mkfs.btrfs is needed (btrfs-progs)" >&2; exit 2; } ;; esac
}

scratch_fs_mount() {
    local fs=$1 mnt=$2 img=$3
    mountpoint -q "$mnt" && umount "$mnt"
    rm -rf "$img" "$img.d"
    case $fs in
    tmpfs) mount -t tmpfs -o size=2g,mode=755 tmpfs "$mnt" ;;
    here) mkdir "$img.d" && mount --bind "$img.d" "$mnt" ;;
    ext4 | ext4-dirsync | ext4-journal)
        local opts=loop
        [ "$fs" = ext4-dirsync ] && opts=loop,dirsync
        [ "$fs" = ext4-journal ] && opts=loop,data=journal
        truncate -s 2G "$img" && mkfs.ext4 -q -F "$img" && mount -o "$opts" "$img" "$mnt" ;;
    xfs) truncate -s 2G "$img" && mkfs.xfs -q -f "$img" && mount -o loop "$img" "$mnt" ;;
    btrfs) truncate -s 2G "$img" && mkfs.btrfs -q -f "$img" >/dev/null && mount -o loop "$img" "$mnt" ;;
    *) return 1 ;;
    esac && chmod 755 "$mnt"
}

