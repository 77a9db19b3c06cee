#include "core/git/commit.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/git/git_priv.h"
#include "core/git/repo_priv.h"
#include "core/util/mem.h"

/* A signature from opts, else git config's user.name / user.email, else skillsync's. */
static int make_signature(git_signature **out, ss_repo *repo, const ss_commit_opts *opts,
                          ss_error *err)
{
	git_config *cfg = NULL;
	git_buf name = {0}, email = {0};
	const char *n = opts ? opts->author_name : NULL;
	const char *e = opts ? opts->author_email : NULL;
	int64_t when = opts ? opts->time : 0;
	int rc;

	if ((!n || !e) && git_repository_config_snapshot(&cfg, repo->git) == 0) {
		if (!n && git_config_get_string_buf(&name, cfg, "user.name") == 0 && name.size)
			n = name.ptr;
		if (!e && git_config_get_string_buf(&email, cfg, "user.email") == 0 && email.size)
			e = email.ptr;
	}
	if (!n)
		n = SS_COMMIT_DEFAULT_NAME;
	if (!e)
		e = SS_COMMIT_DEFAULT_EMAIL;
	if (when)
		rc = git_signature_new(out, n, e, (git_time_t)when, 0);
	else
		rc = git_signature_now(out, n, e);
	git_buf_dispose(&name);
	git_buf_dispose(&email);
	git_config_free(cfg);
	if (rc < 0)
		return ss_git__error(err, rc, "invalid author '%s <%s>'", n, e);
	return 0;
}

int ss_commit_read_ref(ss_repo *repo, const char *name, ss_oid *out, ss_error *err)
{
	git_oid id;
	int rc = git_reference_name_to_id(&id, repo->git, name);

	if (rc == GIT_ENOTFOUND || rc == GIT_EUNBORNBRANCH)
		return ss_error_set(err, SS_ENOTFOUND, "'%s' has no commit yet", name);
	if (rc < 0)
		return ss_git__error(err, rc, "cannot read '%s'", name);
	ss_git__oid_out(out, &id);
	return 0;
}

int ss_commit_update_ref(ss_repo *repo, const char *name, const ss_oid *id,
                         const ss_oid *expected_old, const char *msg, ss_error *err)
{
	git_repository *git = repo->git;
	git_reference *sym = NULL, *ref = NULL;
	char *target = NULL;
	git_oid new_id, old_id;
	int rc;

	/* Moving HEAD moves the branch it points at (which may not exist yet). */
	if (git_reference_lookup(&sym, git, name) == 0 &&
	    git_reference_type(sym) == GIT_REFERENCE_SYMBOLIC)
		target = ss_xstrdup(git_reference_symbolic_target(sym));
	else
		target = ss_xstrdup(name);
	git_reference_free(sym);
	ss_git__oid_in(&new_id, id);
	if (!expected_old) {
		rc = git_reference_create(&ref, git, target, &new_id, 1, msg);
	} else if (ss_oid_is_zero(expected_old)) {
		rc = git_reference_create(&ref, git, target, &new_id, 0, msg);
		if (rc == GIT_EEXISTS)
			rc = GIT_EMODIFIED;
	} else {
		ss_git__oid_in(&old_id, expected_old);
		rc = git_reference_create_matching(&ref, git, target, &new_id, 1, &old_id, msg);
		if (rc == GIT_ENOTFOUND)
			rc = GIT_EMODIFIED;
	}
	git_reference_free(ref);
	if (rc == GIT_EMODIFIED || rc == GIT_ELOCKED)
		rc = ss_error_set(err, SS_ECONFLICT,
		                  "'%s' moved meanwhile (another skillsync or git at work?)",
		                  target);
	else if (rc < 0)
		rc = ss_git__error(err, rc, "cannot update '%s'", target);
	free(target);
	return rc < 0 ? rc : 0;
}

int ss_commit_create(ss_repo *repo, const ss_commit_opts *opts, const ss_oid *tree,
                     const ss_oid *parents, size_t nparents, const char *message, ss_oid *out,
                     ss_error *err)
{
	git_repository *git = repo->git;
	git_signature *sig = NULL;
	git_tree *t = NULL;
	git_commit **pc = ss_xcalloc(nparents ? nparents : 1, sizeof(*pc));
	const git_commit **cpc = ss_xcalloc(nparents ? nparents : 1, sizeof(*cpc));
	git_oid id, pid;
	char hex[SS_OID_HEXSZ + 1];
	int rc, ret;

	ret = make_signature(&sig, repo, opts, err);
	if (ret < 0)
		goto out;
	ret = ss_git__tree(&t, repo, tree, err);
	if (ret < 0)
		goto out;
	if (!t) {
		ret = ss_error_set(err, SS_EINVALID, "a commit needs a tree");
		goto out;
	}
	for (size_t i = 0; i < nparents; i++) {
		ss_git__oid_in(&pid, &parents[i]);
		rc = git_commit_lookup(&pc[i], git, &pid);
		if (rc < 0) {
			ss_oid_fmt(hex, &parents[i]);
			ret = ss_git__error(err, rc, "cannot read commit '%s'", hex);
			goto out;
		}
		cpc[i] = pc[i];
	}
	rc = git_commit_create(&id, git, NULL, sig, sig, NULL, message, t, nparents, cpc);
	if (rc < 0) {
		ret = ss_git__error(err, rc, "cannot write a commit");
		goto out;
	}
	ss_git__oid_out(out, &id);
	if (opts && opts->ref) {
		char subject[200];
		size_t n = strcspn(message, "\n");
		snprintf(subject, sizeof(subject), "commit: %.*s", (int)(n > 150 ? 150 : n),
		         message);
		ret = ss_commit_update_ref(repo, opts->ref, out, opts->expected_old, subject, err);
	}
out:
	for (size_t i = 0; i < nparents; i++)
		git_commit_free(pc[i]);
	free(pc);
	free(cpc);
	git_tree_free(t);
	git_signature_free(sig);
	return ret;
}

int ss_commit_tree(ss_repo *repo, const ss_oid *commit, ss_oid *tree, ss_error *err)
{
	git_commit *c = NULL;
	git_oid id;
	char hex[SS_OID_HEXSZ + 1];
	int rc;

	ss_git__oid_in(&id, commit);
	rc = git_commit_lookup(&c, repo->git, &id);
	if (rc < 0) {
		ss_oid_fmt(hex, commit);
		return ss_git__error(err, rc, "cannot read commit '%s'", hex);
	}
	ss_git__oid_out(tree, git_commit_tree_id(c));
	git_commit_free(c);
	return 0;
}
