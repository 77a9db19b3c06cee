/*
 * curl.c: libcurl loaded by the first command that talks to the network, not linked: libcurl
 * and the ~30 libraries it brings (TLS, HTTP/2, IDN, LDAP, Kerberos, SSH) cost each start of
 * skillsync ~5 ms to map and relocate, for the commands that never open a connection (status,
 * diff, commit, log: docs/BENCHMARKS.md). The headers are still libcurl's: the functions keep
 * their types, checked at build time.
 */
#include "sync/net/curl_priv.h"

#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include "core/util/platform.h"

/* The soname of libcurl's ABI 4 (every libcurl since 7.16, 2006). */
#define LIBCURL "libcurl.so.4"

static pthread_once_t once = PTHREAD_ONCE_INIT;
static ss_curl_api api;
static char failure[256]; /* why it could not be loaded, "" when it was */

static void load(void)
{
	/* POSIX's way to a function's address from dlsym's void *: copied as bytes */
#define SS_CURL_NAME(name) "curl_" #name,
	static const char *const names[] = {SS_CURL_FUNCTIONS(SS_CURL_NAME)};
#undef SS_CURL_NAME
	void *fns[sizeof(names) / sizeof(names[0])];
	size_t i = 0;

	if (ss_platform_dl_load(LIBCURL, names, sizeof(names) / sizeof(names[0]), fns, failure,
	                        sizeof(failure)) < 0)
		return;
#define SS_CURL_SET(name) memcpy(&api.name, &fns[i++], sizeof(void *));
	SS_CURL_FUNCTIONS(SS_CURL_SET)
#undef SS_CURL_SET
	if (api.global_init(CURL_GLOBAL_DEFAULT) != CURLE_OK)
		snprintf(failure, sizeof(failure), "cannot initialize libcurl");
}

const ss_curl_api *ss_curl_load(ss_error *err)
{
	pthread_once(&once, load);
	if (failure[0]) {
		ss_error_set(err, SS_ERROR, "%s", failure);
		return NULL;
	}
	return &api;
}

const ss_curl_api *ss_curl_fns(void)
{
	return &api;
}
