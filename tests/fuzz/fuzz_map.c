/* The csv mapping loader on its own: the input is the map, the node and job files are a
 * fixed valid pair, so every mutation is spent on the map. */
#include "fuzz_import.h"
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const char nodes[] = "node,gpus,model\nn1,8,A\nn2,4,B\n";
	static const char jobs[] = "id,submit,duration,gpus,class,model,org,flag\nj1,0,10,2,strict,A,o1,0\nj2,5,1e3,1,best,B,o2,1\n"
				   "j3,6.5,20,9,soft,A,o1,0\nj4,,7,1,best,*,o3,1\n";
	const char *files[] = { fz_file(2, jobs, strlen(jobs)) };
	struct import_csv_opts o = { .map = fz_file(0, data, size), .nodes_file = fz_file(1, nodes, strlen(nodes)),
		.files = files, .n_files = 1 };
	IMPORT(trace_import_csv, o);
	return 0;
}
