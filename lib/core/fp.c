#include "core/fp.h"
#include "core/xalloc.h"
#include <string.h>
#include <sys/types.h>
#include <sha2.h>
#include <xxhash.h>

_Static_assert(sizeof(SHA2_CTX) <= sizeof(((struct fp_sha256 *)0)->ctx), "SHA2_CTX too large");

static void hex(const unsigned char *b, size_t n, char *out)
{
	static const char d[] = "0123456789abcdef";
	for (size_t i = 0; i < n; i++) {
		out[2 * i] = d[b[i] >> 4];
		out[2 * i + 1] = d[b[i] & 15];
	}
	out[2 * n] = 0;
}

void fp_xxh3_init(struct fp_xxh3 *h)
{
	h->state = xnonnull(XXH3_createState());
	XXH3_128bits_reset(h->state);
}

void fp_xxh3_update(struct fp_xxh3 *h, const void *p, size_t n)
{
	XXH3_128bits_update(h->state, p, n);
}

void fp_xxh3_hex(struct fp_xxh3 *h, char out[FP_HEX_XXH3])
{
	XXH128_canonical_t c;
	XXH128_canonicalFromHash(&c, XXH3_128bits_digest(h->state));
	hex(c.digest, sizeof c.digest, out);
}

void fp_xxh3_release(struct fp_xxh3 *h)
{
	if (h->state)
		XXH3_freeState(h->state);
	h->state = NULL;
}

void fp_xxh3_of(const void *p, size_t n, char out[FP_HEX_XXH3])
{
	XXH128_canonical_t c;
	XXH128_canonicalFromHash(&c, XXH3_128bits(p, n));
	hex(c.digest, sizeof c.digest, out);
}

void fp_sha256_init(struct fp_sha256 *h) { SHA256Init((SHA2_CTX *)h->ctx); }
void fp_sha256_update(struct fp_sha256 *h, const void *p, size_t n) { SHA256Update((SHA2_CTX *)h->ctx, p, n); }

void fp_sha256_hex(struct fp_sha256 *h, char out[FP_HEX_SHA256])
{
	unsigned char d[32];
	SHA256Final(d, (SHA2_CTX *)h->ctx);
	hex(d, 32, out);
}

void fp_sha256_of(const void *p, size_t n, char out[FP_HEX_SHA256])
{
	struct fp_sha256 h;
	fp_sha256_init(&h);
	fp_sha256_update(&h, p, n);
	fp_sha256_hex(&h, out);
}

int fp_is_hex(const char *s, size_t len)
{
	for (size_t i = 0; i < len; i++)
		if (!((s[i] >= '0' && s[i] <= '9') || (s[i] >= 'a' && s[i] <= 'f')))
			return 0;
	return s[len] == 0;
}
