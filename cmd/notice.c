/* notice.c: what deleting a skill does in the space, worded once for push and status. */
#include "cmd/cmd.h"

void cli_notice_format(ss_buf *out, ss_plan_notice_kind kind, const char *name, const char *who)
{
	ss_buf safe = SS_BUF_INIT;

	if (kind == SS_PLAN_NEXT_APPLIES)
		ss_buf_printf(out, "'%s': deleting your version; %s's version will apply", name,
		              cli_safe(&safe, who));
	else
		ss_buf_printf(out,
		              "'%s': deleted here, but it is %s's skill and you have no version of "
		              "it: nothing is sent, it stays in the space",
		              name, who ? cli_safe(&safe, who) : "someone else");
	ss_buf_release(&safe);
}
