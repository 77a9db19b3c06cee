/*
 * audit_rules.c: the CPU time of each audit rule on the files bench/audit_rules.sh makes
 * (adversarial input at the record format's limits); not part of skillsync itself.
 *
 * Usage: ss-audit-rules <manifest>
 *
 * The manifest has one file a line: <rule id> TAB <shape> TAB <path in the skill> TAB
 * <executable: 0 or 1> TAB <file on disk>. Each file is audited by its rule alone
 * (ss_audit_file_rule; CPU time, CLOCK_PROCESS_CPUTIME_ID). One line per rule, in the rules'
 * order:
 *   <rule> inputs=<n> worst_ms=<ms> limits=<searches that reached a limit> shape=<the worst>
 * then the maximal record: the 32 files that took longest, audited by every rule:
 *   record files=<n> bytes=<n> cpu_ms=<ms> findings=<n> limits=<n>
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "core/skill/audit.h"
#include "core/util/buf.h"
#include "core/util/error.h"
#include "core/util/fs.h"
#include "core/util/mem.h"

#define RECORD_FILES 32

typedef struct input {
	char *path, *bytes;
	size_t len;
	bool executable;
	double ms;
} input;

typedef struct rule_stats {
	size_t inputs, limits;
	double worst_ms;
	char shape[160];
} rule_stats;

static double cpu_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

static size_t count_limits(const ss_audit_report *r)
{
	size_t n = 0;

	for (size_t i = 0; i < r->n; i++)
		n += !strcmp(r->findings[i].rule, "audit-limit");
	return n;
}

/* Keeps in (taken over) among the RECORD_FILES slowest, slowest first; frees what drops out. */
static void keep(input *top, size_t *n, input in)
{
	size_t i = *n < RECORD_FILES ? (*n)++ : RECORD_FILES - 1;

	if (i == RECORD_FILES - 1 && top[i].bytes) {
		input *drop = top[i].ms >= in.ms ? &in : &top[i];

		free(drop->path);
		free(drop->bytes);
		if (drop == &in)
			return;
	}
	for (; i > 0 && top[i - 1].ms < in.ms; i--)
		top[i] = top[i - 1];
	top[i] = in;
}

static size_t rule_index(const char *id)
{
	size_t i = 0;

	while (i < ss_audit_rule_count() && strcmp(ss_audit_rule_at(i)->id, id))
		i++;
	return i;
}

/* Times the file of one manifest line by its rule; 0, or -1 when the line is malformed. */
static int run_line(char *line, rule_stats *stats, input *top, size_t *ntop)
{
	char *field[5];
	ss_buf bytes = SS_BUF_INIT;
	ss_audit_report r;
	ss_error err;
	input in = {NULL, NULL, 0, false, 0};
	size_t rule;
	double t0;

	line[strcspn(line, "\n")] = '\0';
	for (int i = 0; i < 5; i++) {
		char *tab = strchr(line, '\t');

		field[i] = line;
		if (!tab != (i == 4))
			return -1;
		if (tab) {
			*tab = '\0';
			line = tab + 1;
		}
	}
	rule = rule_index(field[0]);
	ss_error_clear(&err);
	if (rule == ss_audit_rule_count() ||
	    ss_fs_read_file(&bytes, field[4], SS_AUDIT_FILE_MAX, &err) < 0)
		return -1;
	in.executable = field[3][0] == '1';
	ss_audit_report_init(&r);
	t0 = cpu_ms();
	ss_audit_file_rule(&r, "bench", field[2], bytes.ptr, bytes.len, in.executable, rule);
	in.ms = cpu_ms() - t0;
	stats[rule].inputs++;
	stats[rule].limits += count_limits(&r);
	if (in.ms > stats[rule].worst_ms) {
		stats[rule].worst_ms = in.ms;
		snprintf(stats[rule].shape, sizeof(stats[rule].shape), "%s", field[1]);
	}
	ss_audit_report_release(&r);
	in.path = ss_xstrdup(field[2]);
	in.bytes = ss_buf_detach(&bytes, &in.len);
	keep(top, ntop, in);
	return 0;
}

int main(int argc, char **argv)
{
	static input top[RECORD_FILES];
	size_t ntop = 0, nrules = ss_audit_rule_count(), total = 0;
	rule_stats *stats;
	char line[4096];
	ss_audit_report rec;
	ss_error err;
	FILE *f;
	double t0, ms;

	ss_error_clear(&err);
	if (argc != 2 || ss_audit_ready(&err) < 0 || !(f = fopen(argv[1], "r"))) {
		fprintf(stderr, "usage: ss-audit-rules <manifest> %s\n", err.message);
		return 1;
	}
	stats = ss_xcalloc(nrules, sizeof(*stats));
	while (fgets(line, sizeof(line), f))
		if (run_line(line, stats, top, &ntop) < 0) {
			fprintf(stderr, "ss-audit-rules: cannot use the line: %s", line);
			return 1;
		}
	fclose(f);
	for (size_t i = 0; i < nrules; i++)
		printf("%-26s inputs=%-5zu worst_ms=%-8.2f limits=%-3zu shape=%s\n",
		       ss_audit_rule_at(i)->id, stats[i].inputs, stats[i].worst_ms, stats[i].limits,
		       stats[i].shape);
	ss_audit_report_init(&rec);
	t0 = cpu_ms();
	for (size_t i = 0; i < ntop; i++) {
		ss_audit_file(&rec, "bench", top[i].path, top[i].bytes, top[i].len,
		              top[i].executable);
		total += top[i].len;
	}
	ms = cpu_ms() - t0;
	printf("record files=%zu bytes=%zu cpu_ms=%.1f findings=%zu limits=%zu\n", ntop, total, ms,
	       rec.n, count_limits(&rec));
	ss_audit_report_release(&rec);
	for (size_t i = 0; i < ntop; i++) {
		free(top[i].path);
		free(top[i].bytes);
	}
	free(stats);
	return 0;
}
