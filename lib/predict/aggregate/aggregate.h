/*
 * aggregate — the aggregate family's operations (predictive-spot-v1, docs/predictive-rules.md §1), as
 * its row of pc_families (family.c in this folder) names them. Private to lib/predict.
 */
#ifndef SCHEDNAV_PREDICT_AGGREGATE_H
#define SCHEDNAV_PREDICT_AGGREGATE_H
#include "predict/predict.h"

int pc_aggregate_from_json(struct pc_config *c, const struct json *doc, struct arena *a, char *err, size_t errlen);  /* config.c */
int pc_aggregate_open(struct pc_controller *c, const struct pc_config *cfg, const struct trace *t, char *err,
		      size_t errlen);                                                                          /* simhooks.c */
void pc_aggregate_bind(struct pc_sim *b, struct sim_hooks *h);                                          /* simhooks.c */
void pc_aggregate_clone(struct pc_controller *d, const struct pc_controller *s);                         /* controller.c */
void pc_aggregate_close(struct pc_controller *c);                                                       /* controller.c */
struct json *pc_aggregate_bundle(struct arena *a, const struct trace *t, const struct pc_config *cfg, double cutoff, char *err,
				 size_t errlen);                                                        /* bundle.c */
#endif
