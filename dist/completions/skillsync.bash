# bash completion for skillsync: the commands, each command's options and, for the commands
# that take skills, the skill directories of the clone around the current directory. The
# commands and options come from the binary itself (`skillsync help --commands`,
# `skillsync help --options <command>`), so they are those of the installed version.
_skillsync() {
	local cur=${COMP_WORDS[COMP_CWORD]} bin=${COMP_WORDS[0]} cmd="" i top d
	local -a words=()

	for ((i = 1; i < COMP_CWORD; i++)); do
		case ${COMP_WORDS[i]} in
		-*) ;;
		*)
			cmd=${COMP_WORDS[i]}
			break
			;;
		esac
	done
	if [[ -z $cmd ]]; then
		if [[ $cur == -* ]]; then
			words=(--version --help)
		else
			mapfile -t words < <("$bin" help --commands 2>/dev/null)
		fi
	elif [[ $cur == -* ]]; then
		mapfile -t words < <("$bin" help --options "$cmd" 2>/dev/null)
	else
		case $cmd in
		help)
			mapfile -t words < <("$bin" help --commands 2>/dev/null)
			;;
		members)
			words=(add remove)
			;;
		show | diff | commit | log)
			top=$(git rev-parse --show-toplevel 2>/dev/null) || return 0
			for d in "$top"/*/SKILL.md; do
				[[ -f $d ]] || continue
				d=${d%/SKILL.md}
				words+=("${d##*/}")
			done
			;;
		*)
			mapfile -t COMPREPLY < <(compgen -f -- "$cur")
			return 0
			;;
		esac
	fi
	mapfile -t COMPREPLY < <(compgen -W "${words[*]}" -- "$cur")
}
complete -F _skillsync skillsync
