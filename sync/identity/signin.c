#include "sync/identity/signin.h"

#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "core/atproto/crypto.h"
#include "core/util/base64.h"
#include "core/util/mem.h"
#include "core/util/secret.h"
#include "core/util/utf8.h"
#include "sync/identity/identity.h"
#include "sync/net/oauth.h"
#include "sync/net/url.h"

#define MAX_REQUEST 8192

struct ss_signin {
	ss_http *http;
	ss_identity id;
	ss_oauth_server server;
	ss_oauth_client client;
	ss_p256_key *key;
	char *client_id, *redirect_uri, *verifier, *state, *url;
	int listener;
};

void ss_signin_free(ss_signin *s)
{
	if (!s)
		return;
	ss_identity_release(&s->id);
	ss_oauth_server_release(&s->server);
	ss_p256_key_free(s->key);
	free(s->client_id);
	free(s->redirect_uri);
	ss_secret_free(s->verifier);
	free(s->state);
	free(s->url);
	if (s->listener >= 0)
		close(s->listener);
	free(s);
}

const char *ss_signin_url(const ss_signin *s)
{
	return s->url;
}

/* n random bytes as base64url. */
static int random_text(size_t n, char **out, ss_error *err)
{
	uint8_t bytes[64];
	ss_buf b = SS_BUF_INIT;

	if (ss_crypto_random_bytes(bytes, n, err) < 0)
		return -1;
	ss_buf_secret(&b);
	ss_base64_encode(&b, bytes, n, SS_BASE64_URL, false);
	*out = ss_buf_detach(&b, NULL);
	ss_secret_wipe(bytes, sizeof(bytes));
	return 0;
}

/* Listens on 127.0.0.1, a free port; the redirect URI and the loopback client id. */
static int listen_loopback(ss_signin *s, const char *scope, ss_error *err)
{
	struct sockaddr_in a = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
	socklen_t len = sizeof(a);
	ss_buf b = SS_BUF_INIT;

	s->listener = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (s->listener < 0 || bind(s->listener, (struct sockaddr *)&a, sizeof(a)) < 0 ||
	    listen(s->listener, 4) < 0 || getsockname(s->listener, (struct sockaddr *)&a, &len) < 0)
		return ss_error_set(err, SS_ERROR, "cannot listen on 127.0.0.1 for the sign-in: %s",
		                    strerror(errno));
	ss_buf_printf(&b, "http://127.0.0.1:%u/callback", (unsigned)ntohs(a.sin_port));
	s->redirect_uri = ss_buf_detach(&b, NULL);
	ss_buf_puts(&b, "http://localhost?redirect_uri=");
	ss_url_encode(&b, s->redirect_uri);
	ss_buf_puts(&b, "&scope=");
	ss_url_encode(&b, scope);
	s->client_id = ss_buf_detach(&b, NULL);
	return 0;
}

/* PAR, then the authorization URL. */
static int push_request(ss_signin *s, const char *scope, ss_error *err)
{
	uint8_t hash[SS_SHA256_LEN];
	ss_buf challenge = SS_BUF_INIT, url = SS_BUF_INIT;
	char *request_uri = NULL;
	int ret;

	ss_crypto_sha256(s->verifier, strlen(s->verifier), hash);
	ss_base64_encode(&challenge, hash, sizeof(hash), SS_BASE64_URL, false);
	const char *form[] = {"response_type",
	                      "code",
	                      "redirect_uri",
	                      s->redirect_uri,
	                      "scope",
	                      scope,
	                      "state",
	                      s->state,
	                      "code_challenge",
	                      challenge.ptr,
	                      "code_challenge_method",
	                      "S256",
	                      "login_hint",
	                      s->id.handle ? s->id.handle : s->id.did,
	                      NULL};
	if ((ret = ss_oauth_par(s->http, &s->client, s->server.par, form, &request_uri, err)) < 0)
		goto out;
	ss_buf_printf(&url, "%s?client_id=", s->server.authorize);
	ss_url_encode(&url, s->client_id);
	ss_buf_puts(&url, "&request_uri=");
	ss_url_encode(&url, request_uri);
	s->url = ss_buf_detach(&url, NULL);
out:
	free(request_uri);
	ss_buf_release(&challenge);
	ss_buf_release(&url);
	return ret;
}

int ss_signin_begin(ss_http *http, const char *who, const char *scope, ss_signin **out,
                    ss_error *err)
{
	ss_signin *s = ss_xcalloc(1, sizeof(*s));
	int ret;

	s->http = http;
	s->listener = -1;
	if ((ret = ss_identity_resolve(http, who, &s->id, err)) < 0 ||
	    (ret = ss_oauth_discover(http, s->id.pds, &s->server, err)) < 0 ||
	    (ret = ss_p256_key_new(&s->key, err)) < 0 ||
	    (ret = random_text(32, &s->verifier, err)) < 0 ||
	    (ret = random_text(16, &s->state, err)) < 0 ||
	    (ret = listen_loopback(s, scope, err)) < 0)
		goto out;
	s->client.client_id = s->client_id;
	s->client.key = s->key;
	if ((ret = push_request(s, scope, err)) < 0)
		goto out;
	*out = s;
	s = NULL;
out:
	ss_signin_free(s);
	return ret;
}

/* Reads the request line of one connection ("GET <target> HTTP/1.1") into target; answers
 * the browser with a page saying where to look next. */
static void take_request(int fd, ss_buf *target)
{
	char buf[MAX_REQUEST + 1];
	size_t len = 0;
	ssize_t n;
	static const char page[] =
	    "HTTP/1.1 200 OK\r\nContent-Type: text/plain; charset=utf-8\r\nConnection: close\r\n"
	    "Cache-Control: no-store\r\n\r\nskillsync: this sign-in is over; the terminal says how "
	    "it went. You can close this page.\n";

	while (len < MAX_REQUEST && !memchr(buf, '\n', len) &&
	       (n = read(fd, buf + len, MAX_REQUEST - len)) > 0)
		len += (size_t)n;
	buf[len] = '\0';
	if (!strncmp(buf, "GET ", 4)) {
		size_t end = strcspn(buf + 4, " \r\n");

		ss_buf_put(target, buf + 4, end);
	}
	ss_secret_wipe(buf, sizeof(buf));
	if (write(fd, page, sizeof(page) - 1) < 0) {
		/* the browser went away: nothing to tell it */
	}
}

/* Waits for a redirect on the listener or a line on paste_fd; *url is what arrived. */
static int wait_redirect(ss_signin *s, int paste_fd, int timeout_s, ss_buf *url, ss_error *err)
{
	time_t deadline = time(NULL) + timeout_s;

	while (!url->len) {
		struct pollfd p[2] = {{.fd = s->listener, .events = POLLIN},
		                      {.fd = paste_fd, .events = POLLIN}};
		long left = (long)(deadline - time(NULL));
		int n;

		if (left <= 0)
			return ss_error_set(
			    err, SS_EAUTH,
			    "the sign-in was not finished within %d s: run 'skillsync "
			    "login --oauth' again",
			    timeout_s);
		n = poll(p, paste_fd >= 0 ? 2 : 1, (int)(left * 1000));
		if (n < 0 && errno != EINTR)
			return ss_error_set(err, SS_ERROR, "cannot wait for the sign-in: %s",
			                    strerror(errno));
		if (n > 0 && (p[0].revents & POLLIN)) {
			int c = accept(s->listener, NULL, NULL);

			if (c >= 0) {
				ss_buf target = SS_BUF_INIT;

				ss_buf_secret(&target);
				take_request(c, &target);
				close(c);
				if (!strncmp(target.ptr, "/callback?", 10))
					ss_buf_printf(url, "http://127.0.0.1%s", target.ptr);
				ss_buf_release(&target);
			}
		}
		if (n > 0 && paste_fd >= 0 && (p[1].revents & (POLLIN | POLLHUP))) {
			char line[MAX_REQUEST];
			ssize_t r = read(paste_fd, line, sizeof(line) - 1);

			if (r <= 0)
				return ss_error_set(err, SS_EAUTH, "the sign-in was cancelled");
			line[r] = '\0';
			line[strcspn(line, "\r\n")] = '\0';
			ss_buf_puts(url, line);
			ss_secret_wipe(line, sizeof(line));
		}
	}
	return 0;
}

/* The redirect's answer: the code when it is this sign-in's, else an error. */
static int check_answer(ss_signin *s, const char *url, char **code, ss_error *err)
{
	char *state = NULL, *iss = NULL, *error = NULL;
	int ret = 0;

	ss_url_query_param(url, "state", &state);
	ss_url_query_param(url, "iss", &iss);
	ss_url_query_param(url, "error", &error);
	ss_url_query_param(url, "code", code);
	if (!state || strcmp(state, s->state))
		ret = ss_error_set(
		    err, SS_EAUTH,
		    "the sign-in's answer is not for this sign-in (its state differs)");
	else if (error)
		ret = ss_error_set(err, SS_EAUTH, "the sign-in was refused or cancelled (%s)",
		                   strcmp(error, "access_denied") ? "the server said no"
		                                                  : "access denied");
	else if (!iss || strcmp(iss, s->server.issuer))
		ret = ss_error_set(err, SS_EAUTH,
		                   "the sign-in's answer names another issuer than '%s'",
		                   s->server.issuer);
	else if (!*code)
		ret = ss_error_set(err, SS_EAUTH, "the sign-in's answer has no code");
	free(state);
	free(iss);
	free(error);
	return ret;
}

/* Exchanges code for tokens that must be the account's and keeps them. */
static int exchange(ss_signin *s, const char *code, ss_session_info *out, ss_error *err)
{
	const char *form[] = {
	    "grant_type",    "authorization_code", "code",      code, "redirect_uri",
	    s->redirect_uri, "code_verifier",      s->verifier, NULL};
	ss_oauth_tokens t = {0};
	int ret;

	if ((ret = ss_oauth_token(s->http, &s->client, s->server.token, form, &t, err)) < 0)
		return ret;
	if (strcmp(t.sub, s->id.did)) {
		ss_buf who = SS_BUF_INIT;

		ss_utf8_escape_line(&who, t.sub, 200);
		ret =
		    ss_error_set(err, SS_EAUTH,
		                 "the authorization server signed in '%s', not '%s': nothing kept",
		                 who.ptr, s->id.did);
		ss_buf_release(&who);
		goto out;
	}
	ss_session_oauth o = {
	    .did = s->id.did,
	    .handle = s->id.handle,
	    .pds = s->id.pds,
	    .issuer = s->server.issuer,
	    .client_id = s->client_id,
	    .token_ep = s->server.token,
	    .revoke_ep = s->server.revoke,
	    .scope = t.scope,
	    .access = t.access,
	    .refresh = t.refresh,
	    .key = s->key,
	};
	ret = ss_session_save_oauth(&o, out, err);
out:
	ss_oauth_tokens_release(&t);
	return ret;
}

int ss_signin_finish(ss_signin *s, int paste_fd, int timeout_s, ss_session_info *out, ss_error *err)
{
	ss_buf url = SS_BUF_INIT;
	char *code = NULL;
	int ret;

	ss_buf_secret(&url);
	if ((ret = wait_redirect(s, paste_fd, timeout_s, &url, err)) == 0 &&
	    (ret = check_answer(s, url.ptr, &code, err)) == 0)
		ret = exchange(s, code, out, err);
	ss_secret_free(code);
	ss_buf_release(&url);
	return ret;
}
