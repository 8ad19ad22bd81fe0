#include "core/progress.h"
#include "core/clock.h"
#include "core/xalloc.h"
#include <stdarg.h>
#include <stdio.h>
#include <time.h>
#include <unistd.h>

void progress_format_seconds(char *buf, unsigned long len, double seconds)
{
	long long s = seconds > 0 && seconds < 1e9 ? (long long)(seconds + 0.5) : 0;
	if (s >= 3600)
		snprintf(buf, len, "%lldh%02lldm", s / 3600, s / 60 % 60);
	else if (s >= 60)
		snprintf(buf, len, "%lldm%02llds", s / 60, s % 60);
	else
		snprintf(buf, len, "%llds", s);
}

void progress_init(struct progress *p, enum progress_mode mode, const char *what, long long total)
{
	bool tty = isatty(STDERR_FILENO) == 1;
	p->shown = mode == PROGRESS_ON || (mode == PROGRESS_AUTO && tty);
	p->tty = p->shown && tty;
	p->forced = mode == PROGRESS_ON;
	p->open_line = false;
	p->what = what;
	p->total = total > 0 ? total : 0;
	p->done = 0;
	p->start = clock_wall();
	p->last = -1;
	p->drawn = -1;
}

static void draw(struct progress *p, double t)
{
	char line[256], eta[16];
	int n;
	if (p->total) {
		n = snprintf(line, sizeof line, "%s: %s %lld/%lld (%d%%)", progname, p->what, p->done, p->total,
			     (int)(100.0 * (double)p->done / (double)p->total));
		if (p->done > 0 && p->done < p->total) {
			progress_format_seconds(eta, sizeof eta, (t - p->start) / (double)p->done * (double)(p->total - p->done));
			snprintf(line + n, sizeof line - (size_t)n, ", ETA %s", eta);
		} else if (p->done >= p->total) {
			progress_format_seconds(eta, sizeof eta, t - p->start);
			snprintf(line + n, sizeof line - (size_t)n, " in %s", eta);
		}
	} else {
		snprintf(line, sizeof line, "%s: %s %lld", progname, p->what, p->done);
	}
	if (p->tty) {
		fprintf(stderr, "\r%s\033[K", line);
		p->open_line = true;
	} else {
		fprintf(stderr, "%s\n", line);
	}
	fflush(stderr);
	p->last = t;
	p->drawn = p->done;
}

void progress_update(struct progress *p, long long done)
{
	if (!p->shown)
		return;
	p->done = done;
	double t = clock_wall();
	if (!p->forced && t - p->start < 1.0)
		return;
	bool final = p->total && done >= p->total;
	if (p->drawn == done || (p->last >= 0 && t - p->last < 1.0 && !final))
		return;
	draw(p, t);
}

void progress_step(struct progress *p, long long done)
{
	if (!p->shown)
		return;
	p->done = done;
	draw(p, clock_wall());
}

/* One whole line "PROGNAME: MESSAGE TAIL": ends an open progress line first. */
static void say_line(struct progress *p, const char *tail, const char *fmt, va_list ap)
{
	if (p->open_line)
		fputc('\n', stderr);
	p->open_line = false;
	fprintf(stderr, "%s: ", progname);
	vfprintf(stderr, fmt, ap);
	fprintf(stderr, "%s\n", tail);
	fflush(stderr);
}

void progress_note(struct progress *p, const char *fmt, ...)
{
	if (!p->shown)
		return;
	va_list ap;
	va_start(ap, fmt);
	say_line(p, "", fmt, ap);
	va_end(ap);
}

void progress_phase(struct progress *p, const char *fmt, ...)
{
	if (!p->shown)
		return;
	double t = clock_wall();
	if (p->forced || t - p->start >= 1.0) {
		char took[16], tail[20];
		progress_format_seconds(took, sizeof took, t - p->start);
		snprintf(tail, sizeof tail, " in %s", took);
		va_list ap;
		va_start(ap, fmt);
		say_line(p, tail, fmt, ap);
		va_end(ap);
	}
	p->start = t;
	p->last = -1;
}

void progress_finish(struct progress *p)
{
	if (!p->shown)
		return;
	if ((p->forced || p->last >= 0) && p->drawn != p->done)
		draw(p, clock_wall());
	if (p->open_line)
		fputc('\n', stderr);
	p->open_line = false;
	fflush(stderr);
}
