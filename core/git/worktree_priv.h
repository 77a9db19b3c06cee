/*
 * worktree_priv.h: what the status (worktree_status.c) and its walk of the working directory
 * (worktree_scan.c) share, private to core/git/.
 */
#ifndef SS_WORKTREE_PRIV_H
#define SS_WORKTREE_PRIV_H

#include <git2.h>
#include <stdbool.h>
#include <stddef.h>
#include <sys/stat.h>

#include "core/git/repo.h"
#include "core/gitfmt/index_file.h"
#include "core/util/buf.h"
#include "core/util/error.h"

/* One changed path, before grouping: flags are git_status_t bits (GIT_STATUS_INDEX_* for the
 * index against HEAD, GIT_STATUS_WT_* for the working directory against the index). */
typedef struct ss_worktree__item {
	char *path;
	unsigned flags;
} ss_worktree__item;

typedef struct ss_worktree__items {
	ss_worktree__item *v;
	size_t n, alloc;
	size_t dirs_read, files_hashed; /* what the walk read (ss_status's) */
} ss_worktree__items;

/* A flag of ss_worktree_status_flags beside SS_STATUS_REFRESH: libgit2's status rather than
 * ss_worktree__scan, whatever the index holds (for the test that both list the same). */
#define SS_STATUS__LIBGIT2 0x100u

/* The repository's index file as ss_index_file_get reads it (core/gitfmt/index_file.h), kept
 * for the next call while the file stays the same; NULL when the file is left to libgit2. */
const ss_index_file *ss_worktree__index(ss_repo *repo);
/*
 * A libgit2 index in memory holding only ix's entries at or below names (top-level names taken
 * literally, or pathspecs), for a diff of those names: their stat data zeroed, so that a diff
 * against the working directory reads each of their files (an index that never was a file has
 * no time to tell racily clean entries by). 0, or < 0 with err set.
 */
int ss_worktree__index_subset(const ss_index_file *ix, const char *const *names, size_t n,
                              bool literal, git_index **out, ss_error *err);
/* The same for the entries below the top-level directory name, their paths relative to it. */
int ss_worktree__index_below(const ss_index_file *ix, const char *name, git_index **out,
                             ss_error *err);
/* Entry e of a libgit2 index as the index file's reader gives its entries. */
void ss_worktree__index_entry(ss_index_entry *out, const git_index_entry *e);

/* Adds a copy of path with flags. */
void ss_worktree__items_add(ss_worktree__items *items, const char *path, unsigned flags);
void ss_worktree__items_release(ss_worktree__items *items);

/*
 * The directory cache (worktree_dircache.c, in the state directory): the directories a status
 * found holding exactly the names the index lists below them (no untracked, no missing name),
 * each with its stat data when read and its number of names. A directory whose stat data and
 * number of index names are still those, and whose index names all exist as what the index
 * says, holds nothing untracked (a name made or removed in a directory changes its mtime), so
 * the next status need not read it: git's untracked cache, in its simplest form. A directory
 * changed just before the walk began is never recorded (100 ms; 3 s on a file system whose
 * times are whole seconds). It also keeps the top-level names whose tree differs between HEAD and
 * the index, for that index (its checksum: any write of it changes it) and that HEAD tree, so that
 * an unchanged index is not hashed again into trees. A cache that cannot be read is empty.
 */
typedef struct ss_worktree__dircache ss_worktree__dircache;
ss_worktree__dircache *ss_worktree__dircache_load(const char *path);
/* Whether the directory at path ("" or "dir/") is recorded with this stat data and n names
 * (its record's slot in *slot). */
bool ss_worktree__dircache_fresh(const ss_worktree__dircache *c, const char *path,
                                 const struct stat *st, size_t n, size_t *slot);
/* Keeps the record at slot for the next cache: the directory still holds what it says. Walkers
 * may call it at once for different directories. */
void ss_worktree__dircache_keep(ss_worktree__dircache *c, size_t slot);
/* Appends a record of a directory read now to out (a part of the next cache). */
void ss_worktree__dircache_add(ss_buf *out, const char *path, const struct stat *st, size_t n);
/* The names whose tree differs between HEAD and the index, when recorded for this index
 * checksum and HEAD tree id (20 bytes each, zeros for none); valid while c is. */
bool ss_worktree__dircache_staged(const ss_worktree__dircache *c, const unsigned char *index_sum,
                                  const unsigned char *head, const char *const **names, size_t *n);
/* Replaces the cache at path (by a rename): those staged names for that index and HEAD, the
 * records of was found fresh and the records of the parts; nothing is written when nothing
 * changed (was's records all fresh, no part, changed false: the staged names are was's). */
int ss_worktree__dircache_save(const char *path, const ss_worktree__dircache *was,
                               const unsigned char *index_sum, const unsigned char *head,
                               const char *const *staged, size_t nstaged,
                               const ss_buf *const *parts, size_t nparts, bool changed,
                               ss_error *err);
void ss_worktree__dircache_free(ss_worktree__dircache *c);
/* The cache at path loaded on a thread of its own, while the caller reads the index and HEAD:
 * ss_worktree__dircache_join waits for it and gives it. */
typedef struct ss_worktree__dircache_loading ss_worktree__dircache_loading;
ss_worktree__dircache_loading *ss_worktree__dircache_load_async(const char *path);
ss_worktree__dircache *ss_worktree__dircache_join(ss_worktree__dircache_loading *l);

/*
 * The walk of the working directory against the index (worktree_walk.c), shared with the scan
 * that runs it (worktree_scan.c): the top level by the calling thread, its directories then
 * taken in turn by the walkers, each walker keeping what it finds apart until they are joined.
 */
/* An index entry whose file was hashed and found unchanged: its new stat data. */
typedef struct ss_worktree__refreshed {
	size_t pos;
	struct stat st;
} ss_worktree__refreshed;

/* A name in a directory: of the working directory (d_type) or of the index (its entries). */
typedef struct ss_worktree__dname {
	const char *s;
	size_t len;
	unsigned char type; /* DT_* for the working directory */
	bool dir;           /* the index: entries below name/ */
	size_t lo, hi;      /* the index: its entries */
} ss_worktree__dname;

/* A top-level directory of the index, for a walker: with its stat data (have_st false: the
 * walker reads it, the directory cache said the top holds it), and the tree id its index
 * entries make once walked (for HEAD against the index). */
typedef struct ss_worktree__job {
	ss_worktree__dname d;
	struct stat st;
	bool have_st;
	bool have_tree;
	git_oid tree;
} ss_worktree__job;

/* One thread's walk: what it found, kept apart until the threads are joined. */
typedef struct ss_worktree__walker {
	const ss_index_entry *e; /* the index's entries, by position */
	size_t ne;
	int top;               /* the working directory */
	struct timespec stamp; /* the index file's modification time (racily clean entries) */
	ss_worktree__dircache *cache;
	struct timespec began; /* when the walk began (a directory changed just before is not
	                          recorded: keep()) */
	ss_buf keep; /* the directories read for the next cache (ss_worktree__dircache_add) */
	size_t dirs_read, files_hashed;
	size_t racy_clean; /* entries hashed only for being racy, and clean */
	ss_worktree__items found;
	/* paths of untracked files and directories ("dir/"), the ignore rules not read yet */
	char **untracked;
	size_t nuntracked, auntracked;
	ss_worktree__refreshed *ref;
	size_t nref, aref;
	int errnum; /* the first failure, with its path */
	char *errpath;
	bool need_trees; /* the top-level directories' tree ids are wanted (staged_names) */
	bool deferring;  /* at the top: its directories go to defer, for the walkers */
	ss_worktree__job *defer;
	size_t ndefer, adefer;
	bool top_known; /* the cache said what the top holds (its record: top_slot) */
	size_t top_slot;
	bool top_missed; /* a walker found one of the top's directories not there as one */
} ss_worktree__walker;

/* The top-level directories the walkers share: next is taken atomically; w is the thread's. */
typedef struct ss_worktree__jobs {
	ss_worktree__job *dirs;
	size_t count;
	size_t next;
	ss_worktree__walker *w;
} ss_worktree__jobs;

/* Orders names by their bytes, as git sorts a directory's (a prefix first). */
int ss_worktree__name_cmp(const void *a, const void *b);
/* A file's type as readdir gives it: DT_DIR, DT_REG, DT_LNK, or DT_UNKNOWN for any other. */
unsigned char ss_worktree__dtype(const struct stat *st);
/* The names of directory dfd (".", ".." and ".git" left out), into *names (their strings in
 * pool), sorted. -errno on failure. */
int ss_worktree__read_names(int dfd, ss_worktree__dname **names, size_t *count, ss_buf *pool);
/* The index's names directly below the prefix of length plen that entries [lo, hi) share. */
ss_worktree__dname *ss_worktree__index_names(const ss_worktree__walker *w, size_t lo, size_t hi,
                                             size_t plen, size_t *count);
/* The directory at prefix ("" or "dir/"), of stat data st, against the index's entries
 * [lo, hi) below it: read, unless the cache says it holds exactly the index's names. */
void ss_worktree__walk_dir(ss_worktree__walker *w, ss_buf *prefix, size_t lo, size_t hi,
                           const struct stat *st);
/* Walks the top-level directories of j until none is left, one at a time. */
void ss_worktree__run_jobs(ss_worktree__jobs *j, ss_worktree__walker *w);
/* ss_worktree__run_jobs on a thread of its own (arg: the ss_worktree__jobs). */
void *ss_worktree__worker_main(void *arg);
/* The tree id that index entries [lo, hi), below the prefix of length plen, make. */
int ss_worktree__tree_id(const ss_index_entry *e, size_t lo, size_t hi, size_t plen, git_oid *out);

/*
 * The changed paths of the working directory (index, HEAD) into out, unsorted, each path once
 * (its flags or'ed), ignored files left out: what libgit2's status lists, walked by skillsync
 * itself (each directory read once, each file's stat data read relative to its directory on
 * two threads, a directory not read when the directory cache (cache, read from cache_path and
 * freed here; NULL: none) says it holds only what the index lists, a file hashed only when its stat
 * data differs from the index's or the entry is racily clean, no attribute lookups: a clone has no
 * filters; HEAD against the index by the tree ids the index's entries make, top-level name by
 * top-level name, so that only the names whose trees differ are diffed). head NULL: nothing
 * committed yet. With refresh, the files hashed and found unchanged get their new stat data written
 * back into the index, and the directory cache is written when it changed (the caller holds the
 * clone's lock; when a git command holds index.lock, or the index file is no longer the one read as
 * index, the index is not written).
 *
 * Returns 1, out untouched, when the index or the configuration holds what this walk does not
 * know (a conflicted entry, a submodule, an intent-to-add or skip-worktree entry, core.filemode
 * false, core.ignorecase, core.symlinks false, core.trustctime false, core.checkStat): the
 * caller asks libgit2's status instead. 0 on success, < 0 with err set.
 */
int ss_worktree__scan(git_repository *git, const ss_index_file *index, git_tree *head,
                      const char *cache_path, ss_worktree__dircache *cache, bool refresh,
                      ss_worktree__items *out, ss_error *err);

#endif
