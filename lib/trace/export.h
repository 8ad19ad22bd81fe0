/*
 * export — the original engine's three-file trace directory (trace.json, nodes.csv,
 * jobs.csv), written byte for byte as its writer did (docs/traces.md §1 "The writer",
 * docs/evaluation.md §7), plus the two checks the canonical importer shares with it.
 * Nothing here prints or exits; errors come back as a message in err.
 */
#ifndef SCHEDNAV_EXPORT_H
#define SCHEDNAV_EXPORT_H
#include "core/fp.h"
#include "core/json.h"
#include "core/strbuf.h"
#include "trace/trace.h"
#include <stdbool.h>
#include <stddef.h>

#define CANON_SCHEMA_V1 "schednav.trace/v1"
#define CANON_SCHEMA_V2 "schednav.trace/v2"

/* True when s is an ISO 8601 date-time Python 3.11 datetime.fromisoformat accepts
 * (the usual forms: YYYY-MM-DD or YYYYMMDD, then optionally one separator character,
 * HH[:MM[:SS[.fff…]]] or HHMM[SS], then optionally Z or ±HH[:MM[:SS[.ffffff]]]). */
bool trace_iso_time_valid(const char *s);

/* CJSHA of a manifest object without its "trace_fingerprint" key: SHA-256 hex of the
 * sorted-key, space-free canonical JSON (json_write_sorted). */
void trace_manifest_fingerprint(const struct json *manifest, char out[FP_HEX_SHA256]);

/* Render t as the three files' exact bytes (each buffer is reset first). The manifest
 * keeps t->source verbatim; the window, when present, is written as float start/end. */
int trace_export_render(const struct trace *t, struct strbuf *manifest, struct strbuf *nodes, struct strbuf *jobs,
                        char *err, size_t errlen);

/* Render t and write DIR/nodes.csv, DIR/jobs.csv, DIR/trace.json (each as NAME.tmp, then
 * renamed). DIR is created when missing (and removed again if writing fails). Existing
 * trace files are refused unless force. */
int trace_export_dir(const struct trace *t, const char *dir, bool force, char *err, size_t errlen);
#endif
