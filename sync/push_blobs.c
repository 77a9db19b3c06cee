/*
 * push_blobs.c: the blobs a batch of writes names (core/skill/record.h: blobFiles) go up to my
 * PDS before the batch, so that the PDS finds each one when it keeps the record. Only the blobs
 * my repo's current version of the skill does not already name are sent: the PDS keeps a blob as
 * long as a record names it.
 */
#include <stdlib.h>
#include <string.h>

#include "core/git/tree.h"
#include "core/skill/record.h"
#include "core/skill/skill.h"
#include "core/util/mem.h"
#include "sync/push_priv.h"

typedef struct held {
	char (*cids)[SS_CID_STRSZ];
	size_t n;
} held;

static int feed(const ss_tree_file *f, void *payload)
{
	if (f->mode == SS_MODE_FILE || f->mode == SS_MODE_EXEC)
		ss_skill_reader_add(payload, f->path, f->data, f->len, f->executable);
	return 0;
}

/* The blobs my repo's version of name names, by the split rule over the subtree the state
 * rendered from it: none when the state has no valid version of mine. */
static void held_blobs(ss_repo *repo, ss_state *st, const char *me, const char *name, held *h)
{
	ss_state_record r;
	ss_report *report = ss_report_new();
	ss_skill_reader *reader = ss_skill_reader_new(name, report);
	ss_skill *s = NULL;
	ss_error ignored;
	ss_oid tree;
	bool *blob;

	memset(h, 0, sizeof(*h));
	memset(&r, 0, sizeof(r));
	if (ss_state_record_get(st, me, name, &r, &ignored) < 0 || !r.valid || !r.tree ||
	    ss_oid_parse(&tree, r.tree, &ignored) < 0 ||
	    ss_tree_each_file(repo, &tree, feed, reader, &ignored) < 0) {
		ss_skill_reader_free(reader);
		goto out;
	}
	if (ss_skill_reader_finish(reader, &s) < 0)
		goto out;
	blob = ss_xcalloc(s->nfiles + 1, sizeof(*blob));
	ss_record_split(s, blob);
	h->cids = ss_xcalloc(s->nfiles + 1, sizeof(*h->cids));
	for (size_t i = 0; i < s->nfiles; i++)
		if (blob[i])
			ss_record_blob_cid(&s->files[i], h->cids[h->n++]);
	free(blob);
out:
	ss_state_record_release(&r);
	ss_skill_free(s);
	ss_report_free(report);
}

static bool is_held(const held *h, const char *cid)
{
	for (size_t i = 0; i < h->n; i++)
		if (!strcmp(h->cids[i], cid))
			return true;
	return false;
}

/* Sends one blob (the file at b->path of tree); *value names the mimeType the PDS stored. */
static int upload(ss_repo *repo, ss_space *sp, const char *name, const ss_oid *tree,
                  const ss_record_blob *b, char **value, ss_push_result *out, ss_error *err)
{
	ss_buf bytes = SS_BUF_INIT, text = SS_BUF_INIT;
	char *cid = NULL, *mime = NULL;
	int ret;

	if ((ret = ss_tree_read_file(repo, tree, b->path, &bytes, err)) < 0)
		goto out;
	ret = ss_space_upload_blob(sp, bytes.ptr, bytes.len, &cid, &mime, err);
	if (ret < 0 && err->code == SS_ETOOBIG) {
		ret =
		    ss_error_set(err, SS_ETOOBIG,
		                 "'%s/%s' (%zu bytes) is larger than your PDS takes for one file: "
		                 "move it out of the skill",
		                 name, b->path, bytes.len);
		goto out;
	}
	if (ret < 0) {
		ret = ss_error_prefix(err, "cannot upload '%s/%s'", name, b->path);
		goto out;
	}
	if (strcmp(cid, b->cid)) {
		ret = ss_error_set(err, SS_ERROR,
		                   "cannot upload '%s/%s': the PDS stored it as %s, not %s", name,
		                   b->path, cid, b->cid);
		goto out;
	}
	out->blobs_uploaded++;
	out->blob_bytes += bytes.len;
	if (strcmp(mime, SS_BLOB_MIME)) {
		ss_record_blob_set_mime(*value, strlen(*value), b->cid, mime, &text);
		free(*value);
		*value = ss_buf_detach(&text, NULL);
	}
out:
	free(cid);
	free(mime);
	ss_buf_release(&bytes);
	ss_buf_release(&text);
	return ret;
}

int ss_push__upload_blobs(const ss_push_blobs *pb, size_t first, size_t n, char **values,
                          ss_push_result *out, ss_error *err)
{
	int ret = 0;

	for (size_t i = first; ret == 0 && i < first + n; i++) {
		const ss_outgoing_item *it = ss_outgoing_get(pb->o, i);
		ss_record_blob *b;
		size_t nb;
		held h;

		if (it->write->op == SS_WRITE_DELETE || !it->record)
			continue;
		ss_record_blobs(it->record, it->record_len, &b, &nb);
		if (nb)
			held_blobs(pb->repo, pb->st, pb->me, it->write->name, &h);
		else
			memset(&h, 0, sizeof(h));
		if (nb && !values[i])
			values[i] = ss_xstrdup(it->record);
		for (size_t k = 0; ret == 0 && k < nb; k++)
			if (!is_held(&h, b[k].cid))
				ret = upload(pb->repo, pb->sp, it->write->name, &it->tree, &b[k],
				             &values[i], out, err);
		free(h.cids);
		ss_record_blobs_free(b, nb);
	}
	return ret;
}
