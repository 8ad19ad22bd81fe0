/*
 * report — collect the streams of one evaluation (result, metrics, audit, ranking,
 * approval, study records) into a model, derive time series from the result ledgers,
 * and render them: a self-contained HTML page (charts drawn by gnuplot as inline SVG)
 * or a plain-text decision table.
 *
 * Memory: the model owns everything it holds (its arena plus a few malloc'd arrays);
 * rp_model_release frees it all. Records cloned into the model stay valid until then.
 * Nothing here prints or exits: functions return 0 / -1 with a message in err
 * ("PATH:LINE: message" for a bad record).
 */
#ifndef SCHEDNAV_REPORT_H
#define SCHEDNAV_REPORT_H
#include "core/arena.h"
#include "core/json.h"
#include "core/strbuf.h"
#include <stdbool.h>
#include <stddef.h>

/* One job of a result stream, reduced to what the charts need. */
struct rp_job {
	const char *job_id;
	double submit, start, completion, gpus;  /* start/completion NAN when absent */
	bool hp;
	bool eval_pop;                           /* in the evaluation population (true when not said) */
};

/* One preemption event: when, and whose run it ended. */
struct rp_preemption {
	double t;
	const char *victim;                      /* job id, NULL when the record names none */
};

/* One Spot run of the run ledger. */
struct rp_run {
	const char *job_id;
	double start, end;
	bool preempted;
};

/* One retained decision of a predictive controller, for one pool. */
struct rp_control_point {
	double t, hp;                 /* decision time; actual HP demand (per the family's decision reader) */
	double target, mu, q;         /* the step-1 forecast point (NAN before the first fit) */
	double quota, eta;            /* shortest-horizon quota; eta after feedback */
	double admitted, held;        /* Spot runs started since the previous decision, Spot jobs held (families with gate counts; else NAN) */
};

#define RP_CONTROL_MAX_POOLS 8

/* The control_decision records of a result stream: v[decision * npools + pool]. */
struct pc_decision_reader;
struct rp_control {
	const struct pc_decision_reader *reader;   /* the family's that read the first decision (predict.h) */
	const char *pools[RP_CONTROL_MAX_POOLS];
	size_t npools, ndecisions;
	struct rp_control_point *v;
	size_t n, cap;
};

/* One result stream (one simulated policy). */
struct rp_result {
	const char *action_id, *policy_fingerprint, *fingerprint, *path;
	double capacity_gpus, simulation_start, simulation_end, eval_start, eval_end;
	bool has_cluster, has_window;
	struct rp_job *jobs;
	size_t njobs, cap_jobs;
	struct rp_run *runs;
	size_t nruns, cap_runs;
	struct rp_preemption *preemptions;
	size_t npreemptions, cap_preemptions;
	struct rp_control control;              /* empty without a controller */
	/* rolling control (roll): the frozen decisions in order and the report, or none */
	const struct json **decisions;
	size_t ndecisions, cap_decisions;
	const struct json *rolling_report;
	/* issue 36: the placement_sample records (the physical node model): time, fragmented GPUs */
	double *frag_t, *frag_gpus;
	size_t nfrag, cap_frag_t, cap_frag_g;
};

/* A record kept verbatim with the fingerprint of the stream it came in and its path. */
struct rp_rec {
	struct json *rec;
	const char *fingerprint, *path;
};

/* One input stream, for the provenance table. */
struct rp_input {
	const char *path, *schema, *tool, *fingerprint;
	unsigned long long records;
};

/* A policy as the page shows it: everything known about one action id. */
struct rp_policy {
	const char *action_id;
	const struct rp_result *result;   /* NULL when no result stream was given */
	const struct rp_rec *metrics, *audit;
};

struct rp_model {
	struct arena a;
	struct rp_result *results;
	size_t nresults, cap_results;
	struct rp_rec *metrics, *audits, *rankings, *approvals, *study;
	size_t nmetrics, naudits, nrankings, napprovals, nstudy;
	size_t cap_metrics, cap_audits, cap_rankings, cap_approvals, cap_study;
	struct rp_rec *saturation;              /* pool_saturation records (trace-analyze --saturation) */
	size_t nsaturation, cap_saturation;
	struct rp_input *inputs;
	size_t ninputs, cap_inputs;
	struct rp_policy *policies;             /* filled by rp_model_finish */
	size_t npolicies;
	/* How the page and the table tell a person to approve: the program to run and the
	 * approval log to name (NULL: approve's default). Set by the tool, not owned. */
	const char *approve_program, *approvals_log;
};

void rp_model_init(struct rp_model *m);
void rp_model_release(struct rp_model *m);
/* Read every stream of one input (path or "-"); unknown record types are ignored. */
int rp_model_read(struct rp_model *m, const char *path, char *err, size_t errlen);
/* Read an approval log written by approve(1): plain approval records, one a line. A log
 * that does not exist yet holds no approvals. */
int rp_model_read_approvals(struct rp_model *m, const char *path, char *err, size_t errlen);
/* Join results, metrics and audits into policies (input order); check the joins. */
int rp_model_finish(struct rp_model *m, char *err, size_t errlen);
/* The model of a report or table: rp_model_init, rp_model_read of every input (at least
 * one stream in all), the approval log when approvals is not NULL, how to tell a person
 * to approve (both strings kept, not owned), rp_model_finish. The caller releases m. */
int rp_model_load(struct rp_model *m, const char *const *inputs, size_t ninputs, const char *approvals, const char *approve_program,
		  char *err, size_t errlen);
/* The ranking to report (the last one read), or NULL. */
const struct rp_rec *rp_model_ranking(const struct rp_model *m);

/* Time series over [t0, t1) in nbins equal bins: time-weighted means of allocated GPUs
 * and of the HP / Spot queue lengths, and the cumulative preemption counts at bin end
 * (every event since the start, and those whose victim is an evaluation-population Spot
 * job: what metrics' preemption_event_count counts). */
struct rp_series {
	size_t nbins;
	double t0, t1;
	double *allocated, *queue_hp, *queue_spot, *preemptions, *preemptions_eval;
};
int rp_series_build(const struct rp_result *r, double t0, double t1, size_t nbins, struct rp_series *s, char *err, size_t errlen);
void rp_series_release(struct rp_series *s);

/* Small accessors shared by the renderers. */
double rp_num(const struct json *rec, const char *key);        /* NAN when absent/null/not a number */
const char *rp_str(const struct json *rec, const char *key);   /* NULL when absent/not a string */
const char *rp_ranking_status(const struct json *ranking);
/* The per-constraint results of an audit record (its 'constraints' array), or NULL. */
const struct json *rp_audit_constraints(const struct json *audit);
/* The survivors of the ranking (its selected or tied action ids), as a JSON array or NULL. */
const struct json *rp_ranking_selected(const struct json *ranking);
bool rp_json_has_str(const struct json *arr, const char *s);

/* Plain-text decision table (policy, allocation, JCTs, eviction rate, SLO, decision)
 * followed by the decision and the approval status. */
void rp_table_write(struct strbuf *sb, const struct rp_model *m);

/* Rendering options for the HTML page. */
struct rp_html_opts {
	const char *title;
	const char *date;       /* NULL: no date on the page */
	const char *gnuplot;    /* program to run */
	size_t bins;
};
/* Render the page into sb (runs gnuplot in a private temporary directory). */
int rp_html_render(struct strbuf *sb, const struct rp_model *m, const struct rp_html_opts *o, char *err, size_t errlen);

/* Charts drawn by gnuplot. A chart is a data file plus a plot script fragment. */
struct rp_chart {
	const char *id;          /* html id; also names the files */
	struct strbuf data;      /* whitespace-separated columns */
	struct strbuf script;    /* gnuplot commands after the terminal/output lines */
	int width, height;
	char *svg;               /* filled by rp_gnuplot_run, malloc'd */
};
/* Quoting for gnuplot (gnuplot.c): rp_gp_str a complete single-quoted command string (a quote
 * doubled, a control character '?'); rp_gp_datastr a double-quoted data-file string (a '\\'
 * doubled, '"' written as '\'', a control character '?'). */
void rp_gp_str(struct strbuf *sb, const char *s);
void rp_gp_datastr(struct strbuf *sb, const char *s);
/* Run gnuplot once over all charts; fills each chart's svg (ids made unique per chart). */
int rp_gnuplot_run(const char *program, struct rp_chart *charts, size_t n, char *err, size_t errlen);

/* ---- the predictive controller (predictive.c) ---- */

/* Add one control_decision record of res (retained ones only; strings in m's arena). */
int rp_control_add(struct rp_model *m, struct rp_result *res, const struct json *rec, char *err, size_t errlen);
void rp_control_release(struct rp_control *c);
/* Fill ch (preamble already in its script) with the decisions of one pool: actual HP
 * demand against mu and the P90 band at each forecast's target time, the quota, eta,
 * Spot runs started and Spot jobs held. Every label goes through datastr into the data
 * file (title columnheader); the script holds only constants and numbers. */
void rp_control_chart(const struct rp_result *res, size_t pool, struct rp_chart *ch, void (*datastr)(struct strbuf *, const char *));
/* The forecast quality table (one row per metrics record with a predictive_control
 * block), every value through esc. Returns the number of rows (0: nothing written). */
size_t rp_control_quality_table(struct strbuf *sb, const struct rp_model *m, void (*esc)(struct strbuf *, const char *));
#endif
