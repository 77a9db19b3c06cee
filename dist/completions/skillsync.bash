# bash completion for skillsync: the commands, each command's options and, for the commands
# that take skills, the skill directories of the skillsync clone around the current directory.
# The commands and options come from the binary itself (`skillsync help --commands`,
# `skillsync help --options <command>`), so they are those of the installed version.
#
# Directory names are whatever a repository holds, e.g. `$(some command)`: they are matched
# by prefix here, never handed to `compgen -W` (which expands them, and would run that), and
# offered quoted (printf %q), so that taking one does not run it either. Skill names come only
# from a skillsync clone (its git directory holds skillsync/state.db), not from any git
# repository.
_skillsync() {
	local cur=${COMP_WORDS[COMP_CWORD]} bin=${COMP_WORDS[0]} cmd="" i d w q top gitdir
	local -a words=() info=()

	COMPREPLY=()
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
		show | diff | commit | log | audit | review | accept | reject | pin | unpin)
			mapfile -t info < <(git rev-parse --show-toplevel --absolute-git-dir 2>/dev/null)
			top=${info[0]-} gitdir=${info[1]-}
			[[ -n $top && -n $gitdir && -f $gitdir/skillsync/state.db ]] || return 0
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
	for w in "${words[@]}"; do
		printf -v q %q "$w"
		if [[ $w == "$cur"* || $q == "$cur"* ]]; then
			COMPREPLY+=("$q")
		fi
	done
}
complete -F _skillsync skillsync
