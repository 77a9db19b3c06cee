/*
 * record_cid_priv.h: the two ways core/skill/record_cid.c takes a record's JSON text to DAG-CBOR,
 * for the tests and the fuzz target that check they agree.
 *
 * ss_record_cid__scan encodes the common shape straight from the text (no jansson tree): it
 * returns 0 with the canonical DAG-CBOR appended to out, or 1 (out as it was) on anything it
 * does not take: escapes other than the short ones, $-keys other than a plain $type, numbers
 * that are not small integers, deep nesting, duplicate keys, invalid text. The caller then
 * takes the general path (json_loadb and ss_cbor_encode), which gives every refusal, so the
 * result never depends on which path ran.
 */
#ifndef SS_RECORD_CID_PRIV_H
#define SS_RECORD_CID_PRIV_H

#include <stddef.h>

#include "core/util/buf.h"

int ss_record_cid__scan(const char *json, size_t len, ss_buf *out);
/* The general path alone: 0 with the DAG-CBOR appended to out, or -1 with err set. */
int ss_record__cbor_general(const char *json, size_t len, ss_buf *out, ss_error *err);

#endif
