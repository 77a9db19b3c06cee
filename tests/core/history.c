#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "core/git/commit.h"
#include "core/git/history.h"
#include "core/git/repo.h"
#include "support/gitrepo.h"
#include "support/support.h"

/*
 * A commit at a given time (so that the order is known), with up to two parents; authored by
 * skillsync (a tracking commit) when message starts with "fetch" or "clone", else by the tester.
 */
static ss_oid commit_at(ss_repo *repo, const char *ref, const char *const *files, const ss_oid *p1,
                        const ss_oid *p2, int64_t when, const char *message)
{
	bool space = !strncmp(message, "fetch", 5) || !strncmp(message, "clone", 5);
	ss_commit_opts opts = {0};
	ss_oid tree = ss_test_tree(repo, files), parents[2], oid;
	size_t n = 0;
	ss_error err;

	if (p1)
		parents[n++] = *p1;
	if (p2)
		parents[n++] = *p2;
	opts.ref = ref;
	opts.author_name = space ? SS_COMMIT_DEFAULT_NAME : "tester";
	opts.author_email = space ? SS_COMMIT_DEFAULT_EMAIL : "tester@example.com";
	opts.time = when;
	if (ss_commit_create(repo, &opts, &tree, parents, n, message, &oid, &err) < 0)
		fail_msg("%s", err.message);
	return oid;
}

typedef struct story {
	ss_oid c0, c1, t1, m, t2;
} story;

/*
 * c0: the clone (main and tracking); t1: a fetch changing alpha; c1: my edit of beta;
 * m: the pull merging t1 into main; t2: a fetch changing beta, not merged yet.
 */
static ss_repo *told(char **dir, story *s)
{
	ss_error ignored;
	ss_repo *repo = ss_test_repo_new(dir);
	const char *f0[] = {"alpha/SKILL.md", "a\n", "beta/SKILL.md", "b\n", NULL};
	const char *f1[] = {"alpha/SKILL.md", "a2\n", "beta/SKILL.md", "b\n", NULL};
	const char *fc[] = {"alpha/SKILL.md", "a\n", "beta/SKILL.md", "mine\n", NULL};
	const char *fm[] = {"alpha/SKILL.md", "a2\n", "beta/SKILL.md", "mine\n", NULL};
	const char *f2[] = {"alpha/SKILL.md", "a2\n", "beta/SKILL.md", "b3\n", NULL};

	s->c0 = commit_at(repo, SS_REPO_MAIN_REF, f0, NULL, NULL, 1000, "clone\n");
	commit_at(repo, NULL, f0, NULL, NULL, 1000, "clone\n");
	if (ss_commit_update_ref(repo, SS_REPO_TRACKING_REF, &s->c0, NULL, "test", &ignored) < 0)
		fail_msg("cannot set the tracking ref");
	s->t1 = commit_at(repo, SS_REPO_TRACKING_REF, f1, &s->c0, NULL, 2000,
	                  "fetch: 1 updated\n\nupdated alpha by bob.test\n    note: step 2\n");
	s->c1 = commit_at(repo, SS_REPO_MAIN_REF, fc, &s->c0, NULL, 3000, "my beta\n");
	s->m = commit_at(repo, SS_REPO_MAIN_REF, fm, &s->c1, &s->t1, 4000, "merge\n");
	s->t2 = commit_at(repo, SS_REPO_TRACKING_REF, f2, &s->t1, NULL, 5000,
	                  "fetch: 1 updated\n\nupdated beta by carol.test\n");
	return repo;
}

static const ss_history_entry *find(const ss_history *h, const ss_oid *id)
{
	for (size_t i = 0; i < h->count; i++)
		if (ss_oid_equal(&h->items[i].info.oid, id))
			return &h->items[i];
	return NULL;
}

static void test_history__kinds_and_unmerged_first(void **state)
{
	char *dir;
	story s;
	ss_repo *repo = told(&dir, &s);
	ss_history h;
	ss_error err;

	assert_int_equal(ss_history_list(repo, NULL, 0, &h, &err), 0);
	assert_int_equal(h.count, 5);
	assert_true(ss_oid_equal(&h.items[0].info.oid, &s.t2));
	assert_int_equal(h.items[0].kind, SS_HISTORY_SPACE);
	assert_false(h.items[0].merged);
	assert_true(ss_oid_equal(&h.items[1].info.oid, &s.m));
	assert_int_equal(find(&h, &s.m)->kind, SS_HISTORY_MERGE);
	assert_int_equal(find(&h, &s.c1)->kind, SS_HISTORY_LOCAL);
	assert_int_equal(find(&h, &s.t1)->kind, SS_HISTORY_SPACE);
	assert_true(find(&h, &s.t1)->merged);
	assert_int_equal(find(&h, &s.c0)->kind, SS_HISTORY_SPACE);
	assert_true(ss_oid_equal(&h.items[4].info.oid, &s.c0));
	assert_string_equal(find(&h, &s.t1)->info.subject, "fetch: 1 updated");
	ss_history_release(&h);

	/* At most 2: the unmerged fetch, then the newest of main. */
	assert_int_equal(ss_history_list(repo, NULL, 2, &h, &err), 0);
	assert_int_equal(h.count, 2);
	assert_true(ss_oid_equal(&h.items[1].info.oid, &s.m));
	ss_history_release(&h);
	ss_repo_free(repo);
	ss_test_tmpdir_free(dir);
}

/* After a push the tracking ref names main's own commit: mine stays mine in the history. */
static void test_history__tracking_ref_at_main(void **state)
{
	ss_error ignored;
	char *dir;
	story s;
	ss_repo *repo = told(&dir, &s);
	ss_history h;
	ss_error err;

	if (ss_commit_update_ref(repo, SS_REPO_TRACKING_REF, &s.m, NULL, "push", &ignored) < 0)
		fail_msg("cannot move the tracking ref");
	assert_int_equal(ss_history_list(repo, NULL, 0, &h, &err), 0);
	assert_int_equal(h.count, 4);
	assert_int_equal(find(&h, &s.m)->kind, SS_HISTORY_MERGE);
	assert_int_equal(find(&h, &s.c1)->kind, SS_HISTORY_LOCAL);
	assert_int_equal(find(&h, &s.t1)->kind, SS_HISTORY_SPACE);
	assert_int_equal(find(&h, &s.c0)->kind, SS_HISTORY_SPACE);
	for (size_t i = 0; i < h.count; i++)
		assert_true(h.items[i].merged);
	ss_history_release(&h);
	ss_repo_free(repo);
	ss_test_tmpdir_free(dir);
}

static void test_history__one_skill(void **state)
{
	char *dir;
	story s;
	ss_repo *repo = told(&dir, &s);
	ss_history h;
	ss_error err;

	/* alpha: the fetch that changed it, and the clone; the merge took t1's alpha as is. */
	assert_int_equal(ss_history_list(repo, "alpha", 0, &h, &err), 0);
	assert_int_equal(h.count, 2);
	assert_true(ss_oid_equal(&h.items[0].info.oid, &s.t1));
	assert_true(ss_oid_equal(&h.items[1].info.oid, &s.c0));
	ss_history_release(&h);

	/* beta: the unmerged fetch, my edit, the clone. */
	assert_int_equal(ss_history_list(repo, "beta", 0, &h, &err), 0);
	assert_int_equal(h.count, 3);
	assert_true(ss_oid_equal(&h.items[0].info.oid, &s.t2));
	assert_true(ss_oid_equal(&h.items[1].info.oid, &s.c1));
	assert_true(ss_oid_equal(&h.items[2].info.oid, &s.c0));
	ss_history_release(&h);

	assert_int_equal(ss_history_list(repo, "gamma", 0, &h, &err), 0);
	assert_int_equal(h.count, 0);
	ss_history_release(&h);
	ss_repo_free(repo);
	ss_test_tmpdir_free(dir);
}

static void test_history__empty_repository(void **state)
{
	char *dir;
	ss_repo *repo = ss_test_repo_new(&dir);
	ss_history h;
	ss_error err;

	assert_int_equal(ss_history_list(repo, NULL, 0, &h, &err), 0);
	assert_int_equal(h.count, 0);
	ss_history_release(&h);
	ss_repo_free(repo);
	ss_test_tmpdir_free(dir);
}

static void excerpt_is(const char *message, const char *skill, const char *want)
{
	ss_buf out = SS_BUF_INIT;

	ss_history_excerpt(message, skill, &out);
	assert_string_equal(out.ptr, want);
	ss_buf_release(&out);
}

static void test_history__excerpt(void **state)
{
	const char *msg = "\n"
	                  "updated pdf by alice.test\n"
	                  "    note: step 3 rewritten\n"
	                  "    (shadows bob.test)\n"
	                  "added pdf-tools by bob.test\n"
	                  "\n"
	                  "removed docx by carol.test\n"
	                  "  note: pdf is better\n";

	/* An item naming the skill anywhere (its note too) counts; a longer name does not. */
	excerpt_is(msg, "pdf",
	           "updated pdf by alice.test\n    note: step 3 rewritten\n    (shadows bob.test)\n"
	           "removed docx by carol.test\n  note: pdf is better\n");
	excerpt_is(msg, "pdf-tools", "added pdf-tools by bob.test\n");
	excerpt_is(msg, "docx", "removed docx by carol.test\n  note: pdf is better\n");
	excerpt_is(msg, "tools", "");
	excerpt_is(msg, "xlsx", "");
	excerpt_is("pdf: updated\nno newline at the end: pdf", "pdf",
	           "pdf: updated\nno newline at the end: pdf\n");
	excerpt_is("", "pdf", "");
}

int test_history_run(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_history__kinds_and_unmerged_first),
	    cmocka_unit_test(test_history__tracking_ref_at_main),
	    cmocka_unit_test(test_history__one_skill),
	    cmocka_unit_test(test_history__empty_repository),
	    cmocka_unit_test(test_history__excerpt),
	};
	return cmocka_run_group_tests_name("history", tests, NULL, NULL);
}
