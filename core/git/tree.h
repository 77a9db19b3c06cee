/*
 * tree.h: skills as git trees, written and read in memory (no temporary files).
 *
 * A skill version is a subtree: SKILL.md plus its files, nested directories, mode 100755 for
 * executables, 100644 otherwise. A view is a top tree of (skill name -> subtree) entries. The
 * same content always gives the same ids, so a record whose CID did not change can reuse the
 * subtree id remembered from the last fetch ("stable rendering").
 *
 * Rules: paths are relative with forward slashes and each component follows the validator's
 * component rules (ss_validate_component: no empty, "." or ".." component, nothing read as
 * ".git" on any system); a path breaking them, or one libgit2 refuses, is SS_EINVALID naming
 * the path, never another code (a record with such a path is invalid, not a failure). Trees
 * are compared by entry ids at the top level only (no recursion) so that work follows the
 * change, not the size of the space. A NULL tree id means the empty tree.
 */
#ifndef SS_TREE_H
#define SS_TREE_H

#include <stdbool.h>
#include <stddef.h>

#include "core/git/repo.h"
#include "core/util/error.h"

/* git file modes as stored in trees. */
#define SS_MODE_TREE    0040000u
#define SS_MODE_FILE    0100644u
#define SS_MODE_EXEC    0100755u
#define SS_MODE_LINK    0120000u
#define SS_MODE_GITLINK 0160000u

/* Whether the object store holds a tree with this id (e.g. a subtree remembered from an
 * earlier fetch, before reusing it). */
bool ss_tree_exists(ss_repo *repo, const ss_oid *tree);

/* Writes len bytes as a blob. */
int ss_tree_blob_write(ss_repo *repo, const void *data, size_t len, ss_oid *out, ss_error *err);

/* Builds one skill's subtree from files fed one by one, in any order. */
typedef struct ss_tree_builder ss_tree_builder;

int ss_tree_builder_new(ss_tree_builder **out, ss_repo *repo);
/* Adds a file (its blob is written now); SS_EINVALID for a bad path, a duplicate, or a path
 * that is both a file and a directory. */
int ss_tree_builder_add(ss_tree_builder *b, const char *path, const void *data, size_t len,
                        bool executable, ss_error *err);
/* Adds a file whose blob already exists (mode SS_MODE_FILE or SS_MODE_EXEC). */
int ss_tree_builder_add_blob(ss_tree_builder *b, const char *path, const ss_oid *blob,
                             unsigned mode, ss_error *err);
/* Writes the nested trees; out is the subtree's id. The builder can be freed afterwards. */
int ss_tree_builder_write(ss_tree_builder *b, ss_oid *out, ss_error *err);
void ss_tree_builder_free(ss_tree_builder *b);

/*
 * Builds a top tree: starts from base (NULL: empty; with keep_files_only, only base's
 * top-level files such as README are kept, not its directories), then sets or removes names.
 */
typedef struct ss_tree_top ss_tree_top;

int ss_tree_top_new(ss_tree_top **out, ss_repo *repo, const ss_oid *base, bool keep_files_only,
                    ss_error *err);
/* Sets name to a subtree (mode SS_MODE_TREE) or a blob (a file mode); name has no slash. */
int ss_tree_top_set(ss_tree_top *t, const char *name, const ss_oid *oid, unsigned mode,
                    ss_error *err);
/* Removes name; a missing name is fine. */
int ss_tree_top_remove(ss_tree_top *t, const char *name, ss_error *err);
int ss_tree_top_write(ss_tree_top *t, ss_oid *out, ss_error *err);
void ss_tree_top_free(ss_tree_top *t);

/* One file of a subtree, handed to an ss_tree_file_cb; everything is borrowed for the call. */
typedef struct ss_tree_file {
	const char *path; /* relative to the subtree, e.g. "scripts/check.sh" */
	const void *data; /* the blob's bytes (NUL-terminated after len, for convenience) */
	size_t len;
	unsigned
	    mode; /* SS_MODE_FILE, SS_MODE_EXEC, SS_MODE_LINK (data = target), SS_MODE_GITLINK */
	bool executable;
	ss_oid oid;
} ss_tree_file;

/* Return non-zero from the callback to stop: ss_tree_each_file returns that value. */
typedef int (*ss_tree_file_cb)(const ss_tree_file *file, void *payload);

/* Calls cb for every file below tree, depth first, in git's path order. */
int ss_tree_each_file(ss_repo *repo, const ss_oid *tree, ss_tree_file_cb cb, void *payload,
                      ss_error *err);

/* The id and mode of the entry at path ("name" or "a/b/c") in tree; SS_ENOTFOUND if none. */
int ss_tree_lookup(ss_repo *repo, const ss_oid *tree, const char *path, ss_oid *out, unsigned *mode,
                   ss_error *err);

/* Reads the blob at path in tree (SS_ENOTFOUND if missing, SS_EINVALID if not a file). */
int ss_tree_read_file(ss_repo *repo, const ss_oid *tree, const char *path, ss_buf *out,
                      ss_error *err);

/* The top-level entries of a tree, in git's order. */
typedef struct ss_tree_entry {
	char *name;
	ss_oid oid;
	unsigned mode;
} ss_tree_entry;

typedef struct ss_tree_list {
	ss_tree_entry *entries;
	size_t count;
} ss_tree_list;

int ss_tree_list_top(ss_repo *repo, const ss_oid *tree, ss_tree_list *out, ss_error *err);
void ss_tree_list_release(ss_tree_list *list);

/* Changes between two trees: at top level (one per skill) or file by file within a skill. */
typedef enum ss_change_kind {
	SS_CHANGE_ADDED = 1,
	SS_CHANGE_REMOVED,
	SS_CHANGE_MODIFIED,
} ss_change_kind;

typedef struct ss_change {
	char *path; /* top-level name, or a file's path relative to the compared trees */
	ss_change_kind kind;
	ss_oid old_oid, new_oid;           /* zero on the missing side */
	unsigned old_mode, new_mode;       /* 0 on the missing side */
	size_t added_lines, removed_lines; /* file-level diffs only */
	bool binary;                       /* file-level: no line counts */
} ss_change;

typedef struct ss_changes {
	ss_change *items;
	size_t count;
} ss_changes;

void ss_tree_changes_release(ss_changes *changes);

/*
 * Compares the top-level entries of two trees by id (no recursion), sorted by name: a name
 * only in new_tree is ADDED, only in old_tree REMOVED, with different id or mode MODIFIED.
 */
int ss_tree_diff_top(ss_repo *repo, const ss_oid *old_tree, const ss_oid *new_tree, ss_changes *out,
                     ss_error *err);

/*
 * Compares two trees file by file (recursively; for one skill's subtrees), with +/- line
 * counts for text files, sorted by path. A mode-only change is MODIFIED with 0/0 lines.
 */
int ss_tree_diff_files(ss_repo *repo, const ss_oid *old_tree, const ss_oid *new_tree,
                       ss_changes *out, ss_error *err);

#endif
