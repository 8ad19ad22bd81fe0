/* profile_check — the rules a synthesis profile's names and real job rows follow, shared by
 * every profile version's loader and generator (issue 35; docs/profiles.md,
 * docs/hardening.md). Each returns 0, or -1 with "PATH: 'FIELD': why" in err. */
#ifndef SCHEDNAV_SYNTH_PROFILE_CHECK_H
#define SCHEDNAV_SYNTH_PROFILE_CHECK_H
#include "synth/synth.h"
#include <stddef.h>

/* Longest profile name: the trace id synth-NAME-sSEED-fF-dA-B-MODEL... stays within the
 * identifier limit (1024 bytes) for any seed, load factor and day range; the GPU models
 * named with --gpu-model are checked when the id is made (synth_trace_id). */
#define SYNTH_NAME_MAX 800
/* Longest real job name: its job id is real-NAME. */
#define SYNTH_REAL_NAME_MAX (1024 - 5)

/* 'name': an identifier (no control character, no white space at its ends) of at most
 * SYNTH_NAME_MAX bytes. */
int synth_check_name(const char *path, const char *name, size_t len, char *err, size_t errlen);
/* 'time_origin': an identifier that is an ISO date and time (YYYY-MM-DD[ HH:MM:SS]). */
int synth_check_origin(const char *path, const char *origin, size_t len, char *err, size_t errlen);
/* The real job rows: names of at most SYNTH_REAL_NAME_MAX bytes, each once. */
int synth_check_real_names(const char *path, const struct synth_real *real, size_t n, char *err, size_t errlen);
/* No hour holds more real job rows than its count (the profile's hourly_jobs scaled by
 * load_factor, synth_scaled_hours): every hour keeps its exact count. A load factor that is not
 * finite and > 0, or whose scaled counts would pass 2^62, is refused first (as making more than
 * SYNTH_MAX_JOBS jobs) so that no count overflows. */
int synth_check_real_hours(const char *path, const struct synth_profile *p, double load_factor, char *err, size_t errlen);
#endif
