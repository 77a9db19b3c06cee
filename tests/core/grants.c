/* allowed-tools, and whether a new version grants more (core/skill/grants.c). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "core/skill/grants.h"

/* Whether SKILL.md with frontmatter lines old_fm -> new_fm widens the grant (NULL old_fm: no
 * SKILL.md before). */
static bool widens(const char *old_fm, const char *new_fm)
{
	char a[512], b[512];

	snprintf(a, sizeof(a), "---\nname: s\ndescription: A skill.\n%s---\n# s\n",
	         old_fm ? old_fm : "");
	snprintf(b, sizeof(b), "---\nname: s\ndescription: A skill.\n%s---\n# s\nMore.\n", new_fm);
	return ss_grants_widen(old_fm ? a : NULL, old_fm ? strlen(a) : 0, b, strlen(b));
}

static void test_grants__a_tool_not_granted_before(void **state)
{
	(void)state;
	assert_true(widens("allowed-tools: Read Grep\n", "allowed-tools: Read Grep Bash\n"));
	assert_true(widens("", "allowed-tools: Read\n"));
	assert_true(widens(NULL, "allowed-tools: Read\n"));
	assert_true(widens("allowed-tools: Read\n", "allowed-tools: read\n")); /* names exactly */
	assert_true(widens("allowed-tools:\n  - Read\n  - Grep\n",
	                   "allowed-tools:\n  - Read\n  - Grep\n  - Bash\n"));
	assert_true(widens("allowed-tools: Read Grep\n", "allowed-tools:\n  - Read\n  - Write\n"));
}

static void test_grants__the_same_or_less_does_not_widen(void **state)
{
	(void)state;
	assert_false(widens("allowed-tools: Read Grep\n", "allowed-tools: Read Grep\n"));
	assert_false(widens("allowed-tools: Read Grep\n", "allowed-tools: Grep, Read\n"));
	assert_false(widens("allowed-tools: Read Grep\n", "allowed-tools: Read\n"));
	assert_false(widens("allowed-tools: Read Grep\n", ""));
	assert_false(widens(NULL, ""));
	assert_false(widens("allowed-tools: Read Grep\n", "allowed-tools:\n  - Grep\n  - Read\n"));
	assert_false(widens("allowed-tools: Bash\n", "allowed-tools: Bash(git status:*)\n"));
	assert_false(widens("allowed-tools: \"*\"\n", "allowed-tools: Bash Read\n"));
}

static void test_grants__a_pattern_turned_wider(void **state)
{
	(void)state;
	assert_true(widens("allowed-tools: Bash(git status:*)\n", "allowed-tools: Bash(git:*)\n"));
	assert_true(widens("allowed-tools: Bash(git:*)\n", "allowed-tools: Bash\n"));
	assert_true(widens("allowed-tools: Bash(git:*)\n", "allowed-tools: Bash(*)\n"));
	assert_true(widens("allowed-tools: Bash(git:*)\n", "allowed-tools: Bash(gitx:*)\n"));
	assert_true(widens("allowed-tools: Bash(git *)\n", "allowed-tools: Bash(gitx)\n"));
	assert_true(widens("allowed-tools: Bash(npm test)\n", "allowed-tools: Bash(npm test *)\n"));
	assert_true(widens("allowed-tools: Read(./docs/*)\n", "allowed-tools: Read(./docs/a/*)\n"));
	/* narrower or the same: covered */
	assert_false(widens("allowed-tools: Bash(git:*)\n", "allowed-tools: Bash(git status:*)\n"));
	assert_false(widens("allowed-tools: Bash(git *)\n", "allowed-tools: Bash(git log *)\n"));
	assert_false(
	    widens("allowed-tools: Read(./docs/**)\n", "allowed-tools: Read(./docs/a/**)\n"));
	assert_false(widens("allowed-tools: Bash(git status:*) Read\n",
	                    "allowed-tools: Read Bash(git status:*)\n"));
}

static void test_grants__unreadable_fails_closed(void **state)
{
	static const char bad[] = "---\nname: s\nname: t\nallowed-tools: Read\n---\n";
	static const char good[] = "---\nname: s\ndescription: d\nallowed-tools: Read\n---\n";

	(void)state;
	/* a new version that cannot be read widens; an old one granted nothing */
	assert_true(ss_grants_widen(good, strlen(good), bad, strlen(bad)));
	assert_true(ss_grants_widen(bad, strlen(bad), good, strlen(good)));
	/* a value of another shape */
	assert_true(widens("allowed-tools: Read\n", "allowed-tools:\n  tool: Bash\n"));
	assert_true(widens("allowed-tools: Read\n", "allowed-tools:\n  - Read\n  - [Bash]\n"));
	assert_false(widens("allowed-tools:\n  tool: Bash\n", "allowed-tools:\n  tool: Bash\n"));
	/* no SKILL.md in the new version grants nothing */
	assert_false(ss_grants_widen(good, strlen(good), NULL, 0));
}

int test_grants_run(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_grants__a_tool_not_granted_before),
	    cmocka_unit_test(test_grants__the_same_or_less_does_not_widen),
	    cmocka_unit_test(test_grants__a_pattern_turned_wider),
	    cmocka_unit_test(test_grants__unreadable_fails_closed),
	};
	return cmocka_run_group_tests_name("core/grants", tests, NULL, NULL);
}
