/* review_facts.c: the gate's facts of a change, kept per pair of versions (see
 * sync/review_facts.h). */
#include "sync/review_facts.h"

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/atproto/crypto.h"
#include "core/skill/audit.h"
#include "core/state/state_hold.h"
#include "core/util/buf.h"
#include "core/util/hex.h"

/* Bump when ss_gate_facts computes a field another way: the facts kept before are then not
 * used. */
#define FACTS_VERSION "2"

/* The facts the verdict depends on (ss_gate_decide): a new bool of ss_gate_change that the
 * rules read is one more line here. */
static const struct {
	const char *name;
	size_t offset;
} fields[] = {
    {"scripts", offsetof(ss_gate_change, scripts)},
    {"high_finding", offsetof(ss_gate_change, high_finding)},
};

#define NFIELDS (sizeof(fields) / sizeof(fields[0]))

static bool *field_of(ss_gate_change *c, size_t i)
{
	return (bool *)((char *)c + fields[i].offset);
}

static bool field_value(const ss_gate_change *c, size_t i)
{
	return *(const bool *)((const char *)c + fields[i].offset);
}

/* "<FACTS_VERSION>:<sha-256 of the rules document, hex>" */
static void rules_key(ss_buf *out)
{
	uint8_t md[SS_SHA256_LEN];
	char hex[2 * SS_SHA256_LEN + 1];
	size_t len = 0;
	const char *doc = ss_audit_rules_document(&len);

	ss_crypto_sha256(doc, len, md);
	ss_hex_encode(hex, md, sizeof(md));
	ss_buf_puts(out, FACTS_VERSION ":");
	ss_buf_puts(out, hex);
}

static void encode(const ss_gate_change *c, ss_buf *out)
{
	for (size_t i = 0; i < NFIELDS; i++)
		ss_buf_printf(out, "%s%s=%d", i ? " " : "", fields[i].name,
		              field_value(c, i) ? 1 : 0);
}

/* false when text lacks one of the fields (kept before it existed) or is not ours */
static bool decode(const char *text, ss_gate_change *out)
{
	for (size_t i = 0; i < NFIELDS; i++) {
		size_t n = strlen(fields[i].name);
		const char *p = text;

		while (p && (strncmp(p, fields[i].name, n) || p[n] != '='))
			p = (p = strchr(p, ' ')) ? p + 1 : NULL;
		if (!p || (p[n + 1] != '0' && p[n + 1] != '1'))
			return false;
		*field_of(out, i) = p[n + 1] == '1';
	}
	return true;
}

int ss_review_facts(ss_repo *repo, ss_state *st, const char *skill, const ss_oid *kept,
                    const ss_oid *view, ss_gate_change *out, bool *computed, ss_error *err)
{
	char kept_hex[SS_OID_HEXSZ + 1], view_hex[SS_OID_HEXSZ + 1];
	ss_buf key = SS_BUF_INIT, text = SS_BUF_INIT;
	char *stored = NULL;
	int rc, ret = -1;

	*computed = false;
	if (!view) /* the skill left the view: nothing to read */
		return ss_gate_facts(repo, skill, kept, NULL, out, NULL, NULL, err);
	if (kept)
		ss_oid_fmt(kept_hex, kept);
	ss_oid_fmt(view_hex, view);
	rules_key(&key);
	rc = ss_state_hold_facts_get(st, kept ? kept_hex : NULL, view_hex, key.ptr, &stored, err);
	if (rc < 0 && err->code != SS_ENOTFOUND)
		goto out;
	ss_error_clear(err);
	if (rc == 0 && decode(stored, out)) {
		ret = 0;
		goto out;
	}
	if (ss_gate_facts(repo, skill, kept, view, out, NULL, NULL, err) < 0)
		goto out;
	encode(out, &text);
	*computed = true;
	ret = ss_state_hold_facts_put(st, kept ? kept_hex : NULL, view_hex, key.ptr, text.ptr, err);
out:
	free(stored);
	ss_buf_release(&key);
	ss_buf_release(&text);
	return ret;
}
