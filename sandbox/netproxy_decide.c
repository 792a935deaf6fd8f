/* The --allow-net proxy, from a connection's first byte to a connected
 * server: the request head (HTTP CONNECT, an absolute-URI http://
 * request, or SOCKS5), the rules, the addresses (a literal, localhost's,
 * or a lookup in a child, see netresolve.c), each address checked, and a
 * non-blocking connect from the host's namespace to each kept address
 * in turn.  What it defends against, and how:
 *  - a request no rule allows: refused before any name is resolved;
 *  - a sandbox that reaches the host or its cloud through a name: a
 *    name's answer is never a loopback, link-local, metadata or own
 *    address (netrule.c), and the address connected is the address
 *    checked: no name is resolved twice;
 *  - a client that sends an endless head: never more than NET_HEAD_MAX
 *    and a byte is read, the rest stays in the kernel;
 *  - a head that would not fit once rewritten: refused, never cut. */
#define _GNU_SOURCE
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdio.h>
#include <sys/socket.h>

#include "netproxy_conn.h"
#include "sandbox.h"

/* ---- deciding ---- */

static void connect_next(struct sandbox *sb, struct conn *c)
{
	char addr[64], reason[REASON_LEN];

	while (c->next_addr < c->n_addrs) {
		const struct net_addr *a = &c->addrs[c->next_addr++];
		struct sockaddr_storage ss = { .ss_family = (sa_family_t)a->family };
		socklen_t len;
		int fd, on = 1;

		if (a->family == AF_INET) {
			struct sockaddr_in *sin = (struct sockaddr_in *)&ss;

			sin->sin_port = htons((uint16_t)c->req.port);
			memcpy(&sin->sin_addr, a->bytes, 4);
			len = sizeof(*sin);
		} else {
			struct sockaddr_in6 *sin6 = (struct sockaddr_in6 *)&ss;

			sin6->sin6_port = htons((uint16_t)c->req.port);
			memcpy(&sin6->sin6_addr, a->bytes, 16);
			len = sizeof(*sin6);
		}
		fd = socket(a->family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
		if (fd >= 0 && (connect(fd, (struct sockaddr *)&ss, len) == 0 ||
				errno == EINPROGRESS)) {
			(void)setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &on, sizeof(on));
			c->server = fd;
			c->phase = PH_CONNECTING;
			proxy_update_watch(sb->net, c);
			return;
		}
		snprintf(c->connect_error, sizeof(c->connect_error), "%s", strerror(errno));
		if (fd >= 0)
			close(fd);
	}
	net_addr_format(&c->addrs[c->n_addrs - 1], addr, sizeof(addr));
	snprintf(reason, sizeof(reason), "connect to %s port %d: %s", addr, c->req.port,
		 c->connect_error);
	proxy_fail_upstream(sb, c, 502, SOCKS_REFUSED, reason);
}

/* Keep of CANDIDATES those the rule lets this connection reach; refuse
 * if none is left.  The kept ones are the only ones ever connected to. */
static void check_and_connect(struct sandbox *sb, struct conn *c,
			      const struct net_addr *candidates, int n, bool via_dns)
{
	struct net_addr own[MAX_OWN];
	size_t n_own = 0;
	const char *why = NULL, *class = NULL;
	char reason[REASON_LEN], addr[64] = "";

	/* This host's addresses matter only for an otherwise ordinary one. */
	for (int i = 0; i < n && n_own == 0; i++)
		if (!net_addr_special(&candidates[i]))
			n_own = net_own_addresses(own, MAX_OWN);
	c->n_addrs = c->next_addr = 0;
	for (int i = 0; i < n; i++) {
		const char *refusal = net_addr_refusal(c->rule, &candidates[i], via_dns, own,
						       n_own);

		if (!refusal) {
			c->addrs[c->n_addrs++] = candidates[i];
		} else if (!why) {
			why = refusal;
			class = net_addr_special(&candidates[i]);
			net_addr_format(&candidates[i], addr, sizeof(addr));
		}
	}
	if (c->n_addrs > 0) {
		connect_next(sb, c);
		return;
	}
	if (!class)
		class = "this host's own address";
	if (via_dns)
		snprintf(reason, sizeof(reason), "%s resolves to %s (%s): %s", c->req.host, addr,
			 class, why);
	else
		snprintf(reason, sizeof(reason), "%s (%s): %s", addr, class, why);
	proxy_refuse(sb, c, 403, SOCKS_NOT_ALLOWED, reason);
}

static void start_lookup(struct sandbox *sb, struct conn *c)
{
	char reason[REASON_LEN];

	if (net_lookup_start(c->req.host, &c->lookup_fd, &c->lookup_pidfd) < 0) {
		snprintf(reason, sizeof(reason), "resolve %s: %s", c->req.host, strerror(errno));
		proxy_fail_upstream(sb, c, 502, SOCKS_HOST_UNREACHABLE, reason);
		return;
	}
	c->phase = PH_RESOLVING;
	proxy_watch_fixed(sb->net, c->lookup_fd, tag_of(TAG_RESOLVER,
				(unsigned)conn_index(sb->net, c)));
	proxy_update_watch(sb->net, c);
}

static void decide(struct sandbox *sb, struct conn *c)
{
	const struct plan *plan = sb->plan;
	struct net_addr literal[2];
	char reason[REASON_LEN];

	c->have_request = true;
	c->deadline = monotonic_now() + UPSTREAM_SECONDS;
	c->rule = net_rules_match(plan->net_rules, plan->n_net_rules, c->req.host, c->req.port);
	if (!c->rule) {
		snprintf(reason, sizeof(reason), "no --allow-net rule allows %s%s%s:%d",
			 strchr(c->req.host, ':') ? "[" : "", c->req.host,
			 strchr(c->req.host, ':') ? "]" : "", c->req.port);
		proxy_refuse(sb, c, 403, SOCKS_NOT_ALLOWED, reason);
		return;
	}
	if (net_addr_parse(c->req.host, &literal[0]) == 0) {
		check_and_connect(sb, c, literal, 1, false);
	} else if (net_rule_is_localhost(c->rule)) {
		/* localhost is loopback itself, not whatever DNS says. */
		net_addr_parse("127.0.0.1", &literal[0]);
		net_addr_parse("::1", &literal[1]);
		check_and_connect(sb, c, literal, 2, false);
	} else {
		start_lookup(sb, c);
	}
}

void proxy_on_lookup(struct sandbox *sb, struct conn *c)
{
	struct net_answer ans;
	char reason[REASON_LEN];
	int r = net_lookup_read(c->lookup_fd, &ans);

	if (r == 0 || c->phase != PH_RESOLVING)
		return;
	proxy_abandon_lookup(sb->net, c);
	if (r < 0 || ans.n == 0) {
		snprintf(reason, sizeof(reason), "resolve %s: %s", c->req.host, ans.why);
		proxy_fail_upstream(sb, c, 502, SOCKS_HOST_UNREACHABLE, reason);
		return;
	}
	check_and_connect(sb, c, ans.addrs, ans.n, true);
}

void proxy_on_connected(struct sandbox *sb, struct conn *c)
{
	int err = 0;
	socklen_t len = sizeof(err);

	if (getsockopt(c->server, SOL_SOCKET, SO_ERROR, &err, &len) < 0)
		err = errno;
	if (err == 0) {
		proxy_start_relay(sb, c);
		return;
	}
	snprintf(c->connect_error, sizeof(c->connect_error), "%s", strerror(err));
	close_fd(&c->server);
	c->server_mask = 0;
	connect_next(sb, c);
}

/* ---- reading the request ---- */

static void drop_head(struct relay_buf *b, size_t n)
{
	b->start += n;
	buf_compact(b);
}

/* SOCKS5: the greeting (answered at once), then the request. */
static void parse_socks(struct sandbox *sb, struct conn *c)
{
	const unsigned char *p = (const unsigned char *)c->up.data + c->up.start;
	size_t len = buf_data(&c->up), used = 0;
	bool noauth = false;
	int reply = SOCKS_FAILURE;
	enum net_parse r;

	if (!c->socks_greeted) {
		r = net_socks_greeting(p, len, &used, &noauth);
		if (r == NET_PARSE_MORE)
			return;
		if (r != NET_PARSE_DONE || !noauth) {
			/* 0xFF: no acceptable method (hutch asks for none). */
			(void)send(c->client, "\x05\xff", 2, MSG_NOSIGNAL | MSG_DONTWAIT);
			proxy_refuse(sb, c, 400, SOCKS_FAILURE, r == NET_PARSE_DONE ?
			       "SOCKS5 without the no-authentication method" :
			       "not a SOCKS5 greeting");
			return;
		}
		(void)send(c->client, "\x05\x00", 2, MSG_NOSIGNAL | MSG_DONTWAIT);
		c->socks_greeted = true;
		drop_head(&c->up, used);
		p = (const unsigned char *)c->up.data + c->up.start;
		len = buf_data(&c->up);
	}
	r = net_socks_request(p, len, &c->req, &reply);
	if (r == NET_PARSE_MORE)
		return;
	if (r != NET_PARSE_DONE) {
		proxy_refuse(sb, c, 400, reply, "not a SOCKS5 CONNECT request");
		return;
	}
	drop_head(&c->up, c->req.head_len);
	decide(sb, c);
}

/* A plain request goes on with its head rewritten; what followed the
 * head (a body) follows it. */
static bool rewrite_http(struct conn *c)
{
	char head[NET_HEAD_MAX + 512];
	const char *old = c->up.data + c->up.start;
	size_t rest = buf_data(&c->up) - c->req.head_len;
	ssize_t n = net_http_rewrite(old, &c->req, head, sizeof(head));

	if (n < 0 || (size_t)n + rest > RELAY_BUF)
		return false;
	memmove(c->up.data + n, old + c->req.head_len, rest);
	memcpy(c->up.data, head, (size_t)n);
	c->up.start = 0;
	c->up.end = (size_t)n + rest;
	return true;
}

static void parse_http(struct sandbox *sb, struct conn *c)
{
	char why[128], reason[REASON_LEN];
	enum net_parse r = net_http_parse(c->up.data + c->up.start, buf_data(&c->up), &c->req,
					  why, sizeof(why));

	switch (r) {
	case NET_PARSE_MORE:
		return;
	case NET_PARSE_TOO_LONG:
		snprintf(reason, sizeof(reason), "a request head over %d bytes", NET_HEAD_MAX);
		proxy_refuse(sb, c, 431, SOCKS_FAILURE, reason);
		return;
	case NET_PARSE_BAD:
		proxy_refuse(sb, c, 400, SOCKS_FAILURE, why);
		return;
	case NET_PARSE_DONE:
		break;
	}
	if (c->req.proto == NET_PROTO_CONNECT)
		drop_head(&c->up, c->req.head_len);
	else if (!rewrite_http(c)) {
		c->have_request = true;
		proxy_refuse(sb, c, 431, SOCKS_FAILURE, "a request head too long to forward");
		return;
	}
	decide(sb, c);
}

void proxy_read_head(struct sandbox *sb, struct conn *c)
{
	/* Never more than a head and a byte: the rest stays in the kernel. */
	size_t want = NET_HEAD_MAX + 1 - buf_data(&c->up);
	ssize_t n;

	buf_compact(&c->up);
	if (want > buf_room(&c->up))
		want = buf_room(&c->up);
	n = want ? recv(c->client, c->up.data + c->up.end, want, MSG_DONTWAIT) : 0;
	if (n < 0 && (errno == EAGAIN || errno == EINTR))
		return;
	if (n <= 0) {
		proxy_conn_close(sb, c);	/* gone before asking anything */
		return;
	}
	c->up.end += (size_t)n;
	if (c->up.start == 0 && !c->socks_greeted && c->up.data[0] == 5)
		c->socks = true;
	if (c->socks)
		parse_socks(sb, c);
	else
		parse_http(sb, c);
}

void proxy_drain_linger(struct sandbox *sb, struct conn *c)
{
	char scrap[4096];
	ssize_t n = recv(c->client, scrap, sizeof(scrap), MSG_DONTWAIT);

	if (n == 0 || (n < 0 && errno != EAGAIN && errno != EINTR))
		proxy_conn_close(sb, c);
}
