/* record_priv.h: the record decoder's paths, for the tests that compare them, and what the two
 * scanners (of JSON text, core/skill/record_scan.c, and of a DAG-CBOR block,
 * core/skill/record_scan_cbor.c) share. */
#ifndef SS_RECORD_PRIV_H
#define SS_RECORD_PRIV_H

#include "core/skill/record.h"

/*
 * Which path ss_record_decode takes: AUTO tries the scanner for the common shape first and
 * falls back to the general (jansson) path for anything else; GENERAL is the jansson path
 * alone; FAST is the scanner alone, returning SS_ENOTFOUND (nothing reported, nothing set)
 * when it leaves the record to the general path. Where the scanner takes a record, the result
 * (return, skill, meta, report) is the general path's.
 */
typedef enum ss_record_path {
	SS_RECORD_PATH_AUTO,
	SS_RECORD_PATH_GENERAL,
	SS_RECORD_PATH_FAST
} ss_record_path;

/*
 * The fast path (core/skill/record_scan.c): the record's text into s and m, true when it took the
 * record, false when it leaves it to the general path (s and m may then hold a part of it:
 * throw them away).
 */
bool ss_record__scan(const char *json, size_t len, const char *rkey, struct ss_skill *s,
                     ss_record_meta *m);

/*
 * The block scanner (core/skill/record_scan_cbor.c): the record's DAG-CBOR block into s and m, true
 * when it took the record, false when it leaves it to the record's JSON form (ss_cbor_to_json,
 * then ss_record_decode). It takes only blocks whose JSON form the text scanner would take,
 * with the same result.
 */
bool ss_record_scan__cbor(const unsigned char *block, size_t len, const char *rkey,
                          struct ss_skill *s, ss_record_meta *m);

/*
 * The most keys of one object the scanners check for duplicates themselves (a linear search per
 * key): a larger object goes to jansson, whose check is a hash, so a hostile record of many
 * keys costs no quadratic time there.
 */
#define SS_SCAN_MAX_KEYS 64

/* What the value of a top-level key the scanners read is (ss_record_scan__key). */
typedef enum ss_scan_kind {
	SS_SCAN_OTHER, /* a key nobody reads: any value */
	SS_SCAN_STRING,
	SS_SCAN_BOOL, /* disable-model-invocation */
	SS_SCAN_FILES,
	SS_SCAN_FRONTMATTER,
	SS_SCAN_GENERAL /* a key only the general path reads (blobFiles): the scanners decline */
} ss_scan_kind;

/* The top-level key (len bytes, no NUL): its kind, and its bit in a seen set (0: other). */
ss_scan_kind ss_record_scan__key(const char *key, size_t len, unsigned *bit);

/*
 * A string-valued top-level key's value (str: len bytes, NUL-terminated) into s or m: false
 * when the general path must decide (a second time, a wrong value); *seen gets bit.
 */
bool ss_record_scan__string(unsigned bit, const char *str, size_t len, const char *rkey,
                            struct ss_skill *s, ss_record_meta *m, unsigned *seen);

/* A file object's key: 1 path, 2 content, 4 executable, 0 any other. */
unsigned ss_record_scan__file_key(const char *key, size_t len);

/* The end of the record: false when a required key is missing; the files sorted. */
bool ss_record_scan__end(unsigned seen, struct ss_skill *s);

int ss_record_decode__path(const char *json, size_t len, const char *rkey, struct ss_skill **skill,
                           ss_record_meta *meta, ss_report *report, ss_record_path path);

/* ss_record_decode_value's block way, by path as ss_record_decode__path's: GENERAL is the
 * block's JSON form through ss_record_decode, FAST the block scanner alone. */
int ss_record_decode__block_path(const unsigned char *block, size_t len, const char *rkey,
                                 struct ss_skill **skill, ss_record_meta *meta, ss_report *report,
                                 ss_record_path path);

/* ---- blobFiles (core/skill/record_blobs.c) ---- */

struct json_t;

/* The record of skill with its files split as blob says (ss_record_split), each blob ref
 * naming mime; otherwise as ss_record_encode. */
int ss_record__encode_split(const struct ss_skill *skill, const bool *blob, const char *mime,
                            const char *created_at, const char *updated_at, const char *note,
                            ss_buf *out, ss_error *err);

/* One blobFiles entry for f (its CID computed from its bytes, or the one it awaits). */
struct json_t *ss_record__blob_entry(const struct ss_skill_file *f, const char *mime);
/* The blobFiles array: the files blob marks, in path order. */
struct json_t *ss_record__blob_files(const struct ss_skill *s, const bool *blob, const char *mime);

/* The lexicon's limit on files[]: a file the record holds as text (not awaited from a blob)
 * is at most SS_MAX_CONTENT bytes; each one over it is an error of report (rkey quoted). */
void ss_record__check_files(const struct ss_skill *s, const char *rkey, ss_report *report);

/* A record's blobFiles into s (files awaiting their bytes); problems into report (md: the
 * "<rkey>/SKILL.md" label, rkey quoted). */
void ss_record__take_blob_files(struct json_t *arr, struct ss_skill *s, ss_report *report,
                                const char *rkey, const char *md);

#endif
