/*
 * syntax.h: the syntax of ATProto's identifiers (atproto.com/specs/handle, /specs/did), pure:
 * no resolution, no network. sync/identity/identity.h resolves what these accept.
 */
#ifndef SS_SYNTAX_H
#define SS_SYNTAX_H

#include <stdbool.h>

/* The longest DID accepted (the DID spec's limit). */
#define SS_SYNTAX_MAX_DID 2048

/* A handle: a lowercase-insensitive domain name with a TLD. */
bool ss_syntax_is_handle(const char *s);
/* did:<method>:<id>, id of [A-Za-z0-9._:%-], not ending with ':' or '%'. */
bool ss_syntax_is_did(const char *s);

#endif
