#include "core/skill/report.h"

#include <stdarg.h>
#include <stdlib.h>

#include "core/util/mem.h"

struct ss_report {
	ss_report_item *items;
	size_t len, alloc;
};

ss_report *ss_report_new(void)
{
	return ss_xcalloc(1, sizeof(ss_report));
}

void ss_report_free(ss_report *r)
{
	if (!r)
		return;
	for (size_t i = 0; i < r->len; i++) {
		free(r->items[i].file);
		free(r->items[i].field);
		free(r->items[i].message);
	}
	free(r->items);
	free(r);
}

static void vadd(ss_report *r, ss_severity sev, const char *file, const char *field,
                 const char *fmt, va_list ap) SS_PRINTF(5, 0);

static void vadd(ss_report *r, ss_severity sev, const char *file, const char *field,
                 const char *fmt, va_list ap)
{
	ss_buf msg = SS_BUF_INIT;
	ss_report_item *it;

	ss_buf_vprintf(&msg, fmt, ap);
	ss_xgrow((void **)&r->items, sizeof(*r->items), r->len + 1, &r->alloc);
	it = &r->items[r->len++];
	it->severity = sev;
	it->file = ss_xstrdup(file ? file : "");
	it->field = field ? ss_xstrdup(field) : NULL;
	it->message = ss_buf_detach(&msg, NULL);
}

void ss_report_add(ss_report *r, ss_severity sev, const char *file, const char *field,
                   const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vadd(r, sev, file, field, fmt, ap);
	va_end(ap);
}

void ss_report_error(ss_report *r, const char *file, const char *field, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vadd(r, SS_SEV_ERROR, file, field, fmt, ap);
	va_end(ap);
}

void ss_report_warning(ss_report *r, const char *file, const char *field, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vadd(r, SS_SEV_WARNING, file, field, fmt, ap);
	va_end(ap);
}

size_t ss_report_count(const ss_report *r)
{
	return r->len;
}

const ss_report_item *ss_report_at(const ss_report *r, size_t i)
{
	return i < r->len ? &r->items[i] : NULL;
}

static size_t count_sev(const ss_report *r, ss_severity sev)
{
	size_t n = 0;

	for (size_t i = 0; i < r->len; i++)
		n += r->items[i].severity == sev;
	return n;
}

size_t ss_report_errors(const ss_report *r)
{
	return count_sev(r, SS_SEV_ERROR);
}

size_t ss_report_warnings(const ss_report *r)
{
	return count_sev(r, SS_SEV_WARNING);
}

void ss_report_format(const ss_report_item *item, ss_buf *out)
{
	ss_buf_printf(out, "%s: ", item->file);
	if (item->field)
		ss_buf_printf(out, "%s: ", item->field);
	ss_buf_puts(out, item->message);
}

int ss_report_to_error(const ss_report *r, ss_error *err)
{
	ss_buf line = SS_BUF_INIT;
	int ret = 0;

	for (size_t i = 0; i < r->len; i++) {
		if (r->items[i].severity != SS_SEV_ERROR)
			continue;
		ss_report_format(&r->items[i], &line);
		ret = ss_error_set(err, SS_EINVALID, "%s", line.ptr);
		break;
	}
	ss_buf_release(&line);
	return ret;
}
