/* Names resolved on the host for the proxy, without ever blocking the
 * supervisor: getent(1) runs in a short-lived child whose one answer
 * comes back on a pipe, and which is killed when its connection's
 * deadline passes.  The supervisor stays single-threaded. */
#ifndef HUTCH_NETRESOLVE_H
#define HUTCH_NETRESOLVE_H

#include <stdbool.h>
#include <stddef.h>

#include "plan/plan.h"
#include "net.h"

#define NET_MAX_ADDRS 8

struct net_answer {
	int n;				/* addresses found; 0 when the lookup failed */
	struct net_addr addrs[NET_MAX_ADDRS];
	char why[128];			/* n == 0: why */
};

/* Start resolving HOST: *PIPE_FD (the read end, non-blocking,
 * close-on-exec) will carry one struct net_answer; *PIDFD names the
 * child, to kill and reap.  0, or -1 with errno. */
int net_lookup_start(const char *host, int *pipe_fd, int *pidfd);
/* The answer, once *PIPE_FD is readable: 1 when read, 0 when it is not
 * there yet, -1 when the child ended without one (ANSWER says so). */
int net_lookup_read(int pipe_fd, struct net_answer *answer);
/* Kill a lookup's child (done or not); true once it is reaped, else it
 * is still to be reaped when PIDFD becomes readable. */
bool net_lookup_end(int pidfd, bool wait);

/* This host's own addresses, at most MAX of them: the count. */
size_t net_own_addresses(struct net_addr *out, size_t max);


#endif
