#!/bin/bash
# Integration, in the lab only (scripts/lab-nfs.sh --test): spoolsim crash
# finds a dead run's leftovers in a --work-dir on NFS too. The NFS client
# turns flock() into a byte-range lock over the wire, and an exclusive one
# on a descriptor opened read-only fails there with EBADF: the owner file
# of a dead run must be opened for writing, or every dead run's directory
# on NFS looks held and stays. SPOOLSIM_NFS_DIR is a directory on an NFS
# mount; without it (or when it is not NFS) the test skips.
. "${top_srcdir:-.}/tests/helpers/lib.sh"

D=${SPOOLSIM_NFS_DIR:-}
[ -n "$D" ] || skip "SPOOLSIM_NFS_DIR names no directory on NFS (scripts/lab-nfs.sh --test sets it)"
case $(stat -f -c %T "$D" 2>/dev/null) in nfs*) ;; *) skip "$D is not on NFS" ;; esac
[ "$(id -u)" = 0 ] || skip "spoolsim crash needs root"
W=$(mktemp -d "$D/leftover.XXXXXX")
DEAD=$W/spoolsim-crash.dead01
mkdir -m 700 "$DEAD" && echo 999999999 >"$DEAD/owner"
chmod 600 "$DEAD/owner"
# Its clean-up of leftovers comes first; the run itself may stop there.
timeout -s TERM 60 "$top_builddir/spoolsim/spoolsim" crash --points 1 -t ext4 \
    --work-dir "$W" >"$WORK/out" 2>"$WORK/err" || echo "#   exit status $?"
sed 's/^/#   /' "$WORK/err" | head -20
check "the dead run's directory on NFS is removed" test ! -e "$DEAD"
check "... and the run says so" grep -q "removed $DEAD, left by spoolsim crash process 999999999" "$WORK/err"
rm -rf "$W"
finish
