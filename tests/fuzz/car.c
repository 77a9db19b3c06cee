/* The CAR reader: open; every block it gives hashes to its CID and is found by it; the
 * DAG-CBOR blocks decode or are refused; an MST walk and a diff from each root over the CAR's
 * blocks end without a crash (listing what is missing). */
#include "tests/fuzz/fuzz.h"

#include "core/atproto/car.h"
#include "core/atproto/cbor.h"
#include "core/atproto/mst.h"

static int leaf(void *ctx, const char *key, size_t key_len, const ss_cid *value, ss_error *err)
{
	return 0;
}

static int change(void *ctx, ss_mst_op op, const char *key, size_t key_len, const ss_cid *a,
                  const ss_cid *b, ss_error *err)
{
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	ss_mst_source src;
	ss_car *car;
	ss_error err;

	if (ss_car_open(&car, data, size, &err) < 0)
		return 0;
	for (size_t i = 0; i < ss_car_block_count(car); i++) {
		const ss_car_block *b = ss_car_block_at(car, i);
		json_t *v;
		fuzz_check(ss_cid_matches(&b->cid, b->data, b->len), "a block does not match");
		fuzz_check(ss_car_get(car, &b->cid) == b, "a block is not found by its CID");
		if (b->cid.codec == SS_CID_DAG_CBOR &&
		    ss_cbor_decode(b->data, b->len, &v, &err) == 0)
			json_decref(v);
	}
	ss_mst_source_init(&src, ss_car_get_block, car);
	src.collect_missing = true;
	for (size_t i = 0; i < ss_car_block_count(car) && i < 4; i++) {
		const ss_cid *root = &ss_car_block_at(car, i)->cid;
		(void)ss_mst_walk(&src, root, "", leaf, NULL, &err);
		(void)ss_mst_diff(&src, i ? &ss_car_block_at(car, i - 1)->cid : NULL, root, "a",
		                  change, NULL, &err);
	}
	ss_mst_source_release(&src);
	ss_car_free(car);
	return 0;
}
