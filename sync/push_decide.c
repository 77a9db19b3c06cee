/* push_decide.c: a push's decisions about its journal, pure (see sync/push_priv.h). */
#include <string.h>

#include "core/util/error.h"
#include "sync/push_priv.h"

/* The server answered and wrote nothing of the request. */
static bool refused(int code)
{
	return code == SS_ECONFLICT || code == SS_EINVALID || code == SS_EAUTH ||
	       code == SS_ETOOBIG;
}

ss_push_failure ss_push__decide(int code, size_t landed)
{
	if (landed > 0 || !refused(code))
		return SS_PUSH_INTERRUPTED;
	return code == SS_ECONFLICT ? SS_PUSH_CONFLICT : SS_PUSH_REFUSED;
}

int ss_push__reported(ss_push_failure d, int code)
{
	if (d == SS_PUSH_INTERRUPTED && code == SS_ECONFLICT)
		return SS_ENETWORK;
	return code;
}

bool ss_push__moved(const char *base_commit, const ss_space_head *mine)
{
	if (!mine)
		return false;
	if (!mine->commit || !base_commit)
		return mine->commit || base_commit;
	return strcmp(mine->commit, base_commit) != 0;
}

bool ss_push__landed(const ss_journal_write *w, const char *push_time, const ss_push_held *held)
{
	if (w->op == SS_WRITE_DELETE)
		return !held->present;
	return held->present && held->updated_at && !strcmp(held->updated_at, push_time);
}
