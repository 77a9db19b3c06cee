/* refused.c: the skills a push refuses, said once for push, `push --dry-run` and status. */
#include "cmd/cmd.h"

/* The next error of r from item *j on, formatted into line (*j moves past it); false when
 * there is none left. */
static bool next_error(const ss_report *r, size_t *j, ss_buf *line)
{
	for (; *j < ss_report_count(r); (*j)++) {
		const ss_report_item *it = ss_report_at(r, *j);

		if (it->severity != SS_SEV_ERROR)
			continue;
		ss_buf_clear(line);
		ss_report_format(it, line);
		(*j)++;
		return true;
	}
	return false;
}

void cli_refused_print(FILE *out, const ss_outgoing *o, const char *prefix)
{
	ss_buf line = SS_BUF_INIT;

	for (size_t i = 0; i < ss_outgoing_refused_count(o); i++)
		for (size_t j = 0; next_error(ss_outgoing_refused(o, i)->report, &j, &line);) {
			fputs(prefix, out);
			cli_print_safe(out, line.ptr);
			fputc('\n', out);
		}
	ss_buf_release(&line);
}

void cli_refused_json(cli_json *w, const char *key, const ss_outgoing *o)
{
	ss_buf line = SS_BUF_INIT;

	cli_json_array(w, key);
	for (size_t i = 0; o && i < ss_outgoing_refused_count(o); i++) {
		const ss_outgoing_refusal *rf = ss_outgoing_refused(o, i);

		cli_json_object(w, NULL);
		cli_json_str(w, "name", rf->name);
		cli_json_array(w, "problems");
		for (size_t j = 0; next_error(rf->report, &j, &line);)
			cli_json_str(w, NULL, line.ptr);
		cli_json_end(w);
		cli_json_end(w);
	}
	cli_json_end(w);
	ss_buf_release(&line);
}
