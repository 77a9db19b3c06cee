/*
 * curl.c: libcurl loaded by the first command that talks to the network, not linked: libcurl
 * and the ~30 libraries it brings (TLS, HTTP/2, IDN, LDAP, Kerberos, SSH) cost each start of
 * skillsync ~5 ms to map and relocate, for the commands that never open a connection (status,
 * diff, commit, log: docs/BENCHMARKS.md). The headers are still libcurl's: the functions keep
 * their types, checked at build time.
 */
#include "sync/net/curl_priv.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>

/* The soname of libcurl's ABI 4 (every libcurl since 7.16, 2006). */
#define LIBCURL "libcurl.so.4"

static pthread_once_t once = PTHREAD_ONCE_INIT;
static ss_curl_api api;
static char failure[256]; /* why it could not be loaded, "" when it was */

static void load(void)
{
	void *lib = dlopen(LIBCURL, RTLD_NOW | RTLD_LOCAL);
	const char *missing = NULL;

	if (!lib) {
		snprintf(failure, sizeof(failure), "cannot load libcurl (%s): %s", LIBCURL,
		         dlerror());
		return;
	}
	/* POSIX's way to a function's address from dlsym's void * */
#define SS_CURL_SYM(name)                                                                          \
	if (!missing && !(*(void **)&api.name = dlsym(lib, "curl_" #name)))                        \
		missing = "curl_" #name;
	SS_CURL_FUNCTIONS(SS_CURL_SYM)
#undef SS_CURL_SYM
	if (missing)
		snprintf(failure, sizeof(failure), "cannot load libcurl (%s): it has no %s",
		         LIBCURL, missing);
	else if (api.global_init(CURL_GLOBAL_DEFAULT) != CURLE_OK)
		snprintf(failure, sizeof(failure), "cannot initialize libcurl");
	/* the library stays loaded for the process, as if it were linked */
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
