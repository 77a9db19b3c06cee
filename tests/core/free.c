/*
 * Every free and release accepts NULL (docs/CONTRIBUTING.md, "Memory"), as free() does.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "core/diff/outgoing.h"
#include "core/diff/outgoing_priv.h"
#include "core/diff/plan.h"
#include "core/diff/provenance.h"
#include "core/git/commit.h"
#include "core/git/git_priv.h"
#include "core/git/history.h"
#include "core/git/merge.h"
#include "core/git/render.h"
#include "core/git/repo.h"
#include "core/git/tree.h"
#include "core/git/worktree.h"
#include "core/skill/record.h"
#include "core/skill/report.h"
#include "core/skill/skill.h"
#include "core/skill/value.h"
#include "core/state/state.h"
#include "core/state/state_journal.h"
#include "core/state/state_member.h"
#include "core/state/state_record.h"
#include "core/util/buf.h"
#include "core/util/linediff.h"
#include "core/util/lock.h"
#include "core/util/secret.h"

static void test_free__every_free_accepts_null(void **state)
{
	(void)state;
	ss_buf_release(NULL);
	ss_commit_list_release(NULL);
	ss_git__strings_free(NULL, 3);
	ss_history_release(NULL);
	ss_linediff_release(NULL);
	ss_lock_free(NULL);
	ss_merge_result_release(NULL);
	ss_outgoing_free(NULL);
	ss_outgoing__lookup_release(NULL);
	ss_plan_free(NULL);
	ss_provenance_release(NULL);
	ss_record_meta_release(NULL);
	ss_render_release(NULL);
	ss_repo_free(NULL);
	ss_report_free(NULL);
	ss_secret_free(NULL);
	ss_skill_free(NULL);
	ss_skill_reader_free(NULL);
	ss_state_free(NULL);
	ss_state_member_release(NULL);
	ss_state_members_free(NULL, 3);
	ss_state_record_release(NULL);
	ss_state_view_entry_release(NULL);
	ss_state_journal_release(NULL);
	ss_tree_builder_free(NULL);
	ss_tree_top_free(NULL);
	ss_tree_list_release(NULL);
	ss_tree_changes_release(NULL);
	ss_value_free(NULL);
	ss_worktree_status_release(NULL);
}

int test_free_run(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_free__every_free_accepts_null),
	};
	return cmocka_run_group_tests_name("free", tests, NULL, NULL);
}
