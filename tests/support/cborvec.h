/*
 * cborvec.h: what the DAG-CBOR, CID, CAR and MST tests share besides support.h (whose
 * ss_test_json reads their JSON vectors): raw vector files, hex and base64 of any length, and
 * CARs made in memory. Each fails the test when a file is missing or malformed.
 */
#ifndef SS_TEST_CBORVEC_H
#define SS_TEST_CBORVEC_H

#include <jansson.h>

#include "core/atproto/cid.h"
#include "core/util/buf.h"
#include "core/util/error.h"

/* The bytes of testdata/vectors/<name>, into out. */
void ss_test_cbor_file(ss_buf *out, const char *name);
/* Hex digits to bytes, into out. */
void ss_test_cbor_unhex(ss_buf *out, const char *hex);
/* Standard base64 (padded or not) to bytes, into out. */
void ss_test_cbor_unbase64(ss_buf *out, const char *b64);

/* A CAR in memory for tests: the header (no roots), then blocks appended by ss_test_car_put, an
 * ss_mst_put_fn whose ctx is the ss_buf. */
void ss_test_car_start(ss_buf *car);
int ss_test_car_put(void *car, const ss_cid *cid, const unsigned char *data, size_t len,
                    ss_error *err);

#endif
