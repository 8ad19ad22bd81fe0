/*
 * fuzz — what the libFuzzer harnesses (tests/fuzz/fuzz_*.c) share. Each harness is one
 * LLVMFuzzerTestOneInput over one reader of SchedNav; `make fuzz` links it with libFuzzer
 * (clang, -fsanitize=fuzzer,address,undefined), `make check` links it with replay.c and
 * the normal build to replay tests/fuzz/regressions/NAME/ (docs/fuzzing.md).
 *
 * Inputs reach the readers as files without touching the disk: fz_file puts bytes into
 * a memfd and names it /proc/self/fd/N, which every reader opens like any path. A
 * harness that needs a directory (the canonical importer) writes into fz_dir(), a private
 * directory under $TMPDIR removed at exit: no harness writes anywhere else.
 * Memory: everything a helper returns lives until the next call of the same helper
 * (fz_file keeps FZ_FILES slots, reused round robin).
 */
#ifndef SCHEDNAV_FUZZ_H
#define SCHEDNAV_FUZZ_H
#include "core/strbuf.h"
#include <stddef.h>
#include <stdint.h>

#define FZ_FILES 4
/* The separator between the parts of one input (several files for an importer). */
#define FZ_SEP "\n@@\n"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* A path whose content is p[0..n): slot k (0..FZ_FILES-1) is replaced on the next call with the same k. */
const char *fz_file(int k, const void *p, size_t n);
/* Split data at FZ_SEP into at most max parts; returns how many (missing parts are empty). */
size_t fz_split(const uint8_t *data, size_t size, const char **part, size_t *len, size_t max);
/* The input as one sealed stream: its first line as the header, every later line that is
 * not an end record as the body, then a correct end record (records, fingerprint,
 * header_fingerprint), so the fuzzer reaches the validators behind the fingerprint check. */
void fz_seal(const uint8_t *data, size_t size, struct strbuf *out);
/* The private directory of this process (created on first use, removed at exit). */
const char *fz_dir(void);
/* Read every stream of the file at path with the NDJSON reader, record after record. */
void fz_read_streams(const char *path);
/* Write p[0..n) to fz_dir()/name. */
void fz_write(const char *name, const void *p, size_t n);
#endif
