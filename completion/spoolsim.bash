# Bash completion for spoolsim, and for smtp-source and smtp-sink where
# they are in PATH under their own names (not in the Debian package, which
# runs them as spoolsim source and spoolsim sink).
#
# Nothing here lists an option: each program prints its own getopt_long()
# table when it is run with --list-options alone (common/util/optarg.c),
# so the options offered are those of the binary that will run, whatever
# its version. What an option's value is comes from the same binary's
# --help, from the word after the option there: DIR, FILE (or a file name
# such as MODEL.json), MODEL (none, a built-in model or a file) and MTA
# (a built-in model: the MTAs spoolsim calibrate measures, its
# --list-options), the profile NAME of --profile (spoolsim raw --list),
# alternatives such as single|pool, or, for a POLICY, LEVEL, KIND, TYPE,
# FORMAT or other NAME, the alternatives its help text lists ("fsync,
# fdatasync or none"; what is in parentheses left out). Other values (a count, a time)
# get no suggestion.
#
# zsh and fish complete with this file too (completion/spoolsim.zsh and
# spoolsim.fish run it in bash, through _spoolsim_words), so that the three
# shells offer the same words.
#
# make install fills in the installed names (configure's
# --program-transform-name) and installs this file in bash-completion's
# completions directory under each of them.

# _spoolsim_listed TEXT: the alternatives an option's help text lists, one
# a line: the first run of words joined by commas and "or" ("strict,
# normalize or lenient", "ext2, ext3, ext4, xfs, btrfs"), once what is in
# parentheses is left out ("fsync (as Postfix), fdatasync or none").
_spoolsim_listed() {
    local text=$1 w='[a-z][a-z0-9_.-]*' list
    local paren='^(.*[^ ]|) *\([^()]*\)(.*)$'
    local re="(^|[ :])($w(, $w)*,? or $w|$w(, $w)+)"
    while [[ $text =~ $paren ]]; do
        text=${BASH_REMATCH[1]}${BASH_REMATCH[2]}
    done
    [[ $text =~ $re ]] || return 0
    list=${BASH_REMATCH[2]//, or / }
    list=${list//, / }
    list=${list// or / }
    # shellcheck disable=SC2086 # one word a line
    printf '%s\n' $list
}

# The completion's words as one program's: _spoolsim_offer PROGRAM... runs
# PROGRAM... --list-options; the caller's cur and prev say what to offer.
_spoolsim_offer() {
    local -a listed=() options=() operands=()
    local -a words=()
    local w placeholder help line head named desc
    mapfile -t listed < <("$@" --list-options 2>/dev/null)
    [ ${#listed[@]} -gt 0 ] || {
        mapfile -t COMPREPLY < <(compgen -f -- "$cur")
        return
    }
    for w in "${listed[@]}"; do
        case $w in
        -*) options+=("$w") ;;
        *) operands+=("$w") ;;
        esac
    done
    # The value of the option before: what its --help line says it is.
    if [[ $prev == -* ]] && [[ " ${options[*]} " == *" $prev= "* ]]; then
        help=$("$@" --help 2>&1)
        placeholder=
        desc=
        while IFS= read -r line; do
            line=${line#"${line%%[! ]*}"}
            if [ -n "$placeholder" ]; then
                # The description's next lines, up to the next option.
                if [ -z "$line" ] || [[ $line == -* ]]; then
                    break
                fi
                desc="$desc $line"
                continue
            fi
            [[ $line == -* ]] || continue
            head=${line%%  *}
            read -ra words <<<"${head//,/ }"
            named=0
            for w in "${words[@]}"; do
                if [[ $w == -* ]]; then
                    [ "$w" = "$prev" ] && named=1
                else
                    [ $named = 1 ] && placeholder=$w
                    break
                fi
            done
            [ -n "$placeholder" ] && desc=${line:${#head}}
        done <<<"$help"
        case $placeholder in
        *'|'*) mapfile -t COMPREPLY < <(compgen -W "${placeholder//|/ }" -- "$cur") ;;
        NAME | POLICY | LEVEL | KIND | TYPE | FORMAT)
            if [[ $prev == *profile* || $prev == -p ]]; then
                mapfile -t COMPREPLY < <(compgen -W "$("${1}" raw --list 2>/dev/null |
                    while read -r w _; do echo "$w"; done)" -- "$cur")
            else
                mapfile -t COMPREPLY < <(compgen -W "$(_spoolsim_listed "$desc")" -- "$cur")
            fi
            ;;
        MODEL | MTA)
            # The built-in models are those of the MTAs calibrate measures.
            mapfile -t COMPREPLY < <(compgen -W "$("${1}" calibrate --list-options 2>/dev/null |
                grep -v '^-') $([ "$placeholder" = MTA ] || echo none)" -- "$cur")
            if [ "$placeholder" = MODEL ]; then
                compopt -o filenames 2>/dev/null
                mapfile -t -O ${#COMPREPLY[@]} COMPREPLY < <(compgen -f -- "$cur")
            fi
            ;;
        *DIR* | *dir*)
            compopt -o filenames 2>/dev/null
            mapfile -t COMPREPLY < <(compgen -d -- "$cur")
            ;;
        *FILE* | *file* | *.* | *template* | '')
            compopt -o filenames 2>/dev/null
            mapfile -t COMPREPLY < <(compgen -f -- "$cur")
            ;;
        esac
        return
    fi
    if [[ $cur == -* ]]; then
        options=("${options[@]%=}")
        options=("${options[@]%\[=\]}")
        mapfile -t COMPREPLY < <(compgen -W "${options[*]}" -- "$cur")
    elif [ ${#operands[@]} -gt 0 ] && [ "$first" = 1 ]; then
        mapfile -t COMPREPLY < <(compgen -W "${operands[*]}" -- "$cur")
    else
        compopt -o filenames 2>/dev/null
        mapfile -t COMPREPLY < <(compgen -f -- "$cur")
    fi
}

_spoolsim() {
    local cur=${COMP_WORDS[COMP_CWORD]} prev=${COMP_WORDS[COMP_CWORD - 1]}
    local prog=${COMP_WORDS[0]} cmd i first=0
    local -a run
    COMPREPLY=()
    # As typed (a build tree's ./spoolsim/spoolsim too), else from PATH.
    [ -x "$prog" ] || prog=$(type -P "$prog") || return
    if [ "$COMP_CWORD" = 1 ]; then
        first=1
        _spoolsim_offer "$prog"
        return
    fi
    cmd=${COMP_WORDS[1]}
    run=("$prog" "$cmd")
    case $cmd in
    help)
        [ "$COMP_CWORD" = 2 ] &&
            mapfile -t COMPREPLY < <(compgen -W "$("$prog" --list-options | grep -v '^-')" -- "$cur")
        return
        ;;
    calibrate) [ "$COMP_CWORD" = 2 ] && first=1 ;;
    esac
    # After --, ab runs a mode (raw, bench for relay, postmark's file) and
    # sweep a relay: their options, then.
    for ((i = 2; i < COMP_CWORD; i++)); do
        [ "${COMP_WORDS[i]}" = -- ] || continue
        case $cmd in
        ab)
            if [ $((i + 1)) = "$COMP_CWORD" ]; then
                mapfile -t COMPREPLY < <(compgen -W "raw relay postmark" -- "$cur")
                return
            fi
            case ${COMP_WORDS[i + 1]} in
            raw) run=("$prog" raw) ;;
            relay) run=("$prog" bench) ;;
            *) run=(false) ;;
            esac
            ;;
        sweep) run=("$prog" relay) ;;
        esac
        break
    done
    _spoolsim_offer "${run[@]}"
}

_spoolsim_tool() {
    local cur=${COMP_WORDS[COMP_CWORD]} prev=${COMP_WORDS[COMP_CWORD - 1]}
    local prog=${COMP_WORDS[0]} first=0
    COMPREPLY=()
    [ -x "$prog" ] || prog=$(type -P "$prog") || return
    _spoolsim_offer "$prog"
}

# _spoolsim_words WORD...: what TAB offers after WORD... (the last is the
# word being completed), for zsh and fish, which run this file in bash: a
# first line "files" when the words are file names (a shell marks the
# directories among them), else "words", then one word a line.
_spoolsim_words() {
    local fn
    local -a COMP_WORDS=("$@") COMPREPLY=()
    local COMP_CWORD=$(($# - 1)) _spoolsim_files=words
    fn=$(complete -p -- "${1##*/}" 2>/dev/null) || return 0
    fn=${fn#*-F }
    fn=${fn%% *}
    # Out of a completion, bash refuses compopt: here it notes file names.
    # shellcheck disable=SC2317 # called by the completion functions
    compopt() {
        [[ " $* " != *" -o filenames"* ]] || _spoolsim_files=files
    }
    "$fn"
    unset -f compopt
    echo "$_spoolsim_files"
    [ ${#COMPREPLY[@]} = 0 ] || printf '%s\n' "${COMPREPLY[@]}"
}

complete -F _spoolsim @SPOOLSIM@
# shellcheck disable=SC2043 # the build fills in @TOOLS@: none, or the two names
for _spoolsim_name in @TOOLS@; do
    complete -F _spoolsim_tool "$_spoolsim_name"
done
unset _spoolsim_name
