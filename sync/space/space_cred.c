/* space_cred.c: the run's space credential (see sync/space/space_cred.h). */
#include "sync/space/space_cred.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "core/atproto/jwt.h"
#include "core/atproto/p256.h"
#include "core/util/mem.h"
#include "core/util/secret.h"
#include "core/util/time.h"
#include "sync/identity/idcache.h"
#include "sync/space/space_proto.h"

struct ss_space_cred {
	ss_http *http;
	ss_xrpc *mine;
	char *space;
	char *authority;
	char *host;
	bool hinted;     /* host came from the identity cache, not from the DID document this run */
	ss_idcache *ids; /* the identity cache (borrowed), or NULL: the DID document every run */
	ss_p256_key *key;
	char *keyid;
	char *cred; /* a secret */
	long long renew_at;
	size_t minted;
};

int ss_space_cred_new(ss_space_cred **out, ss_http *http, ss_xrpc *mine, const char *space,
                      const char *authority, ss_error *err)
{
	ss_space_cred *c = ss_xcalloc(1, sizeof(*c));

	(void)err;
	c->http = http;
	c->mine = mine;
	c->space = ss_xstrdup(space);
	c->authority = ss_xstrdup(authority);
	*out = c;
	return 0;
}

static void drop(ss_space_cred *c)
{
	ss_secret_free(c->cred);
	c->cred = NULL;
}

void ss_space_cred_free(ss_space_cred *c)
{
	if (!c)
		return;
	drop(c);
	ss_p256_key_free(c->key);
	free(c->keyid);
	free(c->space);
	free(c->authority);
	free(c->host);
	free(c);
}

size_t ss_space_cred_minted(const ss_space_cred *c)
{
	return c->minted;
}

void ss_space_cred_use_ids(ss_space_cred *c, ss_idcache *ids)
{
	c->ids = ids;
}

/* The space host: this run's, else the identity cache's (fresh: read the DID document now). */
static int read_host(ss_space_cred *c, bool fresh, const char **host, ss_error *err)
{
	ss_idcache *own = c->ids ? NULL : ss_idcache_new(c->http, NULL);
	ss_state_ident id;
	bool read_now = false;
	int ret = 0;

	memset(&id, 0, sizeof(id));
	if (!c->host) {
		ret =
		    ss_idcache_get(c->ids ? c->ids : own, c->authority, fresh, &id, &read_now, err);
		if (ret == 0 && !id.space_host)
			ret = ss_error_set(err, SS_EINVALID,
			                   "the authority's DID document names no space host "
			                   "(#atproto_space_host) and no PDS");
		if (ret < 0) {
			ss_error_prefix(err, "cannot find the space host of '%s'", c->authority);
		} else {
			c->host = ss_xstrdup(id.space_host);
			c->hinted = !read_now;
		}
	}
	ss_state_ident_release(&id);
	ss_idcache_free(own);
	*host = c->host;
	return ret;
}

/* The hinted host failed: the DID document says where the host is now; *moved when it
 * differs. */
static int rehost(ss_space_cred *c, bool *moved, ss_error *err)
{
	char *old = c->host;
	const char *host;
	int ret;

	*moved = false;
	if (!c->hinted)
		return 0;
	c->host = NULL;
	c->hinted = false;
	ret = read_host(c, true, &host, err);
	*moved = ret == 0 && strcmp(old, host);
	if (ret < 0) {
		c->host = old;
		return ret;
	}
	free(old);
	return 0;
}

int ss_space_cred_host(ss_space_cred *c, const char **host, ss_error *err)
{
	return read_host(c, false, host, err);
}

/* Exchanges after the first, each with a new delegation token, when the host may have spent
 * the last one without answering (sync/space/space_proto.h's *again). */
#define EXCHANGE_RETRIES 2

/* A new credential: delegation token, then the signed exchange. */
static int mint(ss_space_cred *c, ss_error *err)
{
	const char *host;
	char *token = NULL;
	long long exp, now = (long long)time(NULL), margin, life;
	ss_error ignored; /* a credential without iat: its exp and our clock */
	ss_jwt jwt = {0};
	int ret;

	drop(c);
	if (!c->mine)
		return ss_error_set(
		    err, SS_EAUTH,
		    "reading a permissioned space needs a signed-in member: run "
		    "'skillsync login --oauth <handle>' (or sign in with your account "
		    "password), then clone again with '--as <handle>'");
	if ((ret = ss_space_cred_host(c, &host, err)) < 0)
		return ret;
	if (!c->key && ((ret = ss_p256_key_new(&c->key, err)) < 0 ||
	                (ret = ss_p256_did_key(c->key, &c->keyid, err)) < 0))
		return ret;
	for (int attempt = 0;; attempt++) {
		bool again;

		if ((ret = ss_space_proto_delegation(c->mine, c->space, &token, err)) < 0)
			return ret;
		ret = ss_space_proto_exchange(c->http, host, c->key, c->keyid, c->space, token,
		                              &c->cred, &again, err);
		ss_secret_free(token);
		token = NULL;
		if (ret == 0 || !again || attempt == EXCHANGE_RETRIES)
			break;
		/* the host may have spent that token: a new one, never the same one again */
		ss_time_sleep_ms(ss_http_backoff_ms(ss_http_get_options(c->http), attempt + 1));
	}
	if (ret < 0 && err->code == SS_ENETWORK && c->hinted) {
		ss_error why = *err;
		bool moved;

		/* the host this clone knew is gone: where does the DID document say it is now */
		if (rehost(c, &moved, err) < 0 || !moved) {
			*err = why;
			return ret;
		}
		return mint(c, err);
	}
	if (ret < 0) {
		/* a host of another alpha: said in one line rather than as a parse error */
		ss_space_proto_alpha_explain(c->http, host, SS_SPACE_NSID_CREDENTIAL, NULL, err);
		return ret;
	}
	c->minted++;
	if (ss_xrpc_jwt_exp(c->cred, &exp, err) < 0) {
		drop(c);
		return ss_error_prefix(err, "the space host's credential");
	}
	/* Its life by the host's clock (exp - iat, else exp - now), counted on ours from now: a
	 * clock off by minutes neither renews at every request nor keeps an expired one. */
	life = exp - now;
	if (ss_jwt_parse(&jwt, c->cred, &ignored) == 0 && jwt.has_iat && jwt.iat > 0 &&
	    jwt.exp == exp && exp > jwt.iat)
		life = jwt.exp - jwt.iat;
	ss_jwt_release(&jwt);
	now = (long long)time(NULL);
	/* renew SS_SPACE_RENEW_MARGIN_S before it ends, or at half its life when that is shorter */
	margin = life > 0 ? life / 2 : 0;
	if (margin > SS_SPACE_RENEW_MARGIN_S)
		margin = SS_SPACE_RENEW_MARGIN_S;
	c->renew_at = now + (life > 0 ? life : 0) - margin;
	return 0;
}

int ss_space_cred_get(ss_space_cred *c, const char *service, const char *nsid,
                      const char *const *params, const char *audience, ss_buf *body, ss_error *err)
{
	bool renew = false;
	int ret;

	if ((!c->cred || (long long)time(NULL) >= c->renew_at) && (ret = mint(c, err)) < 0)
		return ret;
	/* the space host is read after minting: minting may have found it moved */
	ret = ss_space_proto_get(c->http, service ? service : c->host, nsid, params, c->key,
	                         c->keyid, c->cred, audience, body, &renew, err);
	if (ret < 0 && renew) {
		ss_error refused = *err;

		/* refused (expired, revoked, signature): once more with a new credential */
		if ((ret = mint(c, err)) < 0) {
			/* revoked, and no new one for me (not a member any more): say it was
			 * revoked */
			if (err->code == SS_EAUTH && refused.code == SS_EAUTH &&
			    strstr(refused.message, "CredentialRevoked"))
				*err = refused;
			return ret;
		}
		ret = ss_space_proto_get(c->http, service ? service : c->host, nsid, params, c->key,
		                         c->keyid, c->cred, audience, body, &renew, err);
	}
	return ret;
}
