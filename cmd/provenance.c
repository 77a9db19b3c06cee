/* provenance.c: how ls and show print where versions come from (text and JSON), and the
 * members they name.
 */
#include <stdio.h>
#include <string.h>

#include "cmd/cmd.h"
#include "core/diff/members.h"

const char *cli_who(const cli_member_list *m, const char *did)
{
	for (size_t i = 0; m && i < m->n; i++)
		if (!strcmp(m->list[i].did, did))
			return m->list[i].handle ? m->list[i].handle : did;
	return did;
}

static void print_field(const char *key, const char *value, bool comma)
{
	printf("\"%s\":", key);
	cli_print_json_string(value);
	if (comma)
		putchar(',');
}

static const char *handle_of(const cli_member_list *m, const char *did)
{
	const char *w = cli_who(m, did);

	return w == did ? NULL : w;
}

static void print_version(const cli_member_list *m, const ss_provenance_version *v)
{
	print_field("did", v->did, true);
	print_field("handle", handle_of(m, v->did), true);
	print_field("why", ss_view_why_name(v->why), true);
	print_field("updatedAt", v->updated_at, true);
	print_field("cid", v->cid, true);
	printf("\"valid\":%s,", v->valid ? "true" : "false");
	print_field("reason", v->reason, false);
}

void cli_print_json_provenance(const char *name, const cli_member_list *m, const ss_provenance *p)
{
	size_t first = p->nvalid ? 1 : 0;

	putchar('{');
	print_field("name", name, true);
	if (p->nvalid) {
		printf("\"winner\":{");
		print_version(m, &p->versions[0]);
		printf("},");
	} else {
		printf("\"winner\":null,");
	}
	printf("\"shadows\":[");
	for (size_t i = first; i < p->count; i++) {
		printf("%s{", i > first ? "," : "");
		print_version(m, &p->versions[i]);
		putchar('}');
	}
	printf("]}");
}

int cli_members_load(ss_ctx *ctx, cli_member_list *out)
{
	out->list = NULL;
	out->n = 0;
	return ss_members_list(ctx->state, &out->list, &out->n, &ctx->err);
}

void cli_print_member_kept(FILE *out, const char *who, ss_state_role role)
{
	fputs("'", out);
	cli_print_safe(out, who);
	fprintf(out, "' is already in the space: it is %s\n", ss_members_role_text(role));
}

void cli_members_release(cli_member_list *m)
{
	if (!m)
		return;
	ss_state_members_free(m->list, m->n);
	m->list = NULL;
	m->n = 0;
}
