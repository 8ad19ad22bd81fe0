/* The tenant estimators a controller config may name, in the order its error messages
 * list them. A new estimator is its file plus one row here. This table is the only symbol
 * of this file, so a test program can link a table of its own in its place
 * (tests/unit/test_estimator_toy.c). */
#include "predict/tenant/estimator_internal.h"

extern const struct pt_est_ops pt_est_linear_ops;     /* estimator_linear.c */
extern const struct pt_est_ops pt_est_seasonal_ops;   /* estimator_seasonal.c */

const struct pt_est_ops *const pt_est_registry[] = {
	&pt_est_linear_ops,
	&pt_est_seasonal_ops,
	NULL,
};
