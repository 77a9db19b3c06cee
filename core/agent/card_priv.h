/* card_priv.h: what the card's files share (core/agent/card*.c only). */
#ifndef SS_CARD_PRIV_H
#define SS_CARD_PRIV_H

#include <jansson.h>

#include "core/agent/card.h"

struct ss_card {
	json_t *record;  /* the record value, with $type */
	json_t *lexicon; /* the lexicon document (ss_card_lexicon__load) */
	char **left_names, **left_reasons;
	size_t nleft, left_alloc;
	size_t ncut;
};

/* The lexicon's limits for a def's property ("main", "name"): maxLength (bytes for a string,
 * items for an array), maxGraphemes, and for an array of strings its items' maxLength; 0 where
 * the lexicon sets none. */
typedef struct ss_card_limit {
	size_t max_length;
	size_t max_graphemes;
	size_t item_max_length;
} ss_card_limit;
ss_card_limit ss_card__limit_of(const json_t *lexicon, const char *def, const char *prop);
/* The compiled-in lexicon document, parsed (json_decref it). */
json_t *ss_card_lexicon__load(void);

/* Whether s is an absolute URI (the lexicon's "uri" format, as far as the card checks it):
 * a scheme, ':', then no space or control character. */
bool ss_card__is_uri(const char *s);

/* Appends v as indented JSON (indent: the current depth), every string escaped. */
void ss_card__emit(json_t *v, int indent, ss_buf *out);

#endif
