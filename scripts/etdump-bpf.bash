# bash completion for etdump-bpf. Commands and options come from the
# program's own --help, so completion knows what the installed binary
# knows. Installed by `make install` as
# $(PREFIX)/share/bash-completion/completions/etdump-bpf.

_etdump_bpf_help_words()
{
	# the options of a --help text's option lines, and the common ones
	{
		"$1" "${@:2}" --help 2>/dev/null | grep -E '^ +-' |
			grep -oE '(^|[ ,])--?[a-zA-Z][a-zA-Z-]*' | tr -d ' ,'
		echo --help --verbose --quiet
	} | tr ' ' '\n' | sort -u
}

_etdump_bpf()
{
	local cur prev cmd i
	cur=${COMP_WORDS[COMP_CWORD]}
	prev=${COMP_WORDS[COMP_CWORD-1]}

	# the command: the first word after the global options
	for ((i = 1; i < COMP_CWORD; i++)); do
		case ${COMP_WORDS[i]} in
		-*) ;;
		*) cmd=${COMP_WORDS[i]}; break ;;
		esac
	done
	if [[ -z $cmd ]]; then
		if [[ $cur == -* ]]; then
			COMPREPLY=($(compgen -W "$(_etdump_bpf_help_words "$1")" -- "$cur"))
		else
			COMPREPLY=($(compgen -W "$("$1" --help 2>/dev/null |
				sed -n '/^commands:/,/^$/s/^  \([a-z]*\) .*/\1/p')" -- "$cur"))
		fi
		return
	fi
	# after `record --`, the rest is the traced command's; after
	# `diff --`, the new recordings
	for ((i = i + 1; i < COMP_CWORD; i++)); do
		[[ ${COMP_WORDS[i]} == -- && $cmd == diff ]] && { COMPREPLY=($(compgen -f -- "$cur")); return; }
		[[ ${COMP_WORDS[i]} == -- ]] && { COMPREPLY=($(compgen -c -- "$cur")); return; }
	done
	case $prev in
	-p|--pid)
		COMPREPLY=($(compgen -W "$(ps -e -o pid= 2>/dev/null)" -- "$cur"))
		return ;;
	--units)
		COMPREPLY=($(compgen -W "ns us ms s" -- "$cur"))
		return ;;
	--sort)
		COMPREPLY=($(compgen -W "p10 p50 p90 avg min max share runs event_name" -- "$cur"))
		return ;;
	-F|--format)
		if [[ $cmd == diff ]]; then
			COMPREPLY=($(compgen -W "table markdown csv json" -- "$cur"))
		else
			COMPREPLY=($(compgen -W "etdump chrome" -- "$cur"))
		fi
		return ;;
	esac
	if [[ $cur == -* ]]; then
		COMPREPLY=($(compgen -W "$(_etdump_bpf_help_words "$1" "$cmd")" -- "$cur"))
	else
		COMPREPLY=($(compgen -f -- "$cur"))
	fi
}
complete -o filenames -F _etdump_bpf etdump-bpf
