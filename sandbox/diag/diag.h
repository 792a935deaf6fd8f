/* diag/: --doctor (doctor*.c: the host checked by trying the operations hutch
 * needs in throwaway children, one line per check with the fix for what
 * fails) and --explain (explain*.c: the resolved plan in words, without
 * creating anything), for main.
 *
 * The folder's public header: files outside diag/ include this one only. */
#ifndef HUTCH_DIAG_PUBLIC_H
#define HUTCH_DIAG_PUBLIC_H

#include <stdio.h>

#include "plan/plan.h"

/* --doctor: print the checks to OUT.  Returns 0 when hutch can run here (in new
 * namespaces or under the Landlock fallback), 125 when it cannot. */
int doctor_run(const struct plan *plan, FILE *out);

/* --explain: the plan in words to OUT. */
int explain_plan(const struct plan *plan, FILE *out);

#endif
