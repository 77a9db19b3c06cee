#include "sync/url.h"

#include <arpa/inet.h>
#include <string.h>
#include <strings.h>

#include "core/mem.h"
#include <stdlib.h>

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

int ss_url_check(const char *url, ss_error *err)
{
	const char *rest, *end;
	char *host;
	bool loopback;

	if (!strncasecmp(url, "https://", 8))
		return url[8] && url[8] != '/'
		           ? 0
		           : ss_error_set(err, SS_EINVALID, "'%s' has no host", url);
	if (strncasecmp(url, "http://", 7))
		return ss_error_set(err, SS_EINVALID, "'%s' is not an http(s) URL", url);
	rest = url + 7;
	if (*rest == '[') {
		end = strchr(rest, ']');
		if (!end)
			return ss_error_set(err, SS_EINVALID, "'%s' has a malformed host", url);
		host = ss_xstrndup(rest + 1, (size_t)(end - rest - 1));
	} else {
		end = rest + strcspn(rest, ":/?#");
		host = ss_xstrndup(rest, (size_t)(end - rest));
	}
	loopback = strchr(host, '@') == NULL && ss_url_host_is_loopback(host);
	free(host);
	if (!loopback)
		return ss_error_set(err, SS_EINVALID,
		                    "refusing plain http to '%s': only loopback addresses may use "
		                    "http, use https",
		                    url);
	return 0;
}
