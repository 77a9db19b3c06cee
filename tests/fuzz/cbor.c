/* The DAG-CBOR reader: decode; what decodes is canonical, so encoding it gives the input back
 * byte for byte; ss_cbor_skip accepts whatever ss_cbor_decode does (decode adds the data
 * model's "$type" rules); ss_cbor_to_json writes only what decode takes, byte for byte the text
 * jansson writes for the value decode gives. */
#include "tests/fuzz/fuzz.h"

#include "core/atproto/cbor.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	ss_buf out = SS_BUF_INIT;
	ss_cbor_reader r;
	json_t *v = NULL;
	ss_error err;
	int decoded, skipped;

	decoded = ss_cbor_decode(data, size, &v, &err) == 0;
	ss_cbor_reader_init(&r, data, size);
	skipped = ss_cbor_skip(&r, &err) == 0 && r.p == r.end;
	fuzz_check(!decoded || skipped, "skip refuses what decode accepts");
	if (decoded) {
		fuzz_check(ss_cbor_encode(v, &out, &err) == 0, "a decoded value does not encode");
		fuzz_check(out.len == size && !memcmp(out.ptr, data, size),
		           "a decoded value encodes to other bytes");
	}
	ss_buf_clear(&out);
	if (ss_cbor_to_json(data, size, &out) == 0) {
		char *dumped;

		fuzz_check(decoded, "to_json writes what decode refuses");
		dumped = json_dumps(v, JSON_COMPACT | JSON_ENCODE_ANY);
		fuzz_check(dumped && strlen(dumped) == out.len && !memcmp(dumped, out.ptr, out.len),
		           "to_json writes other text than jansson does for the decoded value");
		free(dumped);
	}
	json_decref(v);
	ss_buf_release(&out);
	return 0;
}
