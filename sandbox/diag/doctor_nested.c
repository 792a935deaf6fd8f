/* --doctor's check of what a sandbox around hutch withholds (nested.c):
 * the same look a run takes before its clone, so that the line here and
 * the run's fallback notice (or failure) name the same cause and fix. */
#define _GNU_SOURCE
#include <stdio.h>
#include <sys/prctl.h>

#include "doctor_probe.h"
#include "host/host.h"
#include "plan/plan.h"

void doctor_check_nested(struct doctor *d, struct finding *f)
{
	struct nested_finding found;
	char why[256];

	nested_find(d->plan->caller_uid, &found);
	if (found.lack != NESTED_NONE) {
		nested_reason(&found, why, sizeof(why));
		doctor_say(f, LVL_FAIL, nested_fix(&found), "%s: `hutch COMMAND` %s", why,
		    d->plan->fallback == FALLBACK_LANDLOCK ? "falls back to Landlock saying so" :
		    "fails saying so (no fallback)");
	} else if (prctl(PR_GET_SECCOMP, 0, 0, 0, 0) == 2) {
		doctor_say(f, LVL_OK, NULL, "the seccomp filter around hutch lets a user namespace of "
		    "its own mount (or makes none: see userns)");
	} else {
		doctor_say(f, LVL_OK, NULL, "no seccomp filter around hutch%s", d->plan->caller_uid == 0 ?
		    ", and uid 0 holds CAP_SETFCAP to map itself" : "");
	}
}
