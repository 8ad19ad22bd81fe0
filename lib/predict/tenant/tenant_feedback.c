/* The tenant controller's per-pool feedback window (tenant_feedback.h). */
#include "predict/tenant/tenant_feedback.h"
#include "core/xalloc.h"
#include <stdlib.h>
#include <string.h>

void pt_fb_add(struct pt_fb_window *f, double time, bool failure, double weight)
{
	f->events = xgrow(f->events, &f->cap, f->n + 1, sizeof *f->events);
	f->events[f->n++] = (struct pt_fb_event){ .time = time, .weight = weight, .failure = failure };
	f->version++;
	f->event_count++;
	if (failure)
		f->failure_weight += weight;
	else
		f->success_weight += weight;
}

void pt_fb_forget_before(struct pt_fb_window *f, double t)
{
	size_t keep = 0;
	for (size_t i = 0; i < f->n; i++)
		if (!(f->events[i].time < t))
			f->events[keep++] = f->events[i];
	f->n = keep;
}

bool pt_fb_rate(struct pt_fb_window *f, double now, double window_seconds, double *total, double *failed)
{
	double cutoff = now - window_seconds;
	size_t keep = 0;
	for (size_t i = 0; i < f->n; i++)
		if (f->events[i].time >= cutoff)
			f->events[keep++] = f->events[i];
	f->n = keep;
	double t = 0, fw = 0;
	for (size_t i = 0; i < f->n; i++)
		t += f->events[i].weight;
	for (size_t i = 0; i < f->n; i++)
		if (f->events[i].failure)
			fw += f->events[i].weight;
	*total = t;
	*failed = fw;
	return t > 0;
}

void pt_fb_release(struct pt_fb_window *f)
{
	free(f->events);
	memset(f, 0, sizeof *f);
}

void pt_fb_clone(struct pt_fb_window *d, const struct pt_fb_window *s)
{
	*d = *s;
	d->events = NULL;
	d->cap = 0;
	if (s->n) {
		d->events = xmalloc(s->n * sizeof *d->events);
		memcpy(d->events, s->events, s->n * sizeof *d->events);
		d->cap = s->n;
	}
}
