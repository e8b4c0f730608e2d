# bash completion for rssim — installed as
# share/bash-completion/completions/rssim (bash-completion loads it on first
# use), or source it.  Everything it offers comes from the program itself,
# asked at completion time, so it cannot drift from the commands:
#   commands                  the "commands:" list of `rssim --help`
#   a command's verbs         `rssim CMD -h`: its usage lines (runs, trace, plot,
#                             db), the "generators:" list (gen), the "kinds:"
#                             line (list)
#   options                   the --long and "-x," options of `rssim CMD [VERB] -h`
#   --preset NAME             `rssim list presets`
#   --set/--vary KEY=         parameter names of `rssim list`
#   --set/--vary alloc=NAME   the plug-ins of that kind in `rssim list` (any key
#                             a "(key 'K')" header names: daemon, cache, ...)
# The program asked is the one being completed (COMP_WORDS[0]).

# _rssim_help PROG ARGS...: PROG's help text for ARGS (nothing on failure)
_rssim_help() {
    "$@" 2>/dev/null
}

# _rssim_verbs PROG CMD: the words that may follow `rssim CMD`
_rssim_verbs() {
    local prog=$1 cmd=$2
    case $cmd in
        gen)
            _rssim_help "$prog" gen -h | awk '/^generators:/ { f = 1; next } f && /^  [a-z]/ { print $1 }' ;;
        list)
            _rssim_help "$prog" list -h | sed -n 's/^kinds: //p' ;;
        *)
            # "usage: rssim runs <list|show|...>" or one "rssim plot KIND ..." line per verb
            _rssim_help "$prog" "$cmd" -h |
                sed -n "s/^\(usage:\)\{0,1\} *rssim $cmd \([a-z<][a-z|<>-]*\).*/\2/p" | tr -d '<>' | tr '|' '\n' ;;
    esac
}

# _rssim_options PROG ARGS...: the options `PROG ARGS... -h` documents
_rssim_options() {
    _rssim_help "$@" -h | grep -oE -- '(^|[][ ,(|])--?[a-zA-Z][a-zA-Z0-9-]*' |
        sed 's/^[][ ,(|]//' | grep -E -- '^--|^-[a-zA-Z]$' | sort -u
}

# _rssim_plugins PROG KEY: plug-in names of the registry chosen by config key KEY
_rssim_plugins() {
    _rssim_help "$1" list | awk -v k="(key '$2'):" '
        /^[^ ]/ { f = index($0, k) > 0; next }
        f && /^  [^ ]/ { print $1 }'
}

_rssim() {
    local cur=${COMP_WORDS[COMP_CWORD]} prev= prog=${COMP_WORDS[0]} cmd= verb= i
    ((COMP_CWORD > 0)) && prev=${COMP_WORDS[COMP_CWORD - 1]}
    COMPREPLY=()
    prog=${prog/#\~/$HOME}
    command -v "$prog" >/dev/null 2>&1 || return 0

    if ((COMP_CWORD == 1)); then
        local cmds
        cmds=$(_rssim_help "$prog" --help | awk '/^commands:/ { f = 1; next } f && /^  [a-z]/ { print $1 } /^$/ { f = 0 }')
        COMPREPLY=($(compgen -W "$cmds help --help --version" -- "$cur"))
        return 0
    fi
    cmd=${COMP_WORDS[1]}
    local verbs
    verbs=$(_rssim_verbs "$prog" "$cmd")
    if [ -n "$verbs" ]; then
        if ((COMP_CWORD == 2)); then
            COMPREPLY=($(compgen -W "$verbs" -- "$cur"))
            return 0
        fi
        verb=${COMP_WORDS[2]}
    fi

    # --set KEY=VALUE: bash splits the word at '=' (COMP_WORDBREAKS), giving
    # "KEY" "=" "VALUE" as three words, the one completed being after '='
    local set_opts=" -s --set -v --vary -c --compare " opt= key= val=
    if [[ $cur == = ]] && ((COMP_CWORD >= 3)); then
        opt=${COMP_WORDS[COMP_CWORD - 2]} key=$prev val=
    elif [[ $prev == = ]] && ((COMP_CWORD >= 4)); then
        opt=${COMP_WORDS[COMP_CWORD - 3]} key=${COMP_WORDS[COMP_CWORD - 2]} val=$cur
    fi
    if [ -n "$opt" ] && [[ $set_opts == *" $opt "* ]]; then
        COMPREPLY=($(compgen -W "$(_rssim_plugins "$prog" "$key")" -- "$val"))
        return 0
    fi

    case $prev in
        -p|--preset)
            COMPREPLY=($(compgen -W "$(_rssim_help "$prog" list presets | awk '/^  / { print $1 }')" -- "$cur"))
            return 0 ;;
        -s|--set|-v|--vary|-c|--compare|-k|--param|--key)
            if [[ $cur == *=* ]]; then # KEY=VALUE in one word (COMP_WORDBREAKS without '=')
                local key=${cur%%=*}
                COMPREPLY=($(compgen -P "$key=" -W "$(_rssim_plugins "$prog" "$key")" -- "${cur#*=}"))
            else
                local keys
                # the core parameters (two spaces in) and every plug-in's (six)
                keys=$(_rssim_help "$prog" list | awk '/^core parameters:/ { c = 1; next } /^$/ { c = 0 }
                    c && /^  [a-z]/ { print $1 } /^      [a-z]/ { print $1 }' | sort -u)
                if [[ $prev == -k || $prev == --param || $prev == --key ]]; then
                    COMPREPLY=($(compgen -W "$keys" -- "$cur"))
                else
                    COMPREPLY=($(compgen -S = -W "$keys" -- "$cur"))
                    compopt -o nospace 2>/dev/null
                fi
            fi
            return 0 ;;
        -a|--alloc)
            COMPREPLY=($(compgen -W "glibc jemalloc tcmalloc" -- "$cur"))
            return 0 ;;
        --format)
            COMPREPLY=($(compgen -W "text binary" -- "$cur"))
            return 0 ;;
        --from)
            COMPREPLY=($(compgen -W "msr blocks" -- "$cur"))
            return 0 ;;
    esac

    if [[ $cur == -* ]]; then
        COMPREPLY=($(compgen -W "$(_rssim_options "$prog" "$cmd" ${verb:+"$verb"})" -- "$cur"))
        return 0
    fi
    # anything else is a file (a trace, a database, an output)
    COMPREPLY=($(compgen -f -- "$cur"))
    compopt -o filenames 2>/dev/null
    return 0
}

complete -F _rssim rssim
