/* placement-fill's readers and the fill: openb node list FZ_SEP pod list (lib/place/openb.c);
 * a pair both readers accept is tuned to at most 2 x its capacity and placed by fgd and
 * best-fit, so the node model and the fragmentation measure see hostile values too. */
#include "fuzz.h"
#include "place/fill.h"
#include "place/openb.h"
#include <stdlib.h>

static void fill(const struct place_cluster *base, const struct place_pod *pods, size_t n, const char *policy)
{
	struct place_cluster c;
	struct place_fill_run run = { 0 };
	place_cluster_clone(&c, base);
	place_start(&c, place_policy(policy), 7);
	place_fill_tune(pods, n, c.gpu_capacity, 2.0, 7, &run.pods, &run.npods);
	if (run.npods > 20000)
		run.npods = 20000;      /* a few tiny pods on a big cluster would inflate to millions */
	place_fill(&c, &run);
	double out[PLACE_FILL_XMAX + 1];
	place_fill_discrete(&run, 0, out);
	place_fill_free(&run);
	place_cluster_release(&c);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *part[2];
	size_t len[2];
	char err[512];
	fz_split(data, size, part, len, 2);
	const char *nodes = fz_file(0, part[0], len[0]), *pods_path = fz_file(1, part[1], len[1]);
	struct place_cluster c;
	struct place_pod *pods = NULL;
	size_t n = 0;
	place_cluster_init(&c);
	if (!place_read_nodes(&c, nodes, err, sizeof err) && c.nnodes <= 5000 &&
	    !place_read_pods(&c, pods_path, &pods, &n, err, sizeof err)) {
		place_set_types(&c, pods, n);
		fill(&c, pods, n, "fgd");
		fill(&c, pods, n, "best-fit");
	}
	free(pods);
	place_cluster_release(&c);
	return 0;
}
