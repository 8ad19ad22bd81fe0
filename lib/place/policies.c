/* The placement policies: one file each, one row here (place.h, struct place_ops). */
#include "place/place.h"
#include <string.h>

extern const struct place_ops place_largest, place_random, place_dotprod, place_clustering, place_packing,
	place_bestfit, place_fgd;

const struct place_ops *const place_policies[] = {
	&place_largest,
	&place_random,
	&place_dotprod,
	&place_clustering,
	&place_packing,
	&place_bestfit,
	&place_fgd,
	NULL,
};

const struct place_ops *place_policy(const char *name)
{
	for (size_t i = 0; place_policies[i]; i++)
		if (!strcmp(place_policies[i]->name, name))
			return place_policies[i];
	return NULL;
}
