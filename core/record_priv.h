/* record_priv.h: the record decoder's two paths, for the tests that compare them. */
#ifndef SS_RECORD_PRIV_H
#define SS_RECORD_PRIV_H

#include "core/record.h"

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
 * The fast path (core/record_scan.c): the record's text into s and m, true when it took the
 * record, false when it leaves it to the general path (s and m may then hold a part of it:
 * throw them away).
 */
bool ss_record_scan(const char *json, size_t len, const char *rkey, struct ss_skill *s,
                    ss_record_meta *m);

int ss_record_decode_path(const char *json, size_t len, const char *rkey, struct ss_skill **skill,
                          ss_record_meta *meta, ss_report *report, ss_record_path path);

#endif
