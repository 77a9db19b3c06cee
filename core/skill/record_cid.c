/* A record's CID from its JSON text (core/skill/record.h), through core/atproto/cbor.h. */
#include "core/skill/record.h"

#include <jansson.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/atproto/cbor.h"
#include "core/atproto/cid.h"
#include "core/skill/record_cid_priv.h"
#include "core/util/mem.h"
#include "core/util/utf8.h"

/* Below ss_cbor_encode's own cap, so a value the scanner takes is never one it refuses. */
#define SCAN_MAX_DEPTH 48

typedef struct scan {
	const char *p, *end;
} scan;

typedef struct entry {
	size_t koff, klen, voff, vlen;
	const char *k; /* set from koff once the object's buffer no longer moves */
} entry;

static int scan_value(scan *s, int depth, ss_buf *out);

static void skip_ws(scan *s)
{
	while (s->p < s->end && (*s->p == ' ' || *s->p == '\t' || *s->p == '\n' || *s->p == '\r'))
		s->p++;
}

/* A string at s->p (after its quote) into out as raw bytes; 1 on anything unusual. */
static int scan_string(scan *s, ss_buf *out)
{
	const char *run = s->p;

	while (s->p < s->end) {
		unsigned char c = (unsigned char)*s->p;
		char e;

		if (c == '"') {
			if (ss_buf_put(out, run, (size_t)(s->p - run)) < 0)
				return 1;
			s->p++;
			return 0;
		}
		if (c < 0x20)
			return 1;
		if (c != '\\') {
			s->p++;
			continue;
		}
		if (ss_buf_put(out, run, (size_t)(s->p - run)) < 0 || s->p + 1 >= s->end)
			return 1;
		switch (s->p[1]) {
		case '"':
		case '\\':
		case '/':
			e = s->p[1];
			break;
		case 'b':
			e = '\b';
			break;
		case 'f':
			e = '\f';
			break;
		case 'n':
			e = '\n';
			break;
		case 'r':
			e = '\r';
			break;
		case 't':
			e = '\t';
			break;
		default:
			return 1; /* \u and anything else: the general path */
		}
		if (ss_buf_putc(out, e) < 0)
			return 1;
		s->p += 2;
		run = s->p;
	}
	return 1;
}

/* A string value as a CBOR text string: head, then bytes. */
static int scan_text(scan *s, ss_buf *out)
{
	ss_buf raw = SS_BUF_INIT;
	const char *q = s->p;
	int ret = 1;

	/* Most strings have no escape: their bytes go out as they are, without a copy. */
	while (q < s->end && *q != '"' && *q != '\\' && (unsigned char)*q >= 0x20)
		q++;
	if (q < s->end && *q == '"') {
		size_t n = (size_t)(q - s->p);

		if (!ss_utf8_valid(s->p, n) || ss_cbor_put_head(out, 3, n) < 0 ||
		    ss_buf_put(out, s->p, n) < 0)
			return 1;
		s->p = q + 1;
		return 0;
	}
	if (scan_string(s, &raw) == 0 && ss_utf8_valid(raw.ptr, raw.len) &&
	    ss_cbor_put_head(out, 3, raw.len) == 0 && ss_buf_put(out, raw.ptr, raw.len) == 0)
		ret = 0;
	ss_buf_release(&raw);
	return ret;
}

static int scan_int(scan *s, ss_buf *out)
{
	int neg = 0, digits = 0;
	int64_t v = 0;

	if (*s->p == '-') {
		neg = 1;
		s->p++;
	}
	if (s->p >= s->end || *s->p < '0' || *s->p > '9' || (*s->p == '0' && neg))
		return 1;
	if (*s->p == '0' && s->p + 1 < s->end && s->p[1] >= '0' && s->p[1] <= '9')
		return 1;
	while (s->p < s->end && *s->p >= '0' && *s->p <= '9') {
		if (++digits > 18)
			return 1;
		v = v * 10 + (*s->p++ - '0');
	}
	if (s->p < s->end && (*s->p == '.' || *s->p == 'e' || *s->p == 'E'))
		return 1;
	if (neg)
		return ss_cbor_put_head(out, 1, (uint64_t)(v - 1)) < 0;
	return ss_cbor_put_head(out, 0, (uint64_t)v) < 0;
}

static int scan_word(scan *s, const char *w, unsigned char cbor, ss_buf *out)
{
	size_t n = strlen(w);

	if ((size_t)(s->end - s->p) < n || memcmp(s->p, w, n) != 0)
		return 1;
	s->p += n;
	return ss_buf_putc(out, (char)cbor) < 0;
}

static int entry_cmp(const void *a, const void *b)
{
	const entry *x = a, *y = b;

	if (x->klen != y->klen)
		return x->klen < y->klen ? -1 : 1;
	return memcmp(x->k, y->k, x->klen);
}

static int scan_array(scan *s, int depth, ss_buf *out)
{
	ss_buf items = SS_BUF_INIT;
	size_t n = 0;
	int ret = 1;

	s->p++;
	skip_ws(s);
	if (s->p < s->end && *s->p == ']') {
		s->p++;
		return ss_cbor_put_head(out, 4, 0) < 0;
	}
	for (;;) {
		if (scan_value(s, depth + 1, &items) != 0)
			goto out;
		n++;
		skip_ws(s);
		if (s->p >= s->end)
			goto out;
		if (*s->p == ']')
			break;
		if (*s->p != ',')
			goto out;
		s->p++;
	}
	s->p++;
	if (ss_cbor_put_head(out, 4, n) == 0 && ss_buf_put(out, items.ptr, items.len) == 0)
		ret = 0;
out:
	ss_buf_release(&items);
	return ret;
}

/* "$type" with a non-empty string other than "blob" is the one $-key taken here. */
static int scan_dollar(const entry *e, const ss_buf *body)
{
	const unsigned char *v = (const unsigned char *)body->ptr + e->voff;
	size_t n;

	if (e->klen != 5 || memcmp(body->ptr + e->koff, "$type", 5) != 0)
		return 1;
	if (e->vlen < 1 || (v[0] >> 5) != 3)
		return 1; /* not a text string: the general path decides */
	n = v[0] & 0x1f;
	if (n == 24 && e->vlen >= 2)
		n = v[1];
	else if (n >= 24)
		return 1;
	if (n == 0 || (n == 4 && memcmp(v + 1, "blob", 4) == 0))
		return 1;
	return 0;
}

static int scan_object(scan *s, int depth, ss_buf *out)
{
	ss_buf body = SS_BUF_INIT;
	entry *es = NULL;
	size_t n = 0, alloc = 0;
	int ret = 1;

	s->p++;
	skip_ws(s);
	if (s->p < s->end && *s->p == '}') {
		s->p++;
		return ss_cbor_put_head(out, 5, 0) < 0;
	}
	for (;;) {
		entry e;

		if (s->p >= s->end || *s->p != '"')
			goto out;
		s->p++;
		e.koff = body.len;
		if (scan_string(s, &body) != 0)
			goto out;
		e.klen = body.len - e.koff;
		if (!ss_utf8_valid(body.ptr + e.koff, e.klen))
			goto out;
		skip_ws(s);
		if (s->p >= s->end || *s->p != ':')
			goto out;
		s->p++;
		e.voff = body.len;
		if (scan_value(s, depth + 1, &body) != 0)
			goto out;
		e.vlen = body.len - e.voff;
		if (e.klen > 0 && body.ptr[e.koff] == '$' && scan_dollar(&e, &body) != 0)
			goto out;
		ss_xgrow((void **)&es, sizeof(*es), n + 1, &alloc);
		es[n++] = e;
		skip_ws(s);
		if (s->p >= s->end)
			goto out;
		if (*s->p == '}')
			break;
		if (*s->p != ',')
			goto out;
		s->p++;
		skip_ws(s);
	}
	s->p++;
	for (size_t i = 0; i < n; i++)
		es[i].k = body.ptr + es[i].koff;
	qsort(es, n, sizeof(*es), entry_cmp);
	for (size_t i = 1; i < n; i++)
		if (entry_cmp(&es[i - 1], &es[i]) == 0)
			goto out; /* a duplicate key: the general path refuses it */
	if (ss_cbor_put_head(out, 5, n) < 0)
		goto out;
	for (size_t i = 0; i < n; i++)
		if (ss_cbor_put_head(out, 3, es[i].klen) < 0 ||
		    ss_buf_put(out, es[i].k, es[i].klen) < 0 ||
		    ss_buf_put(out, body.ptr + es[i].voff, es[i].vlen) < 0)
			goto out;
	ret = 0;
out:
	free(es);
	ss_buf_release(&body);
	return ret;
}

static int scan_value(scan *s, int depth, ss_buf *out)
{
	if (depth > SCAN_MAX_DEPTH)
		return 1;
	skip_ws(s);
	if (s->p >= s->end)
		return 1;
	switch (*s->p) {
	case '{':
		return scan_object(s, depth, out);
	case '[':
		return scan_array(s, depth, out);
	case '"':
		s->p++;
		return scan_text(s, out);
	case 't':
		return scan_word(s, "true", 0xf5, out);
	case 'f':
		return scan_word(s, "false", 0xf4, out);
	case 'n':
		return scan_word(s, "null", 0xf6, out);
	default:
		if (*s->p == '-' || (*s->p >= '0' && *s->p <= '9'))
			return scan_int(s, out);
		return 1;
	}
}

int ss_record_cid__scan(const char *json, size_t len, ss_buf *out)
{
	scan s = {json, json + len};
	size_t start = out->len;

	skip_ws(&s);
	if (s.p < s.end && *s.p == '{' && scan_value(&s, 0, out) == 0) {
		skip_ws(&s);
		if (s.p == s.end)
			return 0;
	}
	ss_buf_truncate(out, start);
	return 1;
}

int ss_record__cbor_general(const char *json, size_t len, ss_buf *out, ss_error *err)
{
	json_error_t jerr;
	json_t *v;
	int ret = -1;

	v = json_loadb(json, len, JSON_REJECT_DUPLICATES | JSON_ALLOW_NUL, &jerr);
	if (!v) {
		ss_error_set(err, SS_EINVALID, "record is not JSON: %s", jerr.text);
		return -1;
	}
	if (!json_is_object(v)) {
		ss_error_set(err, SS_EINVALID, "record is not a JSON object");
		goto out;
	}
	if (ss_cbor_encode(v, out, err) < 0) {
		ss_error_prefix(err, "record");
		goto out;
	}
	ret = 0;
out:
	json_decref(v);
	return ret;
}

int ss_record_cid_from_json(const char *json, size_t len, char **cid, ss_error *err)
{
	ss_buf bytes = SS_BUF_INIT;
	char s[SS_CID_STRSZ];
	ss_cid c;
	int ret = -1;

	if (ss_record_cid__scan(json, len, &bytes) != 0 &&
	    ss_record__cbor_general(json, len, &bytes, err) < 0)
		goto out;
	ss_cid_compute(&c, SS_CID_DAG_CBOR, bytes.ptr, bytes.len);
	ss_cid_fmt(s, &c);
	*cid = ss_xstrdup(s);
	ret = 0;
out:
	ss_buf_release(&bytes);
	return ret;
}
