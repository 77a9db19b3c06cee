#include "core/util/time.h"

#include <errno.h>
#include <stdbool.h>
#include <string.h>
#include <time.h>

#include "core/util/error.h"

/* Days from 1970-01-01 to y-m-d in the proleptic Gregorian calendar. */
static int64_t days_from_civil(int64_t y, int m, int d)
{
	int64_t era, yoe, doy, doe;

	y -= m <= 2;
	era = (y >= 0 ? y : y - 399) / 400;
	yoe = y - era * 400;
	doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
	doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
	return era * 146097 + doe - 719468;
}

static void civil_from_days(int64_t z, int64_t *y, int *m, int *d)
{
	int64_t era, doe, yoe, doy, mp;

	z += 719468;
	era = (z >= 0 ? z : z - 146096) / 146097;
	doe = z - era * 146097;
	yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
	doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
	mp = (5 * doy + 2) / 153;
	*d = (int)(doy - (153 * mp + 2) / 5 + 1);
	*m = (int)(mp < 10 ? mp + 3 : mp - 9);
	*y = yoe + era * 400 + (*m <= 2);
}

/* Reads exactly n digits at *p. */
static bool digits(const char **p, int n, int *out)
{
	int v = 0;

	for (int i = 0; i < n; i++) {
		char c = (*p)[i];
		if (c < '0' || c > '9')
			return false;
		v = v * 10 + (c - '0');
	}
	*p += n;
	*out = v;
	return true;
}

static bool expect(const char **p, char c)
{
	if (**p != c)
		return false;
	(*p)++;
	return true;
}

static int days_in_month(int y, int m)
{
	static const int days[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
	bool leap = (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
	return m == 2 && leap ? 29 : days[m - 1];
}

int ss_time_parse(const char *s, int64_t *us)
{
	const char *p = s;
	int y, mo, d, h, mi, sec, oh = 0, om = 0, frac = 0, scale = 100000;
	int64_t t;

	if (!digits(&p, 4, &y) || !expect(&p, '-') || !digits(&p, 2, &mo) || !expect(&p, '-') ||
	    !digits(&p, 2, &d) || !expect(&p, 'T') || !digits(&p, 2, &h) || !expect(&p, ':') ||
	    !digits(&p, 2, &mi) || !expect(&p, ':') || !digits(&p, 2, &sec))
		return SS_EINVALID;
	if (mo < 1 || mo > 12 || d < 1 || d > days_in_month(y, mo) || h > 23 || mi > 59 || sec > 60)
		return SS_EINVALID;
	if (*p == '.') {
		p++;
		if (*p < '0' || *p > '9')
			return SS_EINVALID;
		for (; *p >= '0' && *p <= '9'; p++) {
			frac += scale * (*p - '0');
			scale /= 10;
		}
	}
	if (*p == 'Z') {
		p++;
	} else if (*p == '+' || *p == '-') {
		char sign = *p++;
		if (!digits(&p, 2, &oh) || !expect(&p, ':') || !digits(&p, 2, &om) || oh > 23 ||
		    om > 59 || (sign == '-' && oh == 0 && om == 0))
			return SS_EINVALID;
		if (sign == '-') {
			oh = -oh;
			om = -om;
		}
	} else {
		return SS_EINVALID;
	}
	if (*p)
		return SS_EINVALID;
	t = days_from_civil(y, mo, d) * 86400 + h * 3600 + mi * 60 + sec;
	t -= (int64_t)oh * 3600 + (int64_t)om * 60;
	/* An offset must not carry the instant outside years 0000-9999 in UTC: it could not be
	 * written back as a datetime (ss_time_format). */
	if (t < days_from_civil(0, 1, 1) * 86400 || t >= days_from_civil(10000, 1, 1) * 86400)
		return SS_EINVALID;
	*us = t * 1000000 + frac;
	return 0;
}

void ss_time_format(int64_t us, ss_buf *out)
{
	int64_t secs = us >= 0 ? us / 1000000 : -((-us + 999999) / 1000000);
	int64_t rem = us - secs * 1000000, days, y;
	int64_t sod;
	int m, d;

	days = secs >= 0 ? secs / 86400 : -((-secs + 86399) / 86400);
	sod = secs - days * 86400;
	civil_from_days(days, &y, &m, &d);
	ss_buf_printf(out, "%04lld-%02d-%02dT%02d:%02d:%02d.%03dZ", (long long)y, m, d,
	              (int)(sod / 3600), (int)(sod / 60 % 60), (int)(sod % 60), (int)(rem / 1000));
}

int64_t ss_time_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (int64_t)ts.tv_sec * 1000000 + ts.tv_nsec / 1000;
}

void ss_time_sleep_ms(long ms)
{
	struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};

	while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
		;
}
