#!/usr/bin/env bash
# bench/corpus/fetch.sh: brings the corpus of real public skills (bench/corpus/repos.tsv) at
# its pinned commits into <dest>, laid out as <dest>/<owner>__<name>/<skill-dir>/ (the skill
# directory's last path segment), each file's bytes as committed (no end-of-line conversion,
# no filter: a Git LFS file is its pointer), executable bits and symlinks kept; and the
# specification's reference validator (bench/corpus/reference.tsv) into <dest>/.skills-ref.
# A repository already in <dest> is brought again from scratch. Usage:
#   bench/corpus/fetch.sh [--mirrors <dir>] <dest>
# By default each repository is fetched from GitHub (only the pinned commit, --depth 1). With
# --mirrors (or SS_CORPUS_MIRRORS), from local copies instead, for a machine without network:
# a git directory per repository at <dir>/<owner>+<name>, <dir>/<owner>+<name>/repo,
# <dir>/<owner>/<name>.git or <dir>/<owner>/<name>. Prints one line per repository (how many
# skills) and writes them to <dest>/corpus.tsv (repository, commit, skills) for measure.sh;
# exits 1 when a repository cannot be brought (the others are brought still).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
mirrors=${SS_CORPUS_MIRRORS:-}
usage() {
	echo "usage: bench/corpus/fetch.sh [--mirrors <dir>] <dest>" >&2
	exit 129
}
while [ $# -gt 0 ]; do
	case $1 in
	--mirrors) [ $# -ge 2 ] || usage; mirrors=$2; shift 2 ;;
	-*) usage ;;
	*) break ;;
	esac
done
[ $# -eq 1 ] || usage
mkdir -p "$1"
dest=$(cd "$1" && pwd)
tmp=$(mktemp -d "${TMPDIR:-/tmp}/skillsync-corpus.XXXXXX")
trap 'rm -rf "$tmp"' EXIT

# source <owner/name>: where to fetch it from.
source_of() {
	local repo=$1 m c
	if [ -z "$mirrors" ]; then
		echo "https://github.com/$repo.git"
		return
	fi
	m=$mirrors/${repo/\//+}
	for c in "$m/repo" "$m" "$mirrors/$repo.git" "$mirrors/$repo"; do
		if git --git-dir="$c" rev-parse --git-dir >/dev/null 2>&1; then
			echo "$c"
			return
		fi
	done
	echo "fetch.sh: no copy of $repo under $mirrors" >&2
	return 1
}

# matches <path> <glob>: each of the path's segments matches the glob's segment at its place.
matches() {
	local -a p g
	local i
	IFS=/ read -ra p <<<"$1"
	IFS=/ read -ra g <<<"$2"
	[ "${#p[@]}" -eq "${#g[@]}" ] || return 1
	for i in "${!p[@]}"; do
		# shellcheck disable=SC2053 # the glob's segment is a pattern
		[[ ${p[$i]} == ${g[$i]} ]] || return 1
	done
}

# commit_of <owner/name> <commit>: that commit alone into the bare repository $tmp/git.
commit_of() {
	local from
	from=$(source_of "$1") || return 1
	rm -rf "$tmp/git" "$tmp/x" && git init -q --bare "$tmp/git" && mkdir -p "$tmp/x"
	# The bytes as committed: no attribute of the repository's own changes what archive writes.
	printf '* -text !eol !filter !working-tree-encoding -ident -export-ignore -export-subst\n' \
		>"$tmp/git/info/attributes"
	git --git-dir="$tmp/git" fetch -q --depth 1 "$from" "$2" ||
		{ echo "fetch.sh: cannot fetch $2 of $1 from $from" >&2; return 1; }
}

# bring <owner/name> <commit> <globs>: the repository's skills into $dest/<owner>__<name>.
bring() {
	local repo=$1 commit=$2 globs=$3 git=$tmp/git out=$dest/${1/\//__} dir glob
	local -a dirs=()
	commit_of "$repo" "$commit" || return 1
	set -f
	while IFS= read -r dir; do
		for glob in $globs; do
			if matches "$dir" "$glob"; then
				dirs+=("$dir")
				break
			fi
		done
	done < <(git --git-dir="$git" ls-tree -r --name-only "$commit" | sed -n 's#/SKILL\.md$##p')
	set +f
	[ "${#dirs[@]}" -gt 0 ] || { echo "fetch.sh: no skill of $repo matches '$globs'" >&2; return 1; }
	git --git-dir="$git" archive --format=tar "$commit" -- "${dirs[@]}" | tar -x -C "$tmp/x"
	rm -rf "$out" && mkdir -p "$out"
	for dir in "${dirs[@]}"; do
		[ ! -e "$out/${dir##*/}" ] || { echo "fetch.sh: two skills of $repo named ${dir##*/}" >&2; return 1; }
		mv "$tmp/x/$dir" "$out/${dir##*/}"
	done
	echo "$repo: ${#dirs[@]} skills at ${commit:0:12}"
	printf '%s\t%s\t%s\n' "$repo" "$commit" "${#dirs[@]}" >>"$tmp/corpus.tsv"
}

rc=0
: >"$tmp/corpus.tsv"
while IFS=$'\t' read -r repo commit _licence globs; do
	case $repo in '#'* | '') continue ;; esac
	bring "$repo" "$commit" "$globs" || rc=1
done <"$here/repos.tsv"
cp "$tmp/corpus.tsv" "$dest/corpus.tsv" 2>/dev/null || rc=1
while IFS=$'\t' read -r repo commit _licence dir; do
	case $repo in '#'* | '') continue ;; esac
	if commit_of "$repo" "$commit" &&
		git --git-dir="$tmp/git" archive --format=tar "$commit" -- "$dir" | tar -x -C "$tmp/x"; then
		rm -rf "$dest/.skills-ref" && mv "$tmp/x/$dir" "$dest/.skills-ref"
		echo "$repo: the reference validator at ${commit:0:12}"
	else
		rc=1
	fi
done <"$here/reference.tsv"
exit $rc
