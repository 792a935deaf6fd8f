/* The --allow-net proxy's decisions, in the supervisor: an ask from the
 * worker checked field by field, the rules, the addresses (a literal,
 * localhost's, or a lookup in a child, see netresolve.c), each address
 * checked, a non-blocking connect from the host's namespace to each kept
 * address in turn, and the verdict sent back with the connected socket.
 * What it defends against, and how:
 *  - a worker taken over by what it parses: the supervisor reads nothing
 *    of it but fixed-size asks, each field checked (netproxy_ask_valid),
 *    an ask about a busy id ignored; the host is only ever matched,
 *    resolved and written to the report as a string;
 *  - a request no rule allows: refused before any name is resolved;
 *  - a sandbox that reaches the host or its cloud through a name: a
 *    name's answer is never a loopback, link-local, metadata or own
 *    address (netrule.c), and the address connected is the address
 *    checked: no name is resolved twice;
 *  - a slow or dead server: resolving and connecting have UPSTREAM_SECONDS;
 *  - a worker that stops reading: verdicts are sent without waiting, and
 *    one that cannot go is dropped with its socket. */
#define _GNU_SOURCE
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdio.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>

#include "netproxy_decide.h"
#include "lib/lib.h"
#include "sandbox.h"

void netproxy_decision_reset(struct decision *d)
{
	memset(d, 0, sizeof(*d));
	d->phase = D_FREE;
	d->server = d->lookup_fd = d->lookup_pidfd = -1;
}

static struct decision *decision_of(struct sandbox *sb, int id)
{
	return &sb->net->d[id];
}

static void watch(struct netproxy_state *st, int fd, uint64_t tag, uint32_t events)
{
	struct epoll_event ev = { .events = events, .data.u64 = tag };

	(void)epoll_ctl(st->epoll, EPOLL_CTL_ADD, fd, &ev);
}

static struct proxy_record record_of(const struct decision *d)
{
	struct proxy_record r = {
		.proto = d->proto, .host = d->host, .port = d->port, .rule = d->rule,
		.seconds = monotonic_now() - d->started,
	};

	if (d->next_addr > 0 && d->next_addr <= d->n_addrs)
		r.address = &d->addrs[d->next_addr - 1];
	return r;
}

void netproxy_abandon_lookup(struct netproxy_state *st, int *lookup_fd, int *lookup_pidfd)
{
	if (*lookup_pidfd >= 0 && !net_lookup_end(*lookup_pidfd, false)) {
		for (int i = 0; i < 2 * PROXY_MAX_CONNS; i++)
			if (st->reap[i] < 0) {
				st->reap[i] = *lookup_pidfd;
				watch(st, st->reap[i], stag_of(STAG_REAP, (unsigned)i), EPOLLIN);
				*lookup_pidfd = -1;
				break;
			}
		if (*lookup_pidfd >= 0)
			net_lookup_end(*lookup_pidfd, true);	/* killed: ends now */
	}
	close_fd(lookup_pidfd);
	close_fd(lookup_fd);
}

static void abandon_lookup(struct netproxy_state *st, struct decision *d)
{
	netproxy_abandon_lookup(st, &d->lookup_fd, &d->lookup_pidfd);
}

void netproxy_on_reap(struct netproxy_state *st, int i)
{
	if (st->reap[i] >= 0 && net_lookup_end(st->reap[i], false))
		close_fd(&st->reap[i]);
}

void netproxy_drop_decision(struct sandbox *sb, int id)
{
	struct decision *d = decision_of(sb, id);

	abandon_lookup(sb->net, d);
	close_fd(&d->server);	/* closing takes it out of the epoll set */
	netproxy_decision_reset(d);
}

/* The verdict to the worker, with SERVER (or -1); never waits. */
static void send_verdict(struct sandbox *sb, int id, enum proxy_verdict_kind kind, int status,
			 int socks_code, const char *reason, int server)
{
	struct proxy_verdict v = { .kind = kind, .id = (uint32_t)id, .status = status,
				   .socks_code = socks_code };

	snprintf(v.reason, sizeof(v.reason), "%s", reason ? reason : "");
	if (server >= 0)
		(void)send_with_fd(sb->net->chan, &v, sizeof(v), server);
	else
		(void)send(sb->net->chan, &v, sizeof(v), MSG_NOSIGNAL | MSG_DONTWAIT);
}

static void refuse(struct sandbox *sb, int id, int status, int socks_code, const char *reason)
{
	struct proxy_record r = record_of(decision_of(sb, id));

	netproxy_count_refusal(sb->net, &r, reason);
	netproxy_report(sb, &r, "refused", reason);
	send_verdict(sb, id, VERDICT_REFUSED, status, socks_code, reason, -1);
	netproxy_drop_decision(sb, id);
}

static void fail_upstream(struct sandbox *sb, int id, int status, int socks_code,
			  const char *reason)
{
	struct proxy_record r = record_of(decision_of(sb, id));

	netproxy_report(sb, &r, "failed", reason);
	send_verdict(sb, id, VERDICT_FAILED, status, socks_code, reason, -1);
	netproxy_drop_decision(sb, id);
}

/* ---- connecting ---- */

static socklen_t sockaddr_of(const struct net_addr *a, int port, struct sockaddr_storage *ss)
{
	memset(ss, 0, sizeof(*ss));
	ss->ss_family = (sa_family_t)a->family;
	if (a->family == AF_INET) {
		struct sockaddr_in *sin = (struct sockaddr_in *)ss;

		sin->sin_port = htons((uint16_t)port);
		memcpy(&sin->sin_addr, a->bytes, 4);
		return sizeof(*sin);
	}
	((struct sockaddr_in6 *)ss)->sin6_port = htons((uint16_t)port);
	memcpy(&((struct sockaddr_in6 *)ss)->sin6_addr, a->bytes, 16);
	return sizeof(struct sockaddr_in6);
}

static void connect_next(struct sandbox *sb, int id)
{
	struct decision *d = decision_of(sb, id);
	char addr[64], reason[PROXY_REASON_LEN];

	while (d->next_addr < d->n_addrs) {
		const struct net_addr *a = &d->addrs[d->next_addr++];
		struct sockaddr_storage ss;
		socklen_t len = sockaddr_of(a, d->port, &ss);
		int fd = socket(a->family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0), on = 1;

		if (fd >= 0 && (connect(fd, (struct sockaddr *)&ss, len) == 0 ||
				errno == EINPROGRESS)) {
			(void)setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &on, sizeof(on));
			d->server = fd;
			d->phase = D_CONNECTING;
			watch(sb->net, fd, stag_of(STAG_SERVER, (unsigned)id), EPOLLOUT);
			return;
		}
		snprintf(d->connect_error, sizeof(d->connect_error), "%s", strerror(errno));
		if (fd >= 0)
			close(fd);
	}
	netrule_addr_format(&d->addrs[d->n_addrs - 1], addr, sizeof(addr));
	snprintf(reason, sizeof(reason), "connect to %s port %d: %s", addr, d->port,
		 d->connect_error);
	fail_upstream(sb, id, 502, SOCKS_REFUSED, reason);
}

void netproxy_on_connected(struct sandbox *sb, int id)
{
	struct decision *d = decision_of(sb, id);
	int err = 0;
	socklen_t len = sizeof(err);

	if (d->phase != D_CONNECTING)
		return;
	if (getsockopt(d->server, SOL_SOCKET, SO_ERROR, &err, &len) < 0)
		err = errno;
	if (err == 0) {
		/* The socket is the worker's now: the supervisor keeps the
		 * decision, for the report line, until ASK_CLOSED.  Out of
		 * the epoll set first: the worker's copy would keep it there
		 * after the close (epoll watches the socket, not the fd). */
		epoll_ctl(sb->net->epoll, EPOLL_CTL_DEL, d->server, NULL);
		send_verdict(sb, id, VERDICT_CONNECTED, 200, SOCKS_OK, NULL, d->server);
		close_fd(&d->server);
		d->phase = D_OPEN;
		d->deadline = 0;
		return;
	}
	snprintf(d->connect_error, sizeof(d->connect_error), "%s", strerror(err));
	close_fd(&d->server);
	connect_next(sb, id);
}

/* ---- deciding ---- */

/* Keep of CANDIDATES those the rule lets this request reach; refuse if
 * none is left.  The kept ones are the only ones ever connected to. */
static void check_and_connect(struct sandbox *sb, int id, const struct net_addr *candidates,
			      int n, bool via_dns)
{
	struct decision *d = decision_of(sb, id);
	struct net_addr own[MAX_OWN];
	size_t n_own = 0;
	const char *why = NULL, *class = NULL;
	char reason[PROXY_REASON_LEN], addr[64] = "";

	/* This host's addresses matter only for an otherwise ordinary one. */
	for (int i = 0; i < n && n_own == 0; i++)
		if (!netrule_addr_special(&candidates[i]))
			n_own = net_own_addresses(own, MAX_OWN);
	d->n_addrs = d->next_addr = 0;
	for (int i = 0; i < n; i++) {
		const char *refusal = netrule_addr_refusal(d->rule, &candidates[i], via_dns, own,
							   n_own);

		if (!refusal) {
			d->addrs[d->n_addrs++] = candidates[i];
		} else if (!why) {
			why = refusal;
			class = netrule_addr_special(&candidates[i]);
			netrule_addr_format(&candidates[i], addr, sizeof(addr));
		}
	}
	if (d->n_addrs > 0) {
		connect_next(sb, id);
		return;
	}
	if (!class)
		class = "this host's own address";
	if (via_dns)
		snprintf(reason, sizeof(reason), "%s resolves to %s (%s): %s", d->host, addr,
			 class, why);
	else
		snprintf(reason, sizeof(reason), "%s (%s): %s", addr, class, why);
	refuse(sb, id, 403, SOCKS_NOT_ALLOWED, reason);
}

static void start_lookup(struct sandbox *sb, int id)
{
	struct decision *d = decision_of(sb, id);
	char reason[PROXY_REASON_LEN];

	if (net_lookup_start(d->host, &d->lookup_fd, &d->lookup_pidfd) < 0) {
		snprintf(reason, sizeof(reason), "resolve %s: %s", d->host, strerror(errno));
		fail_upstream(sb, id, 502, SOCKS_HOST_UNREACHABLE, reason);
		return;
	}
	d->phase = D_RESOLVING;
	watch(sb->net, d->lookup_fd, stag_of(STAG_RESOLVER, (unsigned)id), EPOLLIN);
}

static void decide(struct sandbox *sb, int id)
{
	const struct plan *plan = sb->plan;
	struct decision *d = decision_of(sb, id);
	struct net_addr literal[2];
	char reason[PROXY_REASON_LEN];

	d->deadline = monotonic_now() + UPSTREAM_SECONDS;
	d->rule = netrule_match(plan->net_rules, plan->n_net_rules, d->host, d->port);
	if (!d->rule) {
		snprintf(reason, sizeof(reason), "no --allow-net rule allows %s%s%s:%d",
			 strchr(d->host, ':') ? "[" : "", d->host,
			 strchr(d->host, ':') ? "]" : "", d->port);
		refuse(sb, id, 403, SOCKS_NOT_ALLOWED, reason);
		return;
	}
	if (netrule_addr_parse(d->host, &literal[0]) == 0) {
		check_and_connect(sb, id, literal, 1, false);
	} else if (netrule_is_localhost(d->rule)) {
		/* localhost is loopback itself, not whatever DNS says. */
		netrule_addr_parse("127.0.0.1", &literal[0]);
		netrule_addr_parse("::1", &literal[1]);
		check_and_connect(sb, id, literal, 2, false);
	} else {
		start_lookup(sb, id);
	}
}

void netproxy_on_lookup(struct sandbox *sb, int id)
{
	struct decision *d = decision_of(sb, id);
	struct net_answer ans;
	char reason[PROXY_REASON_LEN];
	int r;

	if (d->phase != D_RESOLVING || d->lookup_fd < 0)
		return;
	r = net_lookup_read(d->lookup_fd, &ans);
	if (r == 0)
		return;
	abandon_lookup(sb->net, d);
	if (r < 0 || ans.n == 0) {
		snprintf(reason, sizeof(reason), "resolve %s: %s", d->host, ans.why);
		fail_upstream(sb, id, 502, SOCKS_HOST_UNREACHABLE, reason);
		return;
	}
	check_and_connect(sb, id, ans.addrs, ans.n, true);
}

void netproxy_on_deadline(struct sandbox *sb, int id)
{
	struct decision *d = decision_of(sb, id);
	char reason[PROXY_REASON_LEN];

	if (d->phase == D_RESOLVING)
		snprintf(reason, sizeof(reason), "resolving %s took more than %gs", d->host,
			 UPSTREAM_SECONDS);
	else if (d->phase == D_CONNECTING)
		snprintf(reason, sizeof(reason), "connecting to %s port %d took more than %gs",
			 d->host, d->port, UPSTREAM_SECONDS);
	else
		return;
	fail_upstream(sb, id, 504, SOCKS_TTL_EXPIRED, reason);
}

/* ---- the worker's asks ---- */

static struct proxy_record record_of_ask(const struct proxy_ask *ask)
{
	struct proxy_record r = {
		.proto = (enum net_proto)ask->proto, .host = ask->port ? ask->host : NULL,
		.port = (int)ask->port, .bytes_out = ask->bytes_out, .bytes_in = ask->bytes_in,
		.seconds = ask->millis / 1000.0,
	};

	return r;
}

static void on_ask_connect(struct sandbox *sb, const struct proxy_ask *ask)
{
	struct decision *d = decision_of(sb, (int)ask->id);

	if (d->phase != D_FREE || ask->port == 0)
		return;	/* not how a sound worker asks: ignored */
	d->proto = (enum net_proto)ask->proto;
	memcpy(d->host, ask->host, sizeof(d->host));
	d->port = (int)ask->port;
	d->started = monotonic_now() - ask->millis / 1000.0;
	decide(sb, (int)ask->id);
}

static void on_ask_closed(struct sandbox *sb, const struct proxy_ask *ask)
{
	struct decision *d = decision_of(sb, (int)ask->id);
	struct proxy_record r;

	if (d->phase != D_OPEN)
		return;
	r = record_of(d);
	r.bytes_out = ask->bytes_out;
	r.bytes_in = ask->bytes_in;
	netproxy_report(sb, &r, "allowed", NULL);
	netproxy_decision_reset(d);
}

void netproxy_on_ask(struct sandbox *sb, const struct proxy_ask *ask)
{
	struct proxy_record r;

	if (!netproxy_ask_valid(ask))
		return;
	switch ((enum proxy_ask_kind)ask->kind) {
	case ASK_CONNECT:
		on_ask_connect(sb, ask);
		break;
	case ASK_REFUSED:
		r = record_of_ask(ask);
		netproxy_count_refusal(sb->net, &r, ask->reason);
		netproxy_report(sb, &r, "refused", ask->reason);
		break;
	case ASK_CLOSED:
		on_ask_closed(sb, ask);
		break;
	case ASK_DNS:
		break;	/* the resolver's: netproxy.c hands it to netdns.c */
	}
}
