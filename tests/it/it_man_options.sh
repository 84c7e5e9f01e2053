#!/bin/sh
# it_man_options.sh - every command-line option is documented.
#
# For each program and subcommand, read the option letters from the
# getopt_long() string and the long option names from the long_options[]
# table of the options source file, and check that the program's man page
# mentions each one (-x or --name, written \-x, \fB\-x\fR, \-\-name ...).
# The options the spoolsim subcommands share are those of the option
# groups (common/util/optgroup.c's entries[] table): each of them too.
# Prints one line per missing option and exits 1 if any is missing, 0
# otherwise. Files are found through $top_srcdir (default: the directory
# above this script), as automake's AM_TESTS_ENVIRONMENT sets it.

top_srcdir=${top_srcdir:-$(cd "$(dirname "$0")/.." && pwd)}

# Bytes, not characters: a source with UTF-8 text must not stop a pattern.
LC_ALL=C
export LC_ALL

checked=0
missing=0

fail() {
    echo "it_man_options: $*" >&2
    missing=$((missing + 1))
}

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

# The getopt_long() option string of a C file: every string literal
# between "getopt_long(" (or optarg_getopt(), its wrapper in optarg.h, or
# optgroup_init(), which takes a command's own letters) and
# "long_options", joined; GNU's leading "+", "-" and ":" flags and the ":"
# argument markers dropped.
short_options() {
    tr '\n' ' ' <"$1" |
        sed -n 's/.*\(getopt_long\|optarg_getopt\|optgroup_init\)(\(.*\)/\2/p' |
        sed 's/long_options.*//' |
        grep -o '"[^"]*"' |
        tr -d '"\n' |
        sed -e 's/^[-+:]*//' -e 's/://g'
}

# The names in the long_options[] table of a C file, one per line.
long_options() {
    sed -n '/long_options\[\][[:space:]]*=/,/};/p' "$1" |
        grep -o '{[[:space:]]*"[^"]*"' |
        sed -e 's/^{[[:space:]]*"//' -e 's/"$//'
}

# The option groups' entries (optgroup.c): one line each, "NAME LETTER",
# LETTER "-" for an option with no letter.
group_options() {
    tr '\n' ' ' <"$1" |
        grep -o '{OPTGROUP_[A-Z_]*,[[:space:]]*{"[^"]*",[^}]*}' |
        sed -e 's/^{OPTGROUP_[A-Z_]*,[[:space:]]*{"\([^"]*\)",.*,[[:space:]]*\([^,}]*\)}$/\1 \2/' \
            -e "s/ '\\(.\\)'\$/ \\1/" -e 's/ [A-Z_][A-Z_0-9]*$/ -/'
}

# mentions TEXTFILE OPTION: OPTION ("-x" or "--name") appears as a whole
# word: not inside a longer option, not followed by more name characters.
mentions() {
    pattern=$(printf '%s\n' "$2" | sed 's/[][\.*^$+?(){}|/]/\\&/g')
    grep -E -q -e "(^|[^A-Za-z0-9-])$pattern([^A-Za-z0-9-]|\$)" "$1"
}

check_program() {
    program=$1
    source_file=$top_srcdir/$2
    man_page=$top_srcdir/man/$program.1

    for f in "$source_file" "$man_page"; do
        if [ ! -r "$f" ]; then
            fail "cannot read $f"
            return
        fi
    done
    text=$(mktemp "${TMPDIR:-/tmp}/it_man_options.XXXXXX") || exit 1
    man_text "$man_page" >"$text"

    letters=$(short_options "$source_file")
    names=$(long_options "$source_file")
    # A command with option groups may have no options of its own.
    if ! grep -q 'optgroup_init(' "$source_file"; then
        if [ -z "$letters" ]; then
            fail "no getopt_long() option string found in $source_file"
        fi
        if [ -z "$names" ]; then
            fail "no long_options[] table found in $source_file"
        fi
    fi

    rest=$letters
    while [ -n "$rest" ]; do
        letter=$(printf '%s' "$rest" | cut -c1)
        rest=$(printf '%s' "$rest" | cut -c2-)
        checked=$((checked + 1))
        mentions "$text" "-$letter" ||
            fail "$program: option -$letter is not documented in man/$program.1"
    done
    for name in $names; do
        checked=$((checked + 1))
        mentions "$text" "--$name" ||
            fail "$program: option --$name is not documented in man/$program.1"
    done
    rm -f "$text"
}

# check_groups PROGRAM FILE: every option of the groups in FILE's entries[].
check_groups() {
    man_page=$top_srcdir/man/$1.1
    text=$(mktemp "${TMPDIR:-/tmp}/it_man_options.XXXXXX") || exit 1
    man_text "$man_page" >"$text"
    entries=$(group_options "$top_srcdir/$2")
    [ -n "$entries" ] || fail "no option groups found in $2"
    printf '%s\n' "$entries" | {
        n=0
        bad=0
        while read -r name letter; do
            n=$((n + 2))
            mentions "$text" "--$name" || {
                echo "it_man_options: $1: option --$name ($2) is not documented in man/$1.1" >&2
                bad=$((bad + 1))
            }
            if [ "$letter" != - ]; then
                mentions "$text" "-$letter" || {
                    echo "it_man_options: $1: option -$letter ($2) is not documented in man/$1.1" >&2
                    bad=$((bad + 1))
                }
            fi
        done
        echo "$n $bad" >"$text.count"
    }
    read -r n bad <"$text.count"
    checked=$((checked + n))
    missing=$((missing + bad))
    rm -f "$text" "$text.count"
}

check_program smtp-source smtp-source/source_options.c
check_program smtp-sink smtp-sink/sink_options.c
check_program spoolsim spoolsim/relay/relay_options.c
check_program spoolsim spoolsim/drive/bench.c
check_program spoolsim spoolsim/drive/sweep_options.c
check_program spoolsim spoolsim/raw/raw.c
check_program spoolsim spoolsim/drive/ab_options.c
check_program spoolsim spoolsim/postmark/postmark.c
check_program spoolsim spoolsim/plot/plot.c
check_program spoolsim spoolsim/merge/merge.c
check_program spoolsim spoolsim/crash/crash.c
check_groups spoolsim common/util/optgroup.c

if [ "$missing" -gt 0 ]; then
    echo "it_man_options: $missing problem(s) found" >&2
    echo "it_man_options: $checked options checked"
    exit 1
fi
echo "it_man_options: $checked options checked"
exit 0
