/* A record's CID from its JSON text (core/record.h), through core/cbor.h. */
#include "core/record.h"

#include <jansson.h>

#include "core/cbor.h"
#include "core/cid.h"
#include "core/mem.h"

int ss_record_cid_from_json(const char *json, size_t len, char **cid, ss_error *err)
{
	json_error_t jerr;
	json_t *v = NULL;
	ss_buf bytes = SS_BUF_INIT;
	char s[SS_CID_STRSZ];
	ss_cid c;
	int ret = -1;

	v = json_loadb(json, len, JSON_REJECT_DUPLICATES | JSON_ALLOW_NUL, &jerr);
	if (!v) {
		ss_error_set(err, SS_EINVALID, "record is not JSON: %s", jerr.text);
		goto out;
	}
	if (!json_is_object(v)) {
		ss_error_set(err, SS_EINVALID, "record is not a JSON object");
		goto out;
	}
	if (ss_cbor_encode(v, &bytes, err) < 0) {
		ss_error_prefix(err, "record");
		goto out;
	}
	ss_cid_compute(&c, SS_CID_DAG_CBOR, bytes.ptr, bytes.len);
	ss_cid_fmt(s, &c);
	*cid = ss_xstrdup(s);
	ret = 0;
out:
	json_decref(v);
	ss_buf_release(&bytes);
	return ret;
}
