#!/bin/sh
# it_man_options.sh - every command's options are in its own man page, and
# its page documents no option it does not have.
#
# Each program, and each spoolsim command, prints its option table with
# --list-options: one option a line (-x, --name, "=" after one that takes
# a value), the table its option parser takes and the shell completion
# reads. Each option must appear in the command's own page (smtp-source in
# man/smtp-source.1, spoolsim relay in man/spoolsim-relay.1, ...) as -x or
# --name (written \-x, \fB\-x\fR, \-\-name ...): not in another command's
# page. The other way round, every option named in the tag of an item of
# the page's OPTIONS section must be in the command's table, so that an
# option the command dropped does not stay documented. spoolsim's own
# table lists its commands: each must be named in spoolsim(1), the
# overview, and each but source and sink (whose pages the build makes from
# smtp-source.1 and smtp-sink.1) must have its page.
# Before the real pages, a copy of man/spoolsim-relay.1 with one option
# taken out, and one with an option added, show that both checks fail.
# Prints one line per problem and exits 1 if there is any, 0 otherwise.
# The programs are found through $top_builddir, the pages through
# $top_srcdir (default: the top of this tree), as automake's
# AM_TESTS_ENVIRONMENT sets them.

top_srcdir=${top_srcdir:-$(cd "$(dirname "$0")/../.." && pwd)}
top_builddir=${top_builddir:-$top_srcdir}
SPOOLSIM=$top_builddir/spoolsim/spoolsim

# Bytes, not characters: a page with UTF-8 text must not stop a pattern.
LC_ALL=C
export LC_ALL

work=$(mktemp -d "${TMPDIR:-/tmp}/it_man_options.XXXXXX") || exit 1
trap 'rm -rf "$work"' EXIT
checked=0
problems=0

# The man page as plain text: comments dropped, font and other escapes
# removed, \- and \(hy turned into "-".
man_text() {
    sed -e '/^[.'"'"'][[:space:]]*\\"/d' \
        -e 's/\\".*$//' \
        -e 's/\\f\[[^]]*\]//g' \
        -e 's/\\f([A-Za-z0-9][A-Za-z0-9]//g' \
        -e 's/\\f[A-Za-z0-9]//g' \
        -e 's/\\(hy/-/g' -e 's/\\\[hy\]/-/g' \
        -e 's/\\(mi/-/g' -e 's/\\\[mi\]/-/g' \
        -e 's/\\-/-/g' \
        -e 's/\\&//g' -e 's/\\%//g' -e 's/\\c$//' \
        "$1"
}

# mentions TEXTFILE WORD: WORD ("-x", "--name" or a command) appears
# whole: not inside a longer option, not followed by more name characters.
mentions() {
    pattern=$(printf '%s\n' "$2" | sed 's/[][\.*^$+?(){}|/]/\\&/g')
    grep -E -q -e "(^|[^A-Za-z0-9-])$pattern([^A-Za-z0-9-]|\$)" "$1"
}

# option_tags PAGE: the options named in the tags of the OPTIONS section's
# items (the line after each .TP), one per line.
option_tags() {
    awk '/^\.SH/ { opts = ($0 ~ /^\.SH "?OPTIONS"?[[:space:]]*$/); tp = 0; next }
         opts && tp { print; tp = 0; next }
         opts && /^\.TP/ { tp = 1 }' "$1" >"$work/tags"
    man_text "$work/tags" |
        grep -oE '(^|[^A-Za-z0-9-])--?[A-Za-z0-9][A-Za-z0-9-]*' |
        sed 's/^[^-]*//' | sort -u
}

# check_page NAME PAGE OPTIONS_FILE: print a line for each option of
# OPTIONS_FILE (a --list-options output) that PAGE does not name, and for
# each option PAGE documents that OPTIONS_FILE does not have.
check_page() {
    if [ ! -r "$2" ]; then
        echo "$1: no page $2"
        return
    fi
    man_text "$2" >"$work/text"
    sed -e 's/\[=\]$//' -e 's/=$//' "$3" >"$work/options"
    while read -r option; do
        checked=$((checked + 1))
        mentions "$work/text" "$option" ||
            echo "$1: option $option is not documented in $2"
    done <"$work/options"
    for option in $(option_tags "$2"); do
        grep -q -x -F -e "$option" "$work/options" ||
            echo "$1: $2 documents $option, which $1 does not have"
    done
}

# run_check NAME PAGE COMMAND...: check_page on COMMAND's --list-options.
run_check() {
    name=$1
    page=$2
    shift 2
    if ! "$@" --list-options >"$work/list" 2>"$work/err" || [ ! -s "$work/list" ]; then
        echo "it_man_options: $name --list-options failed: $(cat "$work/err")" >&2
        problems=$((problems + 1))
        return
    fi
    check_page "$name" "$page" "$work/list" >"$work/found"
    sed 's/^/it_man_options: /' "$work/found" >&2
    problems=$((problems + $(wc -l <"$work/found")))
}

[ -x "$SPOOLSIM" ] || {
    echo "it_man_options: $SPOOLSIM is not built" >&2
    exit 1
}

# The controls: one option fewer in a copy of the relay's page, one more.
"$SPOOLSIM" relay --list-options >"$work/relay.list"
relay_page=$top_srcdir/man/spoolsim-relay.1
grep -v -e 'check\\-options' "$relay_page" >"$work/fewer.1"
check_page relay "$work/fewer.1" "$work/relay.list" >"$work/found"
grep -q -e 'option --check-options is not documented' "$work/found" || {
    echo "it_man_options: control: a page without --check-options passed" >&2
    problems=$((problems + 1))
}
sed '/^\.SH OPTIONS/a\
.TP\
.BR \\-\\-no\\-such\\-option\
Gone.' "$relay_page" >"$work/more.1"
check_page relay "$work/more.1" "$work/relay.list" >"$work/found"
grep -q -e 'documents --no-such-option, which relay does not have' "$work/found" || {
    echo "it_man_options: control: a page with --no-such-option passed" >&2
    problems=$((problems + 1))
}
checked=0

run_check smtp-source "$top_srcdir/man/smtp-source.1" "$top_builddir/smtp-source/smtp-source"
run_check smtp-sink "$top_srcdir/man/smtp-sink.1" "$top_builddir/smtp-sink/smtp-sink"

# spoolsim: its commands in the overview, then each command in its page.
"$SPOOLSIM" --list-options >"$work/commands" || exit 1
commands=$(grep -v -e '^-' "$work/commands")
grep -e '^-' "$work/commands" >"$work/top"
check_page spoolsim "$top_srcdir/man/spoolsim.1" "$work/top" >"$work/found"
man_text "$top_srcdir/man/spoolsim.1" >"$work/overview"
for command in $commands; do
    checked=$((checked + 1))
    mentions "$work/overview" "$command" ||
        echo "spoolsim: command $command is not in man/spoolsim.1" >>"$work/found"
    [ "$command" = help ] || mentions "$work/overview" "spoolsim-$command" ||
        echo "spoolsim: man/spoolsim.1 does not name spoolsim-$command(1)" >>"$work/found"
done
sed 's/^/it_man_options: /' "$work/found" >&2
problems=$((problems + $(wc -l <"$work/found")))
for command in $commands; do
    case $command in
    help | source | sink) continue ;; # help is spoolsim(1); source, sink: above
    esac
    run_check "spoolsim $command" "$top_srcdir/man/spoolsim-$command.1" "$SPOOLSIM" "$command"
done

if [ "$problems" -gt 0 ]; then
    echo "it_man_options: $problems problem(s) found" >&2
    echo "it_man_options: $checked options and commands checked"
    exit 1
fi
echo "it_man_options: $checked options and commands checked"
exit 0
