#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cmocka.h>

#include <libdeflate.h>

#include "core/git/git_priv.h"
#include "core/git/repo_priv.h"
#include "core/gitfmt/pack_write.h"
#include "core/gitfmt/pack_read.h"
#include "core/git/repo.h"
#include "core/git/tree.h"
#include "core/git/worktree.h"
#include "core/util/buf.h"
#include "core/util/fs.h"
#include "support/gitrepo.h"
#include "support/support.h"

/* Skill i: a SKILL.md of ~2 KB (alike from skill to skill: deltas when git repacks) and a
 * nested file; returns its tree. */
static ss_oid skill(ss_repo *repo, int i)
{
	ss_buf text = SS_BUF_INIT, notes = SS_BUF_INIT;
	ss_oid oid;

	ss_buf_printf(&text, "---\nname: s%d\ndescription: skill %d\n---\n", i, i);
	for (int k = 0; k < 40; k++)
		ss_buf_printf(&text, "Step %d: read the input, check it, write it.\n", k);
	ss_buf_printf(&notes, "notes of skill %d\n", i);
	oid = ss_test_tree(repo, (const char *const[]){"SKILL.md", text.ptr, "references/notes.md",
	                                               notes.ptr, NULL});
	ss_buf_release(&text);
	ss_buf_release(&notes);
	return oid;
}

/* A repository whose main holds n skills and an empty file, all in one pack of ss_pack_write's
 * (an object batch of SS_REPO_BATCH_LOOSE_MAX objects or more: n >= 25); returns the
 * commit. */
static ss_oid packed_repo(ss_repo **repo, char **dir, int n)
{
	ss_tree_top *t;
	ss_oid oid, top, empty;
	ss_error err;
	char name[32];

	*repo = ss_test_repo_new(dir);
	assert_int_equal(ss_repo_batch_begin(*repo, 0, &err), 0);
	assert_int_equal(ss_tree_top_new(&t, *repo, NULL, false, &err), 0);
	for (int i = 0; i < n; i++) {
		oid = skill(*repo, i);
		snprintf(name, sizeof(name), "s%d", i);
		assert_int_equal(ss_tree_top_set(t, name, &oid, SS_MODE_TREE, &err), 0);
	}
	{
		ss_tree_builder *b;

		ss_tree_builder_new(&b, *repo);
		assert_int_equal(ss_tree_builder_add(b, "empty", "", 0, false, &err), 0);
		assert_int_equal(ss_tree_builder_write(b, &empty, &err), 0);
		ss_tree_builder_free(b);
		assert_int_equal(ss_tree_top_set(t, "zz", &empty, SS_MODE_TREE, &err), 0);
	}
	assert_int_equal(ss_tree_top_write(t, &top, &err), 0);
	ss_tree_top_free(t);
	assert_int_equal(ss_repo_batch_end(*repo, &err), 0);
	return ss_test_commit(*repo, SS_REPO_MAIN_REF, &top, NULL, "packed");
}

/* The objects of the repository's packs as git lists them: one line each, "<id> <type>
 * <offset>", and for a delta " delta". */
static void pack_objects(const char *dir, ss_buf *out)
{
	ss_buf cmd = SS_BUF_INIT;

	ss_buf_printf(&cmd,
	              "verify-pack -v '%s'/.git/objects/pack/*.idx | awk 'NF >= 5 && $2 ~ "
	              "/^(blob|tree|commit|tag)$/ { print $1, $2, $5, (NF > 5 ? \"delta\" : "
	              "\"whole\") }'",
	              dir);
	assert_int_equal(ss_test_git(dir, out, cmd.ptr), 0);
	assert_true(out->len > 0);
	ss_buf_release(&cmd);
}

static void open_packs(const char *dir, ss_packs **packs, ss_pack_cursor **cur)
{
	ss_buf objects = SS_BUF_INIT;
	ss_error err;

	ss_buf_printf(&objects, "%s/.git/objects", dir);
	assert_int_equal(ss_pack_read_open(packs, objects.ptr, &err), 0);
	assert_int_equal(ss_pack_read_cursor_new(cur, *packs, &err), 0);
	ss_buf_release(&objects);
}

/* Each object of a pack ss_pack_write wrote reads back with the bytes and type libgit2
 * gives. */
static void test_pack_read__reads_what_libgit2_reads(void **state)
{
	char *dir;
	ss_repo *repo;
	ss_buf list = SS_BUF_INIT;
	ss_packs *packs;
	ss_pack_cursor *cur;
	ss_pack_object obj = {0};
	git_odb *odb = NULL;
	size_t seen = 0, empty = 0;
	ss_oid c;
	ss_error err;

	(void)state;
	c = packed_repo(&repo, &dir, 60);
	pack_objects(dir, &list);
	open_packs(dir, &packs, &cur);
	assert_int_equal(git_repository_odb(&odb, repo->git), 0);
	for (char *line = list.ptr; *line; line = strchr(line, '\n') + 1) {
		git_odb_object *o = NULL;
		git_oid id;
		bool found = false;

		assert_int_equal(git_oid_fromstrn(&id, line, GIT_OID_HEXSZ), 0);
		assert_non_null(strstr(line, " whole"));
		if (ss_pack_read_object(cur, id.id, &obj, &found, &err) < 0)
			fail_msg("%s", err.message);
		assert_true(found);
		assert_int_equal(git_odb_read(&o, odb, &id), 0);
		assert_int_equal(obj.type, git_odb_object_type(o));
		assert_int_equal(obj.len, git_odb_object_size(o));
		if (obj.len)
			assert_memory_equal(obj.data, git_odb_object_data(o), obj.len);
		empty += obj.len == 0;
		git_odb_object_free(o);
		seen++;
	}
	/* 60 x (2 blobs, 2 trees), the empty blob and its tree, the top tree */
	assert_int_equal(seen, 60 * 4 + 3);
	assert_int_equal(empty, 1);
	free(obj.data);
	git_odb_free(odb);
	ss_pack_read_cursor_free(cur);
	ss_pack_read_close(packs);

	/* and a checkout of it, read from there, is what git sees in the commit */
	if (ss_worktree_checkout(repo, &c, &err) < 0)
		fail_msg("%s", err.message);
	ss_buf_clear(&list);
	assert_int_equal(ss_test_git(dir, &list, "status --porcelain"), 0);
	assert_string_equal(list.ptr, "");
	assert_int_equal(ss_test_git(dir, NULL, "diff-files --quiet"), 0);
	ss_buf_release(&list);
	ss_repo_free(repo);
	ss_test_tmpdir_free(dir);
}

/* A delta (a pack git repacked), a loose object and an id in no pack are not found here, and
 * a checkout over such a repository still writes every file (through libgit2). */
static void test_pack_read__leaves_deltas_and_loose_objects_to_libgit2(void **state)
{
	char *dir;
	ss_repo *repo;
	ss_buf list = SS_BUF_INIT, out = SS_BUF_INIT;
	ss_packs *packs;
	ss_pack_cursor *cur;
	ss_pack_object obj = {0};
	ss_oid c, loose;
	size_t deltas = 0, whole = 0;
	git_oid id;
	bool found = true;
	ss_error err;

	(void)state;
	c = packed_repo(&repo, &dir, 30);
	assert_int_equal(ss_test_git(dir, NULL, "repack -adfq --window=50"), 0);
	{
		const char *pairs[] = {"loose/SKILL.md", "only loose\n", NULL};
		loose = ss_test_tree(repo, pairs);
	}
	pack_objects(dir, &list);
	open_packs(dir, &packs, &cur);
	for (char *line = list.ptr; *line; line = strchr(line, '\n') + 1) {
		bool delta = strstr(line, " delta") && strstr(line, " delta") < strchr(line, '\n');

		assert_int_equal(git_oid_fromstrn(&id, line, GIT_OID_HEXSZ), 0);
		if (ss_pack_read_object(cur, id.id, &obj, &found, &err) < 0)
			fail_msg("%s", err.message);
		assert_int_equal(found, !delta);
		deltas += delta;
		whole += !delta;
	}
	assert_true(deltas > 10);
	assert_true(whole > 10);
	ss_git__oid_in(&id, &loose);
	assert_int_equal(ss_pack_read_object(cur, id.id, &obj, &found, &err), 0);
	assert_false(found);
	memset(id.id, 0xab, GIT_OID_RAWSZ);
	assert_int_equal(ss_pack_read_object(cur, id.id, &obj, &found, &err), 0);
	assert_false(found);
	ss_pack_read_cursor_free(cur);
	ss_pack_read_close(packs);

	if (ss_worktree_checkout(repo, &c, &err) < 0)
		fail_msg("%s", err.message);
	assert_int_equal(ss_test_git(dir, &out, "status --porcelain"), 0);
	assert_string_equal(out.ptr, "");
	free(obj.data);
	ss_buf_release(&list);
	ss_buf_release(&out);
	ss_repo_free(repo);
	ss_test_tmpdir_free(dir);
}

/* The id and offset in its pack of the first whole blob git lists with size at least min. */
static void first_blob(const char *dir, size_t min, git_oid *id, long *off)
{
	ss_buf list = SS_BUF_INIT, cmd = SS_BUF_INIT;
	char hex[GIT_OID_HEXSZ + 1];

	ss_buf_printf(
	    &cmd,
	    "verify-pack -v '%s'/.git/objects/pack/*.idx | awk '$2 == \"blob\" && NF == 5 "
	    "&& $3 >= %zu { print $1, $5; exit }'",
	    dir, min);
	assert_int_equal(ss_test_git(dir, &list, cmd.ptr), 0);
	assert_int_equal(sscanf(list.ptr, "%40s %ld", hex, off), 2);
	assert_int_equal(git_oid_fromstr(id, hex), 0);
	ss_buf_release(&list);
	ss_buf_release(&cmd);
}

/* The path of the repository's only pack. */
static void pack_path(const char *dir, ss_buf *out)
{
	ss_buf cmd = SS_BUF_INIT;
	char line[4096];
	FILE *p;

	ss_buf_printf(&cmd, "ls '%s'/.git/objects/pack/*.pack", dir);
	p = popen(cmd.ptr, "r");
	assert_non_null(p);
	assert_non_null(fgets(line, sizeof(line), p));
	assert_int_equal(pclose(p), 0);
	line[strcspn(line, "\n")] = '\0';
	ss_buf_puts(out, line);
	ss_buf_release(&cmd);
}

/* Xors byte off of the file at path with x. */
static void poke(const char *path, long off, unsigned char x)
{
	unsigned char b;
	int fd;

	assert_int_equal(chmod(path, 0644), 0);
	fd = open(path, O_RDWR);
	assert_true(fd >= 0);
	assert_int_equal(pread(fd, &b, 1, off), 1);
	b ^= x;
	assert_int_equal(pwrite(fd, &b, 1, off), 1);
	close(fd);
}

/* Reading id fails with a message naming it. */
static void assert_damaged(ss_pack_cursor *cur, const git_oid *id)
{
	ss_pack_object obj = {0};
	bool found = false;
	ss_error err;

	ss_error_clear(&err);
	assert_true(ss_pack_read_object(cur, id->id, &obj, &found, &err) < 0);
	assert_int_equal(err.code, SS_ERROR);
	if (!strstr(err.message, git_oid_tostr_s(id)) || !strstr(err.message, "damaged"))
		fail_msg("%s", err.message);
	free(obj.data);
}

/* A byte of a blob's deflated bytes changed, then its entry's size changed: an error naming
 * the object, from the reader and from the checkout, which writes no file of it. */
static void test_pack_read__damaged_entry_is_an_error(void **state)
{
	char *dir;
	ss_repo *repo;
	ss_buf pack = SS_BUF_INIT;
	ss_packs *packs;
	ss_pack_cursor *cur;
	ss_oid c;
	git_oid id;
	long off;
	ss_error err;

	(void)state;
	c = packed_repo(&repo, &dir, 40);
	first_blob(dir, 1000, &id, &off);
	pack_path(dir, &pack);
	/* its header is 2 bytes (a size under 2 KB), then the zlib header; 30 bytes in is
	 * deflate data */
	poke(pack.ptr, off + 30, 0x5a);
	open_packs(dir, &packs, &cur);
	assert_damaged(cur, &id);
	ss_pack_read_cursor_free(cur);
	ss_pack_read_close(packs);
	SS_ASSERT_FAILS(ss_worktree_checkout(repo, &c, &err), err, SS_ERROR);
	assert_non_null(strstr(err.message, "cannot read the content of 's"));
	assert_non_null(strstr(err.message, git_oid_tostr_s(&id)));

	/* the stream whole again, its size one byte more: not the exact size */
	poke(pack.ptr, off + 30, 0x5a);
	poke(pack.ptr, off, 0x01);
	open_packs(dir, &packs, &cur);
	assert_damaged(cur, &id);
	ss_pack_read_cursor_free(cur);
	ss_pack_read_close(packs);
	ss_buf_release(&pack);
	ss_repo_free(repo);
	ss_test_tmpdir_free(dir);
}

/* A pack cut short: each object is read whole and right, or is an error naming it; none is
 * read from outside the file (the ASan build checks). */
static void test_pack_read__truncated_pack_is_an_error(void **state)
{
	char *dir;
	ss_repo *repo;
	ss_buf pack = SS_BUF_INIT, list = SS_BUF_INIT;
	ss_packs *packs;
	ss_pack_cursor *cur;
	ss_pack_object obj = {0};
	size_t ok = 0, bad = 0;
	struct stat st;

	(void)state;
	packed_repo(&repo, &dir, 40);
	pack_objects(dir, &list);
	pack_path(dir, &pack);
	assert_int_equal(stat(pack.ptr, &st), 0);
	assert_int_equal(chmod(pack.ptr, 0644), 0);
	assert_int_equal(truncate(pack.ptr, st.st_size / 2), 0);
	open_packs(dir, &packs, &cur);
	for (char *line = list.ptr; *line; line = strchr(line, '\n') + 1) {
		git_oid id;
		bool found = false;
		ss_error err;

		assert_int_equal(git_oid_fromstrn(&id, line, GIT_OID_HEXSZ), 0);
		if (ss_pack_read_object(cur, id.id, &obj, &found, &err) < 0) {
			if (!strstr(err.message, git_oid_tostr_s(&id)) ||
			    !strstr(err.message, "damaged"))
				fail_msg("%s", err.message);
			bad++;
		} else {
			assert_true(found);
			ok++;
		}
	}
	assert_true(ok > 10);
	assert_true(bad > 10);
	free(obj.data);
	ss_pack_read_cursor_free(cur);
	ss_pack_read_close(packs);
	ss_buf_release(&pack);
	ss_buf_release(&list);
	ss_repo_free(repo);
	ss_test_tmpdir_free(dir);
}

/* A pack whose only entry, its CRC-32 right, holds other bytes than its id names. */
typedef struct swapped {
	git_oid id;
	unsigned char raw[64];
	size_t len;
} swapped;

static int read_swapped(void *payload, size_t i, ss_pack_write_obj *obj, ss_error *err)
{
	const swapped *sw = payload;

	(void)i;
	(void)err;
	ss_git__oid_out(&obj->id, &sw->id);
	obj->raw = sw->raw;
	obj->raw_len = sw->len;
	obj->raw_crc = (uint32_t)libdeflate_crc32(0, sw->raw, sw->len);
	return 0;
}

/* An index this does not read (another version) leaves its pack's objects to libgit2. */
static void test_pack_read__index_of_another_version_is_left_to_libgit2(void **state)
{
	char *dir, name[GIT_OID_HEXSZ + 1];
	ss_repo *repo = ss_test_repo_new(&dir); /* libgit2 set up, and a place for the pack */
	ss_buf path = SS_BUF_INIT;
	struct libdeflate_compressor *z = libdeflate_alloc_compressor(1);
	ss_packs *packs;
	ss_pack_cursor *cur;
	ss_pack_object obj = {0};
	swapped sw;
	git_oid other;
	bool found = false;
	ss_error err;

	(void)state;
	ss_buf_printf(&path, "%s/.git/objects/pack", dir);
	assert_int_equal(ss_fs_mkdir_p(path.ptr, 0777, &err), 0);
	assert_int_equal(git_odb_hash(&sw.id, "mine\n", 5, GIT_OBJECT_BLOB), 0);
	sw.raw[0] = (GIT_OBJECT_BLOB << 4) | 5; /* a blob of 5 bytes */
	sw.len = 1 + libdeflate_zlib_compress(z, "mine\n", 5, sw.raw + 1, sizeof(sw.raw) - 1);
	assert_int_equal(ss_pack_write(path.ptr, 1, read_swapped, &sw, name, &err), 0);
	open_packs(dir, &packs, &cur);
	assert_int_equal(ss_pack_read_object(cur, sw.id.id, &obj, &found, &err), 0);
	assert_true(found);
	assert_int_equal(obj.len, 5);
	assert_memory_equal(obj.data, "mine\n", 5);
	ss_pack_read_cursor_free(cur);
	ss_pack_read_close(packs);

	/* the same pack under an index of another version: not read here */
	ss_buf_printf(&path, "/pack-%s.idx", name);
	poke(path.ptr, 7, 0x01); /* version 3 */
	open_packs(dir, &packs, &cur);
	assert_int_equal(ss_pack_read_object(cur, sw.id.id, &obj, &found, &err), 0);
	assert_false(found);
	assert_int_equal(git_odb_hash(&other, "other\n", 6, GIT_OBJECT_BLOB), 0);
	assert_int_equal(ss_pack_read_object(cur, other.id, &obj, &found, &err), 0);
	assert_false(found);
	ss_pack_read_cursor_free(cur);
	ss_pack_read_close(packs);
	libdeflate_free_compressor(z);
	free(obj.data);
	ss_buf_release(&path);
	ss_repo_free(repo);
	ss_test_tmpdir_free(dir);
}

int test_pack_read_run(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_pack_read__reads_what_libgit2_reads),
	    cmocka_unit_test(test_pack_read__leaves_deltas_and_loose_objects_to_libgit2),
	    cmocka_unit_test(test_pack_read__damaged_entry_is_an_error),
	    cmocka_unit_test(test_pack_read__truncated_pack_is_an_error),
	    cmocka_unit_test(test_pack_read__index_of_another_version_is_left_to_libgit2),
	};
	return cmocka_run_group_tests_name("core/pack_read", tests, NULL, NULL);
}
