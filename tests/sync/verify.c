/*
 * verify.c: a listed record against a signed tree (ss_verify_listed): the one version the
 * tree names passes; a record the tree does not hold, another CID, or a value that does not
 * hash to its CID is refused with its reason; the node cache's file names.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "core/skill/record.h"
#include "core/util/buf.h"
#include "sync/public/verify.h"

static const char value[] = "{\"$type\":\"garden.engram.skill\",\"name\":\"a\","
                            "\"description\":\"d\",\"instructions\":\"x\"}";
static const char changed[] = "{\"$type\":\"garden.engram.skill\",\"name\":\"a\","
                              "\"description\":\"changed\",\"instructions\":\"x\"}";

static void test_verify__listed_against_the_tree(void **state)
{
	ss_verify_entry entries[2];
	char ka[] = "a", kb[] = "b";
	ss_verify_tree t;
	char *cid = NULL, *other = NULL;
	ss_error err;

	(void)state;
	assert_int_equal(ss_record_cid_from_json(value, strlen(value), &cid, &err), 0);
	assert_int_equal(ss_record_cid_from_json(changed, strlen(changed), &other, &err), 0);
	memset(&t, 0, sizeof(t));
	memset(entries, 0, sizeof(entries));
	entries[0].rkey = ka;
	strcpy(entries[0].cid, cid);
	entries[1].rkey = kb;
	strcpy(entries[1].cid, other);
	t.entries = entries;
	t.n = 2;

	assert_null(ss_verify_listed(&t, "a", cid, value, strlen(value)));
	assert_true(entries[0].seen);
	assert_false(entries[1].seen);
	assert_string_equal(ss_verify_listed(&t, "a", cid, changed, strlen(changed)),
	                    "its value does not hash to its CID (changed on the way)");
	assert_string_equal(ss_verify_listed(&t, "a", other, changed, strlen(changed)),
	                    "its CID is not the one the member's signed tree names");
	assert_string_equal(ss_verify_listed(&t, "c", cid, value, strlen(value)),
	                    "the member's signed tree holds no such record");
	/* b's entry names changed's CID: the right value under the right CID passes */
	assert_null(ss_verify_listed(&t, "b", other, changed, strlen(changed)));
	assert_true(entries[1].seen);
	free(cid);
	free(other);
}

static void test_verify__cache_names(void **state)
{
	ss_buf dir = SS_BUF_INIT, path = SS_BUF_INIT;

	(void)state;
	ss_verify_cache_dir(&dir, "/x/.git/skillsync/state.db");
	assert_string_equal(dir.ptr, "/x/.git/skillsync/verified");
	ss_verify_cache_path(&path, dir.ptr, "did:web:a%3A8080", "car");
	assert_string_equal(path.ptr, "/x/.git/skillsync/verified/did_web_a_3A8080.car");
	ss_buf_release(&dir);
	ss_buf_release(&path);
}

int test_verify_run(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_verify__listed_against_the_tree),
	    cmocka_unit_test(test_verify__cache_names),
	};
	return cmocka_run_group_tests_name("sync/verify", tests, NULL, NULL);
}
