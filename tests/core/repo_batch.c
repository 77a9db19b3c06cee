#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <dirent.h>
#include <cmocka.h>

#include "core/git/commit.h"
#include "core/git/repo.h"
#include "core/git/tree.h"
#include "core/util/buf.h"
#include "support/gitrepo.h"
#include "support/support.h"

/* Writes skill number i (two files, one nested, content unique to i) and returns its tree. */
static ss_oid skill(ss_repo *repo, int i)
{
	ss_buf text = SS_BUF_INIT, notes = SS_BUF_INIT;
	ss_oid oid;

	ss_buf_printf(&text, "---\nname: s%d\ndescription: skill %d\n---\nbody %d\n", i, i, i);
	ss_buf_printf(&notes, "notes of skill %d\n", i);
	oid = ss_test_tree(repo, (const char *const[]){"SKILL.md", text.ptr, "references/notes.md",
	                                               notes.ptr, NULL});
	ss_buf_release(&text);
	ss_buf_release(&notes);
	return oid;
}

/* Writes n skills and a top tree holding them (names s0..s<n-1>). */
static ss_oid space(ss_repo *repo, int n)
{
	ss_tree_top *t;
	ss_oid oid, top;
	ss_error err;
	char name[32];

	if (ss_tree_top_new(&t, repo, NULL, false, &err) < 0)
		fail_msg("%s", err.message);
	for (int i = 0; i < n; i++) {
		oid = skill(repo, i);
		snprintf(name, sizeof(name), "s%d", i);
		if (ss_tree_top_set(t, name, &oid, SS_MODE_TREE, &err) < 0)
			fail_msg("%s", err.message);
	}
	if (ss_tree_top_write(t, &top, &err) < 0)
		fail_msg("%s", err.message);
	ss_tree_top_free(t);
	return top;
}

/* Counts the files in <dir>/.git/objects/pack ending in suffix. */
static int count_packs(const char *dir, const char *suffix)
{
	ss_buf path = SS_BUF_INIT;
	DIR *d;
	struct dirent *e;
	int n = 0;

	ss_buf_printf(&path, "%s/.git/objects/pack", dir);
	d = opendir(path.ptr);
	assert_non_null(d);
	while ((e = readdir(d))) {
		size_t len = strlen(e->d_name), slen = strlen(suffix);
		if (len > slen && !strcmp(e->d_name + len - slen, suffix))
			n++;
	}
	closedir(d);
	ss_buf_release(&path);
	return n;
}

/* The number of loose objects, as git counts them. */
static long loose_objects(const char *dir)
{
	ss_buf out = SS_BUF_INIT;
	long n = -1;

	assert_int_equal(ss_test_git(dir, &out, "count-objects"), 0);
	assert_int_equal(sscanf(out.ptr, "%ld objects", &n), 1);
	ss_buf_release(&out);
	return n;
}

static void assert_skill(ss_repo *repo, const ss_oid *top, int i)
{
	ss_buf path = SS_BUF_INIT, want = SS_BUF_INIT, got = SS_BUF_INIT;
	ss_error err;

	ss_buf_printf(&path, "s%d/references/notes.md", i);
	ss_buf_printf(&want, "notes of skill %d\n", i);
	if (ss_tree_read_file(repo, top, path.ptr, &got, &err) < 0)
		fail_msg("%s", err.message);
	assert_string_equal(got.ptr, want.ptr);
	ss_buf_release(&path);
	ss_buf_release(&want);
	ss_buf_release(&got);
}

/* Commits top on main and checks the repository with git itself: fsck (which checks each
 * pack's checksum and each entry's CRC-32 against its index), and every pack's index byte for
 * byte the one git's index-pack makes of that pack. */
static void commit_and_fsck(ss_repo *repo, const char *dir, const ss_oid *top)
{
	ss_buf out = SS_BUF_INIT;

	ss_test_commit(repo, SS_REPO_MAIN_REF, top, NULL, "batch");
	assert_int_equal(ss_test_git(dir, &out, "fsck --strict --no-dangling 2>&1"), 0);
	assert_string_equal(out.ptr, "");
	ss_buf_release(&out);
	ss_buf_printf(&out,
	              "cd '%s/.git/objects/pack' && for p in *.pack; do [ -e \"$p\" ] || continue; "
	              "git index-pack -o ../git.idx \"$p\" >/dev/null && "
	              "cmp -s ../git.idx \"${p%%.pack}.idx\" || exit 1; rm -f ../git.idx; done",
	              dir);
	assert_int_equal(system(out.ptr), 0);
	ss_buf_release(&out);
}

static void test_repo_batch__writes_one_pack_and_no_loose_object(void **state)
{
	char *dir;
	ss_repo *repo = ss_test_repo_new(&dir);
	ss_oid top;
	ss_error err;

	(void)state;
	assert_int_equal(ss_repo_batch_begin(repo, 0, &err), 0);
	top = space(repo, 300);
	/* readable while still in memory */
	assert_skill(repo, &top, 7);
	assert_true(ss_tree_exists(repo, &top));
	assert_int_equal(count_packs(dir, ".pack"), 0);
	assert_int_equal(ss_repo_batch_end(repo, &err), 0);

	assert_int_equal(count_packs(dir, ".pack"), 1);
	assert_int_equal(count_packs(dir, ".idx"), 1);
	assert_int_equal(loose_objects(dir), 0);
	assert_skill(repo, &top, 299);
	/* after the batch, writes are loose objects again */
	commit_and_fsck(repo, dir, &top);
	assert_int_equal(loose_objects(dir), 1);
	ss_repo_free(repo);

	/* a fresh process sees the same objects */
	assert_int_equal(ss_repo_open(&repo, dir, &err), 0);
	assert_skill(repo, &top, 0);
	ss_repo_free(repo);
	ss_test_tmpdir_free(dir);
}

static void test_repo_batch__flushes_a_pack_per_threshold(void **state)
{
	char *dir;
	ss_repo *repo = ss_test_repo_new(&dir);
	ss_oid top;
	ss_error err;
	int packs;

	(void)state;
	/* ~100 bytes per skill: a pack every ~40 skills */
	assert_int_equal(ss_repo_batch_begin(repo, 4096, &err), 0);
	top = space(repo, 200);
	/* the packs are written while the batch goes on; the last two may still be on their way */
	packs = count_packs(dir, ".pack");
	assert_true(packs >= 2);
	assert_int_equal(ss_repo_batch_end(repo, &err), 0);
	assert_in_range(count_packs(dir, ".pack"), packs + 1, packs + 3);
	assert_int_equal(count_packs(dir, ".idx"), count_packs(dir, ".pack"));
	assert_int_equal(loose_objects(dir), 0);
	for (int i = 0; i < 200; i += 13)
		assert_skill(repo, &top, i);
	commit_and_fsck(repo, dir, &top);
	ss_repo_free(repo);
	ss_test_tmpdir_free(dir);
}

/* Objects alike enough for deltas (the same 2 KB but for a line) are still stored whole:
 * the batch writes what it received, as git's fetch does, and leaves deltas to a repack. */
static void test_repo_batch__packs_whole_objects_without_a_delta_search(void **state)
{
	char *dir;
	ss_repo *repo = ss_test_repo_new(&dir);
	ss_buf text = SS_BUF_INIT, out = SS_BUF_INIT;
	ss_tree_top *t;
	ss_oid oid, top;
	ss_error err;
	char name[32];

	(void)state;
	assert_int_equal(ss_repo_batch_begin(repo, 0, &err), 0);
	assert_int_equal(ss_tree_top_new(&t, repo, NULL, false, &err), 0);
	for (int i = 0; i < 150; i++) {
		ss_tree_builder *b;

		ss_buf_clear(&text);
		ss_buf_printf(&text, "---\nname: s%d\ndescription: skill\n---\n", i);
		for (int k = 0; k < 40; k++)
			ss_buf_printf(&text, "Step %d: read the input, check it, write it.\n", k);
		ss_tree_builder_new(&b, repo);
		assert_int_equal(
		    ss_tree_builder_add(b, "SKILL.md", text.ptr, text.len, false, &err), 0);
		assert_int_equal(ss_tree_builder_write(b, &oid, &err), 0);
		ss_tree_builder_free(b);
		snprintf(name, sizeof(name), "s%d", i);
		assert_int_equal(ss_tree_top_set(t, name, &oid, SS_MODE_TREE, &err), 0);
	}
	assert_int_equal(ss_tree_top_write(t, &top, &err), 0);
	ss_tree_top_free(t);
	assert_int_equal(ss_repo_batch_end(repo, &err), 0);
	assert_int_equal(count_packs(dir, ".pack"), 1);
	ss_buf_clear(&text);
	ss_buf_printf(&text, "verify-pack -s '%s'/.git/objects/pack/*.idx", dir);
	assert_int_equal(ss_test_git(dir, &out, text.ptr), 0);
	/* git's words for a pack without deltas */
	if (!strstr(out.ptr, "non delta: 301 objects") || strstr(out.ptr, "chain length"))
		fail_msg("%s", out.ptr);
	commit_and_fsck(repo, dir, &top);
	ss_buf_release(&text);
	ss_buf_release(&out);
	ss_repo_free(repo);
	ss_test_tmpdir_free(dir);
}

/* Objects already stored (in a pack, or loose) are not written again by a later batch. */
static void test_repo_batch__stored_objects_are_not_written_again(void **state)
{
	char *dir;
	ss_repo *repo = ss_test_repo_new(&dir);
	ss_oid top, again;
	ss_error err;

	(void)state;
	assert_int_equal(ss_repo_batch_begin(repo, 0, &err), 0);
	top = space(repo, 300);
	assert_int_equal(ss_repo_batch_end(repo, &err), 0);
	assert_int_equal(count_packs(dir, ".pack"), 1);
	/* the object store has packs only: a second batch finds them there */
	assert_int_equal(ss_repo_batch_begin(repo, 0, &err), 0);
	again = space(repo, 300);
	assert_int_equal(ss_repo_batch_end(repo, &err), 0);
	assert_true(ss_oid_equal(&top, &again));
	assert_int_equal(count_packs(dir, ".pack"), 1);
	assert_int_equal(loose_objects(dir), 0);
	/* and with a loose object next to them */
	commit_and_fsck(repo, dir, &top);
	assert_int_equal(loose_objects(dir), 1);
	assert_int_equal(ss_repo_batch_begin(repo, 0, &err), 0);
	again = space(repo, 300);
	assert_int_equal(ss_repo_batch_end(repo, &err), 0);
	assert_int_equal(count_packs(dir, ".pack"), 1);
	assert_int_equal(loose_objects(dir), 1);
	ss_repo_free(repo);
	ss_test_tmpdir_free(dir);
}

/* The number of objects in packs, as git counts them. */
static long packed_objects(const char *dir)
{
	ss_buf out = SS_BUF_INIT;
	const char *at;
	long n = -1;

	assert_int_equal(ss_test_git(dir, &out, "count-objects -v"), 0);
	at = strstr(out.ptr, "in-pack: ");
	assert_non_null(at);
	assert_int_equal(sscanf(at, "in-pack: %ld", &n), 1);
	ss_buf_release(&out);
	return n;
}

/* Objects the batch itself already wrote into one of its packs are found there (the batch
 * tracks its packs' objects on its own) and not written again. */
static void test_repo_batch__objects_in_its_own_packs_are_not_written_again(void **state)
{
	char *dir;
	ss_repo *repo = ss_test_repo_new(&dir);
	ss_oid top, again;
	ss_error err;

	(void)state;
	assert_int_equal(ss_repo_batch_begin(repo, 4096, &err), 0);
	top = space(repo, 200);
	again = space(repo, 200);
	assert_int_equal(ss_repo_batch_end(repo, &err), 0);
	assert_true(ss_oid_equal(&top, &again));
	assert_true(count_packs(dir, ".pack") >= 3);
	/* 200 skills x (2 blobs, 2 trees) and the top tree, each once */
	assert_int_equal(packed_objects(dir), 801);
	for (int i = 0; i < 200; i += 17)
		assert_skill(repo, &top, i);
	commit_and_fsck(repo, dir, &top);
	ss_repo_free(repo);
	ss_test_tmpdir_free(dir);
}

/* Fetches of 30 new skills each (120 objects: a small pack each), from skill first on; the
 * skills' trees go to trees[first...]. */
static void small_fetches(ss_repo *repo, ss_oid *trees, int first, int count)
{
	ss_error err;

	for (int f = 0; f < count; f++) {
		assert_int_equal(ss_repo_batch_begin(repo, 0, &err), 0);
		for (int i = first + 30 * f; i < first + 30 * (f + 1); i++)
			trees[i] = skill(repo, i);
		assert_int_equal(ss_repo_batch_end(repo, &err), 0);
	}
}

static void test_repo_batch__small_packs_are_merged(void **state)
{
	char *dir;
	ss_repo *repo = ss_test_repo_new(&dir);
	ss_buf keep = SS_BUF_INIT;
	ss_oid trees[30 * (SS_REPO_SMALL_PACKS + 1)];
	size_t merged;
	ss_oid top;
	ss_error err;

	(void)state;
	small_fetches(repo, trees, 0, SS_REPO_SMALL_PACKS - 1);
	assert_int_equal(count_packs(dir, ".pack"), SS_REPO_SMALL_PACKS - 1);
	assert_int_equal(ss_repo_pack_small(repo, &merged, &err), 0);
	assert_int_equal(merged, 0); /* below the threshold: nothing done */
	assert_int_equal(count_packs(dir, ".pack"), SS_REPO_SMALL_PACKS - 1);

	small_fetches(repo, trees, 30 * (SS_REPO_SMALL_PACKS - 1), 1);
	/* one more, kept by a .keep file: it stays as it is */
	small_fetches(repo, trees, 30 * SS_REPO_SMALL_PACKS, 1);
	ss_buf_printf(
	    &keep,
	    "cd '%s/.git/objects/pack' && ls -t *.pack | head -n 1 | sed 's/pack$/keep/' | "
	    "xargs touch",
	    dir);
	assert_int_equal(system(keep.ptr), 0);
	assert_int_equal(count_packs(dir, ".pack"), SS_REPO_SMALL_PACKS + 1);

	assert_int_equal(ss_repo_pack_small(repo, &merged, &err), 0);
	assert_int_equal(merged, SS_REPO_SMALL_PACKS);
	assert_int_equal(count_packs(dir, ".pack"), 2);
	assert_int_equal(count_packs(dir, ".idx"), 2);
	assert_int_equal(loose_objects(dir), 0);
	/* every object is still there, for this process and for git */
	for (int i = 0; i < 30 * (SS_REPO_SMALL_PACKS + 1); i++)
		assert_true(ss_tree_exists(repo, &trees[i]));
	top = space(repo, 40);
	assert_skill(repo, &top, 39);
	commit_and_fsck(repo, dir, &top);
	ss_buf_release(&keep);
	ss_repo_free(repo);
	ss_test_tmpdir_free(dir);
}

/* A pack entry copied as it is must match the CRC-32 its index gives (as git's repack checks
 * what it reuses): a damaged one fails the merge, which removes nothing. */
static void test_repo_batch__merge_refuses_a_damaged_entry(void **state)
{
	char *dir;
	ss_repo *repo = ss_test_repo_new(&dir);
	ss_buf cmd = SS_BUF_INIT;
	ss_oid trees[30 * SS_REPO_SMALL_PACKS];
	size_t merged = 99;
	ss_error err;

	(void)state;
	small_fetches(repo, trees, 0, SS_REPO_SMALL_PACKS);
	/* one byte of the oldest pack's first entry (at 20: past the pack's 12-byte header, the
	 * entry's own header and the zlib header; a SKILL.md's start has no 'X'), its length
	 * kept */
	ss_buf_printf(&cmd,
	              "cd '%s/.git/objects/pack' && p=$(ls -tr *.pack | head -n 1) && chmod u+w $p "
	              "&& printf X | dd of=$p bs=1 seek=20 conv=notrunc status=none",
	              dir);
	assert_int_equal(system(cmd.ptr), 0);
	assert_true(ss_repo_pack_small(repo, &merged, &err) < 0);
	assert_non_null(strstr(err.message, "damaged"));
	assert_int_equal(count_packs(dir, ".pack"), SS_REPO_SMALL_PACKS);
	assert_int_equal(count_packs(dir, ".idx"), SS_REPO_SMALL_PACKS);
	ss_buf_release(&cmd);
	ss_repo_free(repo);
	ss_test_tmpdir_free(dir);
}

static void test_repo_batch__small_batch_is_written_loose(void **state)
{
	char *dir;
	ss_repo *repo = ss_test_repo_new(&dir);
	ss_oid top;
	ss_error err;

	(void)state;
	assert_int_equal(ss_repo_batch_begin(repo, 0, &err), 0);
	top = space(repo, 3); /* 3 x 4 objects and a top tree */
	assert_int_equal(ss_repo_batch_end(repo, &err), 0);
	assert_int_equal(count_packs(dir, ".pack"), 0);
	assert_int_equal(loose_objects(dir), 13);
	assert_skill(repo, &top, 2);
	commit_and_fsck(repo, dir, &top);
	ss_repo_free(repo);
	ss_test_tmpdir_free(dir);
}

static void test_repo_batch__abort_drops_what_is_in_memory(void **state)
{
	char *dir;
	ss_repo *repo = ss_test_repo_new(&dir);
	ss_oid kept, dropped, flushed, after, top;
	ss_buf out = SS_BUF_INIT;
	ss_error err;

	(void)state;
	kept = skill(repo, 1); /* before the batch: loose */
	assert_int_equal(ss_repo_batch_begin(repo, 0, &err), 0);
	SS_ASSERT_FAILS(ss_repo_batch_begin(repo, 0, &err), err, SS_EINVALID);
	dropped = skill(repo, 2);
	assert_true(ss_tree_exists(repo, &dropped));
	assert_true(ss_tree_exists(repo, &kept));
	ss_repo_batch_abort(repo);
	ss_repo_batch_abort(repo); /* a no-op without a batch */
	assert_false(ss_tree_exists(repo, &dropped));
	SS_ASSERT_FAILS(ss_repo_batch_end(repo, &err), err, SS_EINVALID);
	assert_int_equal(loose_objects(dir), 4);
	assert_int_equal(count_packs(dir, ".pack"), 0);

	/* objects flushed before an abort stay, whole and readable */
	assert_int_equal(ss_repo_batch_begin(repo, 1, &err), 0);
	flushed = skill(repo, 3);
	ss_repo_batch_abort(repo);
	assert_int_equal(count_packs(dir, ".pack"), 1);
	assert_true(ss_tree_exists(repo, &flushed));

	/* the repository works as before: the same skill again is written loose */
	after = skill(repo, 2);
	assert_true(ss_oid_equal(&after, &dropped));
	assert_true(ss_tree_exists(repo, &after));
	assert_int_equal(loose_objects(dir), 8);
	{
		const char *pairs[] = {"x/SKILL.md", "x\n", NULL};
		top = ss_test_tree(repo, pairs);
	}
	commit_and_fsck(repo, dir, &top);
	/* nothing refers to a missing object; dangling objects are fine */
	assert_int_equal(ss_test_git(dir, &out, "fsck --strict --connectivity-only 2>&1"), 0);
	ss_buf_release(&out);

	/* a batch left open when the repository is freed is dropped too */
	assert_int_equal(ss_repo_batch_begin(repo, 0, &err), 0);
	dropped = skill(repo, 4);
	ss_repo_free(repo);
	assert_int_equal(ss_repo_open(&repo, dir, &err), 0);
	assert_false(ss_tree_exists(repo, &dropped));
	ss_repo_free(repo);
	ss_test_tmpdir_free(dir);
}

int test_repo_batch_run(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_repo_batch__writes_one_pack_and_no_loose_object),
	    cmocka_unit_test(test_repo_batch__flushes_a_pack_per_threshold),
	    cmocka_unit_test(test_repo_batch__objects_in_its_own_packs_are_not_written_again),
	    cmocka_unit_test(test_repo_batch__packs_whole_objects_without_a_delta_search),
	    cmocka_unit_test(test_repo_batch__stored_objects_are_not_written_again),
	    cmocka_unit_test(test_repo_batch__small_packs_are_merged),
	    cmocka_unit_test(test_repo_batch__merge_refuses_a_damaged_entry),
	    cmocka_unit_test(test_repo_batch__small_batch_is_written_loose),
	    cmocka_unit_test(test_repo_batch__abort_drops_what_is_in_memory),
	};
	return cmocka_run_group_tests_name("core/repo_batch", tests, NULL, NULL);
}
