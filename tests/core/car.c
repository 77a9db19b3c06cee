#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include <sys/mman.h>
#include <unistd.h>

#include "core/atproto/car.h"
#include "core/atproto/cbor.h"
#include "core/atproto/cid.h"
#include "core/atproto/multikey.h"
#include "core/atproto/pubkey.h"
#include "core/util/base64.h"
#include "core/util/fs.h"
#include "support/cborvec.h"
#include "support/support.h"

/* getRepo of the reference PDS: one root (the commit), every record's block is there under the
 * CID listRecords gave, and decodes to the value getRecord gave. */
static void test_car__reads_a_pds_repo(void **state)
{
	json_t *vec = ss_test_json("vectors/car-pds-records.json"), *r, *value;
	ss_buf bytes = SS_BUF_INIT;
	const ss_car_block *b;
	ss_car *car;
	ss_error err;
	ss_cid cid;
	size_t i;

	ss_test_cbor_file(&bytes, "car-pds-after.car");
	assert_int_equal(ss_car_open(&car, bytes.ptr, bytes.len, &err), 0);
	assert_int_equal(ss_car_root_count(car), 1);
	assert_non_null(ss_car_get(car, ss_car_root(car, 0)));
	assert_null(ss_car_root(car, 1));
	json_array_foreach(json_object_get(vec, "records"), i, r)
	{
		const char *s = json_string_value(json_object_get(r, "cid"));
		assert_int_equal(ss_cid_parse(&cid, s, strlen(s), &err), 0);
		b = ss_car_get(car, &cid);
		assert_non_null(b);
		assert_int_equal(ss_cbor_decode(b->data, b->len, &value, &err), 0);
		assert_true(json_equal(value, json_object_get(r, "value")));
		json_decref(value);
	}
	/* Blocks in file order, each findable. */
	assert_true(ss_car_block_count(car) > json_array_size(json_object_get(vec, "records")));
	for (i = 0; i < ss_car_block_count(car); i++)
		assert_ptr_equal(ss_car_get(car, &ss_car_block_at(car, i)->cid),
		                 ss_car_block_at(car, i));
	ss_cid_compute(&cid, SS_CID_DAG_CBOR, "", 0);
	assert_null(ss_car_get(car, &cid));
	{
		const unsigned char *data;
		SS_ASSERT_FAILS(ss_car_get_block(car, &cid, &data, &i, &err), err, SS_ENOTFOUND);
	}
	ss_car_free(car);
	ss_buf_release(&bytes);
	json_decref(vec);
}

/* The repo's head commit: the account's #atproto key signed the canonical DAG-CBOR of the
 * commit without its "sig" (our encoder gives the very bytes the PDS signed); a changed field
 * does not verify. */
static void test_car__commit_signed_by_the_account(void **state)
{
	json_t *vec = ss_test_json("vectors/car-pds-records.json"), *commit;
	ss_buf bytes = SS_BUF_INIT, sig = SS_BUF_INIT, unsigned_bytes = SS_BUF_INIT;
	const ss_car_block *head;
	ss_pubkey *key;
	ss_car *car;
	ss_error err;

	ss_test_cbor_file(&bytes, "car-pds-after.car");
	assert_int_equal(ss_car_open(&car, bytes.ptr, bytes.len, &err), 0);
	head = ss_car_get(car, ss_car_root(car, 0));
	assert_int_equal(ss_cbor_decode(head->data, head->len, &commit, &err), 0);
	assert_string_equal(json_string_value(json_object_get(commit, "did")),
	                    json_string_value(json_object_get(vec, "did")));
	{
		const char *s =
		    json_string_value(json_object_get(json_object_get(commit, "sig"), "$bytes"));
		assert_non_null(s);
		assert_int_equal(ss_base64_decode(&sig, s, strlen(s), SS_BASE64_STD, &err), 0);
	}
	assert_int_equal(sig.len, SS_SIG_LEN);
	assert_int_equal(
	    ss_multikey_from_did_doc(&key, json_object_get(vec, "didDoc"), "#atproto", &err), 0);
	json_object_del(commit, "sig");
	assert_int_equal(ss_cbor_encode(commit, &unsigned_bytes, &err), 0);
	assert_int_equal(ss_pubkey_verify(key, unsigned_bytes.ptr, unsigned_bytes.len,
	                                  (const uint8_t *)sig.ptr, sig.len, true, &err),
	                 0);
	json_object_set_new(commit, "rev", json_string("3zzzzzzzzzzzz"));
	ss_buf_clear(&unsigned_bytes);
	assert_int_equal(ss_cbor_encode(commit, &unsigned_bytes, &err), 0);
	SS_ASSERT_FAILS(ss_pubkey_verify(key, unsigned_bytes.ptr, unsigned_bytes.len,
	                                 (const uint8_t *)sig.ptr, sig.len, true, &err),
	                err, SS_EINVALID);
	ss_pubkey_free(key);
	json_decref(commit);
	ss_car_free(car);
	ss_buf_release(&bytes);
	ss_buf_release(&sig);
	ss_buf_release(&unsigned_bytes);
	json_decref(vec);
}

/* A changed byte anywhere in a block's data is caught: the block no longer hashes to its CID. */
static void test_car__tampered_block_refused(void **state)
{
	ss_buf bytes = SS_BUF_INIT;
	ss_car *car;
	ss_error err;
	size_t at;

	ss_test_cbor_file(&bytes, "car-pds-before.car");
	at = bytes.len - 5; /* inside the last block's data */
	bytes.ptr[at] ^= 0x20;
	SS_ASSERT_FAILS(ss_car_open(&car, bytes.ptr, bytes.len, &err), err, SS_EINVALID);
	assert_non_null(strstr(err.message, "does not hash to its CID"));
	ss_buf_release(&bytes);
}

/* The bytes in an unlinked temporary file (*fd), mapped read-only as a whole repo's CAR is. */
static void *map_file_of(const ss_buf *bytes, int *fd)
{
	char path[] = "/tmp/ss-car-XXXXXX";
	void *map;

	*fd = mkstemp(path);
	assert_true(*fd >= 0);
	unlink(path);
	assert_int_equal(ss_fs_write_all(*fd, bytes->ptr, bytes->len), 0);
	map = mmap(NULL, bytes->len, PROT_READ, MAP_SHARED, *fd, 0);
	assert_true(map != MAP_FAILED);
	return map;
}

/* A CAR mapped from its file (a whole repo): a block that does not hash to its CID is dropped
 * alone, counted, and every other block reads as from memory; the framing is still checked. */
static void test_car__mapped_drops_a_bad_block(void **state)
{
	ss_buf bytes = SS_BUF_INIT;
	ss_car *whole, *car;
	size_t dropped;
	ss_error err;
	void *map;
	int fd;

	ss_test_cbor_file(&bytes, "car-pds-before.car");
	assert_int_equal(ss_car_open(&whole, bytes.ptr, bytes.len, &err), 0);
	bytes.ptr[bytes.len - 5] ^= 0x20; /* inside the last block's data */
	map = map_file_of(&bytes, &fd);
	assert_int_equal(ss_car_open_mapped(&car, map, bytes.len, &dropped, &err), 0);
	assert_int_equal(dropped, 1);
	assert_int_equal(ss_car_block_count(car), ss_car_block_count(whole) - 1);
	for (size_t i = 0; i < ss_car_block_count(whole); i++) {
		const ss_car_block *b = ss_car_block_at(whole, i);
		const ss_car_block *got = ss_car_get(car, &b->cid);

		if (i == ss_car_block_count(whole) - 1) {
			assert_null(got);
			continue;
		}
		assert_non_null(got);
		assert_int_equal(got->len, b->len);
		assert_memory_equal(got->data, b->data, b->len);
	}
	ss_car_free(car);
	/* released pages read again from the file */
	ss_car_release_pages(map, bytes.len);
	assert_memory_equal(map, bytes.ptr, bytes.len);
	/* bad framing is refused all the same */
	SS_ASSERT_FAILS(ss_car_open_mapped(&car, map, bytes.len - 3, &dropped, &err), err,
	                SS_EINVALID);
	munmap(map, bytes.len);
	close(fd);
	ss_car_free(whole);
	ss_buf_release(&bytes);
}

/* Appends n raw blocks of size bytes each, all different, to the CAR in bytes. */
static void append_raw_blocks(ss_buf *bytes, size_t n, size_t size)
{
	unsigned char *data = malloc(size), cid[SS_CID_BINSZ];

	assert_non_null(data);
	for (size_t i = 0; i < n; i++) {
		ss_cid c;
		uint64_t len = SS_CID_BINSZ + size;

		memset(data, (int)(i & 0xff), size);
		memcpy(data, &i, sizeof(i));
		ss_cid_compute(&c, SS_CID_RAW, data, size);
		ss_cid_to_bytes(cid, &c);
		for (; len >= 0x80; len >>= 7) /* the block's length, a varint */
			ss_buf_put(bytes, &(unsigned char){(unsigned char)(len | 0x80)}, 1);
		ss_buf_put(bytes, &(unsigned char){(unsigned char)len}, 1);
		ss_buf_put(bytes, cid, sizeof(cid));
		ss_buf_put(bytes, data, size);
	}
	free(data);
}

/* The bytes of the mapping at map this process holds resident (its Rss in /proc/self/smaps). */
static size_t mapping_rss(const void *map)
{
	char line[512], start[32];
	FILE *f = fopen("/proc/self/smaps", "r");
	bool in = false;
	size_t kb = SIZE_MAX;

	assert_non_null(f);
	snprintf(start, sizeof(start), "%lx-", (unsigned long)(uintptr_t)map);
	while (kb == SIZE_MAX && fgets(line, sizeof(line), f)) {
		size_t hex = strspn(line, "0123456789abcdef");

		if (hex && line[hex] == '-') /* a mapping's first line: its address range */
			in = !strncmp(line, start, strlen(start));
		else if (in && !strncmp(line, "Rss:", 4))
			kb = strtoul(line + 4, NULL, 10);
	}
	fclose(f);
	assert_true(kb != SIZE_MAX);
	return kb * 1024;
}

/* A whole repo's CAR mapped from its file: one of at most SS_CAR_RESIDENT_MAX bytes stays
 * resident once read (its tree and records are read again, in no order of the file), a larger
 * one is released as it is read, and reads the same. */
static void test_car__mapped_resident_up_to_a_bound(void **state)
{
	const size_t sizes[] = {8u << 20, SS_CAR_RESIDENT_MAX + (8u << 20)};

	for (size_t k = 0; k < 2; k++) {
		ss_buf bytes = SS_BUF_INIT;
		const ss_car_block *last;
		size_t dropped, rss;
		ss_car *car;
		ss_error err;
		void *map;
		int fd;

		ss_test_cbor_file(&bytes, "car-pds-before.car");
		append_raw_blocks(&bytes, sizes[k] >> 20, 1u << 20);
		map = map_file_of(&bytes, &fd);
		assert_int_equal(ss_car_open_mapped(&car, map, bytes.len, &dropped, &err), 0);
		assert_int_equal(dropped, 0);
		rss = mapping_rss(map);
		if (bytes.len <= SS_CAR_RESIDENT_MAX)
			assert_true(rss >= bytes.len - (64u << 10));
		else
			assert_true(rss <= (2u << 20));
		last = ss_car_block_at(car, ss_car_block_count(car) - 1);
		assert_int_equal(last->len, 1u << 20);
		assert_memory_equal(last->data, bytes.ptr + bytes.len - last->len, last->len);
		ss_car_free(car);
		munmap(map, bytes.len);
		close(fd);
		ss_buf_release(&bytes);
	}
}

/* Every proper prefix of a CAR either reads as the blocks before the cut or is refused: never
 * a read past the end (ASan watches), never a block that does not match. */
static void test_car__every_cut_is_safe(void **state)
{
	ss_buf bytes = SS_BUF_INIT;
	ss_car *car;
	ss_error err;
	size_t whole, accepted = 0;

	ss_test_cbor_file(&bytes, "car-pds-since.car");
	assert_int_equal(ss_car_open(&car, bytes.ptr, bytes.len, &err), 0);
	whole = ss_car_block_count(car);
	ss_car_free(car);
	for (size_t n = 0; n < bytes.len; n++) {
		char *copy = malloc(n ? n : 1);
		memcpy(copy, bytes.ptr, n);
		if (ss_car_open(&car, copy, n, &err) == 0) {
			assert_true(ss_car_block_count(car) < whole);
			accepted++;
			ss_car_free(car);
		} else {
			assert_int_equal(err.code, SS_EINVALID);
		}
		free(copy);
	}
	/* Only the cuts on block boundaries read. */
	assert_int_equal(accepted, whole);
	ss_buf_release(&bytes);
}

static void check_refused(const char *hex, const char *what)
{
	ss_buf bytes = SS_BUF_INIT;
	ss_car *car;
	ss_error err;

	ss_test_cbor_unhex(&bytes, hex);
	SS_ASSERT_FAILS(ss_car_open(&car, bytes.ptr, bytes.len, &err), err, SS_EINVALID);
	if (!strstr(err.message, what))
		fail_msg("%s: '%s'", hex, err.message);
	ss_buf_release(&bytes);
}

/* Headers and lengths a hostile server could send. */
static void test_car__refuses_bad_framing(void **state)
{
	/* {"roots": [], "version": 1} is a265726f6f7473806776657273696f6e01 (17 bytes) */
	check_refused("", "header length");
	check_refused("11a265726f6f7473806776657273696f6e", "header length");
	check_refused("00", "header length");
	check_refused("8080808080808080808001", "header length"); /* a 10-byte varint */
	check_refused("9100a265726f6f7473806776657273696f6e01", "header length"); /* 0x91 0x00 */
	check_refused("11a265726f6f7473806776657273696f6e02", "version is not 1");
	check_refused("11a2656f7468657280"
	              "6776657273696f6e01",
	              "unknown key");
	check_refused("0aa16776657273696f6e01", "without roots");
	check_refused("11a26776657273696f6e0165726f6f747380", "order");
	check_refused("13a265726f6f7473816167"
	              "6776657273696f6e01",
	              "not a CID");
	/* A block whose length runs past the input, then one too short for its CID. */
	check_refused("11a265726f6f7473806776657273696f6e01"
	              "ff01",
	              "block length");
	check_refused("11a265726f6f7473806776657273696f6e01"
	              "0401711220",
	              "cut short");
	/* A block with an over-long varint length. */
	check_refused("11a265726f6f7473806776657273696f6e01"
	              "ffffffffffffffffff7f",
	              "block length");
}

/* A space repo as getRepo serves it (docs/SPACE-PROTOCOL.md, section 3): roots [commit, index], the
 * index a map "<collection>/<rkey>" -> record CID in DAG-CBOR key order (length first), then
 * the records. Written with the encoder, read back: the roots, the index in its order, and
 * every record it names. */
static void test_car__space_repo_layout(void **state)
{
	static const char *const keys[] = {"garden.engram.skill/pdf", "garden.engram.skill/a",
	                                   "garden.engram.skill/zz"};
	json_t *index = json_object(), *header, *roots = json_array(), *got, *rec;
	ss_buf car = SS_BUF_INIT, block = SS_BUF_INIT, hdr = SS_BUF_INIT;
	char s[SS_CID_STRSZ];
	ss_cid cids[3], index_cid, commit_cid;
	const char *key, *prev = NULL;
	ss_car *parsed;
	ss_error err;
	json_t *link;

	ss_cid_compute(&commit_cid, SS_CID_DAG_CBOR, "\xa0", 1);
	for (size_t i = 0; i < 3; i++) {
		rec = json_pack("{s:s,s:s}", "$type", "garden.engram.skill", "name", keys[i] + 20);
		ss_buf_clear(&block);
		assert_int_equal(ss_cbor_encode(rec, &block, &err), 0);
		ss_cid_compute(&cids[i], SS_CID_DAG_CBOR, block.ptr, block.len);
		ss_cid_fmt(s, &cids[i]);
		json_object_set_new(index, keys[i], json_pack("{s:s}", "$link", s));
		json_decref(rec);
	}
	ss_buf_clear(&block);
	assert_int_equal(ss_cbor_encode(index, &block, &err), 0);
	ss_cid_compute(&index_cid, SS_CID_DAG_CBOR, block.ptr, block.len);
	ss_cid_fmt(s, &commit_cid);
	json_array_append_new(roots, json_pack("{s:s}", "$link", s));
	ss_cid_fmt(s, &index_cid);
	json_array_append_new(roots, json_pack("{s:s}", "$link", s));
	header = json_pack("{s:o,s:i}", "roots", roots, "version", 1);
	assert_int_equal(ss_cbor_encode(header, &hdr, &err), 0);
	assert_true(hdr.len < 0x80); /* its length in one varint byte */
	ss_buf_putc(&car, (char)hdr.len);
	ss_buf_put(&car, hdr.ptr, hdr.len);
	ss_test_car_put(&car, &commit_cid, (const unsigned char *)"\xa0", 1, &err);
	ss_test_car_put(&car, &index_cid, (const unsigned char *)block.ptr, block.len, &err);
	for (size_t i = 0; i < 3; i++) {
		rec = json_pack("{s:s,s:s}", "$type", "garden.engram.skill", "name", keys[i] + 20);
		ss_buf_clear(&block);
		assert_int_equal(ss_cbor_encode(rec, &block, &err), 0);
		ss_test_car_put(&car, &cids[i], (const unsigned char *)block.ptr, block.len, &err);
		json_decref(rec);
	}

	assert_int_equal(ss_car_open(&parsed, car.ptr, car.len, &err), 0);
	assert_int_equal(ss_car_root_count(parsed), 2);
	assert_true(ss_cid_equal(ss_car_root(parsed, 0), &commit_cid));
	assert_true(ss_cid_equal(ss_car_root(parsed, 1), &index_cid));
	{
		const ss_car_block *b = ss_car_get(parsed, ss_car_root(parsed, 1));
		assert_int_equal(ss_cbor_decode(b->data, b->len, &got, &err), 0);
	}
	assert_int_equal(json_object_size(got), 3);
	json_object_foreach(got, key, link)
	{
		ss_cid cid;
		const char *l = json_string_value(json_object_get(link, "$link"));
		if (prev)
			assert_true(ss_cbor_key_less((const unsigned char *)prev, strlen(prev),
			                             (const unsigned char *)key, strlen(key)));
		prev = key;
		assert_int_equal(ss_cid_parse(&cid, l, strlen(l), &err), 0);
		assert_non_null(ss_car_get(parsed, &cid));
	}
	/* Length first: the one-letter rkey, then the others. */
	assert_string_equal(json_object_iter_key(json_object_iter(got)), "garden.engram.skill/a");
	json_decref(got);
	json_decref(header);
	json_decref(index);
	ss_car_free(parsed);
	ss_buf_release(&car);
	ss_buf_release(&block);
	ss_buf_release(&hdr);
}

/* A block given twice is kept once; a CAR with no blocks is fine. */
static void test_car__duplicates_and_empty(void **state)
{
	ss_buf car = SS_BUF_INIT;
	ss_car *parsed;
	ss_error err;
	ss_cid cid;

	ss_test_car_start(&car);
	assert_int_equal(ss_car_open(&parsed, car.ptr, car.len, &err), 0);
	assert_int_equal(ss_car_block_count(parsed), 0);
	assert_int_equal(ss_car_root_count(parsed), 0);
	ss_car_free(parsed);
	ss_cid_compute(&cid, SS_CID_RAW, "abc", 3);
	ss_test_car_put(&car, &cid, (const unsigned char *)"abc", 3, &err);
	ss_test_car_put(&car, &cid, (const unsigned char *)"abc", 3, &err);
	assert_int_equal(ss_car_open(&parsed, car.ptr, car.len, &err), 0);
	assert_int_equal(ss_car_block_count(parsed), 1);
	assert_int_equal(ss_car_get(parsed, &cid)->len, 3);
	ss_car_free(parsed);
	ss_buf_release(&car);
}

int test_car_run(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_car__reads_a_pds_repo),
	    cmocka_unit_test(test_car__commit_signed_by_the_account),
	    cmocka_unit_test(test_car__tampered_block_refused),
	    cmocka_unit_test(test_car__mapped_drops_a_bad_block),
	    cmocka_unit_test(test_car__mapped_resident_up_to_a_bound),
	    cmocka_unit_test(test_car__every_cut_is_safe),
	    cmocka_unit_test(test_car__refuses_bad_framing),
	    cmocka_unit_test(test_car__space_repo_layout),
	    cmocka_unit_test(test_car__duplicates_and_empty),
	};
	return cmocka_run_group_tests_name("core/car", tests, NULL, NULL);
}
