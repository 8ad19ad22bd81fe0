/* approve — a person settles a tie or accepts a selection: verify a ranking and append one
 * self-fingerprinted, hash-chained `approval` record to an append-only log (docs/agents.md:
 * "a separate command that no agent can reach"). */
#include "core/cli.h"
#include "core/die.h"
#include "core/json.h"
#include "core/ndjson.h"
#include "core/strbuf.h"
#include "core/text.h"
#include "eval/chainlog.h"
#include "eval/evidence.h"
#include "eval/ranking.h"
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define MAX_TEXT 4096 /* --by and --reason: keeps every log line far below a page */

static const char usage[] =
	"approve --action ID --by NAME --reason TEXT [--log FILE] [--at ISO-TIME] [FILE]\n"
	"approve --verify [--log FILE]\n";

static const char help[] =
	"\n"
	"Record that a person approved ACTION from a ranking's frontier (its\n"
	"selected_action_ids): verify the ranking stream (FILE, from rank(1); none or '-' =\n"
	"stdin; --ranking FILE is the same) and its ranking_fingerprint, verify\n"
	"the whole log, then append one `approval` record, chained to the previous one by\n"
	"previous_fingerprint, with a single write(2) and fsync (a torn last line that a killed\n"
	"approve left is cut off first, and reported). --verify only checks the log.\n"
	"\n"
	"  -r, --ranking FILE   the ranking stream, the same as the FILE operand or -i FILE\n"
	"  -a, --action ID      the approved action; must be in selected_action_ids\n"
	"  -b, --by NAME        who approves (a person)\n"
	"  -m, --reason TEXT    why (at most 4096 bytes)\n"
	"  -l, --log FILE       append-only approval log (default approvals.ndjson)\n"
	"  -t, --at ISO-TIME    approval time as YYYY-MM-DDTHH:MM:SSZ (default: now, UTC)\n"
	"      --verify         check every line, fingerprint and link of the log; write nothing\n";

static const char version_schemas[] = "reads: " EV_RANKING_SCHEMA ", the approval log\nwrites: one approval record appended to the log\n";

static bool valid_time(const char *s)
{
	int y, mo, d, h, mi, se;
	char z;
	if (strlen(s) != 20 || sscanf(s, "%4d-%2d-%2dT%2d:%2d:%2d%c", &y, &mo, &d, &h, &mi, &se, &z) != 7 || z != 'Z')
		return false;
	for (int i = 0; i < 20; i++)
		if ((i == 4 || i == 7) ? s[i] != '-' : i == 10 ? s[i] != 'T' : (i == 13 || i == 16) ? s[i] != ':' : i == 19 ? 0 : (s[i] < '0' || s[i] > '9'))
			return false;
	static const int mdays[] = { 31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31 };
	return y >= 1970 && mo >= 1 && mo <= 12 && d >= 1 && d <= mdays[mo - 1] && h <= 23 && mi <= 59 && se <= 60;
}

static void now_utc(char out[21])
{
	time_t t = time(NULL);
	struct tm tm;
	gmtime_r(&t, &tm);
	strftime(out, 21, "%Y-%m-%dT%H:%M:%SZ", &tm);
}

static int do_verify(const char *log)
{
	char last[FP_HEX_XXH3], err[1024];
	unsigned long n;
	int fd = ev_chainlog_open(log, &ev_approval_log, false, false, last, &n, err, sizeof err);
	if (fd < 0)
		die("%s", err);
	close(fd);
	/* the one line of a success: stderr, as stdout carries records only */
	fprintf(stderr, "%s: '%s': %lu approval%s, the chain verifies (last fingerprint %s)\n", progname, log, n, n == 1 ? "" : "s",
		n ? last : "none");
	return 0;
}

static const struct json *read_ranking(const char *path, struct ev_input *in, struct arena *a)
{
	static const char *const schemas[] = { EV_RANKING_SCHEMA, NULL };
	char err[1024];
	if (ev_read(in, path, schemas, a, err, sizeof err))
		die("%s", err);
	if (in->n != 1)
		die("%s: expected one ranking stream, found %zu ranking records", path, in->n);
	if (ev_verify_from(in, 0, NULL, err, sizeof err))
		die("%s", err);
	return in->items[0].rec;
}

/* The policy fingerprint of action on the ranking's frontier (its selected actions). */
static const char *frontier_policy_fp(const struct json *rk, const char *action)
{
	struct json *ids = json_get(rk, "selected_action_ids"), *fps = json_get(rk, "selected_policy_fingerprints");
	const char *policy_fp = NULL;
	struct strbuf frontier;
	sb_init(&frontier);
	for (size_t i = 0; i < ids->u.arr.n; i++) {
		sb_addf(&frontier, "%s'%s'", i ? ", " : "", ids->u.arr.items[i]->u.str.s);
		if (!strcmp(ids->u.arr.items[i]->u.str.s, action))
			policy_fp = fps->u.arr.items[i]->u.str.s;
	}
	if (!policy_fp)
		die("action '%s' is not on the ranking's frontier (selected: %s)", action, frontier.buf);
	sb_release(&frontier);
	return policy_fp;
}

int main(int argc, char **argv)
{
	enum { OPT_VERIFY = 256 };
	static const struct option opts[] = {
		{ "ranking", required_argument, NULL, 'i' }, { "action", required_argument, NULL, 'a' },
		{ "by", required_argument, NULL, 'b' }, { "reason", required_argument, NULL, 'm' },
		{ "log", required_argument, NULL, 'l' }, { "at", required_argument, NULL, 't' },
		{ "verify", no_argument, NULL, OPT_VERIFY },
		CLI_OPTION_INPUT, CLI_OPTIONS_HELP,
		{ NULL, 0, NULL, 0 },
	};
	const char *action = NULL, *by = NULL, *reason = NULL, *log = "approvals.ndjson", *at = NULL;
	bool verify = false;
	struct cli cli;
	int c;
	cli_init(&cli, argv, CLI_INPUT, usage, help, version_schemas);
	while ((c = getopt_long(argc, argv, ":r:a:b:m:l:t:i:hV", opts, NULL)) != -1) {
		switch (c) {
		case 'r': cli_option(&cli, 'i', argv); break;
		case 'a': action = optarg; break;
		case 'b': by = optarg; break;
		case 'm': reason = optarg; break;
		case 'l': log = optarg; break;
		case 't': at = optarg; break;
		case OPT_VERIFY: verify = true; break;
		default: cli_option(&cli, c, argv);
		}
	}
	if (verify) {
		if (cli.ninputs || optind < argc || action || by || reason || at)
			usage_fail(usage, "--verify takes only --log");
		return do_verify(log);
	}
	cli_operands(&cli, argc, argv, 1);
	const char *ranking = cli.inputs[0];
	if (!action || !by || !reason)
		usage_fail(usage, "--action, --by and --reason are required");
	if (!*by || !*reason)
		usage_fail(usage, "--by and --reason must not be empty");
	if (strlen(by) > MAX_TEXT || strlen(reason) > MAX_TEXT)
		usage_fail(usage, "--by and --reason take at most 4096 bytes");
	/* A name is shown in tables and pages: the identifier rule; a reason may span lines. */
	const char *why;
	if ((why = text_id_problem(by, strlen(by))))
		usage_error(usage, "--by: the name %s", why);
	if ((why = text_plain_problem(reason, strlen(reason))))
		usage_error(usage, "--reason %s", why);
	if (at && !valid_time(at))
		usage_fail(usage, "--at wants YYYY-MM-DDTHH:MM:SSZ (UTC)");
	char when[21];
	if (at)
		snprintf(when, sizeof when, "%s", at);
	else
		now_utc(when);

	struct arena a;
	arena_init(&a);
	struct ev_input in;
	ev_input_init(&in);
	const struct json *rk = read_ranking(ranking, &in, &a);
	const char *status = json_get_str(rk, "selection_status");
	if (!strcmp(status, "no_eligible_policy"))
		die("%s: the ranking has no eligible policy; there is nothing to approve", ranking);
	const char *policy_fp = frontier_policy_fp(rk, action);

	char last[FP_HEX_XXH3], err[1024];
	unsigned long n;
	struct chainlog_cut cut;
	int fd = ev_chainlog_open_append(log, &ev_approval_log, last, &n, &cut, err, sizeof err);
	if (fd < 0)
		die("%s", err);
	if (cut.bytes) {
		ev_chainlog_cut_describe(&cut, log, err, sizeof err);
		warnx_("%s", err);
	}

	struct json *rec = json_object(&a);
	json_set(&a, rec, "type", json_str(&a, "approval"));
	json_set(&a, rec, "ranking_fingerprint", json_str(&a, json_get_str(rk, "ranking_fingerprint")));
	json_set(&a, rec, "action_id", json_str(&a, action));
	json_set(&a, rec, "policy_fingerprint", json_str(&a, policy_fp));
	json_set(&a, rec, "approved_by", json_str(&a, by));
	json_set(&a, rec, "approved_at", json_str(&a, when));
	json_set(&a, rec, "reason", json_str(&a, reason));
	json_set(&a, rec, "selection_status", json_str(&a, status));
	if (ev_chainlog_append(fd, log, &ev_approval_log, &a, rec, last, &n, err, sizeof err))
		die("%s; run 'approve --verify --log %s'", err, log);
	if (close(fd))
		die("%s: %s", log, strerror(errno));
	fprintf(stderr, "%s: approved '%s' as line %lu of '%s' (fingerprint %s)\n", progname, action, n, log, last);
	ev_input_release(&in);
	arena_release(&a);
	cli_release(&cli);
	return 0;
}
