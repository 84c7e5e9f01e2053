#!/bin/bash
# Integration: the bash completion (completion/spoolsim.bash, as the build
# fills it in) offers every subcommand and every option that each command's
# --help lists, for spoolsim, smtp-source and smtp-sink, and the values of
# the options whose values it knows: profiles, --model, directories,
# files, alternatives. Words are completed as bash does it: the script
# sourced, COMP_WORDS and COMP_CWORD set, the registered function called.
# Every option that takes one of a few words offers exactly the words the
# program's own check of it lists when it refuses another. Then zsh's and
# fish's (completion/spoolsim.zsh, spoolsim.fish.in) as the shells load
# them: fish's through its own complete -C; zsh's as compinit calls it,
# its compadd noted, and through zsh's own completion system on a
# pseudo-terminal (zsh, its functions and fish from scripts/fetch-peer.sh
# zsh zsh-common fish, or the machine's; a part skips without them).
. "${top_srcdir:-.}/tests/helpers/lib.sh"

SCRIPT="$top_builddir/completion/spoolsim"
[ -f "$SCRIPT" ] || {
    echo "FAIL - $SCRIPT is not built (make)"
    exit 1
}
SPOOLSIM=$(cd "$(dirname "$RELAY")" && pwd)/spoolsim
SOURCE_ABS=$(cd "$(dirname "$SOURCE")" && pwd)/smtp-source
SINK_ABS=$(cd "$(dirname "$SINK")" && pwd)/smtp-sink
COMPLETIONS=$(cd "$(dirname "$SCRIPT")" && pwd)
FISH_SCRIPT=$COMPLETIONS/spoolsim.fish
ZSH_SCRIPT=$COMPLETIONS/_spoolsim
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
check "bench --model TAB: postfix, exim, none and files" offers_only postfix exim none model.json spooldir
complete_words "$SPOOLSIM" crash --model ""
check "crash --model TAB: the same" offers_only postfix exim none model.json spooldir
complete_words "$SPOOLSIM" bench --mta ""
check "bench --mta TAB: the MTAs" offers_only postfix exim
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
complete_words "$SPOOLSIM" ab spooldir spooldir -- raw --sp
check "ab ... -- raw --sp TAB: raw's --spool" offers_only --spool
complete_words "$SPOOLSIM" ab spooldir spooldir -- relay --disc
check "ab ... -- relay --disc TAB: bench's --discard" offers_only --discard
# Old spellings and refused options are not offered (docs/design.md, "One vocabulary").
offers_none() { ! grep -qxF -e "$1" -e "$2" "$WORK/reply"; }
complete_words "$SPOOLSIM" relay -
check "relay - TAB: not the refused -s and -n" offers_none -s -n
complete_words "$SPOOLSIM" crash -
check "crash - TAB: -O, not the old -o and -n" sh -c "grep -qxF -- -O '$WORK/reply' && ! grep -qx -e '-o' -e '-n' '$WORK/reply'"
complete_words "$SPOOLSIM" crash --
check "crash -- TAB: --spool and --mount-options, not --like and --options" sh -c \
    "grep -qx -e '--spool' '$WORK/reply' && grep -qx -e '--mount-options' '$WORK/reply' && ! grep -qx -e '--like' -e '--options' '$WORK/reply'"
complete_words "$SOURCE_ABS" --qu
check "smtp-source --qu TAB: not the refused --quiet" test ! -s "$WORK/reply"
complete_words "$SPOOLSIM" sweep -- --next
check "sweep -- --next TAB: the relay's --next-hop" offers_only --next-hop
complete_words "$SPOOLSIM" source -F m
check "spoolsim source -F m TAB: a file" offers_only model.json
complete_words "$SINK_ABS" --tls-c
check "smtp-sink --tls-c TAB: --tls-cert" offers_only --tls-cert

# refused PROGRAM... OPTION: the words the program lists when it refuses a
# value of OPTION ("bad --sync "x" (fsync, fdatasync or none)"), one a line.
refused() {
    timeout 10 "$@" no-such-value </dev/null 2>&1 >/dev/null | head -1 |
        sed -e 's/^[^:]*: usage error: //' -e 's/"no-such-value"//' |
        tr ' ,():' '\n\n\n\n\n' | grep -xE '[a-z][a-z0-9.-]*' |
        grep -vxE 'or|bad|unknown|expected|got|spoolsim|crash|makes|filesystem|type' | sort -u
}
# The options that take one of a few words: each offers what its check takes.
while read -r words; do
    # shellcheck disable=SC2086
    want=$(refused $words)
    # shellcheck disable=SC2086
    complete_words $words ""
    # shellcheck disable=SC2086
    check "${words#"$SPOOLSIM" } TAB: $(echo $want)" test -n "$want" -a "$want" = "$(cat "$WORK/reply")"
done <<WORDS
$SPOOLSIM bench --sync
$SPOOLSIM relay --sync
$SPOOLSIM raw --sync
$SPOOLSIM crash --sync
$SPOOLSIM relay --bare-lf
$SPOOLSIM relay --hop-tls
$SPOOLSIM bench --qmgr
$SPOOLSIM crash --recorder
$SPOOLSIM plot --kind
$SPOOLSIM plot --format
$SPOOLSIM sweep --arrivals
$SPOOLSIM source --arrivals
$SINK_ABS --bare-lf
$SPOOLSIM bench --mta
$SPOOLSIM raw --profile
$SPOOLSIM relay --profile
$SPOOLSIM bench --profile
WORDS
# crash checks its --type once it knows it runs as root.
if [ "$(id -u)" = 0 ]; then
    want=$(refused "$SPOOLSIM" crash -t)
    complete_words "$SPOOLSIM" crash -t ""
    # shellcheck disable=SC2086
    check "crash -t TAB: $(echo $want)" test -n "$want" -a "$want" = "$(cat "$WORK/reply")"
else
    skip_part "crash -t's list of filesystems: spoolsim crash checks it as root only"
fi

# zsh and fish, in their own processes, with the build's programs in PATH
# and the build's bash completion.
export SPOOLSIM_BASH_COMPLETION=$COMPLETIONS/spoolsim
PATH=$(dirname "$SPOOLSIM"):$(dirname "$SOURCE_ABS"):$(dirname "$SINK_ABS"):$PATH
export PATH
[ -x "${PEER_FISH:-}" ] || PEER_FISH=$(command -v fish)
[ -x "${PEER_ZSH:-}" ] || PEER_ZSH=$(command -v zsh)
# fish_offers LINE WANT...: fish's complete -C on LINE offers exactly WANT.
fish_offers() {
    local line=$1 got
    shift
    got=$(timeout 30 "$PEER_FISH" --no-config -c "source '$FISH_SCRIPT'
        complete -C '$line'" 2>&1 | cut -f1 | sort -u)
    [ "$got" = "$(printf '%s\n' "$@" | sort -u)" ] || {
        echo "   fish offered: $(echo $got), not: $*"
        return 1
    }
}
if have_peer fish "scripts/fetch-peer.sh fish" "$PEER_FISH" --version; then
    check "fish: spoolsim b TAB: bench" fish_offers "spoolsim b" bench
    check "fish: spoolsim bench --hop-d TAB" fish_offers "spoolsim bench --hop-d" --hop-delay
    check "fish: bench --model TAB: models, files, directories with a slash" \
        fish_offers "spoolsim bench --model " postfix exim none model.json spooldir/
    check "fish: relay --hop-tls TAB" fish_offers "spoolsim relay --hop-tls " none may encrypt
    check "fish: plot --kind a TAB" fish_offers "spoolsim plot --kind a" ab auto
    check "fish: ab ... -- raw --sp TAB" fish_offers "spoolsim ab spooldir spooldir -- raw --sp" --spool
    check "fish: spoolsim sink --bare-lf l TAB" fish_offers "spoolsim sink --bare-lf l" lenient
    check "fish: smtp-source --arr TAB" fish_offers "smtp-source --arr" --arrivals
fi
# zsh_offers WORD... :: WANT...: _spoolsim, as compinit calls it with words
# and CURRENT set, passes exactly WANT to compadd (its options first).
zsh_offers() {
    local -a words=()
    local got
    while [ "$1" != :: ]; do
        words+=("$1")
        shift
    done
    shift
    # shellcheck disable=SC2016
    got=$(timeout 30 "$PEER_ZSH" -f -c 'compadd() { print -rl -- "$@" }
        words=("${@:2}"); CURRENT=${#words}; source "$1"' _ "$ZSH_SCRIPT" "${words[@]}" 2>&1)
    [ "$got" = "$(printf '%s\n' "$@")" ] || {
        echo "   zsh offered: $(echo $got), not: $*"
        return 1
    }
}
if have_peer zsh "scripts/fetch-peer.sh zsh" "$PEER_ZSH" --version; then
    check "zsh: the file says what it completes" grep -q '^#compdef .*spoolsim' "$ZSH_SCRIPT"
    check "zsh: spoolsim b TAB: bench" zsh_offers spoolsim b :: -- bench
    check "zsh: spoolsim bench --hop-d TAB" zsh_offers spoolsim bench --hop-d :: -- --hop-delay
    check "zsh: bench --model TAB: models and file names" \
        zsh_offers spoolsim bench --model "" :: -f -- postfix exim none model.json spooldir
    check "zsh: crash -t x TAB: xfs" zsh_offers spoolsim crash -t x :: -- xfs
    check "zsh: sweep --arrivals TAB" zsh_offers spoolsim sweep --arrivals "" :: -- fixed poisson
    check "zsh: sweep -- --next TAB: the relay's" zsh_offers spoolsim sweep -- --next :: -- --next-hop
    check "zsh: smtp-sink --tls-c TAB" zsh_offers smtp-sink --tls-c :: -- --tls-cert
fi
# zsh_compsys LINE: what zsh's own completion system offers when TAB is
# pressed after LINE, one a line: an interactive zsh on a pseudo-terminal
# (zsh/zpty), compinit with zsh's functions and this build's _spoolsim
# in fpath, compadd noted as it adds.
cat >"$WORK/compsys.zsh" <<'ZSH'
module_path=($ZSH_MODULES $module_path)
zmodload zsh/zpty || exit 3
zpty z "$PEER_ZSH" -f -i
zpty -w z "module_path=(${(q)ZSH_MODULES} \$module_path); PS1=''; RPS1=''"
zpty -w z "fpath=(${(q)1} ${(q)2}/Completion ${(q)2}/Completion/Base ${(q)2}/Completion/Zsh ${(q)2}/Completion/Unix \$fpath)"
zpty -w z 'autoload -U compinit && compinit -u -D'
zpty -w z 'compadd() { builtin compadd -O __hits "$@"; print -rl -- ${__hits/#/H""IT:} >/dev/tty; builtin compadd "$@" }'
# The markers are split where typed, so that their echo does not match.
zpty -w z "print '<RE''ADY>'"
zpty -r z out '*<READY>*' || exit 4
# zsh leaves completion out while typed input is pending: TAB alone first,
# then, once its hits have come and the terminal is quiet for half a second,
# the rest. A loaded machine may take seconds to answer: 30 s at most each.
zpty -n -w z "$3"$'\t'
out=
integer deadline=$((SECONDS + 30)) quiet=0
while ((SECONDS < deadline && quiet < 10)); do
    if zpty -r -t z chunk; then
        out+=$chunk
        quiet=0
    else
        [[ $out == *HIT:* ]] && ((quiet++))
        sleep 0.05
    fi
done
zpty -n -w z $'\C-u'"print '<DO''NE>'"$'\n'
deadline=$((SECONDS + 30))
while ((SECONDS < deadline)); do
    if zpty -r -t z chunk; then
        out+=$chunk
        [[ $out == *'<DONE>'* ]] && break
    else
        sleep 0.05
    fi
done
print -r -- "$out" | tr -d '\r' | grep -ao 'HIT:[^[:cntrl:]]*' | sed 's/^HIT://; s/[[:space:]]*$//' | sort -u
zpty -d z
ZSH
zsh_compsys_offers() {
    local line=$1 got
    shift
    got=$(timeout 60 "$PEER_ZSH" -f "$WORK/compsys.zsh" \
        "$COMPLETIONS" "$ZSH_FUNCTIONS" "$line" 2>"$WORK/compsys.err")
    [ "$got" = "$(printf '%s\n' "$@" | sort -u)" ] || {
        echo "   zsh offered: $(echo $got), not: $* ($(head -c 300 "$WORK/compsys.err"))"
        return 1
    }
}
# zsh's own functions (Debian's zsh-common) and modules: the fetched peers', else the machine's.
ZSH_FUNCTIONS=$SPOOLSIM_PEERS/zsh-common/root/usr/share/zsh/functions
[ -d "$ZSH_FUNCTIONS" ] || ZSH_FUNCTIONS=/usr/share/zsh/functions
ZSH_MODULES=$(ls -d "$SPOOLSIM_PEERS"/zsh/root/usr/lib/*/zsh/[0-9]* 2>/dev/null | head -1)
export PEER_ZSH ZSH_MODULES
if [ -x "${PEER_ZSH:-}" ] &&
    have_peer "zsh's completion functions" "scripts/fetch-peer.sh zsh-common" test -f "$ZSH_FUNCTIONS/Completion/compinit"; then
    check "zsh compinit: spoolsim b TAB" zsh_compsys_offers "spoolsim b" bench
    check "zsh compinit: bench --model TAB: models and file names" \
        zsh_compsys_offers "spoolsim bench --model " postfix exim none model.json spooldir
    check "zsh compinit: relay --hop-tls TAB" zsh_compsys_offers "spoolsim relay --hop-tls " none may encrypt
    check "zsh compinit: smtp-sink --tls-c TAB" zsh_compsys_offers "smtp-sink --tls-c" --tls-cert
fi
cd / || exit 1
finish

