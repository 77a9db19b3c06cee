#include "core/atproto/lthash.h"

#include <stdbool.h>
#include <string.h>

#include "core/atproto/blake3.h"
#include "core/util/buf.h"

void ss_lthash_init(ss_lthash *h)
{
	memset(h->state, 0, sizeof(h->state));
}

static void combine(ss_lthash *h, const void *element, size_t len, bool add)
{
	uint8_t x[SS_LTHASH_LEN];

	ss_blake3_xof(element, len, x, sizeof(x));
	for (size_t i = 0; i < SS_LTHASH_LEN; i += 2) {
		unsigned int lane = h->state[i] | (unsigned int)h->state[i + 1] << 8;
		unsigned int v = x[i] | (unsigned int)x[i + 1] << 8;

		lane = (add ? lane + v : lane - v) & 0xffff;
		h->state[i] = (uint8_t)lane;
		h->state[i + 1] = (uint8_t)(lane >> 8);
	}
}

void ss_lthash_add(ss_lthash *h, const void *element, size_t len)
{
	combine(h, element, len, true);
}

void ss_lthash_remove(ss_lthash *h, const void *element, size_t len)
{
	combine(h, element, len, false);
}

static void record(ss_lthash *h, const char *collection, const char *rkey, const char *cid,
                   bool add)
{
	ss_buf e = SS_BUF_INIT;

	/* no cap on e: these appends cannot fail */
	ss_buf_printf(&e, "%s/%s/%s", collection, rkey, cid);
	combine(h, e.ptr, e.len, add);
	ss_buf_release(&e);
}

void ss_lthash_add_record(ss_lthash *h, const char *collection, const char *rkey, const char *cid)
{
	record(h, collection, rkey, cid, true);
}

void ss_lthash_remove_record(ss_lthash *h, const char *collection, const char *rkey,
                             const char *cid)
{
	record(h, collection, rkey, cid, false);
}

void ss_lthash_digest(const ss_lthash *h, uint8_t out[SS_SHA256_LEN])
{
	ss_crypto_sha256(h->state, sizeof(h->state), out);
}
