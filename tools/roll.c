/* roll — one rolling-control arm over one evaluation window (docs/rolling-rules.md): decide every
 * interval from the past only, evaluate the candidates in scenarios from the live state,
 * freeze one action, then let the simulator advance into the hidden future. */
#include "core/cli.h"
#include "core/clock.h"
#include "core/die.h"
#include "core/fp.h"
#include "core/ndjson.h"
#include "core/progress.h"
#include "core/strbuf.h"
#include "core/zio.h"
#include "eval/slo.h"
#include "roll/config.h"
#include "roll/decider.h"
#include "roll/decision.h"
#include "roll/predictor.h"
#include "roll/session.h"
#include "sim/result.h"
#include "trace/trace.h"

#define ROLL_STATE_SCHEMA "schednav.rolling-state/1"
/* Hashed into a checkpoint's run fingerprint: the rolling records' format, so that a run
 * checkpointed by a roll writing another format (before issue 23's lean records: per-job
 * lists in the observation and the scenarios; before its scenarios ended at their horizon:
 * the evidence of drained scenarios) is refused, not continued in a mixed stream. */
#define ROLL_RECORDS_FORMAT "rolling-records/issue-23-horizon"
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char usage[] =
	"roll --config FILE --history FILE --decider SPEC [--controller FILE] [--candidates IDS]\n"
	"[--arm-id ID] [--decider-timeout SECONDS] [--checkpoint DIR | --resume DIR]\n"
	"[--progress | --no-progress] [-o OUT] [FILE]\n";

static const char help[] =
	"\n"
	"Run one rolling arm over the evaluation window of the execution trace FILE (stdin by\n"
	"default): at every cutoff eval_start + k*interval, observe the past, evaluate the\n"
	"candidates in past-only scenarios started from the live simulator state, ask the\n"
	"decider, freeze the action and advance. Writes one schednav.result/1 stream: the\n"
	"plain result records, the inner predictor's records, then rolling_observation,\n"
	"scenario, candidate_evidence and rolling_decision records per decision and one\n"
	"rolling_report. With a plan: decider and no reply for a request, writes a\n"
	"rolling_planning_checkpoint stream instead.\n"
	"\n"
	"  -c, --config FILE           rolling controller config (schednav.rolling-controller/1)\n"
	"  -H, --history FILE          workload-history trace (read through cutoff filters only)\n"
	"  -d, --decider SPEC          fixed:ACTION | rule | oracle | exec:CMD | plan:FILE\n"
	"  -p, --controller FILE       inner predictor config (any controller family's, as sim-run's\n"
	"                              --controller; default: the rolling config's inner_predictor;\n"
	"                              none: no inner predictor)\n"
	"      --candidates IDS        comma-separated candidate list instead of the workload rule\n"
	"  -a, --arm-id ID             the action id of this arm in metrics (default CONTROLLER:DECIDER)\n"
	"  -t, --decider-timeout SEC   seconds an exec: decider has for a reply (default 30)\n"
	"      --checkpoint DIR        write the engine and controller state after each decision\n"
	"      --resume DIR            continue a run checkpointed in DIR (same arguments); removes\n"
	"                              the temporary files a killed run left there (state-*.tmp)\n"
	"      --progress              print \"decision K/N\" on stderr even when it is not a terminal\n"
	"      --no-progress           never print progress (default: only when stderr is a terminal)\n"
	"      --evaluator KIND        snapshot (default: scenarios on in-memory copies of the session)\n"
	"                              or fork (scenarios in forked processes); the same bytes\n"
	"      --timing FILE           write CPU and wall seconds of the phases there (benchmarks)\n";

static const char schemas[] = "reads: schednav.trace/1, schednav.trace/2\n"
			      "writes: " RESULT_SCHEMA ", " ROLL_CHECKPOINT_STREAM_SCHEMA "\n";

/* The rolling records of the run so far, written as soon as each decision emits them: to
 * DIR/records.ndjson when checkpointing (the state files name its length and XXH3), else
 * to an unlinked temporary file. The output stream puts them after the plain records,
 * which exist only at the end, so they are copied from there; memory holds one record. */
struct spool {
	struct strbuf sb;               /* the record being written */
	const char *dir;
	int fd;                         /* the records file */
	long long bytes;                /* its length */
	struct fp_xxh3 h;               /* XXH3 of its bytes so far */
	char run_fp[FP_HEX_XXH3];                /* what the run is (inputs, configs, decider, arm) */
	struct roll_controller *ctl;
	struct roll_live *live;
	const char *pred_state;         /* resume: the checkpoint's predictor_state line */
	struct progress progress;       /* decision K/N on stderr */
};

static const char *spool_name(const struct spool *sp)
{
	return sp->dir ? "records.ndjson" : "the temporary records file";
}

static int spool_emit(void *ctx, const struct json *rec, char *err, size_t errlen)
{
	struct spool *sp = ctx;
	sb_reset(&sp->sb);
	json_write(&sp->sb, rec);
	sb_addc(&sp->sb, '\n');
	const char *p = sp->sb.buf;
	size_t n = sp->sb.len;
	while (n) {
		ssize_t w = write(sp->fd, p, n);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0) {
			snprintf(err, errlen, "%s%s%s: %s", sp->dir ? sp->dir : "", sp->dir ? "/" : "", spool_name(sp), strerror(errno));
			return -1;
		}
		p += w, n -= (size_t)w;
	}
	fp_xxh3_update(&sp->h, sp->sb.buf, sp->sb.len);
	sp->bytes += (long long)sp->sb.len;
	if (sp->sb.cap > (1u << 20)) {   /* an unusually long record: its buffer not kept for the small ones after it */
		sb_release(&sp->sb);
		sb_init(&sp->sb);
	}
	return 0;
}

/* Hash the first n bytes of the records file into sp->h (resume). 0, or -1 on a read error
 * or a file shorter than n. */
static int spool_rehash(struct spool *sp, long long n)
{
	static char buf[1 << 16];
	long long off = 0;
	while (off < n) {
		size_t want = n - off < (long long)sizeof buf ? (size_t)(n - off) : sizeof buf;
		ssize_t k = pread(sp->fd, buf, want, (off_t)off);
		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0)
			return -1;
		fp_xxh3_update(&sp->h, buf, (size_t)k);
		off += k;
	}
	sp->bytes = n;
	return 0;
}

static int state_emit(void *ctx, const struct json *rec, char *err, size_t errlen)
{
	return ndw_record(ctx, rec, err, errlen);
}

/* After each frozen decision: DIR/state-NNNN.ndjson.zst, written then renamed. */
static int checkpoint_write(void *ctx, struct arena *a, char *err, size_t errlen)
{
	struct spool *sp = ctx;
	char path[4096], fp[FP_HEX_XXH3];
	long long k = sp->ctl->p.index;
	snprintf(path, sizeof path, "%s/state-%04lld.ndjson.zst", sp->dir, k);
	fp_xxh3_hex(&sp->h, fp);
	struct json *hdr = nd_header_new(a, ROLL_STATE_SCHEMA, "roll"), *c = json_object(a);
	json_set(a, c, "type", json_str(a, "rolling_checkpoint"));
	json_set(a, c, "run_fingerprint", json_str(a, sp->run_fp));
	json_set(a, c, "decision_count", json_int(a, k));
	json_set(a, c, "cutoff_time_seconds", json_real(a, roll_next_cutoff(sp->ctl) - (double)sp->ctl->cfg->interval));
	json_set(a, c, "records_bytes", json_int(a, sp->bytes));
	json_set(a, c, "records_fingerprint", json_str(a, fp));
	struct nd_writer *w = ndw_open(path, err, errlen);
	if (!w)
		return -1;
	if (ndw_header(w, hdr, err, errlen) || ndw_record(w, c, err, errlen) || ndw_record(w, roll_progress_json(sp->ctl, a), err, errlen) ||
	    roll_live_state_records(sp->live, a, state_emit, w, err, errlen) || ndw_end(w, NULL, err, errlen)) {
		ndw_abort(w);
		return -1;
	}
	return ndw_close(w, err, errlen);
}

/* A temporary file of checkpoint_write's own pattern: state-NNNN.ndjson.zst.XXXXXX.tmp. */
static bool stale_state_tmp(const char *name)
{
	size_t n = strlen(name), digits = 0;
	const char *p = name + 6;
	if (strncmp(name, "state-", 6))
		return false;
	while (*p >= '0' && *p <= '9')
		p++, digits++;
	if (digits < 4 || strncmp(p, ".ndjson.zst.", 12))
		return false;
	p += 12;
	return (size_t)(name + n - p) == 10 && !strcmp(p + 6, ".tmp") && strspn(p, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789") == 6;
}

/* After each frozen decision: the progress line, then the checkpoint when there is one. */
static int decision_frozen(void *ctx, struct arena *a, char *err, size_t errlen)
{
	struct spool *sp = ctx;
	progress_step(&sp->progress, sp->ctl->p.index);
	return sp->dir ? checkpoint_write(ctx, a, err, errlen) : 0;
}

/* Resume: the newest state file of this run that verifies; the records file cut back to
 * the length it names (its bytes must hash to the recorded fingerprint). Returns the
 * number of decisions restored (0: start over). */
static long long checkpoint_resume(struct spool *sp, struct arena *a)
{
	char err[2048], path[4096];
	DIR *d = opendir(sp->dir);
	long long best = -1;
	if (d) {
		struct dirent *e;
		while ((e = readdir(d))) {
			long long k;
			char tail[32];
			if (sscanf(e->d_name, "state-%lld.ndjson%31s", &k, tail) == 2 && !strcmp(tail, ".zst") && k > best)
				best = k;
			else if (stale_state_tmp(e->d_name)) {
				/* a state file a killed run was writing (ndw_open's NAME.XXXXXX.tmp): never
				 * renamed, so never part of the checkpoint */
				snprintf(path, sizeof path, "%s/%s", sp->dir, e->d_name);
				if (unlink(path) && errno != ENOENT)
					die("%s: %s", path, strerror(errno));
			}
		}
		closedir(d);
	}
	for (; best > 0; best--) {
		snprintf(path, sizeof path, "%s/state-%04lld.ndjson.zst", sp->dir, best);
		struct nd_reader *r = ndr_open(path, err, sizeof err);
		if (!r)
			continue;
		struct json *v, *ck = NULL, *prog = NULL, *pst = NULL;
		enum nd_event ev;
		struct arena sa;
		arena_init(&sa);
		while ((ev = ndr_next(r, &sa, &v, err, sizeof err)) > 0)
			if (ev == ND_RECORD) {
				const char *t = json_get(v, "type")->u.str.s;
				if (!strcmp(t, "rolling_checkpoint"))
					ck = json_clone(a, v);
				else if (!strcmp(t, "rolling_controller_state"))
					prog = json_clone(a, v);
				else if (!strcmp(t, "predictor_state"))
					pst = json_clone(a, v);
			}
		ndr_close(r);
		arena_release(&sa);
		if (ev != ND_EOF || !ck || !prog)
			continue;   /* torn or foreign: an older one may still be good */
		const char *rfp = json_get(ck, "run_fingerprint") ? json_get(ck, "run_fingerprint")->u.str.s : "";
		if (strcmp(rfp, sp->run_fp))
			die("%s: the checkpoint belongs to another run (different inputs, configs, decider or arm, or records of an older format)",
			    path);
		struct json *bytes = json_get(ck, "records_bytes"), *rec_fp = json_get(ck, "records_fingerprint");
		char fp[FP_HEX_XXH3];
		struct stat stt;
		snprintf(path, sizeof path, "%s/records.ndjson", sp->dir);
		if (!bytes || bytes->kind != JSON_INT || bytes->u.i < 0 || !rec_fp || rec_fp->kind != JSON_STRING)
			die("%s: cannot resume: the checkpoint names no records length and fingerprint", sp->dir);
		if (fstat(sp->fd, &stt) || (long long)stt.st_size < bytes->u.i || spool_rehash(sp, bytes->u.i))
			die("%s: records.ndjson is shorter than its checkpoint says", sp->dir);
		fp_xxh3_hex(&sp->h, fp);
		if (strcmp(fp, rec_fp->u.str.s))
			die("%s: records.ndjson does not match its checkpoint", sp->dir);
		if (ftruncate(sp->fd, (off_t)bytes->u.i) || lseek(sp->fd, 0, SEEK_END) < 0)
			die("%s: %s", path, strerror(errno));
		if (roll_progress_load(sp->ctl, prog, err, sizeof err))
			die("%s: %s", sp->dir, err);
		if (pst) {
			struct strbuf ps;
			sb_init(&ps);
			json_write(&ps, pst);
			sp->pred_state = arena_strndup(a, ps.buf, ps.len);
			sb_release(&ps);
		}
		return sp->ctl->p.index;
	}
	if (ftruncate(sp->fd, 0))
		die("%s/records.ndjson: %s", sp->dir, strerror(errno));
	return 0;
}

/* What makes two runs the same run: inputs, configs, decider, candidates and arm id. */
static void run_fingerprint(char out[FP_HEX_XXH3], const char *const *parts, size_t n)
{
	struct strbuf sb;
	sb_init(&sb);
	for (size_t i = 0; i < n; i++) {
		sb_adds(&sb, parts[i] ? parts[i] : "");
		sb_addc(&sb, '\n');
	}
	fp_xxh3_of(sb.buf, sb.len, out);
	sb_release(&sb);
}

/* Comma-separated ids, in arena a. */
static size_t split_ids(struct arena *a, const char *s, const char **out, size_t cap)
{
	size_t n = 0;
	while (*s) {
		const char *e = strchr(s, ',');
		size_t len = e ? (size_t)(e - s) : strlen(s);
		if (len == 0 || n == cap)
			usage_fail(usage, "--candidates: empty id or too many ids");
		out[n++] = arena_strndup(a, s, len);
		s += len + (e ? 1 : 0);
	}
	return n;
}

/* The arm's policy for the result header: the safety action under the arm's id. */
static void arm_policy(struct sim_policy *out, const struct sim_policy *safety, const char *arm_id, struct arena *a)
{
	char err[300];
	struct json *doc = json_object(a);
	json_set(a, doc, "schema_version", json_str(a, POLICY_SCHEMA));
	for (size_t i = 0; i < safety->canonical->u.obj.n; i++)
		json_set(a, doc, safety->canonical->u.obj.keys[i], json_clone(a, safety->canonical->u.obj.vals[i]));
	json_set(a, doc, "action_id", json_str(a, arm_id));
	if (policy_from_json(out, doc, a, err, sizeof err))
		die("--arm-id '%s': %s", arm_id, err);
}

static void add_file(struct arena *a, struct json *hdr, const char *path)
{
	char err[512];
	if (nd_header_add_config(a, hdr, path, err, sizeof err))
		die("%s", err);
}

static size_t model_count(const struct trace *t)
{
	size_t n = 0;
	for (size_t i = 0; i < t->n_nodes; i++) {
		size_t k = 0;
		while (k < i && strcmp(t->nodes[k].model, t->nodes[i].model))
			k++;
		n += k == i;
	}
	return n;
}

/* Copy the records file to the output, line by line, in bounded chunks. */
static int write_spool(struct nd_writer *w, struct spool *sp, char *err, size_t errlen)
{
	static char buf[1 << 16];
	struct strbuf line;
	long long off = 0;
	int rc = 0;
	sb_init(&line);
	while (off < sp->bytes && !rc) {
		size_t want = sp->bytes - off < (long long)sizeof buf ? (size_t)(sp->bytes - off) : sizeof buf;
		ssize_t k = pread(sp->fd, buf, want, (off_t)off);
		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0) {
			snprintf(err, errlen, "%s: cannot read it back: %s", spool_name(sp), k < 0 ? strerror(errno) : "shorter than written");
			rc = -1;
			break;
		}
		off += k;
		const char *p = buf, *end = buf + k;
		while (p < end && !rc) {
			const char *nl = memchr(p, '\n', (size_t)(end - p));
			if (!nl) {
				sb_add(&line, p, (size_t)(end - p));
				break;
			}
			if (line.len) {
				sb_add(&line, p, (size_t)(nl - p));
				rc = ndw_raw(w, line.buf, line.len, err, errlen);
				sb_reset(&line);
			} else
				rc = ndw_raw(w, p, (size_t)(nl - p), err, errlen);
			p = nl + 1;
		}
	}
	sb_release(&line);
	return rc;
}

/* Opens the records file of the --checkpoint or --resume directory sp->dir; returns the
 * decisions a resume restored (0 otherwise). */
static long long spool_open_dir(struct spool *sp, bool checkpoint, bool resume, struct arena *a, struct roll_controller *ctl)
{
	long long restored = 0;
	if (mkdir(sp->dir, 0777) && errno != EEXIST)
		die("%s: %s", sp->dir, strerror(errno));
	char path[4096];
	snprintf(path, sizeof path, "%s/records.ndjson", sp->dir);
	if (checkpoint && access(path, F_OK) == 0)
		die("%s: holds a checkpoint already: continue it with --resume, or use an empty directory", sp->dir);
	if ((sp->fd = open(path, O_RDWR | O_CREAT | O_APPEND | O_CLOEXEC, 0666)) < 0)
		die("%s: %s", path, strerror(errno));
	if (resume) {
		restored = checkpoint_resume(sp, a);
		progress_note(&sp->progress, "resuming after decision %lld/%lld", restored, roll_expected_decisions(ctl));
	}
	return restored;
}

/* Without a checkpoint: an unnamed temporary records file. */
static void spool_open_temp(struct spool *sp)
{
	const char *base = getenv("TMPDIR");
	char path[4096];
	snprintf(path, sizeof path, "%s/roll-records-XXXXXX", base && *base ? base : "/tmp");
	if ((sp->fd = mkstemp(path)) < 0 || fcntl(sp->fd, F_SETFD, FD_CLOEXEC))
		die("cannot create a temporary records file in '%s': %s", base && *base ? base : "/tmp", strerror(errno));
	unlink(path);   /* nobody else needs its name; it goes away with the process */
}

/* The result stream's header: the arm's policy, the inputs and the rolling parameters. */
static struct json *roll_result_header(struct arena *a, const struct trace *exec, const struct trace *hist,
	const struct sim_output *out, const struct roll_config *cfg, const struct roll_catalog *cat,
	const struct slo_spec *slo, const struct roll_decider *dec, const struct roll_predictor *pred,
	const char *config_path, const char *history_path, const char *controller_path, const char *decider_spec,
	const char *arm_id)
{
	struct sim_policy apol;
	arm_policy(&apol, &cat->actions[roll_catalog_index(cat, cfg->safety_id)], arm_id, a);
	struct json *hdr = result_header(a, exec, &apol, out);
	nd_header_add_stream(a, hdr, history_path, hist->version == 2 ? TRACE_SCHEMA_V2 : TRACE_SCHEMA_V1, hist->fingerprint);
	add_file(a, hdr, config_path);
	add_file(a, hdr, cfg->action_space_path);
	add_file(a, hdr, cfg->slo_path);
	if (controller_path) {
		add_file(a, hdr, controller_path);
		json_set(a, hdr, "controller", json_clone(a, pred->canonical));
		json_set(a, hdr, "controller_fingerprint", json_str(a, pred->fingerprint));
	}
	struct json *pr = json_get(hdr, "params");
	json_set(a, pr, "rolling_controller_id", json_str(a, cfg->controller_id));
	json_set(a, pr, "rolling_controller_fingerprint", json_str(a, cfg->fingerprint));
	json_set(a, pr, "action_space_fingerprint", json_str(a, cat->fingerprint));
	json_set(a, pr, "slo_fingerprint", json_str(a, slo->fingerprint));
	json_set(a, pr, "decider", json_str(a, decider_spec));
	json_set(a, pr, "deployable", json_bool(a, roll_decider_deployable(dec)));
	json_set(a, pr, "arm_id", json_str(a, arm_id));
	return hdr;
}

/* --timing: wall-clock seconds for benchmarks. */
static void write_timing(const char *timing, struct roll_live *live, double t_start, double c_start, double t_end, double c_end)
{
	/* wall-clock seconds for benchmarks: not part of any stream (they differ run to run) */
	double cpu_self = clock_rusage_cpu(0), cpu_kids = clock_rusage_cpu(1);
	struct roll_live_timing lt;
	roll_live_get_timing(live, &lt);
	long peak_rss = clock_peak_rss_kib();
	FILE *f = fopen(timing, "w");
	if (!f || fprintf(f, "{\"cpu_before_first_cutoff\":%.3f,\"cpu_window\":%.3f,\"cpu_drain\":%.3f,\"cpu_rolling_day\":%.3f,\"cpu_seconds\":%.3f,\"scenario_cpu_seconds\":%.3f,\"peak_rss_kb\":%ld,\"session_seconds\":%.6f,\"before_first_cutoff_seconds\":%.6f,\"rolling_day_seconds\":%.6f,"
			     "\"decision_seconds\":%.6f,\"scenario_evaluations\":%lld,\"evaluation_seconds\":%.6f,\"fork_seconds\":%.6f}\n",
			     lt.first_cutoff_cpu - c_start, lt.window_end_cpu - lt.first_cutoff_cpu, c_end - lt.window_end_cpu, c_end - lt.first_cutoff_cpu, cpu_self, cpu_kids, peak_rss, t_end - t_start, lt.first_cutoff_clock - t_start, t_end - lt.first_cutoff_clock, lt.decide_seconds,
			     lt.evaluations, lt.eval_seconds, lt.fork_seconds) < 0 || fclose(f))
		die("%s: cannot write", timing);
}

/* The command line. */
struct roll_args {
	const char *config_path, *history_path, *decider_spec, *controller_path, *candidates;
	const char *arm_id, *checkpoint, *resume, *timing;
	double timeout;
	bool snapshot;
	enum progress_mode progress_mode;
};

static void parse_args(int argc, char **argv, struct cli *cli, struct roll_args *o)
{
	enum { OPT_CANDIDATES = 256, OPT_CHECKPOINT, OPT_RESUME, OPT_TIMING, OPT_EVALUATOR };
	static const struct option opts[] = {
		{ "config", required_argument, NULL, 'c' },
		{ "history", required_argument, NULL, 'H' },
		{ "decider", required_argument, NULL, 'd' },
		{ "controller", required_argument, NULL, 'p' },
		{ "candidates", required_argument, NULL, OPT_CANDIDATES },
		{ "arm-id", required_argument, NULL, 'a' },
		{ "decider-timeout", required_argument, NULL, 't' },
		{ "checkpoint", required_argument, NULL, OPT_CHECKPOINT },
		{ "resume", required_argument, NULL, OPT_RESUME },
		{ "timing", required_argument, NULL, OPT_TIMING },
		{ "evaluator", required_argument, NULL, OPT_EVALUATOR },
		PROGRESS_OPTIONS,
		CLI_OPTION_INPUT,
		CLI_OPTION_OUTPUT,
		CLI_OPTIONS_HELP,
		{ NULL, 0, NULL, 0 },
	};
	cli_init(cli, argv, CLI_INPUT | CLI_OUTPUT, usage, help, schemas);
	*o = (struct roll_args){ .timeout = 30, .snapshot = true, .progress_mode = PROGRESS_AUTO };
	int c;
	while ((c = getopt_long(argc, argv, ":c:H:d:p:a:t:i:o:hV", opts, NULL)) != -1) {
		switch (c) {
		case 'c': o->config_path = optarg; break;
		case 'H': o->history_path = optarg; break;
		case 'd': o->decider_spec = optarg; break;
		case 'p': o->controller_path = optarg; break;
		case OPT_CANDIDATES: o->candidates = optarg; break;
		case 'a': o->arm_id = optarg; break;
		case 't': o->timeout = opt_double("decider-timeout", optarg); break;
		case OPT_CHECKPOINT: o->checkpoint = optarg; break;
		case OPT_RESUME: o->resume = optarg; break;
		case OPT_TIMING: o->timing = optarg; break;
		case OPT_EVALUATOR:
			if (strcmp(optarg, "fork") && strcmp(optarg, "snapshot"))
				usage_fail(usage, "--evaluator must be fork or snapshot");
			o->snapshot = !strcmp(optarg, "snapshot");
			break;
		case PROGRESS_OPT_ON: o->progress_mode = PROGRESS_ON; break;
		case PROGRESS_OPT_OFF: o->progress_mode = PROGRESS_OFF; break;
		default: cli_option(cli, c, argv);
		}
	}
	cli_operands(cli, argc, argv, 1);
	if (!o->config_path || !o->history_path || !o->decider_spec)
		usage_fail(usage, "--config, --history and --decider are required");
	if (o->checkpoint && o->resume)
		usage_fail(usage, "--checkpoint and --resume are exclusive");
	if (!(o->timeout > 0) || o->timeout > 86400)
		usage_fail(usage, "--decider-timeout must be in (0, 86400]");
}

/* The execution trace (it must have jobs and nodes) and the history, which may share its
 * jobs and strings. */
static void load_traces(struct trace *exec, struct trace *hist, const char *input, const char *history_path)
{
	char err[4096];
	trace_init(exec);
	trace_init(hist);
	if (trace_load(exec, input, err, sizeof err) || trace_load_sharing(hist, history_path, exec, err, sizeof err))
		die("%s", err);
	if (exec->n_jobs == 0 || exec->n_nodes == 0)
		die("%s: the execution trace has no jobs or no nodes", input);
}

/* The arm id when --arm-id is not given: CONTROLLER_ID:DECIDER_KIND. */
static const char *default_arm_id(struct arena *a, const struct roll_config *cfg, const struct roll_decider *dec)
{
	size_t n = strlen(cfg->controller_id) + strlen(roll_decider_kind_name(dec)) + 2;
	char *id = arena_alloc(a, n);
	snprintf(id, n, "%s:%s", cfg->controller_id, roll_decider_kind_name(dec));
	return id;
}

/* The inner predictor: it must know every action of the catalogue, then it starts on exec. */
static void predictor_start(struct roll_predictor *pred, const struct roll_catalog *cat, const struct roll_config *cfg, const struct trace *exec)
{
	char err[4096];
	for (size_t i = 0; i < cat->n; i++)
		if (roll_predictor_check(pred, &cat->actions[i], err, sizeof err))
			die("%s: %s", cfg->action_space_path, err);
	if (roll_predictor_start(pred, exec, err, sizeof err))
		die("%s", err);
}

/* A run that stopped at a decision still to plan: its planning checkpoint. */
static void write_checkpoint(const char *output, const char *input, struct arena *a, const struct trace *exec, struct roll_controller *ctl)
{
	char err[4096];
	struct json *hdr = nd_header_new(a, ROLL_CHECKPOINT_STREAM_SCHEMA, "roll");
	nd_header_add_stream(a, hdr, input, exec->version == 2 ? TRACE_SCHEMA_V2 : TRACE_SCHEMA_V1, exec->fingerprint);
	if (ndw_write_one(output, hdr, roll_planning_checkpoint(ctl, a), err, sizeof err))
		die("%s", err);
}

/* A finished run: the result records, the predictor's (pred, or NULL), the spooled
 * decisions and the report; nothing is left at output on failure. */
static void write_result(const char *output, struct json *hdr, struct arena *a, const struct trace *exec, const struct sim_output *out,
	struct roll_predictor *pred, struct spool *sp, struct roll_controller *ctl)
{
	char err[4096];
	struct nd_writer *w = ndw_open(output, err, sizeof err);
	if (!w)
		die("%s", err);
	if (result_write_records(w, hdr, exec, out, err, sizeof err) || (pred && roll_predictor_write(pred, w, err, sizeof err)) ||
	    write_spool(w, sp, err, sizeof err) || ndw_record(w, roll_report(ctl, a), err, sizeof err) ||
	    ndw_end(w, NULL, err, sizeof err)) {
		ndw_abort(w);
		die("%s", err);
	}
	if (ndw_close(w, err, sizeof err))
		die("%s", err);
}

int main(int argc, char **argv)
{
	struct cli cli;
	struct roll_args o;
	parse_args(argc, argv, &cli, &o);
	const char *input = cli.inputs[0], *output = cli.output;
	const char *config_path = o.config_path, *history_path = o.history_path, *decider_spec = o.decider_spec;
	const char *controller_path = o.controller_path, *candidates = o.candidates, *arm_id = o.arm_id;
	const char *checkpoint = o.checkpoint, *resume = o.resume, *timing = o.timing;
	signal(SIGPIPE, SIG_IGN);

	char err[4096];
	struct arena a;
	arena_init(&a);
	struct roll_config cfg;
	struct roll_catalog cat;
	struct slo_spec slo;
	struct roll_decider dec;
	if (roll_decider_parse(&dec, decider_spec, o.timeout, err, sizeof err))
		usage_fail(usage, err);
	const char *fixed[ROLL_MAX_CANDIDATES];
	size_t n_fixed = candidates ? split_ids(&a, candidates, fixed, ROLL_MAX_CANDIDATES) : 0;
	if (roll_config_load(&cfg, config_path, &a, err, sizeof err) || roll_catalog_load(&cat, cfg.action_space_path, &a, err, sizeof err) ||
	    ev_slo_load(&slo, cfg.slo_path, &a, err, sizeof err))
		die("%s", err);
	/* the inner predictor: --controller, else the one the rolling config names; "none": none */
	if (!controller_path)
		controller_path = cfg.inner_predictor_path;
	else if (!strcmp(controller_path, "none"))
		controller_path = NULL;
	struct roll_predictor pred;
	if (controller_path && roll_predictor_load(&pred, controller_path, &a, err, sizeof err))
		die("%s", err);
	struct trace exec, hist;
	load_traces(&exec, &hist, input, history_path);
	if (!arm_id)
		arm_id = default_arm_id(&a, &cfg, &dec);
	if (!roll_id_ok(arm_id))
		usage_fail(usage, "--arm-id must be a non-empty id without control characters");
	struct roll_controller ctl;
	if (roll_controller_init(&ctl, &cfg, &cat, &slo, &exec, &hist, &dec, candidates ? fixed : NULL, n_fixed, arm_id, err, sizeof err))
		die("%s", err);
	if (controller_path)
		predictor_start(&pred, &cat, &cfg, &exec);
	if (roll_decider_start(&dec, err, sizeof err))
		die("%s", err);
	struct spool sp = { { 0 }, checkpoint ? checkpoint : resume, -1, 0, { 0 }, "", &ctl, NULL, NULL, { 0 } };
	sb_init(&sp.sb);
	fp_xxh3_init(&sp.h);
	progress_init(&sp.progress, o.progress_mode, "decision", roll_expected_decisions(&ctl));
	struct roll_live *live;
	long long restored = 0;
	if (sp.dir) {
		const char *parts[] = { exec.fingerprint, hist.fingerprint, cfg.fingerprint, cat.fingerprint, slo.fingerprint,
			controller_path ? pred.fingerprint : "", decider_spec, candidates, arm_id, ROLL_RECORDS_FORMAT };
		run_fingerprint(sp.run_fp, parts, sizeof parts / sizeof *parts);
		restored = spool_open_dir(&sp, checkpoint != NULL, resume != NULL, &a, &ctl);
	} else
		spool_open_temp(&sp);
	size_t pools = model_count(&exec);
	struct roll_live_options lo = { .reserve = roll_live_reserve(&ctl, &exec, &hist, pools), .snapshot = o.snapshot,
					.emit = spool_emit, .emit_ctx = &sp, .replay_n = restored, .pred_state_expect = sp.pred_state,
					.frozen = decision_frozen, .frozen_ctx = &sp };
	if (!(live = roll_live_open(&ctl, &exec, controller_path ? &pred : NULL, &lo, err, sizeof err)))
		die("%s", err);
	sp.live = live;
	struct sim_output out;
	double t_start = clock_wall(), c_start = clock_rusage_cpu(2);
	int rc = roll_live_run(live, &out, err, sizeof err);
	double t_end = clock_wall(), c_end = clock_rusage_cpu(2);
	if (rc < 0 || roll_plan_check(&ctl, err, sizeof err))
		die("%s", err);
	progress_finish(&sp.progress);
	if (rc == ROLL_STEP_PENDING)
		write_checkpoint(output, input, &a, &exec, &ctl);
	else {
		struct json *hdr = roll_result_header(&a, &exec, &hist, &out, &cfg, &cat, &slo, &dec, controller_path ? &pred : NULL,
			config_path, history_path, controller_path, decider_spec, arm_id);
		write_result(output, hdr, &a, &exec, &out, controller_path ? &pred : NULL, &sp, &ctl);
		sim_output_release(&out);
	}
	if (timing)
		write_timing(timing, live, t_start, c_start, t_end, c_end);
	roll_live_close(live);
	roll_controller_release(&ctl);
	roll_decider_close(&dec);
	if (controller_path)
		roll_predictor_release(&pred);
	sb_release(&sp.sb);
	fp_xxh3_release(&sp.h);
	close(sp.fd);
	ev_slo_release(&slo);
	trace_release(&hist);   /* first: it may hold exec's jobs and strings */
	trace_release(&exec);
	arena_release(&a);
	cli_release(&cli);
	return 0;
}
