# SPDX-License-Identifier: BSD-3-Clause
# bash completion for mpilens (installed as share/bash-completion/completions/mpilens).
# Verbs, each verb's options (read from its --help, so they never drift) and, after -m,
# the module names `mpilens modules` finds; directories and files elsewhere.
_mpilens() {
    local cur=${COMP_WORDS[COMP_CWORD]} prev=${COMP_WORDS[COMP_CWORD-1]} cmd=${COMP_WORDS[0]}
    local verbs="run modules report matrix place analyze export recover diff top tune site scaling"
    if [ "$COMP_CWORD" -eq 1 ]; then
        COMPREPLY=($(compgen -W "$verbs --help --version" -- "$cur"))
        return
    fi
    local verb=${COMP_WORDS[1]} i
    for ((i = 2; i < COMP_CWORD; i++)); do
        [ "${COMP_WORDS[i]}" = "--" ] && [ "$verb" = run ] && { COMPREPLY=(); compopt -o default 2> /dev/null; return; }
    done
    if [ "$verb" = run ] && { [ "$prev" = -m ] || [ "$prev" = --modules ]; }; then
        local done_part="" last=$cur
        case $cur in *,*) done_part=${cur%,*},; last=${cur##*,} ;; esac
        local names
        names=$("$cmd" modules 2> /dev/null | awk 'NR > 1 && NF { print $1 }')
        COMPREPLY=($(compgen -P "$done_part" -W "$names" -- "$last"))
        compopt -o nospace 2> /dev/null
        return
    fi
    if [[ $cur == -* ]]; then
        local options
        options=$("$cmd" "$verb" --help 2> /dev/null | grep -oE '^ +(-[a-zA-Z], )?--?[a-zA-Z][-a-zA-Z]*' |
            tr -d ' ' | tr ',' '\n')
        COMPREPLY=($(compgen -W "$options" -- "$cur"))
        return
    fi
    compopt -o default 2> /dev/null
    COMPREPLY=()
}
complete -F _mpilens mpilens
