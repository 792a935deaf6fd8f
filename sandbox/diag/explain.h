/* --explain: the resolved plan in words, without creating anything. */
#ifndef HUTCH_EXPLAIN_H
#define HUTCH_EXPLAIN_H

#include <stdio.h>
#include "plan/plan.h"

int explain_plan(const struct plan *plan, FILE *out);

#endif
