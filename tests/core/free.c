/*
 * Every free and release accepts NULL (STYLE.md, Memory), as free() does.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "core/buf.h"
#include "core/commit.h"
#include "core/git_priv.h"
#include "core/history.h"
#include "core/linediff.h"
#include "core/lock.h"
#include "core/merge.h"
#include "core/outgoing.h"
#include "core/outgoing_priv.h"
#include "core/plan.h"
#include "core/provenance.h"
#include "core/record.h"
#include "core/render.h"
#include "core/repo.h"
#include "core/report.h"
#include "core/secret.h"
#include "core/skill.h"
#include "core/state.h"
#include "core/state_journal.h"
#include "core/tree.h"
#include "core/value.h"
#include "core/worktree.h"

static void test_free__every_free_accepts_null(void **state)
{
	(void)state;
	ss_buf_release(NULL);
	ss_commit_list_release(NULL);
	ss_git_strings_free(NULL, 3);
	ss_history_release(NULL);
	ss_linediff_release(NULL);
	ss_lock_free(NULL);
	ss_merge_result_release(NULL);
	ss_outgoing_free(NULL);
	ss_outgoing_lookup_release(NULL);
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
