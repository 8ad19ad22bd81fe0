/* Drawing charts with gnuplot: one child process over a generated script, working in a
 * private temporary directory that is removed afterwards whatever happens. */
#include "report/report.h"
#include "core/spawn.h"
#include "core/xalloc.h"
#include "core/zio.h"
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* A gnuplot single-quoted string: a quote is doubled. */
static void add_gp_string(struct strbuf *sb, const char *s)
{
	sb_addc(sb, '\'');
	for (; *s; s++) {
		if (*s == '\'')
			sb_addc(sb, '\'');
		sb_addc(sb, *s);
	}
	sb_addc(sb, '\'');
}

/*
 * Data never enters gnuplot's command language: every label that comes from the input
 * (policy and arm ids, window ids, stage names, the baseline's name) is a double-quoted
 * string in a chart's data file, read back with xtic(N) or title columnheader(N). The
 * scripts hold only constants and numbers we format. In a data file gnuplot reads '\\'
 * as one backslash; a '"' would end the string and is written as '\''; a control
 * character (which the identifier rule already refuses) would end the line and becomes '?'.
 */
/* The one place a value reaches a gnuplot command (the rolling timeline's ytics labels, section_rolling.c):
 * a complete single-quoted string, where gnuplot gives no character a meaning but the
 * quote, written twice; a control character (the identifier rule refuses them) becomes
 * '?', so nothing can end the command. */
void rp_gp_str(struct strbuf *sb, const char *s)
{
	sb_addc(sb, '\'');
	for (; s && *s; s++) {
		unsigned char c = (unsigned char)*s;
		if (c == '\'')
			sb_addc(sb, '\'');
		sb_addc(sb, c < 0x20 || c == 0x7f ? '?' : (char)c);
	}
	sb_addc(sb, '\'');
}

void rp_gp_datastr(struct strbuf *sb, const char *s)
{
	sb_addc(sb, '"');
	for (; s && *s; s++) {
		unsigned char c = (unsigned char)*s;
		if (c == '\\')
			sb_adds(sb, "\\\\");
		else
			sb_addc(sb, c == '"' ? '\'' : c < 0x20 || c == 0x7f ? '?' : (char)c);
	}
	sb_addc(sb, '"');
}

static int write_file(const char *path, const struct strbuf *sb, char *err, size_t errlen)
{
	FILE *f = fopen(path, "w");
	if (!f) {
		snprintf(err, errlen, "cannot create '%s': %s", path, strerror(errno));
		return -1;
	}
	size_t n = fwrite(sb->buf, 1, sb->len, f);
	if (fclose(f) != 0 || n != sb->len) {
		snprintf(err, errlen, "cannot write '%s'", path);
		return -1;
	}
	return 0;
}

/* Make the SVG embeddable: no XML prolog, every id (and reference to one) prefixed by the
 * chart id so several charts can share one page, and a class for the page's style. */
static char *embeddable(const char *svg, const char *id)
{
	struct strbuf sb;
	sb_init(&sb);
	const char *p = strstr(svg, "<svg");
	if (!p)
		p = svg;
	static const char *const marks[] = { " id='", " id=\"", "href='#", "href=\"#", "url(#" };
	while (*p) {
		size_t best = (size_t)-1, which = 0;
		for (size_t k = 0; k < sizeof marks / sizeof *marks; k++) {
			const char *q = strstr(p, marks[k]);
			if (q && (size_t)(q - p) < best) {
				best = (size_t)(q - p);
				which = k;
			}
		}
		if (best == (size_t)-1) {
			sb_adds(&sb, p);
			break;
		}
		size_t ml = strlen(marks[which]);
		sb_add(&sb, p, best + ml);
		sb_addf(&sb, "%s-", id);
		p += best + ml;
	}
	/* Tag the root element. */
	char *root = strstr(sb.buf, "<svg");
	if (root) {
		struct strbuf out;
		sb_init(&out);
		sb_add(&out, sb.buf, (size_t)(root - sb.buf) + 4);
		sb_addf(&out, " class=\"chart\" role=\"img\" data-chart=\"%s\"", id);
		sb_adds(&out, root + 4);
		sb_release(&sb);
		sb = out;
	}
	return sb.buf;
}

static int run_gnuplot(const char *program, const char *script, const char *log, char *err, size_t errlen)
{
	char *argv[] = { (char *)program, (char *)script, NULL };
	struct spawn_spec sp = { .argv = argv, .flags = SPAWN_SEARCH_PATH | SPAWN_OWN_GROUP, .in = { SPAWN_DEVNULL, NULL, 0 },
				 .out = { SPAWN_FILE, log, 0600 }, .err = { SPAWN_TO_STDOUT, NULL, 0 } };
	struct spawn_child child;
	if (spawn_start(&sp, &child, err, errlen))
		return -1;
	int status = spawn_wait_group(child.pid, program, err, errlen);
	if (status < 0)
		return -1;
	if (status == 0)
		return 0;
	/* Show gnuplot's own complaint (its first line mentioning an error). */
	char *text = NULL;
	size_t len = 0;
	char e2[64];
	const char *why = "";
	if (zio_slurp(log, &text, &len, e2, sizeof e2) == 0 && len) {
		char *line = strtok(text, "\n");
		why = line;
		for (; line; line = strtok(NULL, "\n"))
			if (strstr(line, "rror") || strstr(line, "not found")) {
				why = line;
				break;
			}
	}
	if (status == 127)
		snprintf(err, errlen, "cannot run '%s' (not installed? Debian package gnuplot-nox)", program);
	else
		snprintf(err, errlen, "'%s' failed%s%s", program, *why ? ": " : "", why);
	free(text);
	return -1;
}

int rp_gnuplot_run(const char *program, struct rp_chart *charts, size_t n, char *err, size_t errlen)
{
	if (n == 0)
		return 0;
	const char *tmp = getenv("TMPDIR");
	struct strbuf dir, script, path;
	sb_init(&dir);
	sb_init(&script);
	sb_init(&path);
	sb_addf(&dir, "%s/schednav-report.XXXXXX", tmp && *tmp ? tmp : "/tmp");
	if (!mkdtemp(dir.buf)) {
		snprintf(err, errlen, "cannot create a temporary directory '%s': %s", dir.buf, strerror(errno));
		sb_release(&dir);
		return -1;
	}
	int rc = -1;
	for (size_t i = 0; i < n; i++) {
		sb_reset(&path);
		sb_addf(&path, "%s/%s.dat", dir.buf, charts[i].id);
		if (write_file(path.buf, &charts[i].data, err, errlen))
			goto out;
		sb_addf(&script, "reset\nset terminal svg size %d,%d dynamic noenhanced font 'sans,12' background rgb 'white'\nset output ",
			charts[i].width, charts[i].height);
		sb_reset(&path);
		sb_addf(&path, "%s/%s.svg", dir.buf, charts[i].id);
		add_gp_string(&script, path.buf);
		sb_adds(&script, "\ndatafile = ");
		sb_reset(&path);
		sb_addf(&path, "%s/%s.dat", dir.buf, charts[i].id);
		add_gp_string(&script, path.buf);
		sb_addc(&script, '\n');
		sb_add(&script, charts[i].script.buf, charts[i].script.len);
		sb_adds(&script, "\nunset output\n");
	}
	sb_reset(&path);
	sb_addf(&path, "%s/charts.gp", dir.buf);
	if (write_file(path.buf, &script, err, errlen))
		goto out;
	struct strbuf log;
	sb_init(&log);
	sb_addf(&log, "%s/gnuplot.log", dir.buf);
	rc = run_gnuplot(program, path.buf, log.buf, err, errlen);
	unlink(log.buf);
	sb_release(&log);
	for (size_t i = 0; rc == 0 && i < n; i++) {
		char *svg;
		size_t len;
		sb_reset(&path);
		sb_addf(&path, "%s/%s.svg", dir.buf, charts[i].id);
		if (zio_slurp(path.buf, &svg, &len, err, errlen)) {
			rc = -1;
			break;
		}
		charts[i].svg = embeddable(svg, charts[i].id);
		free(svg);
	}
out:
	for (size_t i = 0; i < n; i++) {
		static const char *const ext[] = { "dat", "svg" };
		for (size_t k = 0; k < 2; k++) {
			sb_reset(&path);
			sb_addf(&path, "%s/%s.%s", dir.buf, charts[i].id, ext[k]);
			unlink(path.buf);
		}
	}
	sb_reset(&path);
	sb_addf(&path, "%s/charts.gp", dir.buf);
	unlink(path.buf);
	rmdir(dir.buf);
	sb_release(&dir);
	sb_release(&script);
	sb_release(&path);
	return rc;
}
