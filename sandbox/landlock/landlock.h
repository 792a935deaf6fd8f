/* landlock/: the plan as Landlock rules, the ruleset and network
 * filter that confine a process, the scope (abstract sockets, signals)
 * and ABI probe, and what the fallback approximates.
 *
 * The folder's public header: files outside landlock/ include this one only. */
#ifndef HUTCH_LANDLOCK_PUBLIC_H
#define HUTCH_LANDLOCK_PUBLIC_H

#include "landlock_approx.h"
#include "landlock_confine.h"
#include "landlock_rules.h"
#include "landlock_scope.h"

#endif
