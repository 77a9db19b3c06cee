#!/usr/bin/env bash
# build: plain
# The zsh completion as installed (share/zsh/vendor-completions/_skillsync): `zsh -f` with that
# directory in fpath and compinit binds it to skillsync; called as the completion system calls
# it (words, CURRENT, PREFIX), with compadd replaced by a function that prints the candidates
# compadd would keep (those starting with PREFIX), it completes a command, an option and the
# skill names of the skillsync clone around the current directory; it runs nothing a directory's
# name holds, and offers none outside a clone. (The bash one: tests/cmd/bash_completion.sh,
# tests/cmd/package.sh.)
set -euo pipefail
. "$SS_SOURCE_DIR/tests/cmd/lib/common.sh"

command -v zsh >/dev/null || fail "zsh is not installed (scripts/setup.sh installs it)"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
prefix=$tmp/prefix
cmake --install "$(dirname "$SKILLSYNC")" --prefix "$prefix" >/dev/null
completions=$prefix/share/zsh/vendor-completions
[ -f "$completions/_skillsync" ] || fail "no installed _skillsync"

# complete_zsh <word>...: the candidates for the last word, sorted, one a line.
complete_zsh() {
	PATH="$prefix/bin:$PATH" ZDOTDIR=$tmp zsh -f -c '
		fpath=("$1" $fpath)
		autoload -Uz compinit && compinit -u -d "$2/zcompdump"
		[[ $_comps[skillsync] == _skillsync ]] || { print -u2 "compinit: skillsync -> ${_comps[skillsync]:-nothing}"; exit 1; }
		compadd() { # compadd [-a] [--] <candidates or array names>: those matching PREFIX
			local arrays=0 c
			local -a cands
			while (($#)); do
				case $1 in
				-a) arrays=1 ;;
				--) shift; break ;;
				-*) ;;
				*) break ;;
				esac
				shift
			done
			if ((arrays)); then for c in "$@"; do cands+=("${(@P)c}"); done; else cands=("$@"); fi
			for c in $cands; do [[ $c == "$PREFIX"* ]] && print -r -- "$c"; done
			return 0
		}
		_files() { print -r -- "(files)"; }
		shift 2
		words=("$@") CURRENT=$# PREFIX=${@[-1]}
		$_comps[skillsync] | sort
	' zsh "$completions" "$tmp" "$@"
}

[ "$(complete_zsh skillsync pu)" = "$(printf 'pull\npush')" ] || fail "completing 'pu': $(complete_zsh skillsync pu)"
[ "$(complete_zsh skillsync --v)" = "--version" ] || fail "completing '--v': $(complete_zsh skillsync --v)"
[ "$(complete_zsh skillsync pull --f)" = "--ff-only" ] || fail "completing 'pull --f': $(complete_zsh skillsync pull --f)"
[ "$(complete_zsh skillsync push --q)" = "--quiet" ] || fail "completing 'push --q': $(complete_zsh skillsync push --q)"

# Skill names: the top-level directories holding SKILL.md of the skillsync clone around (its
# git directory holds skillsync/state.db), names that are shell code included: they are
# offered as literal words and run nothing.
for repo in clone plain; do
	mkdir -p "$tmp/$repo/pdf-forms" "$tmp/$repo/pdf-tools" "$tmp/$repo/pdf-notes" "$tmp/$repo/notes" \
		"$tmp/$repo/\$(touch PWNED)" "$tmp/$repo/\`touch PWNED2\`"
	touch "$tmp/$repo/pdf-forms/SKILL.md" "$tmp/$repo/pdf-tools/SKILL.md" \
		"$tmp/$repo/\$(touch PWNED)/SKILL.md" "$tmp/$repo/\`touch PWNED2\`/SKILL.md"
	git -C "$tmp/$repo" init -q
done
mkdir -p "$tmp/clone/.git/skillsync"
touch "$tmp/clone/.git/skillsync/state.db"
got=$(cd "$tmp/clone/notes" && complete_zsh skillsync show pd)
[ "$got" = "$(printf 'pdf-forms\npdf-tools')" ] || fail "completing a skill name: '$got'"
# Every command that takes skill names completes them (the review gate's too).
for c in audit review accept reject pin unpin; do
	got=$(cd "$tmp/clone" && complete_zsh skillsync "$c" pd)
	[ "$got" = "$(printf 'pdf-forms\npdf-tools')" ] || fail "completing '$c pd': '$got'"
done
got=$(cd "$tmp/clone" && complete_zsh skillsync diff '')
want=$(printf '%s\n' '$(touch PWNED)' '`touch PWNED2`' pdf-forms pdf-tools | sort)
[ "$got" = "$want" ] || fail "completing any skill name: '$got'"
# Outside a clone (a plain git repository, no repository): no skill names.
got=$(cd "$tmp/plain" && complete_zsh skillsync show '' || true)
[ -z "$got" ] || fail "skill names in a repository that is not a clone: '$got'"
got=$(cd "$tmp" && complete_zsh skillsync show pd || true)
[ -z "$got" ] || fail "skill names outside a clone: '$got'"
! find "$tmp" -name 'PWNED*' | grep -q . || fail "completing ran a directory's name"
echo ok
