/* url.c: which service URLs skillsync will talk to (see sync/net/url.h); part of the HTTP module,
 * so the URL is parsed by the same library that will send the request (curl's URL API). */
#include "sync/net/url.h"

#include <arpa/inet.h>
#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "core/util/mem.h"
#include "sync/net/curl_priv.h"

bool ss_url_host_is_loopback(const char *host)
{
	struct in_addr v4;
	struct in6_addr v6;

	if (!strcasecmp(host, "localhost"))
		return true;
	if (inet_pton(AF_INET, host, &v4) == 1)
		return (ntohl(v4.s_addr) >> 24) == 127;
	if (inet_pton(AF_INET6, host, &v6) == 1)
		return IN6_IS_ADDR_LOOPBACK(&v6);
	return false;
}

/* Whether the URL has part (a user name or password). */
static bool has_part(CURLU *u, CURLUPart part)
{
	char *v = NULL;
	bool has = ss_curl_fns()->url_get(u, part, &v, 0) == CURLUE_OK;

	ss_curl_fns()->free(v);
	return has;
}

int ss_url_check(const char *url, ss_error *err)
{
	CURLU *u;
	const char *sep = strstr(url, "://");
	char *scheme = NULL, *host = NULL;
	size_t len;
	int ret = 0;

	/* the spelling itself first: curl also reads "https:/h" and "https:h" as https URLs */
	if (strncasecmp(url, "https://", 8) && strncasecmp(url, "http://", 7))
		return ss_error_set(err, SS_EINVALID, "'%s' is not an http(s) URL", url);
	if (!ss_curl_load(err))
		return -1;
	u = ss_curl_fns()->url();
	if (!u)
		return ss_error_set(err, SS_ERROR, "cannot initialize libcurl");
	if (ss_curl_fns()->url_set(u, CURLUPART_URL, url, CURLU_NON_SUPPORT_SCHEME) != CURLUE_OK ||
	    ss_curl_fns()->url_get(u, CURLUPART_SCHEME, &scheme, 0) != CURLUE_OK) {
		ret = ss_error_set(err, SS_EINVALID, "'%s' is not a valid URL", url);
		goto out;
	}
	if (strcasecmp(scheme, "https") && strcasecmp(scheme, "http")) {
		ret = ss_error_set(err, SS_EINVALID, "'%s' is not an http(s) URL", url);
		goto out;
	}
	if (has_part(u, CURLUPART_USER) || has_part(u, CURLUPART_PASSWORD)) {
		ret = ss_error_set(err, SS_EINVALID,
		                   "'%s' holds a user name or password: refusing it", url);
		goto out;
	}
	/* curl reads "https:///x" as host x: a URL with an empty authority has no host. */
	if (ss_curl_fns()->url_get(u, CURLUPART_HOST, &host, 0) != CURLUE_OK || !*host ||
	    (sep && sep[3] == '/')) {
		ret = ss_error_set(err, SS_EINVALID, "'%s' has no host", url);
		goto out;
	}
	len = strlen(host);
	if (host[0] == '[' && len > 2) { /* an IPv6 address: without its brackets */
		memmove(host, host + 1, len - 2);
		host[len - 2] = '\0';
	}
	if (!strcasecmp(scheme, "http") && !ss_url_host_is_loopback(host))
		ret = ss_error_set(err, SS_EINVALID,
		                   "refusing plain http to '%s': only loopback addresses may use "
		                   "http, use https",
		                   url);
out:
	ss_curl_fns()->free(scheme);
	ss_curl_fns()->free(host);
	ss_curl_fns()->url_cleanup(u);
	return ret;
}

void ss_url_encode(ss_buf *out, const char *s)
{
	static const char hex[] = "0123456789ABCDEF";

	for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
		if ((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') ||
		    (*p >= '0' && *p <= '9') || *p == '-' || *p == '.' || *p == '_' || *p == '~') {
			ss_buf_putc(out, (char)*p);
		} else {
			ss_buf_putc(out, '%');
			ss_buf_putc(out, hex[*p >> 4]);
			ss_buf_putc(out, hex[*p & 15]);
		}
	}
}

/* Decodes the n bytes at p into out; false for a bad escape or a NUL. */
static bool decode(const char *p, size_t n, ss_buf *out)
{
	for (size_t i = 0; i < n; i++) {
		char c = p[i];

		if (c == '+') {
			c = ' ';
		} else if (c == '%') {
			char hex[3] = {0};

			if (i + 2 >= n || !isxdigit((unsigned char)p[i + 1]) ||
			    !isxdigit((unsigned char)p[i + 2]))
				return false;
			memcpy(hex, p + i + 1, 2);
			if (!(c = (char)strtol(hex, NULL, 16)))
				return false;
			i += 2;
		}
		ss_buf_putc(out, c);
	}
	return true;
}

void ss_url_query_param(const char *url, const char *name, char **out)
{
	const char *p = strchr(url, '?');
	size_t nlen = strlen(name), end = strcspn(url, "#");

	*out = NULL;
	if (!p || (size_t)(p - url) > end)
		return;
	for (p++; p < url + end;) {
		size_t len = strcspn(p, "&#");
		ss_buf v = SS_BUF_INIT;

		if (len > nlen && !strncmp(p, name, nlen) && p[nlen] == '=') {
			ss_buf_secret(&v);
			if (decode(p + nlen + 1, len - nlen - 1, &v))
				*out = ss_buf_detach(&v, NULL);
			ss_buf_release(&v);
			return;
		}
		p += len + (p[len] == '&');
	}
}
