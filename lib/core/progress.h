/*
 * progress — "how far is it" for long work. Like cli and die this is tool-side code: it
 * writes, to standard error only, and only tools call it. It never touches a stream a tool
 * writes records to, so outputs stay byte-identical whether progress is shown or not.
 *
 * Shown when standard error is a terminal (the line is redrawn in place with '\r'), quiet
 * otherwise; --progress forces it on (one line per update, '\n'-terminated, for logs and
 * tests), --no-progress off. Updates are drawn at most once a second; in the automatic mode
 * nothing is drawn before the work has run for a second, so small inputs stay quiet.
 * The last update (done == total, or progress_finish) is always drawn when shown.
 * Lines: "PROG: WHAT DONE/TOTAL (P%), ETA 1m05s" or, with no known total, "PROG: WHAT DONE".
 * struct progress owns nothing; what and unit strings must outlive it.
 */
#ifndef SCHEDNAV_PROGRESS_H
#define SCHEDNAV_PROGRESS_H
#include <stdbool.h>

enum progress_mode { PROGRESS_AUTO, PROGRESS_ON, PROGRESS_OFF };

/* getopt_long values of --progress and --no-progress (outside any tool's letters). */
enum { PROGRESS_OPT_ON = 0x7001, PROGRESS_OPT_OFF = 0x7002 };
#define PROGRESS_OPTIONS { "progress", no_argument, NULL, PROGRESS_OPT_ON }, \
	{ "no-progress", no_argument, NULL, PROGRESS_OPT_OFF }
/* The --help lines of the two options. */
#define PROGRESS_HELP \
	"      --progress           show progress on stderr even when it is not a terminal\n" \
	"      --no-progress        never show progress (default: only on a terminal)\n"

struct progress {
	bool shown;          /* mode resolved: drawing at all */
	bool tty;            /* redraw in place */
	bool forced;         /* --progress: no initial quiet second */
	bool open_line;      /* a '\r' line is on the terminal, not yet ended */
	const char *what;    /* "decision", "jobs simulated", ... */
	long long total;     /* 0: unknown */
	long long done;
	long long drawn;     /* done when last drawn, -1: never */
	double start, last;  /* monotonic seconds */
};

/* Resolve mode (PROGRESS_AUTO: whether stderr is a terminal) and start the clock. */
void progress_init(struct progress *p, enum progress_mode mode, const char *what, long long total);
/* Report done units; drawn when due (see above). */
void progress_update(struct progress *p, long long done);
/* Report done units and draw now (a step worth one line, e.g. one of 12 decisions). */
void progress_step(struct progress *p, long long done);
/* A one-off message line when shown ("PROG: message"), e.g. "resumed at decision 4/12". */
void progress_note(struct progress *p, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* A phase that just ended ("read 30,940 jobs"): printed as "PROG: message in 3s" when
 * shown and (forced, or the phase took a second or more); the next phase starts now. */
void progress_phase(struct progress *p, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Draw the final state (when shown and anything was drawn or forced) and end the line. */
void progress_finish(struct progress *p);
/* "1h02m", "3m05s", "12s": a duration for humans (buf of 16 bytes is enough). */
void progress_format_seconds(char *buf, unsigned long len, double seconds);
#endif
