/*
 * clock — the few clocks SchedNav reads, each for measurement only: no output record ever
 * holds their values (they differ run to run), only benchmark timings, progress lines and
 * the bridge's audit durations.
 */
#ifndef SCHEDNAV_CORE_CLOCK_H
#define SCHEDNAV_CORE_CLOCK_H

/* Monotonic wall-clock seconds since an arbitrary origin. */
double clock_wall(void);

/* The same in whole milliseconds. */
long long clock_wall_ms(void);

/* CPU seconds (user + system) this process has used so far (CLOCK_PROCESS_CPUTIME_ID). */
double clock_cpu(void);

/* CPU seconds (user + system) of this process and of its waited-for children
 * (getrusage); children: 0 for the process alone, 1 for the children alone, 2 for both. */
double clock_rusage_cpu(int children);

/* Peak resident set size of this process in KiB (getrusage's ru_maxrss). */
long clock_peak_rss_kib(void);

#endif
