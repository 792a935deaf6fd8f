/* The limits' pure part (limits_text.c): shared with --explain, --doctor
 * and the unit tests. */
#ifndef HUTCH_LIMITS_TEXT_H
#define HUTCH_LIMITS_TEXT_H

#include <stddef.h>
#include <sys/types.h>
#include "limits.h"

/* The cgroup v2 controllers the limits use, as bits. */
enum { CTL_MEMORY = 1u << 0, CTL_CPU = 1u << 1, CTL_PIDS = 1u << 2 };
#define N_LIMITS_CONTROLLERS 3
struct limits_controller {
	unsigned bit;
	const char *name;
};
extern const struct limits_controller limits_controllers[N_LIMITS_CONTROLLERS];

int limits_cgroup2_path(const char *text, char *path, size_t len);
int limits_cgroup_dir(const char *mountinfo, const char *path, char *dir, size_t dirlen,
		      char *mnt, size_t mntlen);
unsigned limits_controller_bits(const char *list);
long long limits_event_count(const char *text, const char *key);
pid_t limits_cgroup_owner(const char *name);
long long limits_map_uid(const char *text, unsigned long long uid);

#endif
