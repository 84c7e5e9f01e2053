#!/bin/bash
# Integration: the licence, and what make install puts where.
#
# The tree is under the BSD 2-Clause licence: LICENSE at its top, and
# debian/copyright (DEP-5) saying BSD-2-clause for every file, with the
# same text. make install (into a DESTDIR) puts the README, LICENSE and
# every document of docs/ (its pictures too) under the doc directory, laid
# out as in the tree, and the bash, zsh and fish completions where each
# shell looks, the zsh and fish ones naming the installed bash one.
. "${top_srcdir:-.}/tests/helpers/lib.sh"

check "LICENSE is the BSD 2-Clause licence" grep -qx 'BSD 2-Clause License' "$top_srcdir/LICENSE"
check "  with the project's copyright line" \
    grep -qxF 'Copyright (c) 2026, the spoolsim authors' "$top_srcdir/LICENSE"
check "  and its two conditions" test "$(grep -c '^[12]\. Redistributions' "$top_srcdir/LICENSE")" = 2
CR=$top_srcdir/debian/copyright
check "debian/copyright is in the machine-readable format" \
    grep -qx 'Format: https://www.debian.org/doc/packaging-manuals/copyright-format/1.0/' "$CR"
# The paragraph of Files: * names the licence; a paragraph of its own holds the text.
files_licence=$(awk '/^Files: \*$/ { p = 1 } p && /^License:/ { print $2; exit }' "$CR")
check "debian/copyright: every file (Files: *) is BSD-2-clause" test "$files_licence" = BSD-2-clause
awk '/^License: BSD-2-clause$/ { n++; next } n == 2 && /^[^ ]/ { exit }
     n == 2 { sub(/^ /, ""); if ($0 == ".") $0 = ""; print }' "$CR" >"$WORK/copyright.text"
sed -n '/^Redistribution/,$p' "$top_srcdir/LICENSE" >"$WORK/license.text"
same_text() { [ -s "$WORK/copyright.text" ] && cmp -s "$WORK/copyright.text" "$WORK/license.text"; }
check "debian/copyright: the licence's text is LICENSE's" same_text

# make install, into a directory of its own.
timeout 300 make -s -C "$top_builddir" install DESTDIR="$WORK/inst" >"$WORK/install.log" 2>&1
check "make install DESTDIR=... succeeds" test $? = 0 || cat "$WORK/install.log"
find "$WORK/inst" -type f | sed "s|^$WORK/inst||" | sort >"$WORK/installed"
docdir=$(sed -n 's|/README\.md$||p' "$WORK/installed")
check "the README is installed in the doc directory" test -n "$docdir"
check "  and LICENSE beside it" grep -qxF "$docdir/LICENSE" "$WORK/installed"
missing=
for f in "$top_srcdir"/docs/*.md "$top_srcdir"/docs/img/*; do
    rel=docs/${f#"$top_srcdir/docs/"}
    grep -qxF "$docdir/$rel" "$WORK/installed" || missing="$missing $rel"
done
check "every document of docs/ and its pictures, under $docdir/docs${missing:+ (missing:$missing)}" \
    test -z "$missing"
bash_c=$(grep -E '/bash-completion/completions/spoolsim$' "$WORK/installed")
check "the bash completion is installed" test -n "$bash_c"
zsh_c=$(grep -E '/zsh/vendor-completions/_spoolsim$' "$WORK/installed")
check "the zsh completion is installed" test -n "$zsh_c"
fish_c=$(grep -E '/fish/vendor_completions.d/spoolsim\.fish$' "$WORK/installed")
check "the fish completion is installed" test -n "$fish_c"
check "  zsh's runs the installed bash completion" grep -qF "$bash_c" "$WORK/inst$zsh_c"
check "  and so does fish's" grep -qF "$bash_c" "$WORK/inst$fish_c"
finish
