/*
 * xrpc_page.c: the listing's defences against a hostile server (tests/support/hostile_pds.py
 * on loopback): cursors that go round, endless listings, junk pages, pages over the response
 * cap, and records that JSON parsers refuse.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>
#include <cmocka.h>

#include "core/skill/record.h"
#include "core/skill/report.h"
#include "core/skill/skill.h"
#include "core/util/buf.h"
#include "core/util/mem.h"
#include "sync/net/http.h"
#include "sync/net/xrpc.h"
#include "sync/net/xrpc_repo.h"

#define COLL "garden.engram.skill"

typedef struct server {
	pid_t pid;
	char dir[64];
	char base[64]; /* http://127.0.0.1:<port> */
} server;

static int start(void **state)
{
	server *s = ss_xcalloc(1, sizeof(*s));
	char portfile[128], script[1024];
	int port = 0;

	snprintf(s->dir, sizeof(s->dir), "/tmp/ss-hostile-XXXXXX");
	assert_non_null(mkdtemp(s->dir));
	snprintf(portfile, sizeof(portfile), "%s/port", s->dir);
	snprintf(script, sizeof(script), "%s/tests/support/hostile_pds.py",
	         getenv("SS_SOURCE_DIR"));
	s->pid = fork();
	assert_true(s->pid >= 0);
	if (s->pid == 0) {
		execlp("python3", "python3", script, portfile, (char *)NULL);
		_exit(127);
	}
	for (int i = 0; i < 200 && !port; i++) {
		FILE *f = fopen(portfile, "r");

		if (!f || fscanf(f, "%d", &port) != 1)
			usleep(50000);
		if (f)
			fclose(f);
	}
	assert_true(port > 0);
	snprintf(s->base, sizeof(s->base), "http://127.0.0.1:%d", port);
	*state = s;
	return 0;
}

static int stop(void **state)
{
	server *s = *state;
	char cmd[128];

	kill(s->pid, SIGTERM);
	waitpid(s->pid, NULL, 0);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", s->dir);
	assert_int_equal(system(cmd), 0);
	free(s);
	return 0;
}

typedef struct listed {
	size_t n, problems;
	ss_buf names;    /* "rkey:problem-or-ok\n" per entry */
	ss_buf verdicts; /* "rkey: <decoder's verdict>\n" per readable entry */
} listed;

static int collect(void *payload, const ss_xrpc_record *rec, ss_error *err)
{
	listed *l = payload;
	ss_report *rep;
	ss_skill *skill = NULL;

	(void)err;
	l->n++;
	ss_buf_printf(&l->names, "%s:%s\n", rec->rkey ? rec->rkey : "-",
	              rec->problem ? rec->problem : "ok");
	if (rec->problem) {
		l->problems++;
		return 0;
	}
	if (l->n > 20)
		return 0; /* the endless listings: no need to decode every copy */
	rep = ss_report_new();
	if (ss_record_decode(rec->value_json, rec->value_len, rec->rkey, &skill, NULL, rep) == 0) {
		ss_buf_printf(&l->verdicts, "%s: valid\n", rec->rkey);
	} else {
		ss_buf_printf(&l->verdicts, "%s: ", rec->rkey);
		ss_report_format(ss_report_at(rep, 0), &l->verdicts);
		ss_buf_putc(&l->verdicts, '\n');
	}
	ss_skill_free(skill);
	ss_report_free(rep);
	return 0;
}

/* Lists the repo did:plc:x of the server's mode with http; rc of the listing. */
static int list(server *s, const char *mode, const ss_http_options *opts, listed *l, ss_error *err)
{
	ss_http *http = NULL;
	ss_xrpc *x = NULL;
	ss_buf svc = SS_BUF_INIT;
	ss_error e2;
	int rc;

	memset(l, 0, sizeof(*l));
	ss_buf_init(&l->names);
	ss_buf_init(&l->verdicts);
	ss_buf_printf(&svc, "%s/%s", s->base, mode);
	assert_int_equal(ss_http_new(&http, opts, &e2), 0);
	assert_int_equal(ss_xrpc_new(&x, http, svc.ptr, &e2), 0);
	rc = ss_xrpc_list_records(x, "did:plc:x", COLL, collect, l, err);
	ss_xrpc_free(x);
	ss_http_free(http);
	ss_buf_release(&svc);
	return rc;
}

static void listed_release(listed *l)
{
	ss_buf_release(&l->names);
	ss_buf_release(&l->verdicts);
}

static void test_xrpc_page__cursors_that_come_back_end_the_listing(void **state)
{
	listed l;
	ss_error err;

	assert_true(list(*state, "alternate", NULL, &l, &err) < 0);
	assert_non_null(strstr(err.message, "a cursor it had sent before"));
	assert_true(l.n <= 3);
	listed_release(&l);
}

static void test_xrpc_page__an_endless_listing_is_capped(void **state)
{
	listed l;
	ss_error err;

	assert_true(list(*state, "endless", NULL, &l, &err) < 0);
	assert_non_null(strstr(err.message, "more than 100000 records"));
	assert_int_equal(l.n, SS_XRPC_LIST_MAX_RECORDS);
	listed_release(&l);
}

static void test_xrpc_page__a_junk_page_costs_its_bytes_not_a_tree(void **state)
{
	struct rusage ru;
	listed l;
	ss_error err;

	assert_int_equal(list(*state, "junkpage", NULL, &l, &err), 0);
	assert_string_equal(l.names.ptr, "junk-after-0:ok\njunk-after-1:ok\njunk-after-2:ok\n");
	/* The page is ~60 MB of `[]`: as a JSON tree it took ~2.6 GB; as bytes, its buffer. */
	getrusage(RUSAGE_SELF, &ru);
	assert_true(ru.ru_maxrss < 400 * 1024);
	listed_release(&l);
}

static void test_xrpc_page__a_page_over_the_cap_is_asked_again_smaller(void **state)
{
	ss_http_options opts = {.max_response = 1000000};
	listed l;
	ss_error err;

	assert_int_equal(list(*state, "toobig", &opts, &l, &err), 0);
	assert_int_equal(l.n, 50);
	assert_int_equal(l.problems, 0);
	listed_release(&l);
}

static void test_xrpc_page__bad_records_are_skipped_one_by_one(void **state)
{
	listed l;
	ss_error err;

	assert_int_equal(list(*state, "badrecs", NULL, &l, &err), 0);
	assert_string_equal(l.names.ptr, "good-one:ok\nbig-int:ok\ndeep-one:ok\ndup-key:ok\n"
	                                 "two-values:the record's entry holds two values\n"
	                                 "good-two:ok\n");
	/* Each value is decoded on its own, from the server's text: */
	assert_non_null(strstr(l.verdicts.ptr, "good-one: valid\n"));
	assert_non_null(strstr(l.verdicts.ptr, "good-two: valid\n"));
	assert_non_null(strstr(l.verdicts.ptr, "big-int: record is not valid JSON"));
	assert_non_null(strstr(l.verdicts.ptr, "deep-one: record is not valid JSON"));
	assert_non_null(strstr(l.verdicts.ptr, "dup-key: record gives the key \"name\" twice"));
	listed_release(&l);
}

int test_xrpc_page_run(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_xrpc_page__cursors_that_come_back_end_the_listing),
	    cmocka_unit_test(test_xrpc_page__an_endless_listing_is_capped),
	    cmocka_unit_test(test_xrpc_page__a_junk_page_costs_its_bytes_not_a_tree),
	    cmocka_unit_test(test_xrpc_page__a_page_over_the_cap_is_asked_again_smaller),
	    cmocka_unit_test(test_xrpc_page__bad_records_are_skipped_one_by_one),
	};

	return cmocka_run_group_tests_name("xrpc_page", tests, start, stop);
}
