/*
 * verify_sources.c: the blocks a member's verification reads, from every CAR it was given or
 * fetched (see sync/public/verify_priv.h).
 */
#include "sync/public/verify_priv.h"

#include <stdlib.h>
#include <string.h>

#include "core/util/mem.h"

#define RELEASE_EVERY 256

/* One more block served from the sources: now and then, the mapped pages are released (they
 * read again from the file: every pointer into them stays good). */
void ss_verify__sources_served(ss_verify__sources *s)
{
	if (s->map && ++s->served % RELEASE_EVERY == 0)
		ss_car_release_pages(s->map, s->map_len);
}

void ss_verify__sources_release(ss_verify__sources *s)
{
	for (size_t i = 0; i < s->n; i++) {
		ss_car_free(s->cars[i]);
		ss_buf_release(&s->bytes[i]);
	}
	free(s->cars);
	free(s->bytes);
	free(s->seen);
	memset(s, 0, sizeof(*s));
}

/*
 * Adds a CAR (its bytes move in) to the sources; what was wrong with it otherwise. lenient: a
 * block that does not hash to its CID is left out and remembered (ss_car_open_keep_bad), as
 * the CARs that bring records are read: one bad record costs only itself, and says which it
 * was (emit); a tree's nodes come strict.
 */
int ss_verify__sources_add(ss_verify__sources *s, ss_buf *bytes, ss_car **car, bool lenient,
                           ss_error *err)
{
	ss_car *c;
	size_t at = s->n;

	ss_xgrow((void **)&s->bytes, sizeof(*s->bytes), s->n + 1, &s->balloc);
	ss_xgrow((void **)&s->cars, sizeof(*s->cars), s->n + 1, &s->alloc);
	s->bytes[at] = *bytes;
	ss_buf_init(bytes);
	if ((lenient ? ss_car_open_keep_bad(&c, s->bytes[at].ptr, s->bytes[at].len, err)
	             : ss_car_open(&c, s->bytes[at].ptr, s->bytes[at].len, err)) < 0) {
		ss_buf_release(&s->bytes[at]);
		return -1;
	}
	s->cars[at] = c;
	s->n++;
	if (car)
		*car = c;
	return 0;
}

/* Adds a CAR opened on bytes the caller holds (a mapped file) to the sources. */
void ss_verify__sources_put(ss_verify__sources *s, ss_car *car)
{
	ss_xgrow((void **)&s->bytes, sizeof(*s->bytes), s->n + 1, &s->balloc);
	ss_xgrow((void **)&s->cars, sizeof(*s->cars), s->n + 1, &s->alloc);
	ss_buf_init(&s->bytes[s->n]);
	s->cars[s->n++] = car;
}

/* Whether a CAR of the sources held a block named cid that did not hash to it. */
bool ss_verify__sources_bad(const ss_verify__sources *s, const ss_cid *cid)
{
	for (size_t i = 0; i < s->n; i++)
		if (ss_car_is_bad(s->cars[i], cid))
			return true;
	return false;
}

const ss_car_block *ss_verify__sources_get(const ss_verify__sources *s, const ss_cid *cid)
{
	for (size_t i = 0; i < s->n; i++) {
		const ss_car_block *b = ss_car_get(s->cars[i], cid);

		if (b)
			return b;
	}
	return NULL;
}

int ss_verify__get_block(void *ctx, const ss_cid *cid, const unsigned char **data, size_t *len,
                         ss_error *err)
{
	ss_verify__sources *s = ctx;
	const ss_car_block *b = ss_verify__sources_get(s, cid);

	if (!b) {
		char str[SS_CID_STRSZ];

		ss_cid_fmt(str, cid);
		return ss_error_set(err, SS_ENOTFOUND, "block %s is missing", str);
	}
	if (s->recording) {
		ss_xgrow((void **)&s->seen, sizeof(*s->seen), s->nseen + 1, &s->aseen);
		s->seen[s->nseen++] = *b;
	}
	ss_verify__sources_served(s);
	*data = b->data;
	*len = b->len;
	return 0;
}
