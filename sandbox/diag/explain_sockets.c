/* --explain: which unix sockets COMMAND can connect to, as the connect
 * broker (connect_broker.c) will decide.  Reads the plan's policy and
 * stats the bind sources; creates nothing. */
#define _GNU_SOURCE
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "explain_sockets.h"
#include "seccomp/seccomp.h"

/* Do the filters that carry the broker build (policy.c falls back to
 * the plain filter, without reports or broker, where they do not)? */
static bool variants_build(const struct seccomp_policy *pol)
{
	struct sock_filter *prog = NULL;
	size_t n;
	char err[256];
	bool ok = seccomp_policy_export(pol, SECCOMP_NOTIFY, &prog, &n, err, sizeof(err)) == 0;

	free(prog);
	prog = NULL;
	ok = ok && seccomp_policy_export(pol, SECCOMP_LATE, &prog, &n, err, sizeof(err)) == 0;
	free(prog);
	return ok;
}

/* Why nothing mediates connect(), or NULL when the broker does. */
static const char *unmediated(const struct plan *plan)
{
	struct seccomp_policy *pol = NULL;
	char err[1024];
	const char *why = NULL;

	if (plan->mode == MODE_BWRAP)
		return "not mediated (bwrap mode): every socket in the sandbox's view is reachable";
	if (!plan->seccomp_policy || policy_load(plan, &pol, err, sizeof(err)) < 0 ||
	    seccomp_policy_is_empty(pol))
		why = "not mediated: no seccomp filter, so every socket in the sandbox's view is reachable";
	else if (seccomp_policy_refuses(pol, "connect"))
		why = "none: the seccomp policy refuses connect()";
	else if (!variants_build(pol))
		why = "not mediated: libseccomp cannot build this policy's notifying filters, so "
		      "the plain one runs and every socket in the sandbox's view is reachable";
	seccomp_policy_free(pol);
	return why;
}

/* The bind sources that are sockets, ", "-separated, into BUF. */
static void named_sockets(const struct plan *plan, char *buf, size_t len)
{
	size_t used = 0;
	struct stat st;

	buf[0] = '\0';
	for (size_t i = 0; i < plan->n_ops && used < len; i++) {
		const struct fs_op *op = &plan->ops[i];

		if (op->kind == FS_BIND_FD && op->fd >= 0 && fstat(op->fd, &st) == 0 &&
		    S_ISSOCK(st.st_mode))
			used += (size_t)snprintf(buf + used, len - used, "%sfd %d", used ? ", " : "",
						 op->fd);
		else if ((op->kind == FS_BIND || op->kind == FS_MIRROR) && op->src &&
			 stat(op->src, &st) == 0 && S_ISSOCK(st.st_mode))
			used += (size_t)snprintf(buf + used, len - used, "%s%s", used ? ", " : "",
						 op->src);
	}
}

void explain_unix_sockets(const struct plan *plan, char *buf, size_t len)
{
	const char *why = unmediated(plan);
	char named[2048];

	if (why) {
		snprintf(buf, len, "%s", why);
		return;
	}
	named_sockets(plan, named, sizeof(named));
	snprintf(buf, len, "only those on the sandbox's own tmpfs, %s, and those bound by "
		 "name: %s; unix datagram sockets and io_uring refused; each connect() is "
		 "made by hutch (one round trip)%s",
		 plan->share_net ? "no abstract ones (the network is shared)" :
		 "abstract ones of its own network namespace", named[0] ? named : "none",
		 plan->fallback == FALLBACK_LANDLOCK ? "; under the Landlock fallback, not "
		 "mediated" : "");
}
