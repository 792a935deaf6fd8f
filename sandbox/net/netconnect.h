/* --allow-net for plain connect(): the connect broker (connect_broker.c)
 * asks here whether a TCP connect of COMMAND goes to a destination the
 * rules allow, and gets a socket of the host's network namespace to
 * connect in its place, with the options of COMMAND's that carry over;
 * the outcome goes to the --report as the proxy's lines do. */
#ifndef HUTCH_NETCONNECT_H
#define HUTCH_NETCONNECT_H

#include <stdbool.h>
#include <sys/socket.h>

#include "plan/plan.h"

struct sandbox;

/* A destination of connect(), as the rules see it. */
struct net_dest {
	struct net_addr addr;
	int port;
};

/* ADDR (LEN bytes, as COMMAND gave it) as a destination: false when it
 * is no AF_INET or AF_INET6 address with a port. */
bool netconnect_dest(const struct sockaddr_storage *addr, socklen_t len,
		     struct net_dest *dest);
/* The rule that lets COMMAND connect() to DEST from the host's network
 * namespace, or NULL with why not in REASON. */
const struct net_rule *netconnect_rule(const struct sandbox *sb, const struct net_dest *dest,
				       char *reason, size_t len);
/* Does a socket of the sandbox's own network namespace listen on PORT
 * for FAMILY?  Asked of the kernel on pid 1's socket diagnostics socket
 * (netproxy.c); without one, in PROC's net/tcp and net/tcp6 (PROC:
 * /proc/PID of a process of the sandbox), which the kernel writes. */
bool netconnect_sandbox_listens(struct sandbox *sb, const char *proc, int family, int port);
/* A new non-blocking socket of the host's namespace for a connect in
 * place of ORIG (COMMAND's, AF_INET or AF_INET6 stream), with ORIG's
 * options that carry over; -1 with errno. */
int netconnect_socket(int orig);
/* One --report line for a plain connect: VERDICT "allowed", "refused"
 * or "failed"; DEST (NULL: no address), RULE and REASON may be NULL;
 * SECONDS since the call.
 * COUNT: a refusal counted for the summary at exit. */
void netconnect_report(struct sandbox *sb, const struct net_dest *dest,
		       const struct net_rule *rule, const char *verdict, const char *reason,
		       bool count, double seconds);

#endif
