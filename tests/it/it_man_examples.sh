#!/bin/bash
# Integration: every man page has an EXAMPLES section with a command line
# in it (.SH EXAMPLES, then .EX ... .EE or .nf ... .fi), and docs/examples.md has a
# command line for the program or command of every page: smtp-source,
# smtp-sink, spoolsim-recorder, spoolsim, and spoolsim COMMAND for each
# spoolsim-COMMAND page (spoolsim source and sink too). A page made up
# here without the section, and a copy of docs/examples.md without one program,
# show that both checks can fail.
. "${top_srcdir:-.}/tests/helpers/lib.sh"

not() { ! "$@"; }
# examples PAGE: the page has an EXAMPLES section holding an .EX (or .nf) block.
examples() {
    awk '/^\.SH/ { in_ex = ($0 ~ /^\.SH "?EXAMPLES"?$/) } in_ex && /^\.(EX|nf)/ { found = 1 }
         END { exit !found }' "$1"
}
# command_of PAGE: the command line its examples start with, as docs/examples.md writes it.
command_of() {
    local name
    name=$(basename "$1" .1)
    case $name in
    spoolsim) echo "spoolsim/spoolsim" ;;
    spoolsim-recorder) echo "spoolsim/crash/spoolsim-recorder" ;;
    spoolsim-*) echo "spoolsim/spoolsim ${name#spoolsim-}" ;;
    *) echo "$name/$name" ;;
    esac
}
# shown PAGE FILE: the code of FILE (docs/examples.md) has a line running PAGE's command.
shown() {
    local cmd
    cmd=$(command_of "$1")
    awk -v cmd="$cmd" '/^```/ { code = !code; next }
        code && (index($0, cmd " ") == 1 || $0 == cmd) { found = 1 } END { exit !found }' "$2"
}

# The checks fail where they should.
sed '/^\.SH EXAMPLES/,/^\.SH "SEE ALSO"/{/^\.SH "SEE ALSO"/!d}' \
    "$top_srcdir/man/spoolsim-merge.1" >"$WORK/spoolsim-merge.1"
check "a page without EXAMPLES is found" not examples "$WORK/spoolsim-merge.1"
grep -v '^spoolsim/spoolsim merge ' "$top_srcdir"/docs/examples.md >"$WORK/examples.txt"
check "docs/examples.md without merge is found" not shown "$top_srcdir/man/spoolsim-merge.1" "$WORK/examples.txt"

pages=0
for page in "$top_srcdir"/man/*.1; do
    pages=$((pages + 1))
    check "$(basename "$page"): an EXAMPLES section" examples "$page"
    check "  docs/examples.md runs $(command_of "$page")" shown "$page" "$top_srcdir"/docs/examples.md
done
# a page for each command but source and sink, and spoolsim(1), smtp-source(1),
# smtp-sink(1) and spoolsim-recorder(1)
commands=$("$top_builddir/spoolsim/spoolsim" --list-options | grep -cvx -e '-.*' -e help -e source -e sink)
check "a page for each of the $commands commands and four more ($pages)" test "$pages" = $((commands + 4))
for cmd in source sink; do
    check "docs/examples.md runs spoolsim $cmd" \
        grep -q "^spoolsim/spoolsim $cmd " "$top_srcdir"/docs/examples.md
done
finish
