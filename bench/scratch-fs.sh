# shellcheck shell=bash
# scratch-fs.sh - the scratch filesystems of the benchmarks (sourced by
# bench/fidelity.sh and bench/capacity.sh).
#
#   scratch_fs_known FS           FS is one of tmpfs, ext4, ext4-dirsync, xfs,
#                                 here
#   scratch_fs_mount FS MNT IMG   a fresh FS on MNT: tmpfs in memory, here a
#                                 new directory IMG.d beside IMG bound onto
#                                 MNT (the filesystem the benchmark runs on,
#                                 as spoolsim bench's default spool), the
#                                 others in a new 2 GiB loop image IMG
#                                 (MNT unmounted first if mounted)
#   free_port                     a TCP port of 127.0.0.1 free a moment ago
# The caller unmounts MNT and removes IMG in its EXIT trap.

scratch_fs_known() {
    case $1 in tmpfs | ext4 | ext4-dirsync | xfs | here) return 0 ;; *) return 1 ;; esac
}

scratch_fs_mount() {
    local fs=$1 mnt=$2 img=$3
    mountpoint -q "$mnt" && umount "$mnt"
    rm -rf "$img" "$img.d"
    case $fs in
    tmpfs) mount -t tmpfs -o size=2g,mode=755 tmpfs "$mnt" ;;
    here) mkdir "$img.d" && mount --bind "$img.d" "$mnt" ;;
    ext4 | ext4-dirsync)
        local opts=loop
        [ "$fs" = ext4-dirsync ] && opts=loop,dirsync
        truncate -s 2G "$img" && mkfs.ext4 -q -F "$img" && mount -o "$opts" "$img" "$mnt" ;;
    xfs) truncate -s 2G "$img" && mkfs.xfs -q -f "$img" && mount -o loop "$img" "$mnt" ;;
    *) return 1 ;;
    esac && chmod 755 "$mnt"
}

free_port() {
    python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'
}
