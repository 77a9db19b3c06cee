#include "core/gitfmt/oid.h"

#include <errno.h>
#include <openssl/evp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/util/hex.h"

void ss_oid_fmt(char out[SS_OID_HEXSZ + 1], const ss_oid *oid)
{
	ss_hex_encode(out, oid->id, SS_OID_RAWSZ);
}

int ss_oid_parse(ss_oid *out, const char *hex, ss_error *err)
{
	ss_oid oid;

	if (!hex || strlen(hex) != SS_OID_HEXSZ)
		return ss_error_set(err, SS_EINVALID, "invalid object id '%s'", hex ? hex : "");
	for (size_t i = 0; i < SS_OID_RAWSZ; i++) {
		int hi = ss_hex_digit(hex[2 * i]), lo = ss_hex_digit(hex[2 * i + 1]);
		if (hi < 0 || lo < 0)
			return ss_error_set(err, SS_EINVALID, "invalid object id '%s'", hex);
		oid.id[i] = (unsigned char)(hi << 4 | lo);
	}
	*out = oid;
	return 0;
}

bool ss_oid_equal(const ss_oid *a, const ss_oid *b)
{
	return memcmp(a->id, b->id, SS_OID_RAWSZ) == 0;
}

bool ss_oid_is_zero(const ss_oid *oid)
{
	for (size_t i = 0; i < SS_OID_RAWSZ; i++)
		if (oid->id[i])
			return false;
	return true;
}

void ss_oid_clear(ss_oid *oid)
{
	memset(oid->id, 0, SS_OID_RAWSZ);
}

/* A SHA-1 context that has read git's object header "<type> <len>\0"; NULL on failure. */
static EVP_MD_CTX *hash_begin(const char *type, size_t len)
{
	char head[64];
	int n = snprintf(head, sizeof(head), "%s %zu", type, len);
	EVP_MD_CTX *ctx = EVP_MD_CTX_new();

	if (!ctx || n <= 0 || (size_t)n >= sizeof(head) ||
	    EVP_DigestInit_ex(ctx, EVP_sha1(), NULL) != 1 ||
	    EVP_DigestUpdate(ctx, head, (size_t)n + 1) != 1) {
		EVP_MD_CTX_free(ctx);
		return NULL;
	}
	return ctx;
}

int ss_oid_hash(ss_oid *out, const char *type, const void *data, size_t len)
{
	EVP_MD_CTX *ctx = hash_begin(type, len);
	int ok = ctx && EVP_DigestUpdate(ctx, data, len) == 1 &&
	         EVP_DigestFinal_ex(ctx, out->id, NULL) == 1;

	EVP_MD_CTX_free(ctx);
	return ok ? 0 : -1;
}

int ss_oid_hash_fd(ss_oid *out, int fd, size_t size)
{
	EVP_MD_CTX *ctx = hash_begin("blob", size);
	char buf[65536];
	size_t total = 0;
	int ret = 0;

	if (!ctx)
		return -EIO;
	for (;;) {
		ssize_t got = read(fd, buf, sizeof(buf));
		if (got < 0 && errno == EINTR)
			continue;
		if (got < 0) {
			ret = -errno;
			break;
		}
		if (got == 0)
			break;
		total += (size_t)got;
		if (total > size) { /* longer than it was a moment ago */
			ret = -EAGAIN;
			break;
		}
		if (EVP_DigestUpdate(ctx, buf, (size_t)got) != 1) {
			ret = -EIO;
			break;
		}
	}
	if (ret == 0 && total != size)
		ret = -EAGAIN;
	if (ret == 0 && EVP_DigestFinal_ex(ctx, out->id, NULL) != 1)
		ret = -EIO;
	EVP_MD_CTX_free(ctx);
	return ret;
}

/* What ss_oid_order's comparison reads: qsort passes it no context (qsort_r's differs
 * between systems), and each thread sorts its own. */
static _Thread_local const unsigned char *order_base;
static _Thread_local size_t order_stride;

static int by_oid(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
	int c = memcmp(order_base + (size_t)x * order_stride, order_base + (size_t)y * order_stride,
	               SS_OID_RAWSZ);

	return c ? c : (x > y) - (x < y);
}

void ss_oid_order(uint32_t *order, size_t n, const void *base, size_t stride)
{
	for (size_t i = 0; i < n; i++)
		order[i] = (uint32_t)i;
	order_base = base;
	order_stride = stride;
	qsort(order, n, sizeof(*order), by_oid);
	order_base = NULL;
}
