/* slurm nodes — the node inventory of a Slurm cluster, `scontrol show node -o` (one node
 * per line, KEY=VALUE words), and the line reader the importer's two inputs share: each
 * node's GPUs and their type from Gres; see import_slurm.c for the jobs. */
#include "trace/import_slurm_internal.h"
#include "trace/import_util.h"
#include "core/text.h"
#include "core/xalloc.h"
#include <stdlib.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

void imp_slurm_lines_close(struct lines *l)
{
	if (l->z)
		zr_close(l->z);
	l->z = NULL;
	sb_release(&l->buf);
}

int imp_slurm_next_line(struct lines *l, char *err, size_t errlen)
{
	const char *s;
	size_t n;
	bool nl;
	int rc = zr_getline(l->z, &s, &n, &nl, err, errlen);
	if (rc <= 0)
		return rc;
	l->line++;
	if (l->line == 1) {
		/* zstd is read as it is; other compressors' magic numbers get the command */
		static const struct { const char *magic; size_t n; const char *name, *cmd; } z[] = {
			{ "\x1f\x8b", 2, "gzip", "gzip -dc" }, { "BZh", 3, "bzip2", "bzip2 -dc" }, { "\xfd" "7zXZ", 5, "xz", "xz -dc" },
		};
		for (size_t i = 0; i < sizeof z / sizeof *z; i++)
			if (n >= z[i].n && !memcmp(s, z[i].magic, z[i].n) && (i != 1 || (n > 3 && s[3] >= '1' && s[3] <= '9'))) {
				imp_errf(err, errlen, l->name, l->line, "a %s-compressed file, not text: decompress it first (%s FILE > FILE.txt, or %s FILE | trace-import slurm ... -; zstd files are read as they are)",
					 z[i].name, z[i].cmd, z[i].cmd);
				return -1;
			}
	}
	if (n && s[n - 1] == '\r')
		n--;
	size_t bad = text_utf8_bad(s, n);
	if (bad != n) {
		imp_errf(err, errlen, l->name, l->line, s[bad] ? "not UTF-8 (byte %zu)" : "NUL byte at byte %zu", bad + 1);
		return -1;
	}
	sb_reset(&l->buf);
	sb_add(&l->buf, s, n);
	sb_addc(&l->buf, 0);
	return 1;
}

/* ---- scontrol show node -o ---- */

/* The value of KEY= in a one-line node record (up to the next space), or NULL. Values may
 * hold spaces (OS=, Reason=), so a key is only recognised at the start of a word. */
static char *node_value(char *line, const char *key)
{
	size_t kn = strlen(key);
	for (char *s = line; *s;) {
		if (!strncmp(s, key, kn) && s[kn] == '=') {
			char *v = s + kn + 1;
			v[strcspn(v, " ")] = 0;
			return v;
		}
		s += strcspn(s, " ");
		s += strspn(s, " ");
	}
	return NULL;
}

/* Gres "gpu:tesla:8(S:0-1),gpu:2,nic:1": GPUs and type (NULL = untyped); 0 or -1 + msg. */
static int parse_gres(char *s, long long *gpus, char **type, char *msg, size_t msglen)
{
	*gpus = 0;
	*type = NULL;
	if (!strcmp(s, "(null)") || !*s)
		return 0;
	bool typed_any = false, untyped_any = false;
	while (*s) {
		/* one entry: up to a ',' outside parentheses */
		char *e = s;
		int depth = 0;
		for (; *e && (depth || *e != ','); e++)
			depth += *e == '(' ? 1 : *e == ')' ? -1 : 0;
		char *next = *e ? e + 1 : e;
		*e = 0;
		char *paren = strchr(s, '(');
		if (paren)
			*paren = 0;
		char *part[4];
		int np = 0;
		for (char *q = s; np < 4;) {
			part[np++] = q;
			char *c = strchr(q, ':');
			if (!c)
				break;
			*c = 0;
			q = c + 1;
		}
		if (!strcmp(part[0], "gpu")) {
			/* gpu[:TYPE][:no_consume]:COUNT */
			const char *cnt = part[np - 1], *ty = NULL;
			for (int k = 1; k < np - 1; k++)
				if (strcmp(part[k], "no_consume")) {
					if (ty) {
						snprintf(msg, msglen, "Gres entry 'gpu:...' has too many fields");
						return -1;
					}
					ty = part[k];
				}
			long long v;
			if (np < 2 || imp_py_int(cnt, &v) || v < 0 || v > TRACE_MAX_NODE_GPUS) {
				snprintf(msg, msglen, "Gres GPU count '%s' is not an integer", np < 2 ? "" : cnt);
				return -1;
			}
			if (v > 0) {
				if (ty) {
					if (*type && strcmp(*type, ty)) {
						snprintf(msg, msglen, "GPUs of several types ('%s', '%s') on one node", *type, ty);
						return -1;
					}
					*type = (char *)ty;
					typed_any = true;
				} else
					untyped_any = true;
				*gpus += v;
			}
		}
		s = next;
	}
	if (typed_any && untyped_any) {
		snprintf(msg, msglen, "typed and untyped GPUs on one node");
		return -1;
	}
	return 0;
}

/* issue 36 (--resources): CPUTot (cores, *cpu in milli) and RealMemory (MB, Slurm's MiB) of a
 * node record when it has them (else -1), read from copies (node_value cuts the line). */
static int node_resources(const char *line, long long *cpu, long long *mem, const struct lines *l, char *err, size_t errlen)
{
	char *c[3] = { xstrdup(line), xstrdup(line), xstrdup(line) };
	char *name = node_value(c[0], "NodeName"), *cpus = node_value(c[1], "CPUTot"), *rm = node_value(c[2], "RealMemory");
	char rec[300];
	snprintf(rec, sizeof rec, "node '%s'", name ? name : "");
	int rc = -1;
	*cpu = *mem = -1;
	if ((cpus && imp_res_cell(cpus, "CPUTot", 1000, 0, TRACE_MAX_RES, cpu, rec, l->name, l->line, err, errlen)) ||
	    (rm && imp_res_cell(rm, "RealMemory", 1, 0, TRACE_MAX_RES, mem, rec, l->name, l->line, err, errlen)))
		goto out;
	rc = 0;
out:
	for (int i = 0; i < 3; i++)
		free(c[i]);
	return rc;
}

int imp_slurm_read_nodes(struct trace *t, const char *path, bool res, struct json *hdr, struct arena *a, char sha[65], char *err, size_t errlen)
{
	struct lines l = { 0 };
	struct imp_nodes seen;
	int rc = -1, r;
	imp_nodes_init(&seen);
	sb_init(&l.buf);
	l.z = zr_open(path, true, err, errlen);
	if (!l.z)
		goto out;
	l.name = zr_name(l.z);
	while ((r = imp_slurm_next_line(&l, err, errlen)) > 0) {
		char *s = l.buf.buf + strspn(l.buf.buf, " \t");
		if (!*s)
			continue;
		if (strncmp(s, "NodeName=", 9)) {
			imp_errf(err, errlen, l.name, l.line, "expected a 'NodeName=' record of scontrol show node -o (one node per line)");
			goto out;
		}
		long long cpu = -1, mem = -1;
		if (res && node_resources(s, &cpu, &mem, &l, err, errlen))
			goto out;
		char *gres = node_value(s, "Gres"), *name = node_value(s, "NodeName");
		const char *problem = text_id_problem(name, strlen(name));
		if (problem) {
			imp_errf(err, errlen, l.name, l.line, "NodeName '%s' %s", name, problem);
			goto out;
		}
		long long gpus = 0;
		char *type = NULL, msg[200];
		if (gres && parse_gres(gres, &gpus, &type, msg, sizeof msg)) {
			imp_errf(err, errlen, l.name, l.line, "node '%s': %s", name, msg);
			goto out;
		}
		if (gpus == 0) {
			imp_count(&t->arena, t->skipped_rows, "node_without_gpus");
			continue;
		}
		if (type && text_id_problem(type, strlen(type))) {
			imp_errf(err, errlen, l.name, l.line, "node '%s': GPU type '%s' %s", name, type, text_id_problem(type, strlen(type)));
			goto out;
		}
		if (imp_node(t, t, &seen, name, type ? type : "gpu", gpus, l.name, l.line, err, errlen))
			goto out;
		if ((cpu >= 0 || mem >= 0) && imp_node_res(t, cpu, mem, l.name, l.line, err, errlen))
			goto out;
	}
	if (r < 0)
		goto out;
	if (t->n_nodes == 0) {
		snprintf(err, errlen, "%s: no node with GPUs (Gres=gpu:...)", l.name);
		goto out;
	}
	imp_record_file(l.z, a, hdr, path, sha);
	rc = 0;
out:
	imp_slurm_lines_close(&l);
	imp_nodes_release(&seen);
	return rc;
}
