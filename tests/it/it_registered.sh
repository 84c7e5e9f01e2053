#!/bin/bash
# Integration: every test the tree holds is one that make check runs.
#
# tests/it/it_fdlimit.sh was written, named in the docs and run by hand,
# but never listed in tests/it/include.am: make check did not run it, and
# make distcheck left it out of the tarball (where it_docs then found a
# reference to a missing file). Every tests/it/it_*.sh must be in
# tests/it/include.am and every tests/unit/check_*.c in
# tests/unit/include.am; one check each, so a failure names the file.
# In a tarball only the listed files exist, and the checks pass.
. "${top_srcdir:-.}/tests/helpers/lib.sh"

listed_in() { grep -q -F "$2" "$top_srcdir/$1"; }

n=0
for f in "$top_srcdir"/tests/it/it_*.sh; do
    rel=tests/it/${f##*/}
    listed_in tests/it/include.am "$rel" || check "$rel is run by make check" false
    n=$((n + 1))
done
for f in "$top_srcdir"/tests/unit/check_*.c; do
    rel=tests/unit/${f##*/}
    listed_in tests/unit/include.am "$rel" || check "$rel is built and run by make check" false
    n=$((n + 1))
done
check "the test scripts and unit tests found ($n) are all listed" test "$n" -gt 100
# The control: a file not in the list is caught.
absent=it_$$_absent
check "a test missing from the list is found missing" sh -c "! grep -q -F 'tests/it/$absent.sh' '$top_srcdir/tests/it/include.am'"
finish
