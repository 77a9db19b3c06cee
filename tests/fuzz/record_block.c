/* The record decoder on a repository's block (ss_record_decode__block_path): wherever the block
 * scanner takes a block, its result must be exactly that of the block's JSON form (the return,
 * every report line, the skill and meta encoded again), and the default path must always give
 * that result. An input that starts with '{' is a record's JSON text, turned into its block
 * first (so the JSON seeds reach the scanner); any other input is a block as it is. */
#include "tests/fuzz/fuzz.h"
#include "tests/fuzz/record_summary.h"

#include <jansson.h>

#include "core/atproto/cbor.h"
#include "core/skill/record.h"
#include "core/skill/record_priv.h"
#include "core/skill/skill.h"

/* One path's whole result as text. */
static int summary(const unsigned char *block, size_t size, ss_record_path path, ss_buf *out)
{
	ss_report *r = ss_report_new();
	ss_skill *s = NULL;
	ss_record_meta meta;
	int ret;

	ss_record_meta_init(&meta);
	ret = ss_record_decode__block_path(block, size, "fuzz", &s, &meta, r, path);
	return fuzz_record_summary(ret, r, s, &meta, out);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	ss_buf block = SS_BUF_INIT, fast = SS_BUF_INIT, general = SS_BUF_INIT, auto_ = SS_BUF_INIT;
	const unsigned char *b = data;
	size_t n = size;
	ss_error ignored;

	if (size && data[0] == '{') {
		json_t *v = json_loadb((const char *)data, size, JSON_REJECT_DUPLICATES, NULL);

		if (!v || ss_cbor_encode(v, &block, &ignored) < 0) {
			json_decref(v);
			ss_buf_release(&block);
			return 0;
		}
		json_decref(v);
		b = (const unsigned char *)block.ptr;
		n = block.len;
	}
	summary(b, n, SS_RECORD_PATH_GENERAL, &general);
	summary(b, n, SS_RECORD_PATH_AUTO, &auto_);
	fuzz_check(general.len == auto_.len && !memcmp(general.ptr, auto_.ptr, general.len),
	           "the block's default path and its JSON form differ");
	if (summary(b, n, SS_RECORD_PATH_FAST, &fast) != SS_ENOTFOUND)
		fuzz_check(fast.len == general.len && !memcmp(fast.ptr, general.ptr, fast.len),
		           "the block scanner and the block's JSON form differ");
	ss_buf_release(&block);
	ss_buf_release(&fast);
	ss_buf_release(&general);
	ss_buf_release(&auto_);
	return 0;
}
