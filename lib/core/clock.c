/* clock — see clock.h. */
#include "core/clock.h"
#include <sys/resource.h>
#include <time.h>

static double seconds_of(clockid_t id)
{
	struct timespec ts;
	clock_gettime(id, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

double clock_wall(void)
{
	return seconds_of(CLOCK_MONOTONIC);
}

long long clock_wall_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

double clock_cpu(void)
{
	return seconds_of(CLOCK_PROCESS_CPUTIME_ID);
}

static double rusage_seconds(int who)
{
	struct rusage r;
	getrusage(who, &r);
	return (double)(r.ru_utime.tv_sec + r.ru_stime.tv_sec) + (double)(r.ru_utime.tv_usec + r.ru_stime.tv_usec) / 1e6;
}

double clock_rusage_cpu(int children)
{
	double s = 0;
	if (children != 1)
		s += rusage_seconds(RUSAGE_SELF);
	if (children != 0)
		s += rusage_seconds(RUSAGE_CHILDREN);
	return s;
}

long clock_peak_rss_kib(void)
{
	struct rusage r;
	getrusage(RUSAGE_SELF, &r);
	return r.ru_maxrss;
}
