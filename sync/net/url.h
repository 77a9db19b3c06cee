/*
 * url.h: which service URLs skillsync will talk to.
 *
 * The rule: https anywhere; plain http only to a loopback host (localhost, 127.0.0.0/8, [::1]),
 * so that tokens and records never cross a network unencrypted. The URL is parsed as libcurl
 * will send it; one with a user name or password (`http://localhost:1@evil.invalid`, whose
 * host is evil.invalid) is refused.
 */
#ifndef SS_URL_H
#define SS_URL_H

#include <stdbool.h>

#include "core/util/buf.h"
#include "core/util/error.h"

/* True when host (without port or brackets) is localhost or a loopback address. */
bool ss_url_host_is_loopback(const char *host);

/* 0 when url may be used; SS_EINVALID with a message naming the URL when not. */
int ss_url_check(const char *url, ss_error *err);

/* Appends s percent-encoded (everything but RFC 3986's unreserved characters). */
void ss_url_encode(ss_buf *out, const char *s);

/*
 * The value of the query parameter name in url (after its '?', before any '#'), decoded
 * (%XX and '+'): *out malloc'd, or NULL when url has none or it does not decode to a
 * string without NUL. The first one counts.
 */
void ss_url_query_param(const char *url, const char *name, char **out);

#endif
