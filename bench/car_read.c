/*
 * car_read.c: the CPU cost of reading a member's whole repo as com.atproto.sync.getRepo hands
 * it out (a CAR), for bench/clone.sh (not part of skillsync itself).
 *
 * Usage: ss-car-read <car-file>...
 *        ss-car-read --pages <listRecords-page>...
 *
 * For each file, what a full sync from getRepo would have to do before the records reach the
 * fetch: read the file, open the CAR (core/atproto/car.h: every block hashed against its CID),
 * decode the commit (its root) for the MST root, walk the garden.engram.skill/ range
 * (core/atproto/mst.h: every node checked) and decode each record's block into its JSON form
 * (core/atproto/cbor.h), the form the listRecords way gets from the network. The commit's signature
 * is not checked: one ECDSA check per member either way. Prints one line per file and a total line:
 *   <file> blocks=<n> bytes=<n> skills=<n> wall=<s> cpu=<s>
 * The total line adds hash_cpu=<s>: the CPU of opening the CARs (every block hashed), or with
 * --pages of the records' CID checks alone (ss_record_cid_from_json: the value parsed, encoded
 * as DAG-CBOR and hashed, what a clone does per record; the page's parse here is jansson's, not
 * the clone's one-pass scanner, so the rest of --pages' CPU overstates the clone's).
 * --pages: the listRecords way's counterpart, on pages saved as the PDS sent them: parse each
 * page, and for each record compute its value's CID (core/skill/record.h: the JSON encoded as
 * canonical DAG-CBOR, hashed) and compare it with the listed one, as a full sync checks each
 * listed record (sync/public/verify.c); the MST nodes it fetches with getBlocks are not counted
 * here (a few hundred, against every record); blocks= is 0.
 */
#include <jansson.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "core/atproto/car.h"
#include "core/atproto/cbor.h"
#include "core/atproto/cid.h"
#include "core/atproto/mst.h"
#include "core/skill/record.h"
#include "core/util/buf.h"
#include "core/util/error.h"
#include "core/util/fs.h"

#define PREFIX "garden.engram.skill/"

static double seconds(clockid_t clock)
{
	struct timespec ts;

	clock_gettime(clock, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* CPU spent hashing: opening the CARs (every block), or the pages' CID checks. */
static double hash_cpu;

typedef struct reader {
	ss_car *car;
	size_t skills;
	size_t json_bytes;
} reader;

/* Each record of the skill range: its block (hashed when the CAR was opened) as JSON. */
static int leaf(void *ctx, const char *key, size_t key_len, const ss_cid *value, ss_error *err)
{
	reader *rd = ctx;
	const ss_car_block *b = ss_car_get(rd->car, value);
	json_t *v = NULL;
	char *text;

	if (!b)
		return ss_error_set(err, SS_EINVALID, "record %.*s: not in the CAR", (int)key_len,
		                    key);
	if (ss_cbor_decode(b->data, b->len, &v, err) < 0)
		return ss_error_prefix(err, "record %.*s", (int)key_len, key);
	text = json_dumps(v, JSON_COMPACT);
	json_decref(v);
	if (!text)
		return ss_error_set(err, SS_EINVALID, "record %.*s: no JSON form", (int)key_len,
		                    key);
	rd->json_bytes += strlen(text);
	free(text);
	rd->skills++;
	return 0;
}

static int read_one(const char *path, reader *rd, ss_buf *data, ss_error *err)
{
	const ss_car_block *b;
	json_t *commit = NULL, *link;
	ss_cid root;
	ss_mst_source src;
	double c;
	int ret;

	if (ss_fs_read_file(data, path, (size_t)1 << 31, err) < 0)
		return -1;
	c = seconds(CLOCK_PROCESS_CPUTIME_ID);
	ret = ss_car_open(&rd->car, data->ptr, data->len, err);
	hash_cpu += seconds(CLOCK_PROCESS_CPUTIME_ID) - c;
	if (ret < 0)
		return -1;
	if (ss_car_root_count(rd->car) != 1 || !(b = ss_car_get(rd->car, ss_car_root(rd->car, 0))))
		return ss_error_set(err, SS_EINVALID, "the CAR does not hold its commit");
	if (ss_cbor_decode(b->data, b->len, &commit, err) < 0)
		return ss_error_prefix(err, "the commit");
	link = json_object_get(json_object_get(commit, "data"), "$link");
	ret = json_is_string(link)
	          ? ss_cid_parse(&root, json_string_value(link), json_string_length(link), err)
	          : ss_error_set(err, SS_EINVALID, "the commit names no tree");
	json_decref(commit);
	if (ret < 0)
		return ret;
	ss_mst_source_init(&src, ss_car_get_block, rd->car);
	ret = ss_mst_walk(&src, &root, PREFIX, leaf, rd, err);
	ss_mst_source_release(&src);
	return ret;
}

/* One listRecords page: every record's value hashed to the CID the page names. */
static int read_page(const char *path, reader *rd, ss_buf *data, ss_error *err)
{
	json_t *page, *records, *r;
	json_error_t jerr;
	size_t i;
	int ret = 0;

	if (ss_fs_read_file(data, path, (size_t)1 << 31, err) < 0)
		return -1;
	if (!(page = json_loadb(data->ptr, data->len, 0, &jerr)))
		return ss_error_set(err, SS_EINVALID, "not JSON: %s", jerr.text);
	records = json_object_get(page, "records");
	json_array_foreach(records, i, r)
	{
		const char *cid = json_string_value(json_object_get(r, "cid"));
		char *text = json_dumps(json_object_get(r, "value"), JSON_COMPACT),
		     *computed = NULL;
		double c = seconds(CLOCK_PROCESS_CPUTIME_ID);

		if (!cid || !text)
			ret = ss_error_set(err, SS_EINVALID, "a record without a CID or value");
		else if (ss_record_cid_from_json(text, strlen(text), &computed, err) >= 0 &&
		         strcmp(computed, cid))
			ret = ss_error_set(err, SS_EINVALID,
			                   "a record's value does not hash to its CID");
		else if (!computed)
			ret = -1;
		hash_cpu += seconds(CLOCK_PROCESS_CPUTIME_ID) - c;
		free(computed);
		free(text);
		if (ret < 0)
			break;
		rd->skills++;
	}
	json_decref(page);
	return ret;
}

int main(int argc, char **argv)
{
	double wall0 = seconds(CLOCK_MONOTONIC), cpu0 = seconds(CLOCK_PROCESS_CPUTIME_ID);
	size_t blocks = 0, bytes = 0, skills = 0;
	ss_error err;
	int first = 1;
	bool pages = argc > 1 && !strcmp(argv[1], "--pages");

	ss_error_clear(&err);
	if (argc < 2 + pages) {
		fprintf(stderr, "usage: ss-car-read [--pages] <file>...\n");
		return 2;
	}
	first += pages;
	for (int i = first; i < argc; i++) {
		double w = seconds(CLOCK_MONOTONIC), c = seconds(CLOCK_PROCESS_CPUTIME_ID);
		reader rd = {0};
		ss_buf data = SS_BUF_INIT;
		int ret = pages ? read_page(argv[i], &rd, &data, &err)
		                : read_one(argv[i], &rd, &data, &err);
		size_t nblocks = rd.car ? ss_car_block_count(rd.car) : 0;

		if (ret >= 0) {
			printf("%s blocks=%zu bytes=%zu skills=%zu wall=%.3f cpu=%.3f\n", argv[i],
			       nblocks, data.len, rd.skills, seconds(CLOCK_MONOTONIC) - w,
			       seconds(CLOCK_PROCESS_CPUTIME_ID) - c);
			blocks += nblocks;
			bytes += data.len;
			skills += rd.skills;
		}
		ss_car_free(rd.car);
		ss_buf_release(&data);
		if (ret < 0) {
			fprintf(stderr, "ss-car-read: %s: %s\n", argv[i], err.message);
			return 1;
		}
	}
	printf("total blocks=%zu bytes=%zu skills=%zu wall=%.3f cpu=%.3f hash_cpu=%.3f\n", blocks,
	       bytes, skills, seconds(CLOCK_MONOTONIC) - wall0,
	       seconds(CLOCK_PROCESS_CPUTIME_ID) - cpu0, hash_cpu);
	return 0;
}
