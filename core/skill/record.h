/*
 * record.h: a skill <-> its garden.engram.skill record (JSON text). docs/RECORD-FORMAT.md has
 * the mapping.
 *
 * Rules: jansson stays inside record.c. Records come from the network, so decoding treats the
 * text as hostile: wrong types, oversize or unsafe values, a name that is not the record key,
 * too many files all become report errors (never a crash, never work beyond the input's size,
 * which is capped at SS_RECORD_MAX_INPUT). A decoded skill passed every ss_validate rule, so it
 * is safe to write with ss_skilldir_write(). Extra frontmatter keys travel in the record's
 * "frontmatter" object.
 */
#ifndef SS_RECORD_H
#define SS_RECORD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/atproto/cid.h"
#include "core/skill/report.h"
#include "core/util/buf.h"
#include "core/util/error.h"

struct ss_skill;
struct ss_skill_file;

#define SS_RECORD_TYPE "garden.engram.skill"
/* The largest record text decode looks at (twice what the PDS accepts). */
#define SS_RECORD_MAX_INPUT 2000000

/* What a record says besides the skill. */
typedef struct ss_record_meta {
	char *created_at; /* the text, as the record has it */
	char *updated_at;
	char *note;         /* NULL when absent */
	int64_t created_us; /* the instants (core/util/time.h) */
	int64_t updated_us;
} ss_record_meta;

void ss_record_meta_init(ss_record_meta *m);
void ss_record_meta_release(ss_record_meta *m);

/*
 * Appends the record's JSON (compact, keys in a fixed order) to out. created_at and updated_at
 * are datetimes (core/util/time.h); note may be NULL and is cut to 2,000 bytes on a UTF-8 boundary.
 * Fails (SS_EINVALID) only on text that is not UTF-8.
 */
int ss_record_encode(const struct ss_skill *skill, const char *created_at, const char *updated_at,
                     const char *note, ss_buf *out, ss_error *err);

/* A frontmatter value as JSON (a new reference), keys in their order; NULL on text that is not
 * UTF-8. */
struct json_t;
struct ss_value;
struct json_t *ss_record_value_json(const struct ss_value *v);

/*
 * Decodes the raw JSON text of one record (len bytes, as the server sent it: never text dumped
 * back from a parsed page, which would have merged keys given twice) stored under rkey.
 * Returns 0 and sets *skill (and meta, if not NULL) when the record is valid; else adds every
 * problem found to report (file names "<rkey>/SKILL.md" or "<rkey>/<path>", as for a
 * directory; a key given twice anywhere in the record is one problem naming the key) and
 * returns SS_EINVALID.
 */
int ss_record_decode(const char *json, size_t len, const char *rkey, struct ss_skill **skill,
                     ss_record_meta *meta, ss_report *report);

/*
 * A record's value as a transport read it: its JSON text (json, json_len), or the DAG-CBOR block
 * a member's repository holds (cbor, cbor_len; json NULL).
 */
typedef struct ss_record_value {
	const char *json;
	size_t json_len;
	const unsigned char *cbor;
	size_t cbor_len;
} ss_record_value;

/*
 * ss_record_decode for either form. A block is decoded straight from its bytes when it has a
 * record's usual shape, else as its JSON form, with the same outcome; a block that has no JSON
 * form (not DAG-CBOR, not a map) is one problem saying why.
 */
int ss_record_decode_value(const ss_record_value *v, const char *rkey, struct ss_skill **skill,
                           ss_record_meta *meta, ss_report *report);

/* Whether two record texts hold the same JSON value (key order aside). */
bool ss_record_same(const char *a, size_t alen, const char *b, size_t blen);

/*
 * The CID a PDS gives a record whose value is this JSON text (any record, not only a skill's):
 * the dag-cbor sha2-256 CID of its canonical DAG-CBOR (core/atproto/cbor.h), as a string in *cid
 * (free() it). A client compares it with the CID the server named to catch a value changed on the
 * way. SS_EINVALID when the text is not JSON, not an object, holds a key twice, or breaks ATProto's
 * data model (a float, a malformed $link, $bytes or blob).
 */
int ss_record_cid_from_json(const char *json, size_t len, char **cid, ss_error *err);

/* ---- Files carried as blobs (core/skill/record_blobs.c; docs/RECORD-FORMAT.md) ---- */

/* The record's field naming the files carried as blobs. */
#define SS_FIELD_BLOB_FILES "blobFiles"
/* The mimeType a blob ref names until the PDS says its own (the upload's answer). */
#define SS_BLOB_MIME "application/octet-stream"

/*
 * Which files of s travel as blobs (blob[i] for s->files[i]) rather than in files[]: the one
 * rule, pure. In path order, a file goes into files[] when it is text (UTF-8, no NUL byte), at
 * most SS_MAX_CONTENT bytes and files[] holds fewer than SS_MAX_FILES; every other file is a
 * blob. Then, while the record (each blob ref counted with SS_BLOB_MIME_RESERVE bytes for its
 * mimeType) is over SS_MAX_RECORD, the largest file left in files[] (the last path among
 * equals) becomes a blob too. A file awaiting its bytes (decoded from blobFiles) is a blob.
 */
void ss_record_split(const struct ss_skill *s, bool *blob);

/* Whether f can be a files[] entry by itself: text, at most SS_MAX_CONTENT bytes. */
bool ss_record_text_file(const struct ss_skill_file *f);

/* The CID of f's bytes as a blob (CIDv1, raw, sha2-256), or the one it awaits. */
void ss_record_blob_cid(const struct ss_skill_file *f, char out[SS_CID_STRSZ]);

/* A blob a record names (ss_record_blobs). */
typedef struct ss_record_blob {
	char *path;
	char cid[SS_CID_STRSZ];
} ss_record_blob;

/* The blobs the record text names (none when it is not a record with blobFiles). */
void ss_record_blobs(const char *json, size_t len, ss_record_blob **out, size_t *n);
void ss_record_blobs_free(ss_record_blob *b, size_t n);

/*
 * The record text with the blob ref of cid naming mime (the PDS keeps the mimeType it found at
 * upload, and refuses a record naming another); a text without it is copied as it is.
 */
void ss_record_blob_set_mime(const char *json, size_t len, const char *cid, const char *mime,
                             ss_buf *out);

#endif
