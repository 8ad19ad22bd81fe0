/* tests/identity/controller-configs.sh: print, per config file, its canonical dict (keys in
 * stored order, as sim-run copies it into a result header), its fingerprint and family, or
 * the loader's error message. */
#include "core/arena.h"
#include "core/json.h"
#include "core/strbuf.h"
#include "predict/predict.h"
#include <stdio.h>
int main(int argc, char **argv)
{
	for (int i = 1; i < argc; i++) {
		struct arena a;
		arena_init(&a);
		struct pc_config c;
		char err[1024];
		if (pc_config_load(&c, argv[i], &a, err, sizeof err))
			printf("%s\tERR\t%s\n", argv[i], err);
		else {
			struct strbuf sb;
			sb_init(&sb);
			json_write(&sb, c.canonical);
			printf("%s\tOK\t%s\t%d\t%.*s\n", argv[i], c.fingerprint, c.tenant != NULL, (int)sb.len, sb.buf);
			sb_release(&sb);
		}
		arena_release(&a);
	}
	return 0;
}
