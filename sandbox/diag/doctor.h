/* --doctor: check the host by trying the operations hutch needs in
 * throwaway children, one line per check with the fix for what fails. */
#ifndef HUTCH_DOCTOR_H
#define HUTCH_DOCTOR_H

#include <stdio.h>
#include "plan/plan.h"

/* Print the checks to OUT.  Returns 0 when hutch can run here (in new
 * namespaces or under the Landlock fallback), 125 when it cannot. */
int doctor_run(const struct plan *plan, FILE *out);

#endif
