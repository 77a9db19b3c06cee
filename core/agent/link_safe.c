/*
 * link_safe.c: where link may write: an agent's folder reached from the base the person chose
 * with no symbolic link followed below it, and whether a folder link made earlier is still
 * such a folder (see core/agent/link.h).
 */
#include <stdlib.h>
#include <string.h>

#include "core/agent/agent.h"
#include "core/agent/link.h"
#include "core/util/buf.h"
#include "core/util/fs.h"
#include "core/util/mem.h"

/*
 * The agent's folder into dir, walked from the base the person chose with no symbolic link
 * followed below it (ss_link_folder; made when create): "refusing to link: '<path>' is a
 * symbolic link" when one is.
 */
int ss_link_agent_folder(const ss_agent *a, bool global, const char *project, bool create,
                         ss_buf *dir, ss_error *err)
{
	ss_buf base = SS_BUF_INIT, rel = SS_BUF_INIT;
	int rc;

	ss_buf_clear(dir);
	rc = ss_agent_dir_parts(a, global, project, &base, &rel, err);
	if (rc == 0)
		rc = ss_fs_join(dir, base.ptr, rel.ptr) < 0
		         ? ss_error_set(err, SS_ERROR, "out of memory")
		         : ss_link_folder(base.ptr, rel.ptr, create, err);
	if (rc < 0 && err->code == SS_EINVALID)
		ss_error_prefix(err, "refusing to link");
	ss_buf_release(&base);
	ss_buf_release(&rel);
	return rc;
}

/* Whether s ends with "/" tail; *at set to where that "/" is. */
static bool ends_with(const char *s, const char *tail, size_t *at)
{
	size_t n = strlen(s), t = strlen(tail);

	if (n <= t || s[n - t - 1] != '/' || strcmp(s + n - t, tail))
		return false;
	*at = n - t - 1;
	return true;
}

/*
 * Whether the remembered folder dir (a target of l) can be written to: none of the components
 * its agent's table put below the base is a symbolic link now (ss_link_folder). When one is,
 * names it in *why (free()) and returns false. The base comes from where the agent's folder
 * is now, or, when that moved since (another $HOME, $CODEX_HOME), from the folder's own path.
 */
bool ss_link_target_safe(const ss_link_set *l, const char *dir, char **why)
{
	const ss_link_target *t = NULL;
	const ss_agent *a;
	ss_buf base = SS_BUF_INIT, rel = SS_BUF_INIT, now = SS_BUF_INIT;
	const char *tails[3];
	ss_error err;
	size_t at = 0;
	bool found = false, ok = true;

	*why = NULL;
	for (size_t i = 0; i < l->ntargets && !t; i++)
		if (!strcmp(l->targets[i].dir, dir))
			t = &l->targets[i];
	if (!t || !(a = ss_agent_find(t->agent)))
		return true; /* written by a later version, or not a folder link made */
	ss_error_clear(&err);
	if (ss_agent_dir_parts(a, t->global, "/", &base, &rel, &err) == 0 &&
	    ss_fs_join(&now, base.ptr, rel.ptr) == 0 && !strcmp(now.ptr, dir)) {
		found = true;
	} else {
		tails[0] = t->global ? a->global : a->project;
		tails[1] = rel.len ? rel.ptr : "skills";
		tails[2] = "skills";
		for (size_t i = 0; i < 3 && !found; i++)
			found = ends_with(dir, tails[i], &at);
		if (found) {
			ss_buf_clear(&rel);
			ss_buf_puts(&rel, dir + at + 1);
			ss_buf_clear(&base);
			ss_buf_put(&base, dir, at);
		}
	}
	ss_error_clear(&err);
	if (found && ss_link_folder(base.ptr, rel.ptr, false, &err) < 0 &&
	    err.code == SS_EINVALID) {
		*why = ss_xstrdup(err.message);
		ok = false;
	}
	ss_buf_release(&base);
	ss_buf_release(&rel);
	ss_buf_release(&now);
	return ok;
}
