#compdef @SPOOLSIM@ @TOOLS@
# zsh completion for spoolsim (and for smtp-source and smtp-sink where
# they are in PATH under their own names), made by the build from
# completion/spoolsim.zsh; make install puts it in zsh's vendor
# completions directory as _spoolsim, which compinit loads.
#
# It lists nothing itself: the bash completion (completion/spoolsim.bash,
# installed as @BASH_COMPLETION@) runs in bash on the words typed and
# says what TAB offers (_spoolsim_words), from the programs' own
# --list-options tables and --help, so that bash, zsh and fish offer the
# same words. SPOOLSIM_BASH_COMPLETION names another copy (the tests use
# the build tree's).

_spoolsim() {
    local -a offered
    local kind
    offered=("${(@f)$(bash -c '. "$1" 2>/dev/null && shift && _spoolsim_words "$@"' _spoolsim \
        "${SPOOLSIM_BASH_COMPLETION:-@BASH_COMPLETION@}" "${(@Q)words[1,CURRENT]}" 2>/dev/null)}")
    kind=${offered[1]}
    offered=("${(@)offered[2,-1]}")
    (( ${#offered} )) || return 1
    if [[ $kind == files ]]; then
        compadd -f -- "${offered[@]}"
    else
        compadd -- "${offered[@]}"
    fi
}

_spoolsim "$@"
