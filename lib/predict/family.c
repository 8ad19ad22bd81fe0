/*
 * family — the controller families' table and the entry points that dispatch through it
 * (predict.h "controller families"): which family a config document is, opening, cloning,
 * closing and binding a controller of any family, its cutoff bundle, and the spooling of
 * its control records (one copy for sim-run and the rolling session's inner predictor).
 * A new family is a folder of its own plus one row of pc_families.
 */
#include "predict/predict.h"
#include "predict/internal.h"
#include "core/ndjson.h"
#include "core/xalloc.h"
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The table: each family's folder defines its row's operations. */
extern const struct pc_family pt_family;      /* tenant/family.c: schednav.tenant-predictive-controller/1 */
extern const struct pc_family pc_family_aggregate;   /* aggregate/family.c: predictive-spot-v1, the fallback */
const struct pc_family *const pc_families[] = { &pt_family, &pc_family_aggregate };
const size_t pc_n_families = sizeof pc_families / sizeof *pc_families;

/* The families in the order tools list them: the fallback (the default) first, then the
 * others in the table's order; the count. */
static size_t listed(const struct pc_family **out)
{
	size_t n = 0;
	for (size_t i = 0; i < pc_n_families; i++)
		if (!pc_families[i]->schema)
			out[n++] = pc_families[i];
	for (size_t i = 0; i < pc_n_families; i++)
		if (pc_families[i]->schema)
			out[n++] = pc_families[i];
	return n;
}

void pc_families_help(struct strbuf *sb, const char *option, const char *tail)
{
	const struct pc_family *f[sizeof pc_families / sizeof *pc_families];
	size_t n = listed(f);
	for (size_t i = 0; i < n; i++)
		sb_addf(sb, "  %-23s%s (%s)%s%s\n", i ? "" : option, f[i]->config_schema, f[i]->name,
			i + 1 < n ? " or" : " JSON file", i + 1 < n ? "" : tail);
}

void pc_families_reads(struct strbuf *sb)
{
	const struct pc_family *f[sizeof pc_families / sizeof *pc_families];
	size_t n = listed(f);
	for (size_t i = 0; i < n; i++)
		sb_addf(sb, "%s%s", i ? ", " : "", f[i]->config_schema);
}

void pc_families_scored(struct strbuf *sb)
{
	for (size_t i = 0; i < pc_n_families; i++)
		sb_addf(sb, "%s%s controller%s %s", i ? ", the " : "The ", pc_families[i]->name, i ? "" : " scores",
			pc_families[i]->decision_reader->scored);
	sb_adds(sb, ".");
}

/* A config built by hand (the unit tests) names no family: it is the aggregate one. */
static const struct pc_family *family_of(const struct pc_config *cfg)
{
	return cfg->family ? cfg->family : pc_families[pc_n_families - 1];
}

const struct pc_family *pc_family_for_schema(const struct pc_family *const *families, size_t n, const char *schema)
{
	for (size_t i = 0; i < n; i++)
		if (!families[i]->schema || nd_schema_is(schema, families[i]->schema))
			return families[i];
	return NULL;
}

int pc_config_from_json_in(const struct pc_family *const *families, size_t n, struct pc_config *c, const struct json *doc,
			   struct arena *a, char *err, size_t errlen)
{
	memset(c, 0, sizeof *c);
	const struct json *sv = json_get(doc, "schema_version");
	const struct pc_family *f = pc_family_for_schema(families, n, sv && sv->kind == JSON_STRING ? sv->u.str.s : NULL);
	if (!f) {
		snprintf(err, errlen, "no controller family reads this document");
		return -1;
	}
	if (f->from_json(c, doc, a, err, errlen))
		return -1;
	c->family = f;
	return 0;
}

int pc_config_from_json(struct pc_config *c, const struct json *doc, struct arena *a, char *err, size_t errlen)
{
	return pc_config_from_json_in(pc_families, pc_n_families, c, doc, a, err, errlen);
}

int pc_config_load(struct pc_config *c, const char *path, struct arena *a, char *err, size_t errlen)
{
	char perr[512];
	struct json *doc;
	if (json_parse_file(a, path, &doc, err, errlen))
		return -1;
	if (pc_config_from_json(c, doc, a, perr, sizeof perr)) {
		snprintf(err, errlen, "%s: %s", path, perr);
		return -1;
	}
	return 0;
}

int pc_config_horizon_for(const struct pc_config *c, long long guarantee_seconds)
{
	double need = ceil((double)guarantee_seconds / 3600.0);
	long long h = need > 1 ? (long long)need : 1;
	for (size_t i = 0; i < c->n_horizons; i++)
		if (c->horizons[i] >= h)
			return (int)i;
	return -1;
}

void pc_canonical_sha256(const struct json *v, char out[65])
{
	struct strbuf sb;
	sb_init(&sb);
	json_write_sorted(&sb, v);
	fp_sha256_of(sb.buf, sb.len, out);
	sb_release(&sb);
}

void pc_evidence_window(const struct trace *t, double *start, double *end)
{
	*start = t->has_window ? t->eval_start : t->jobs[0].submit;
	*end = t->has_window ? t->eval_end : t->jobs[t->n_jobs - 1].submit;
}

int pc_controller_open(struct pc_controller *c, const struct pc_config *cfg, const struct trace *t, char *err, size_t errlen)
{
	memset(c, 0, sizeof *c);
	if (t->n_jobs == 0 || t->n_nodes == 0) {
		snprintf(err, errlen, "trace has no jobs or no nodes");
		return -1;
	}
	c->cfg = cfg;
	return family_of(cfg)->open(c, cfg, t, err, errlen);
}

void pc_controller_release(struct pc_controller *c)
{
	if (c->cfg)
		family_of(c->cfg)->close(c);
	memset(c, 0, sizeof *c);
}

void pc_controller_clone(struct pc_controller *d, const struct pc_controller *s)
{
	*d = *s;
	family_of(s->cfg)->clone(d, s);
}

void pc_sim_bind(struct pc_sim *b, struct pc_controller *c, struct sim_hooks *h)
{
	b->c = c;
	b->horizon = 0;
	b->enforce = true;
	b->mapped = false;
	b->failure[0] = 0;
	*h = (struct sim_hooks){ 0 };
	h->ctx = b;
	family_of(c->cfg)->bind_sim(b, h);
}

struct json *pc_bundle(struct arena *a, const struct trace *t, const struct pc_config *cfg, double cutoff, char *err, size_t errlen)
{
	/* beyond the trace model's time range the replay grid cannot advance (1e308 + 300 is
	 * 1e308): say so, not that observations fail to advance */
	if (!(cutoff <= TRACE_MAX_SECONDS)) {
		double last = 0;
		for (size_t i = 0; i < t->n_jobs; i++)
			last = fmax(last, t->jobs[i].submit + t->jobs[i].duration);
		snprintf(err, errlen, "cutoff %.17g is beyond the range of trace times (at most 1e12 s; the trace's last job ends at %.17g s)",
			 cutoff, last);
		return NULL;
	}
	return family_of(cfg)->bundle(a, t, cfg, cutoff, err, errlen);
}

/* ---- the control records ---- */

int pc_records_open(struct pc_records *r, struct pc_controller *c, const char *what, char *err, size_t errlen)
{
	memset(r, 0, sizeof *r);
	r->what = what;
	sb_init(&r->line);
	fp_xxh3_init(&r->hash);
	r->f = tmpfile();
	if (!r->f) {
		snprintf(err, errlen, "cannot create a temporary file for %s", what);
		return -1;
	}
	family_of(c->cfg)->spool(c, r);
	return 0;
}

void pc_records_add(struct pc_records *r)
{
	sb_addc(&r->line, '\n');
	fp_xxh3_update(&r->hash, r->line.buf, r->line.len);
	r->bytes += (long long)r->line.len;
	r->count++;
	if (fwrite(r->line.buf, 1, r->line.len, r->f) != r->line.len)
		r->failed = true;
}

/* The spooled decisions, line by line, into w; appending may go on after it. */
static int copy_spool(struct pc_records *r, struct nd_writer *w, char *err, size_t errlen)
{
	if (r->failed || fflush(r->f) || fseek(r->f, 0, SEEK_SET)) {
		snprintf(err, errlen, "cannot write the temporary file of %s", r->what);
		return -1;
	}
	char *line = NULL;
	size_t cap = 0;
	ssize_t n;
	int rc = 0;
	while (!rc && (n = getline(&line, &cap, r->f)) > 0)
		rc = ndw_raw(w, line, (size_t)n - 1, err, errlen);
	free(line);
	if (!rc && fseek(r->f, 0, SEEK_END)) {
		snprintf(err, errlen, "cannot seek the temporary file of %s", r->what);
		rc = -1;
	}
	return rc;
}

int pc_controller_write_records(const struct pc_controller *c, struct pc_records *r, struct nd_writer *w, char *err,
				size_t errlen)
{
	int rc = copy_spool(r, w, err, errlen);
	if (!rc) {
		struct strbuf sb;
		sb_init(&sb);
		family_of(c->cfg)->write_report(&sb, c);
		rc = ndw_raw(w, sb.buf, sb.len, err, errlen);
		sb_release(&sb);
	}
	return rc;
}

void pc_records_release(struct pc_records *r)
{
	if (r->f)
		fclose(r->f);
	if (r->what) {
		sb_release(&r->line);
		fp_xxh3_release(&r->hash);
	}
	memset(r, 0, sizeof *r);
}
