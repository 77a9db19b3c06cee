/*
 * cborvec.h: reading the test vectors of testdata/vectors/ for the DAG-CBOR, CID, CAR and MST
 * tests (each fails the test when the file is missing or malformed).
 */
#ifndef SS_TEST_CBORVEC_H
#define SS_TEST_CBORVEC_H

#include <jansson.h>

#include "core/buf.h"

/* The JSON of testdata/vectors/<name> (json_decref it). */
json_t *ss_test_cbor_json(const char *name);
/* The bytes of testdata/vectors/<name>, into out. */
void ss_test_cbor_file(ss_buf *out, const char *name);
/* Hex digits to bytes, into out. */
void ss_test_cbor_unhex(ss_buf *out, const char *hex);
/* Standard base64 (padded or not) to bytes, into out. */
void ss_test_cbor_unbase64(ss_buf *out, const char *b64);

#endif
