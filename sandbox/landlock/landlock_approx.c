/* The Landlock fallback's approximations: what differs from the
 * namespace path on this kernel and for this plan, as constant texts.
 * Below both the fallback's runner and the status fd, so that the
 * status object can name them without reaching into the runner. */
#include <stdio.h>

#include "landlock_approx.h"

enum approximation {
	APPROX_PER_RUN, APPROX_SUBREAPER, APPROX_UNIX_UDP, APPROX_IPC, APPROX_PROC,
	APPROX_NO_SCOPE, APPROX_TCP_SECCOMP, N_APPROX,
};

static const char *const approximation_text[N_APPROX] = {
	[APPROX_PER_RUN] = "private /tmp and HOME are per-run directories",
	[APPROX_SUBREAPER] = "no pid namespace (a subreaper instead)",
	[APPROX_UNIX_UDP] = ("pathname unix sockets (e.g. a readable docker.sock) and UDP "
			     "are not mediated"),
	[APPROX_IPC] = "SysV IPC and POSIX message queues are the host's",
	[APPROX_PROC] = "/proc is the host's, read-only",
	[APPROX_NO_SCOPE] = "abstract unix sockets and signals are not scoped (Landlock ABI < 6)",
	[APPROX_TCP_SECCOMP] = "TCP is refused by seccomp alone (Landlock ABI < 4)",
};

static bool approximation_applies(const struct fallback_facts *found, enum approximation a)
{
	switch (a) {
	case APPROX_PROC: return found->host_proc;
	case APPROX_NO_SCOPE: return found->abi < 6;
	case APPROX_TCP_SECCOMP: return found->deny_net && found->abi < 4;
	default: return true;
	}
}

const char *landlock_approximation(const struct fallback_facts *found, int i)
{
	for (int a = 0; a < N_APPROX; a++)
		if (approximation_applies(found, (enum approximation)a) && i-- == 0)
			return approximation_text[a];
	return NULL;
}

void landlock_format_approximations(const struct fallback_facts *found, char *buf, size_t len)
{
	const char *text;
	size_t off = 0;

	buf[0] = '\0';
	for (int i = 0; (text = landlock_approximation(found, i)) && off < len; i++)
		off += (size_t)snprintf(buf + off, len - off, "%s%s", i ? "; " : "", text);
}
