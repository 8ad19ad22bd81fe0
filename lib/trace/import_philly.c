#include "trace/import.h"
#include <stdio.h>

int trace_import_philly(int argc, char **argv, struct trace *t, struct json *hdr, struct arena *a, char *err, size_t errlen)
{
	(void)argc; (void)argv; (void)t; (void)hdr; (void)a;
	snprintf(err, errlen, "format '%s' is not built yet", argv[0]);
	return IMPORT_DATA_ERROR;
}
