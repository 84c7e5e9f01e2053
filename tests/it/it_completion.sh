#!/bin/bash
# Integration: the bash completion (completion/spoolsim.bash, as the build
# fills it in) offers every subcommand and every option that each command's
# --help lists, for spoolsim, smtp-source and smtp-sink, and the values of
# the options whose values it knows: profiles, --model, directories,
# files, alternatives. Words are completed as bash does it: the script
# sourced, COMP_WORDS and COMP_CWORD set, the registered function called.
. "${top_srcdir:-.}/tests/helpers/lib.sh"

SCRIPT="$top_builddir/completion/spoolsim"
[ -f "$SCRIPT" ] || {
    echo "FAIL - $SCRIPT is not built (make)"
    exit 1
}
SPOOLSIM=$(cd "$(dirname "$RELAY")" && pwd)/spoolsim
SOURCE_ABS=$(cd "$(dirname "$SOURCE")" && pwd)/smtp-source
SINK_ABS=$(cd "$(dirname "$SINK")" && pwd)/smtp-sink
# shellcheck disable=SC1090
. "$SCRIPT"

# complete WORD...: what TAB offers after these words (the last one is the
# word being completed), one a line in $WORK/reply, through the function
# the script registers for the first word's program (under its installed
# name, which configure may change).
complete_words() {
    local fn=_spoolsim
    case $1 in */smtp-source | */smtp-sink) fn=_spoolsim_tool ;; esac
    COMP_WORDS=("$@")
    COMP_CWORD=$((${#COMP_WORDS[@]} - 1))
    COMPREPLY=()
    "$fn"
    : >"$WORK/reply"
    [ ${#COMPREPLY[@]} = 0 ] || printf '%s\n' "${COMPREPLY[@]}" | sed 's|/$||' | sort -u >"$WORK/reply"
}

# offers WANT...: each of WANT is in the last reply.
offers() {
    local w missing=
    for w in "$@"; do
        grep -qxF -- "$w" "$WORK/reply" || missing="$missing $w"
    done
    [ -z "$missing" ] || echo "   not offered:$missing (offered: $(tr '\n' ' ' <"$WORK/reply"))"
    [ -z "$missing" ]
}

# offers_only WANT...: the last reply is exactly WANT.
offers_only() {
    [ "$(printf '%s\n' "$@" | sort -u)" = "$(cat "$WORK/reply")" ] || {
        echo "   offered: $(tr '\n' ' ' <"$WORK/reply"), not: $*"
        return 1
    }
}

# help_options PROGRAM...: the options PROGRAM... --help lists, each line's
# leading "-x, --name VALUE" column.
help_options() {
    "$@" --help 2>&1 | sed -n 's/^ *\(-[^ ].*\)$/\1/p' | sed 's/  .*//; s/,/ /g' |
        tr ' ' '\n' | grep -E '^--?[A-Za-z0-9][A-Za-z0-9-]*$' | sort -u
}

registered() { complete -p | grep -q -- "-F $1 "; }
check "the script registers its function for spoolsim" registered _spoolsim

commands=$("$RELAY" --help | sed -n 's/^  \([a-z]*\)  .*/\1/p')
check "spoolsim --help lists commands" test -n "$commands"
complete_words "$SPOOLSIM" ""
# shellcheck disable=SC2086
check "spoolsim TAB: every command" offers $commands help
complete_words "$SPOOLSIM" b
check "spoolsim b TAB: bench" offers_only bench
complete_words "$SPOOLSIM" help s
check "spoolsim help s TAB: the commands in s" offers_only sweep source sink

# Every option that each command's --help lists, from spoolsim's own
# commands to the two programs, as themselves and as spoolsim source|sink.
for cmd in $commands; do
    case $cmd in source | sink) continue ;; esac
    want=$(help_options "$RELAY" "$cmd")
    complete_words "$SPOOLSIM" "$cmd" -
    # shellcheck disable=SC2086
    check "spoolsim $cmd -TAB: the $(echo "$want" | wc -l) options of its --help" offers $want
done
for prog in "$SOURCE_ABS" "$SINK_ABS"; do
    name=$(basename "$prog")
    want=$(help_options "$prog")
    complete_words "$prog" -
    # shellcheck disable=SC2086
    check "$name -TAB: the $(echo "$want" | wc -l) options of its --help" offers $want
    complete_words "$SPOOLSIM" "${name#smtp-}" -
    # shellcheck disable=SC2086
    check "spoolsim ${name#smtp-} -TAB: the same" offers $want
done
complete_words "$SPOOLSIM" bench --hop
check "bench --hop TAB: the four" offers_only --hop-delay --hop-jitter --hop-loss --hop-rate

# Values.
mkdir "$WORK/here" "$WORK/here/spooldir"
: >"$WORK/here/model.json"
cd "$WORK/here" || exit 1
profiles=$("$SPOOLSIM" raw --list | awk '{ print $1 }')
complete_words "$SPOOLSIM" raw --profile ""
# shellcheck disable=SC2086
check "raw --profile TAB: the profiles of raw --list" offers_only $profiles
complete_words "$SPOOLSIM" raw -p q
check "raw -p q TAB: qmail" offers_only qmail
complete_words "$SPOOLSIM" crash --profile e
check "crash --profile e TAB: the exims" offers_only exim exim-4.98
complete_words "$SPOOLSIM" bench --model ""
check "bench --model TAB: postfix, none and files" offers_only postfix none model.json spooldir
complete_words "$SPOOLSIM" bench --spool ""
check "bench --spool TAB: directories only" offers_only spooldir
complete_words "$SPOOLSIM" bench --json m
check "bench --json m TAB: the file" offers_only model.json
complete_words "$SPOOLSIM" bench --qmgr ""
check "bench --qmgr TAB: its two shapes" offers_only single pool
complete_words "$SPOOLSIM" bench -m ""
check "bench -m TAB: nothing (a count)" test ! -s "$WORK/reply"
complete_words "$SPOOLSIM" calibrate ""
check "calibrate TAB: the MTAs it calibrates" offers_only exim postfix
complete_words "$SPOOLSIM" ab spooldir spooldir -- ""
check "ab DIR DIR -- TAB: the modes" offers_only raw relay postmark
complete_words "$SPOOLSIM" ab spooldir spooldir -- raw --di
check "ab ... -- raw --di TAB: raw's --dir" offers_only --dir
complete_words "$SPOOLSIM" ab spooldir spooldir -- relay --disc
check "ab ... -- relay --disc TAB: bench's --discard" offers_only --discard
complete_words "$SPOOLSIM" sweep -- --next
check "sweep -- --next TAB: the relay's --next-hop" offers_only --next-hop
complete_words "$SPOOLSIM" source -F m
check "spoolsim source -F m TAB: a file" offers_only model.json
complete_words "$SINK_ABS" --tls-c
check "smtp-sink --tls-c TAB: --tls-cert" offers_only --tls-cert
cd / || exit 1
finish
