#!/bin/bash
# Integration: the tour of docs/design.md names every C file of the programs.
#
# "A tour: which file to change" is where a contributor looks first, so a
# source file it does not name is one that nobody is sent to. Every C file
# outside tests/ (the programs, their libraries and bench/'s helpers) must
# appear there by its path, in a row of its own or in another's Edit
# column. The files are git's list in a checkout, and what find sees in a
# tarball (make distcheck has no .git), less the model tables the build
# writes. One check per file, so a failure names it; a control tour shows
# that a missing file, and a name that only contains its path, are caught.
. "${top_srcdir:-.}/tests/helpers/lib.sh"

DESIGN="$top_srcdir"/docs/design.md
export LC_ALL=C # one order for sort and comm

# sources: every C file outside tests/, one path a line, relative to the top.
sources() {
    local top
    top=$(git -C "$top_srcdir" rev-parse --show-toplevel 2>/dev/null)
    if [ -n "$top" ] && [ "$(cd "$top" && pwd -P)" = "$(cd "$top_srcdir" && pwd -P)" ]; then
        git -C "$top_srcdir" ls-files -- '*.c' | grep -v '^tests/'
    else
        # Not a checkout of its own (a tarball, maybe unpacked inside one):
        # what is there, less the build's own trees and generated tables.
        (cd "$top_srcdir" && find . \( -name .git -o -name tests -o -name autom4te.cache \
            -o -name '_build' -o -name '_inst' -o -name 'spoolsim-*' -o -name .deps \) -prune \
            -o -type f -name '*.c' -print) | sed 's|^\./||' |
            grep -v -x -e 'spoolsim/model/cost_model_postfix.c' -e 'spoolsim/model/cost_model_exim.c'
    fi | sort -u
}

# tour FILE: the section's words that are paths of C files, one a line.
tour() {
    awk '/^## A tour: which file to change/ { f = 1; next } /^## / { f = 0 } f' "$1" |
        grep -o -E '[[:alnum:]_./-]+' | grep -E '\.c$' | sort -u
}

# unnamed TOUR LIST: the paths of LIST that TOUR does not name.
unnamed() {
    comm -23 "$2" "$1"
}

# The control: a/y.c is not named, b/a/x.c only inside a longer word.
mkdir -p "$WORK/control"
printf '# D\n\n## A tour: which file to change\n\n| x | `a/x.c`; `a/y.cc` |\n\n## Next\n\n`a/y.c`\n' \
    >"$WORK/control/doc.txt"
printf 'a/x.c\na/y.c\nb/a/x.c\n' >"$WORK/control/list"
tour "$WORK/control/doc.txt" >"$WORK/control/tour"
unnamed "$WORK/control/tour" "$WORK/control/list" >"$WORK/control/out"
check "the control tour misses a/y.c (named only after the section) and b/a/x.c" \
    test "$(tr '\n' ' ' <"$WORK/control/out")" = "a/y.c b/a/x.c "

sources >"$WORK/sources"
tour "$DESIGN" >"$WORK/tour"
check "the source tree has C files outside tests/ ($(wc -l <"$WORK/sources"))" \
    test "$(wc -l <"$WORK/sources")" -gt 100
check "docs/design.md has a tour naming C files ($(wc -l <"$WORK/tour"))" \
    test "$(wc -l <"$WORK/tour")" -gt 100
while read -r f; do
    check "the tour in docs/design.md names $f" grep -q -x -F "$f" "$WORK/tour"
done <"$WORK/sources"
unnamed "$WORK/tour" "$WORK/sources" >"$WORK/unnamed"
check "every C file outside tests/ is in the tour ($(wc -l <"$WORK/unnamed") not)" test ! -s "$WORK/unnamed"
finish
