/* --allow-net for plain connect(): the decision and the host's socket
 * for a TCP connect of COMMAND that the connect broker takes.
 * What it defends against, and how:
 *  - a connect to a destination no rule allows: no socket of the host's
 *    namespace is made for it (the broker refuses it, or, for a
 *    loopback address, connects it in the sandbox's own namespace);
 *  - a rule by name or wildcard reaching the host through an address:
 *    a literal address is matched by address rules only, and the
 *    loopback addresses by the rule "localhost" only, as in the proxy
 *    (netrule.c: net_rules_match, net_addr_refusal with the host's own
 *    addresses);
 *  - a rule by name reaching an address no answer for that name gave:
 *    an address matches a name only while an answer of the sandbox's
 *    resolver for it holds (netdns.c), and is checked again as DNS's;
 *  - COMMAND's socket options reaching past the sandbox: only options
 *    of the connection itself are copied (timeouts, keep-alive, Nagle,
 *    linger, IPV6_V6ONLY, TOS), never a bound address, a device, a
 *    mark, a filter or buffer sizes; nothing of COMMAND's is read but
 *    the kernel's answers to getsockopt on its socket. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "netconnect.h"
#include "netgrant.h"
#include "netproxy_decide.h"
#include "netresolve.h"
#include "plan.h"
#include "sandbox.h"
#include "util.h"

bool netconnect_dest(const struct sockaddr_storage *addr, socklen_t len, struct net_dest *dest)
{
	const struct sockaddr_in *sin = (const struct sockaddr_in *)addr;
	const struct sockaddr_in6 *sin6 = (const struct sockaddr_in6 *)addr;
	static const unsigned char mapped[12] = { [10] = 0xff, [11] = 0xff };

	memset(dest, 0, sizeof(*dest));
	if (addr->ss_family == AF_INET && len >= (socklen_t)sizeof(*sin)) {
		dest->addr.family = AF_INET;
		memcpy(dest->addr.bytes, &sin->sin_addr, 4);
		dest->port = ntohs(sin->sin_port);
	} else if (addr->ss_family == AF_INET6 && len >= (socklen_t)sizeof(*sin6)) {
		const unsigned char *b = sin6->sin6_addr.s6_addr;

		/* ::ffff:a.b.c.d is a.b.c.d: one comparison for both. */
		dest->addr.family = memcmp(b, mapped, 12) == 0 ? AF_INET : AF_INET6;
		memcpy(dest->addr.bytes, dest->addr.family == AF_INET ? b + 12 : b,
		       dest->addr.family == AF_INET ? 4 : 16);
		dest->port = ntohs(sin6->sin6_port);
	} else {
		return false;
	}
	return dest->port != 0;
}

/* The loopback addresses "localhost" stands for, as in the proxy. */
static bool localhost_addr(const struct net_addr *a)
{
	static const unsigned char v6[16] = { [15] = 1 };
	static const unsigned char v4[4] = { 127, 0, 0, 1 };

	return a->family == AF_INET ? memcmp(a->bytes, v4, 4) == 0 : memcmp(a->bytes, v6, 16) == 0;
}

static void format_dest(const struct net_dest *dest, char *buf, size_t len)
{
	char addr[64];

	net_addr_format(&dest->addr, addr, sizeof(addr));
	snprintf(buf, len, dest->addr.family == AF_INET6 ? "[%s]:%d" : "%s:%d", addr, dest->port);
}

/* The rule of a name whose current answer from the sandbox's resolver
 * gave DEST's address (netdns.c), checked again as an answer of DNS;
 * or NULL with why not. */
static const struct net_rule *granted_rule(const struct sandbox *sb, const struct net_dest *dest,
					   const char *where, char *reason, size_t len)
{
	struct net_addr own[MAX_OWN];
	size_t n_own = 0;
	const struct net_rule *rule;
	const char *name = netgrant_find(sb, &dest->addr, dest->port, &rule), *why;

	if (!name) {
		snprintf(reason, len, "no --allow-net rule allows %s", where);
		return NULL;
	}
	if (!net_addr_special(&dest->addr))
		n_own = net_own_addresses(own, MAX_OWN);
	why = net_addr_refusal(rule, &dest->addr, true, own, n_own);
	if (!why)
		return rule;
	snprintf(reason, len, "%s, an address of %s: %s", where, name, why);
	return NULL;
}

const struct net_rule *netconnect_rule(const struct sandbox *sb, const struct net_dest *dest,
				       char *reason, size_t len)
{
	const struct plan *plan = sb->plan;
	struct net_addr own[MAX_OWN];
	size_t n_own = 0;
	const struct net_rule *rule, *byname;
	const char *why, *class;
	char host[64], where[80];

	net_addr_format(&dest->addr, host, sizeof(host));
	format_dest(dest, where, sizeof(where));
	rule = net_rules_match(plan->net_rules, plan->n_net_rules, host, dest->port);
	if (!rule && localhost_addr(&dest->addr)) {
		byname = net_rules_match(plan->net_rules, plan->n_net_rules, "localhost",
					 dest->port);
		if (byname && net_rule_is_localhost(byname))
			rule = byname;
	}
	if (!rule)
		return granted_rule(sb, dest, where, reason, len);
	class = net_addr_special(&dest->addr);
	if (!class)
		n_own = net_own_addresses(own, MAX_OWN);
	why = net_addr_refusal(rule, &dest->addr, false, own, n_own);
	if (!why)
		return rule;
	snprintf(reason, len, "%s (%s): %s", host, class ? class : "this host's own address", why);
	return NULL;
}

/* Does TABLE (the text of /proc/PID/net/tcp or tcp6) list a socket
 * listening (state 0A) on PORT? */
static bool lists_listener(const char *table, int port)
{
	for (const char *line = strchr(table, '\n'); line && line[1]; line = strchr(line + 1, '\n')) {
		unsigned local_port, state;

		if (sscanf(line + 1, " %*u: %*[0-9A-Fa-f]:%x %*[0-9A-Fa-f]:%*x %x", &local_port,
			   &state) == 2 && state == 0x0A && (int)local_port == port)
			return true;
	}
	return false;
}

bool netconnect_sandbox_listens(int proc_dir, int family, int port)
{
	static const char *const tables[] = { "net/tcp6", "net/tcp" };
	bool found = false;

	/* An IPv6 listener takes IPv4 too, unless V6ONLY: a maybe is a yes. */
	for (size_t i = 0; i < (family == AF_INET ? 2u : 1u) && !found; i++) {
		int fd = openat(proc_dir, tables[i], O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
		char *text = fd < 0 ? NULL : read_text_fd(fd);

		found = text && lists_listener(text, port);
		free(text);
		if (fd >= 0)
			close(fd);
	}
	return found;
}

/* The options of a connection that carry over to its stand-in. */
static const struct { int domain, level, name; } carried[] = {
	{ 0, SOL_SOCKET, SO_KEEPALIVE },
	{ 0, SOL_SOCKET, SO_LINGER },
	{ 0, SOL_SOCKET, SO_RCVTIMEO },
	{ 0, SOL_SOCKET, SO_SNDTIMEO },
	{ 0, SOL_SOCKET, SO_OOBINLINE },
	{ 0, SOL_SOCKET, SO_PRIORITY },
	{ 0, IPPROTO_TCP, TCP_NODELAY },
	{ 0, IPPROTO_TCP, TCP_KEEPIDLE },
	{ 0, IPPROTO_TCP, TCP_KEEPINTVL },
	{ 0, IPPROTO_TCP, TCP_KEEPCNT },
	{ 0, IPPROTO_TCP, TCP_USER_TIMEOUT },
	{ AF_INET, IPPROTO_IP, IP_TOS },
	{ AF_INET6, IPPROTO_IPV6, IPV6_V6ONLY },
	{ AF_INET6, IPPROTO_IPV6, IPV6_TCLASS },
};

/* Each option ORIG has that carries over, set on FD; one that cannot
 * be read or set is left as the host's default. */
static void copy_options(int orig, int fd, int domain)
{
	for (size_t i = 0; i < sizeof(carried) / sizeof(carried[0]); i++) {
		unsigned char value[32];
		socklen_t len = sizeof(value);

		if (carried[i].domain && carried[i].domain != domain)
			continue;
		if (getsockopt(orig, carried[i].level, carried[i].name, value, &len) == 0)
			(void)setsockopt(fd, carried[i].level, carried[i].name, value, len);
	}
}

static int int_option(int fd, int name)
{
	int value = -1;
	socklen_t len = sizeof(value);

	return getsockopt(fd, SOL_SOCKET, name, &value, &len) == 0 ? value : -1;
}

int netconnect_socket(int orig)
{
	int domain = int_option(orig, SO_DOMAIN), protocol = int_option(orig, SO_PROTOCOL);
	int fd;

	if ((domain != AF_INET && domain != AF_INET6) || protocol < 0 ||
	    int_option(orig, SO_TYPE) != SOCK_STREAM) {
		errno = EPROTOTYPE;
		return -1;
	}
	fd = socket(domain, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, protocol);
	if (fd >= 0)
		copy_options(orig, fd, domain);
	return fd;
}

void netconnect_report(struct sandbox *sb, const struct net_dest *dest,
		       const struct net_rule *rule, const char *verdict, const char *reason,
		       bool count, double seconds)
{
	char host[64];
	struct proxy_record r = {
		.proto = NET_PROTO_TCP, .host = dest ? host : NULL, .port = dest ? dest->port : 0,
		.rule = rule, .address = dest ? &dest->addr : NULL, .seconds = seconds,
		.bytes_unknown = true,
	};

	if (!sb->net)
		return;
	if (dest)
		net_addr_format(&dest->addr, host, sizeof(host));
	sb->net->report_line(sb, &r, verdict, reason, count);
}
