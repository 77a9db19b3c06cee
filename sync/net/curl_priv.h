/*
 * curl_priv.h: libcurl's functions as skillsync calls them, loaded when first needed (curl.c);
 * private to sync/net/, the only place curl.h is included.
 */
#ifndef SS_CURL_PRIV_H
#define SS_CURL_PRIV_H

#include <curl/curl.h>

#include "core/util/error.h"

/* The functions, each by its name without "curl_" (X-macro: the struct and the loader). */
#define SS_CURL_FUNCTIONS(X)                                                                       \
	X(global_init)                                                                             \
	X(free)                                                                                    \
	X(getdate)                                                                                 \
	X(easy_init)                                                                               \
	X(easy_setopt)                                                                             \
	X(easy_perform)                                                                            \
	X(easy_getinfo)                                                                            \
	X(easy_reset)                                                                              \
	X(easy_cleanup)                                                                            \
	X(easy_strerror)                                                                           \
	X(slist_append)                                                                            \
	X(slist_free_all)                                                                          \
	X(share_init)                                                                              \
	X(share_setopt)                                                                            \
	X(share_cleanup)                                                                           \
	X(multi_init)                                                                              \
	X(multi_add_handle)                                                                        \
	X(multi_remove_handle)                                                                     \
	X(multi_perform)                                                                           \
	X(multi_info_read)                                                                         \
	X(multi_poll)                                                                              \
	X(multi_cleanup)                                                                           \
	X(url)                                                                                     \
	X(url_set)                                                                                 \
	X(url_get)                                                                                 \
	X(url_cleanup)

#define SS_CURL_FIELD(name) __typeof__(curl_##name) *name;
typedef struct ss_curl_api {
	SS_CURL_FUNCTIONS(SS_CURL_FIELD)
} ss_curl_api;
#undef SS_CURL_FIELD

/*
 * libcurl, loaded once for the process (dlopen of libcurl.so.4, curl_global_init called):
 * NULL with err set when it cannot be. Safe from any thread.
 */
const ss_curl_api *ss_curl_load(ss_error *err);
/* The functions once ss_curl_load succeeded: what holds a handle of libcurl's got it after. */
const ss_curl_api *ss_curl_fns(void);

#endif
