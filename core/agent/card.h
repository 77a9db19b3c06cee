/*
 * card.h: the agent's card: a site.filae.agent.card record built from its skills, read back
 * from anyone's repo, and the A2A AgentCard made from it (docs/CARD.md).
 *
 * Rules: every limit is the lexicon's own, read from the lexicon document compiled in
 * (core/agent/card_lexicon.c, the same text as testdata/lexicons/site.filae.agent.card.json):
 * maxLength in UTF-8 bytes for strings and items for arrays, maxGraphemes in extended grapheme
 * clusters (core/util/grapheme.h), at every depth. Text the person gives (--name ...) over a limit
 * is refused; text from skills (descriptions, tags, examples) is cut on a grapheme boundary
 * with an ellipsis; skills past the 50th are left out, each with its reason. A card read from
 * the network is hostile: it is checked against the lexicon before anything uses it, and its
 * text leaves this module only escaped (core/util/utf8.h's rule). jansson stays inside card*.c.
 */
#ifndef SS_CARD_H
#define SS_CARD_H

#include <stdbool.h>
#include <stddef.h>

#include "core/skill/report.h"
#include "core/skill/value.h"
#include "core/util/buf.h"
#include "core/util/error.h"

#define SS_CARD_NSID "site.filae.agent.card"
#define SS_CARD_RKEY "self"
/* The A2A specification the --a2a output follows (docs/CARD.md). */
#define SS_CARD_A2A_VERSION "1.0"

typedef struct ss_card ss_card;

/* What the person sets; NULL (or "") leaves a field out, except the three required ones,
 * which then take defaults: name "skillsync agent", a description naming the skill count,
 * version "1.0.0". */
typedef struct ss_card_settings {
	const char *name;
	const char *description;
	const char *version;
	const char *url;
	const char *provider_name;
	const char *provider_url;
} ss_card_settings;

/*
 * A new card with the settings and the two datetimes (ATProto form; updated_at may be NULL).
 * SS_EINVALID naming the option when a setting breaks the lexicon (too long in bytes or
 * graphemes, a URL that is not an absolute URI, text that is not UTF-8).
 */
int ss_card_new(ss_card **out, const ss_card_settings *s, const char *created_at,
                const char *updated_at, ss_error *err);
void ss_card_free(ss_card *c);

/*
 * Adds one skill: id and name are the skill's name; the description is cut to the lexicon's
 * limit; tags come from frontmatter `metadata.tags` (a list, or one string of comma-separated
 * tags), examples from `metadata.examples` (a list, or one string with an example a line),
 * each cut and capped to the lexicon's limits. frontmatter may be NULL. A skill that cannot
 * be in the card (the 51st and later) is left out with its reason; that is not a failure.
 */
int ss_card_add_skill(ss_card *c, const char *name, const char *description,
                      const ss_value *frontmatter, ss_error *err);
/* Leaves a skill out with a reason (one that cannot be read, say). */
int ss_card_leave_out(ss_card *c, const char *name, const char *reason, ss_error *err);
size_t ss_card_skill_count(const ss_card *c);
/* The skills left out, in the order they were added (name and reason borrowed from c). */
size_t ss_card_left_out_count(const ss_card *c);
void ss_card_left_out(const ss_card *c, size_t i, const char **name, const char **reason);
/* Skills whose description, tags or examples were cut (for a note on stderr). */
size_t ss_card_cut_count(const ss_card *c);

/* The record as compact JSON text (with $type), what putRecord sends. */
int ss_card_record_json(const ss_card *c, ss_buf *out, ss_error *err);

/*
 * Checks a record (JSON text, as the server sent it) against the lexicon: every problem into
 * report (file "card", field the JSON path, e.g. "skills[3].description"). Returns 0 when it
 * is valid, SS_EINVALID (err: the first problem) when not.
 */
int ss_card_check(const char *json, size_t len, ss_report *report, ss_error *err);

/* Reads a card from the network: ss_card_check, then the card (*out on success only). */
int ss_card_decode(ss_card **out, const char *json, size_t len, ss_report *report, ss_error *err);
/* What the card says, as a digest (64 hex digits and a NUL into out): the same for two cards
 * that differ only in their times, so a card is published again only when it changed. */
int ss_card_digest(const ss_card *c, char out[65], ss_error *err);
/* The card's createdAt (borrowed). */
const char *ss_card_created_at(const ss_card *c);

/* The record as indented JSON with every unsafe character escaped (core/util/utf8.h). */
void ss_card_format_json(const ss_card *c, ss_buf *out);
/* The card as text lines for a terminal, escaped. */
void ss_card_format_text(const ss_card *c, ss_buf *out);
/*
 * The A2A AgentCard (specification SS_CARD_A2A_VERSION) as indented, escaped JSON; the mapping
 * is in docs/CARD.md. SS_EINVALID when the card has no url (the A2A card requires an
 * interface URL).
 */
int ss_card_a2a(const ss_card *c, ss_buf *out, ss_error *err);

/* The compiled-in lexicon document (JSON text), for the tests. */
extern const char ss_card_lexicon[];

#endif
