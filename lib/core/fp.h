/*
 * fp — fingerprints: XXH3-128 (our streams and files) and SHA-256 (the original's
 * trace manifests). Hex output is lowercase; buffers are caller-owned.
 */
#ifndef SCHEDNAV_FP_H
#define SCHEDNAV_FP_H
#include <stddef.h>
#include <stdint.h>

#define FP_HEX_XXH3 33   /* 32 hex + NUL */
#define FP_HEX_SHA256 65 /* 64 hex + NUL */

struct fp_xxh3 { void *state; };
void fp_xxh3_init(struct fp_xxh3 *h);
void fp_xxh3_update(struct fp_xxh3 *h, const void *p, size_t n);
void fp_xxh3_hex(struct fp_xxh3 *h, char out[FP_HEX_XXH3]); /* digest so far; state stays usable */
void fp_xxh3_release(struct fp_xxh3 *h);
void fp_xxh3_of(const void *p, size_t n, char out[FP_HEX_XXH3]);

struct fp_sha256 { void *ctx; };    /* libcrypto's; fp_sha256_hex or fp_sha256_release frees it */
void fp_sha256_init(struct fp_sha256 *h);
void fp_sha256_update(struct fp_sha256 *h, const void *p, size_t n);
void fp_sha256_hex(struct fp_sha256 *h, char out[FP_HEX_SHA256]); /* finalises and releases */
void fp_sha256_release(struct fp_sha256 *h);   /* a hash given up before its digest (NULL-safe) */
void fp_sha256_of(const void *p, size_t n, char out[FP_HEX_SHA256]);
int fp_is_hex(const char *s, size_t len);
#endif
