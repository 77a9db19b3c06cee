/* skilldir.c: "outside the skills" is decided once, and status and push agree on it. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "core/diff/outgoing.h"
#include "core/git/repo.h"
#include "core/git/worktree.h"
#include "core/skill/skilldir.h"
#include "support/gitrepo.h"
#include "support/support.h"

static const char *const files[] = {
    "README.md",
    "readme\n",
    ".github/ci.yml",
    "on: push\n",
    "pdf/SKILL.md",
    "---\nname: pdf\ndescription: d\n---\n",
    "nomd/notes.md",
    "a directory without SKILL.md is still a skill directory\n",
    NULL,
};

static void test_skilldir__outside_is_decided_once(void **state)
{
	static const struct {
		const char *name;
		bool dir, outside;
	} cases[] = {
	    {"README.md", false, true}, {".github", true, true}, {".gitignore", false, true},
	    {"pdf", true, false},       {"nomd", true, false},
	};
	char *dir;
	ss_repo *repo = ss_test_repo_new(&dir);
	ss_oid tree = ss_test_tree(repo, files), sub;
	ss_status s;
	ss_error err;
	bool is_skill;

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		assert_int_equal(ss_skilldir_outside(cases[i].name, cases[i].dir),
		                 cases[i].outside);
	/* push's view of HEAD's tree */
	for (size_t i = 0; i < 4; i++) {
		const char *name = i == 0   ? "README.md"
		                   : i == 1 ? ".github"
		                   : i == 2 ? "pdf"
		                            : "nomd";
		assert_int_equal(ss_outgoing_is_skill(repo, &tree, name, &sub, &is_skill, &err), 0);
		if (is_skill != (i >= 2))
			fail_msg("push: '%s' %s a skill", name, is_skill ? "is" : "is not");
	}
	/* status's view of the same files, untracked */
	for (size_t i = 0; files[i]; i += 2)
		ss_test_write(dir, files[i], files[i + 1]);
	assert_int_equal(ss_worktree_status(repo, &s, &err), 0);
	assert_int_equal(s.count, 4);
	for (size_t i = 0; i < s.count; i++) {
		const ss_status_entry *e = &s.entries[i];
		bool outside = !strcmp(e->name, "README.md") || !strcmp(e->name, ".github");
		if (e->outside != outside)
			fail_msg("status: '%s' outside is %d", e->name, e->outside);
		assert_int_equal(e->file, !strcmp(e->name, "README.md"));
	}
	ss_worktree_status_release(&s);
	ss_repo_free(repo);
	ss_test_tmpdir_free(dir);
}

int test_skilldir_run(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_skilldir__outside_is_decided_once),
	};
	return cmocka_run_group_tests_name("skilldir", tests, NULL, NULL);
}
