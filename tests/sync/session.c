#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <cmocka.h>

#include "core/util/base64.h"
#include "core/util/buf.h"
#include "core/util/fs.h"
#include "core/util/mem.h"
#include "support/support.h"
#include "sync/identity/session.h"
#include "sync/net/http.h"
#include "sync/net/xrpc.h"
#include "sync/net/xrpc_server.h"
#include "sync/pds.h"

typedef struct fixture {
	char *dir;
	ss_http *http;
	ss_test_account *acct;
	ss_buf file; /* the account's session file */
} fixture;

static int setup(void **state)
{
	fixture *f = ss_xcalloc(1, sizeof(*f));
	ss_error err;

	f->dir = ss_test_tmpdir();
	ss_fs_join(&f->file, f->dir, "config");
	setenv("SKILLSYNC_CONFIG_HOME", f->file.ptr, 1);
	ss_buf_clear(&f->file);
	f->acct = ss_test_pds_new_account("sess");
	ss_buf_printf(&f->file, "%s/config/sessions/%s.session", f->dir, f->acct->did);
	assert_int_equal(ss_http_new(&f->http, NULL, &err), 0);
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	fixture *f = *state;

	unsetenv("SKILLSYNC_CONFIG_HOME");
	ss_http_free(f->http);
	ss_test_account_free(f->acct);
	ss_buf_release(&f->file);
	ss_test_tmpdir_free(f->dir);
	free(f);
	return 0;
}

static void read_file(ss_buf *out, const char *path)
{
	ss_error err;

	ss_buf_clear(out);
	assert_int_equal(ss_fs_read_file(out, path, 0, &err), 0);
}

/* The value of "<key> <value>" in the session file. */
static char *field(fixture *f, const char *key)
{
	ss_buf text = SS_BUF_INIT;
	char *p, *end, *v;
	size_t klen = strlen(key);

	read_file(&text, f->file.ptr);
	for (p = text.ptr; p; p = strchr(p, '\n') ? strchr(p, '\n') + 1 : NULL)
		if (!strncmp(p, key, klen) && p[klen] == ' ')
			break;
	assert_non_null(p);
	end = strchr(p, '\n');
	v = ss_xstrndup(p + klen + 1, (size_t)(end - p - klen - 1));
	ss_buf_release(&text);
	return v;
}

/* Replaces the stored access token with one whose payload says exp and whose signature is
 * not the server's. */
static void plant_access_token(fixture *f, long long exp)
{
	ss_buf payload = SS_BUF_INIT, jwt = SS_BUF_INIT, text = SS_BUF_INIT, out = SS_BUF_INIT;
	char *access = field(f, "access");
	ss_error err;

	ss_buf_printf(&payload, "{\"scope\":\"com.atproto.access\",\"sub\":\"%s\",\"exp\":%lld}",
	              f->acct->did, exp);
	ss_buf_put(&jwt, access, strcspn(access, "."));
	ss_buf_putc(&jwt, '.');
	assert_int_equal(ss_base64_encode(&jwt, payload.ptr, payload.len, SS_BASE64_URL, false), 0);
	ss_buf_puts(&jwt, ".bm90LXRoZS1zaWduYXR1cmU");
	read_file(&text, f->file.ptr);
	for (char *line = text.ptr; *line;) {
		char *nl = strchr(line, '\n');
		size_t n = nl ? (size_t)(nl - line) : strlen(line);

		if (!strncmp(line, "access ", 7))
			ss_buf_printf(&out, "access %s\n", jwt.ptr);
		else
			ss_buf_printf(&out, "%.*s\n", (int)n, line);
		line += n + (nl ? 1 : 0);
	}
	assert_int_equal(ss_fs_write_atomic(f->file.ptr, out.ptr, out.len, 0600, &err), 0);
	free(access);
	ss_buf_release(&payload);
	ss_buf_release(&jwt);
	ss_buf_release(&text);
	ss_buf_release(&out);
}

static void login(fixture *f)
{
	ss_session_info info = {0};
	ss_error err;

	assert_int_equal(ss_session_login(f->http, f->acct->handle, f->acct->password, &info, &err),
	                 0);
	assert_string_equal(info.did, f->acct->did);
	assert_string_equal(info.handle, f->acct->handle);
	ss_session_info_release(&info);
}

/* getSession through a client from ss_session_open(who). */
static int whoami(fixture *f, const char *who, ss_error *err)
{
	ss_xrpc_session s = {0};
	ss_xrpc *x = NULL;
	int ret = ss_session_open(f->http, who, &x, NULL, err);

	if (!ret)
		ret = ss_xrpc_get_session(x, &s, err);
	if (!ret)
		assert_string_equal(s.did, f->acct->did);
	ss_xrpc_session_release(&s);
	ss_xrpc_free(x);
	return ret;
}

static void test_session__login_keeps_a_private_session(void **state)
{
	fixture *f = *state;
	ss_session_info *list;
	ss_buf text = SS_BUF_INIT, dir = SS_BUF_INIT;
	struct stat st;
	size_t n;
	ss_error err;

	login(f);
	assert_int_equal(stat(f->file.ptr, &st), 0);
	assert_int_equal(st.st_mode & 0777, 0600);
	ss_buf_printf(&dir, "%s/config/sessions", f->dir);
	assert_int_equal(stat(dir.ptr, &st), 0);
	assert_int_equal(st.st_mode & 0777, 0700);
	read_file(&text, f->file.ptr);
	assert_null(strstr(text.ptr, f->acct->password));
	assert_int_equal(ss_session_list(&list, &n, &err), 0);
	assert_int_equal(n, 1);
	assert_string_equal(list[0].did, f->acct->did);
	assert_string_equal(list[0].handle, f->acct->handle);
	assert_string_equal(list[0].pds, ss_test_pds()->pds);
	ss_session_list_free(list, n);
	/* By the only session, by handle, by DID. */
	assert_int_equal(whoami(f, NULL, &err), 0);
	assert_int_equal(whoami(f, f->acct->handle, &err), 0);
	assert_int_equal(whoami(f, f->acct->did, &err), 0);
	SS_ASSERT_FAILS(whoami(f, "someone-else.test", &err), err, SS_EAUTH);
	assert_string_equal(err.message, "not signed in as 'someone-else.test' (run 'skillsync "
	                                 "login someone-else.test')");
	ss_buf_release(&text);
	ss_buf_release(&dir);
}

static void test_session__wrong_password_keeps_nothing(void **state)
{
	fixture *f = *state;
	ss_session_info *list;
	size_t n;
	struct stat st;
	ss_error err;

	SS_ASSERT_FAILS(ss_session_login(f->http, f->acct->handle, "not-the-password", NULL, &err),
	                err, SS_EAUTH);
	assert_non_null(strstr(err.message, "cannot sign in as '"));
	assert_non_null(strstr(err.message, "Invalid identifier or password"));
	assert_true(stat(f->file.ptr, &st) < 0);
	assert_int_equal(ss_session_list(&list, &n, &err), 0);
	assert_int_equal(n, 0);
	SS_ASSERT_FAILS(whoami(f, NULL, &err), err, SS_EAUTH);
	assert_string_equal(err.message, "not signed in (run 'skillsync login <handle>')");
}

static void test_session__expired_token_is_refreshed_and_saved(void **state)
{
	fixture *f = *state;
	char *refresh_before, *refresh_after, *access_after;
	ss_error err;

	login(f);
	refresh_before = field(f, "refresh");
	plant_access_token(f, 1000); /* expired in 1970 */
	assert_int_equal(whoami(f, NULL, &err), 0);
	refresh_after = field(f, "refresh");
	access_after = field(f, "access");
	assert_string_not_equal(refresh_before, refresh_after); /* rotated and saved */
	assert_null(strstr(access_after, "bm90LXRoZS1zaWduYXR1cmU"));
	free(refresh_before);
	free(refresh_after);
	free(access_after);
}

static void test_session__token_refused_by_server_is_refreshed_once(void **state)
{
	fixture *f = *state;
	char *refresh_before, *refresh_after;
	ss_error err;

	login(f);
	refresh_before = field(f, "refresh");
	/* Not expired by its claim, but the server cannot verify it: InvalidToken. */
	plant_access_token(f, 4102444800LL);
	assert_int_equal(whoami(f, NULL, &err), 0);
	refresh_after = field(f, "refresh");
	assert_string_not_equal(refresh_before, refresh_after);
	free(refresh_before);
	free(refresh_after);
}

static void test_session__ended_session_asks_to_login(void **state)
{
	fixture *f = *state;
	ss_buf copy = SS_BUF_INIT;
	ss_session_info info = {0};
	ss_error err;

	login(f);
	read_file(&copy, f->file.ptr);
	assert_int_equal(ss_session_logout(f->http, NULL, &info, &err), 0);
	assert_string_equal(info.did, f->acct->did);
	ss_session_info_release(&info);
	SS_ASSERT_FAILS(whoami(f, NULL, &err), err, SS_EAUTH);
	/* The copy's refresh token was revoked by the logout. */
	assert_int_equal(ss_fs_write_atomic(f->file.ptr, copy.ptr, copy.len, 0600, &err), 0);
	plant_access_token(f, 1000);
	SS_ASSERT_FAILS(whoami(f, NULL, &err), err, SS_EAUTH);
	assert_non_null(strstr(err.message, "has ended (run 'skillsync login "));
	ss_buf_release(&copy);
}

static void test_session__several_accounts_need_a_name(void **state)
{
	fixture *f = *state;
	ss_test_account *other = ss_test_pds_new_account("sess2");
	ss_session_info *list;
	size_t n;
	ss_error err;

	login(f);
	assert_int_equal(ss_session_login(f->http, other->did, other->password, NULL, &err), 0);
	assert_int_equal(ss_session_list(&list, &n, &err), 0);
	assert_int_equal(n, 2);
	assert_true(strcmp(list[0].did, list[1].did) < 0);
	ss_session_list_free(list, n);
	SS_ASSERT_FAILS(whoami(f, NULL, &err), err, SS_EAUTH);
	assert_non_null(strstr(err.message, "signed in as 2 accounts"));
	assert_int_equal(whoami(f, f->acct->handle, &err), 0);
	assert_int_equal(ss_session_logout(f->http, other->handle, NULL, &err), 0);
	assert_int_equal(whoami(f, NULL, &err), 0);
	ss_test_account_free(other);
}

int test_session_run(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test_setup_teardown(test_session__login_keeps_a_private_session, setup,
	                                    teardown),
	    cmocka_unit_test_setup_teardown(test_session__wrong_password_keeps_nothing, setup,
	                                    teardown),
	    cmocka_unit_test_setup_teardown(test_session__expired_token_is_refreshed_and_saved,
	                                    setup, teardown),
	    cmocka_unit_test_setup_teardown(test_session__token_refused_by_server_is_refreshed_once,
	                                    setup, teardown),
	    cmocka_unit_test_setup_teardown(test_session__ended_session_asks_to_login, setup,
	                                    teardown),
	    cmocka_unit_test_setup_teardown(test_session__several_accounts_need_a_name, setup,
	                                    teardown),
	};
	return cmocka_run_group_tests_name("sync/session", tests, NULL, NULL);
}
