# Bash completion for spoolsim, and for smtp-source and smtp-sink where
# they are in PATH under their own names (not in the Debian package, which
# runs them as spoolsim source and spoolsim sink).
#
# Nothing here lists an option: each program prints its own getopt_long()
# table when it is run with --list-options alone (common/util/optarg.c),
# so the options offered are those of the binary that will run, whatever
# its version. What an option's value is comes from the same binary's
# --help, from the word after the option there: DIR, FILE (or a file name
# such as MODEL.json), MODEL (postfix, none or a file), the profile NAME of
# --profile (spoolsim raw --list), or alternatives such as single|pool.
# Other values (a count, a time) get no suggestion.
#
# make install fills in the installed names (configure's
# --program-transform-name) and installs this file in bash-completion's
# completions directory under each of them.

# The completion's words as one program's: _spoolsim_offer PROGRAM... runs
# PROGRAM... --list-options; the caller's cur and prev say what to offer.
_spoolsim_offer() {
    local -a listed=() options=() operands=()
    local -a words=()
    local w placeholder help line head named
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
        while IFS= read -r line; do
            line=${line#"${line%%[! ]*}"}
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
            [ -n "$placeholder" ] && break
        done <<<"$help"
        case $placeholder in
        *'|'*) mapfile -t COMPREPLY < <(compgen -W "${placeholder//|/ }" -- "$cur") ;;
        NAME)
            if [[ $prev == *profile* || $prev == -p ]]; then
                mapfile -t COMPREPLY < <(compgen -W "$("${1}" raw --list 2>/dev/null |
                    while read -r w _; do echo "$w"; done)" -- "$cur")
            fi
            ;;
        MODEL)
            mapfile -t COMPREPLY < <(compgen -W "postfix none" -- "$cur")
            compopt -o filenames 2>/dev/null
            mapfile -t -O ${#COMPREPLY[@]} COMPREPLY < <(compgen -f -- "$cur")
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

complete -F _spoolsim @SPOOLSIM@
# shellcheck disable=SC2043 # the build fills in @TOOLS@: none, or the two names
for _spoolsim_name in @TOOLS@; do
    complete -F _spoolsim_tool "$_spoolsim_name"
done
unset _spoolsim_name
