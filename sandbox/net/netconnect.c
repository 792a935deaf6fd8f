/* --allow-net for plain connect(): the decision and the host's socket
 * for a TCP connect of COMMAND that the connect broker takes.
 * What it defends against, and how:
 *  - a connect to a destination no rule allows: no socket of the host's
 *    namespace is made for it (the broker refuses it, or, for a
 *    loopback address, connects it in the sandbox's own namespace);
 *  - a rule by name or wildcard reaching the host through an address:
 *    a literal address is matched by address rules only, and the
 *    loopback addresses by the rule "localhost" only, as in the proxy
 *    (netrule.c: netrule_match, netrule_addr_refusal with the host's own
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
#include <linux/inet_diag.h>
#include <linux/netlink.h>
#include <linux/sock_diag.h>
#include <sys/socket.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "netconnect.h"
#include "netgrant.h"
#include "netproxy_decide.h"
#include "netresolve.h"
#include "plan/plan.h"
#include "lib/lib.h"
#include "sandbox.h"

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

	netrule_addr_format(&dest->addr, addr, sizeof(addr));
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
	if (!netrule_addr_special(&dest->addr))
		n_own = net_own_addresses(own, MAX_OWN);
	why = netrule_addr_refusal(rule, &dest->addr, true, own, n_own);
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

	netrule_addr_format(&dest->addr, host, sizeof(host));
	format_dest(dest, where, sizeof(where));
	rule = netrule_match(plan->net_rules, plan->n_net_rules, host, dest->port);
	if (!rule && localhost_addr(&dest->addr)) {
		byname = netrule_match(plan->net_rules, plan->n_net_rules, "localhost",
				       dest->port);
		if (byname && netrule_is_localhost(byname))
			rule = byname;
	}
	if (!rule)
		return granted_rule(sb, dest, where, reason, len);
	class = netrule_addr_special(&dest->addr);
	if (!class)
		n_own = net_own_addresses(own, MAX_OWN);
	why = netrule_addr_refusal(rule, &dest->addr, false, own, n_own);
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

/* The same from /proc/PID/net/tcp6 and tcp: the kernel walks every
 * bucket of the host's TCP tables for it, milliseconds on a big host. */
static bool proc_lists_listener(int proc_dir, int family, int port)
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

/* The answers to a listeners' dump in BUF (N bytes): *FOUND set if one
 * is on PORT; 1 if the dump goes on, 0 if it ended, -1 if it failed. */
static int scan_dump(const char *buf, ssize_t n, int port, bool *found)
{
	size_t at = 0, left = (size_t)n;

	while (left >= sizeof(struct nlmsghdr)) {
		const struct nlmsghdr *h = (const void *)(buf + at);
		const struct inet_diag_msg *m = NLMSG_DATA(h);
		size_t step = NLMSG_ALIGN(h->nlmsg_len);

		if (h->nlmsg_len < sizeof(*h) || h->nlmsg_len > left)
			return -1;
		if (step > left)
			step = left;
		at += step;
		left -= step;
		if (h->nlmsg_type == NLMSG_DONE)
			return 0;
		if (h->nlmsg_type != SOCK_DIAG_BY_FAMILY ||
		    h->nlmsg_len < NLMSG_LENGTH(sizeof(*m)))
			return -1;
		if (ntohs(m->id.idiag_sport) == port)
			*found = true;
	}
	return 1;
}

/* Is a TCP socket of FAMILY listening on PORT in the network namespace
 * DIAG (a NETLINK_SOCK_DIAG socket) was made in?  -1 if the kernel did
 * not say.  Only listeners are asked for: the kernel walks its table of
 * them alone. */
static int diag_lists_listener(int diag, int family, int port)
{
	struct {
		struct nlmsghdr h;
		struct inet_diag_req_v2 r;
	} req = {
		.h = { .nlmsg_len = sizeof(req), .nlmsg_type = SOCK_DIAG_BY_FAMILY,
		       .nlmsg_flags = NLM_F_REQUEST | NLM_F_DUMP },
		.r = { .sdiag_family = (__u8)family, .sdiag_protocol = IPPROTO_TCP,
		       .idiag_states = 1u << 10 /* TCP_LISTEN */ },
	};
	char buf[8192] __attribute__((aligned(NLMSG_ALIGNTO)));
	bool found = false;
	int state = 1;

	if (send(diag, &req, sizeof(req), 0) != (ssize_t)sizeof(req))
		return -1;
	/* Read the dump to its end, so that the next ask starts clean. */
	while (state == 1) {
		ssize_t n = recv(diag, buf, sizeof(buf), 0);

		state = n <= 0 ? -1 : scan_dump(buf, n, port, &found);
	}
	return state < 0 ? -1 : found;
}

/* The diagnostics socket pid 1 passed (netproxy.c), once it is here;
 * -1 until then, or if none came. */
static int diag_socket(struct netproxy_state *st)
{
	char byte;
	int fd = -1, domain = 0, protocol = 0;
	socklen_t len = sizeof(int);

	if (st->diag >= 0 || st->diag_pass[0] < 0)
		return st->diag;
	if (recv_with_fd(st->diag_pass[0], &byte, 1, &fd) == 0)
		close_fd(&st->diag_pass[0]);	/* none will come */
	if (fd < 0)
		return -1;
	if (getsockopt(fd, SOL_SOCKET, SO_DOMAIN, &domain, &len) < 0 || domain != AF_NETLINK ||
	    (len = sizeof(int), getsockopt(fd, SOL_SOCKET, SO_PROTOCOL, &protocol, &len) < 0) ||
	    protocol != NETLINK_SOCK_DIAG) {
		close(fd);
		return -1;
	}
	close_fd(&st->diag_pass[0]);
	st->diag = fd;
	return fd;
}

bool netconnect_sandbox_listens(struct sandbox *sb, const char *proc, int family, int port)
{
	int diag = sb->net ? diag_socket(sb->net) : -1;
	int found = diag < 0 ? -1 : diag_lists_listener(diag, AF_INET6, port);
	int dir;

	/* An IPv6 listener takes IPv4 too, unless V6ONLY: a maybe is a yes. */
	if (found == 0 && family == AF_INET)
		found = diag_lists_listener(diag, AF_INET, port);
	if (found >= 0)
		return found == 1;
	dir = open(proc, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	found = dir >= 0 && proc_lists_listener(dir, family, port);
	if (dir >= 0)
		close(dir);
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
		netrule_addr_format(&dest->addr, host, sizeof(host));
	sb->net->report_line(sb, &r, verdict, reason, count);
}
