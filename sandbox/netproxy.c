/* The --allow-net proxy, served by the supervisor; this file is its
 * event loop: the listeners pid 1 hands over, accepting, the deadlines,
 * each event dispatched, and the end at exit.  The request and the rules
 * are in netproxy_decide.c, the relay in netproxy_relay.c, a
 * connection's epoll events, answer and end in netproxy_conn.c, the
 * report lines in netproxy_report.c, what they share in netproxy_conn.h.
 *
 * pid 1 listens on 127.0.0.1 and ::1 at NET_PROXY_PORT in the sandbox's
 * network namespace (which has nothing but loopback) and hands the
 * sockets over a unix socket.  The supervisor keeps one epoll set of its
 * own for them and every connection, polled as one source of its loop:
 * each wakeup handles a bounded batch of events, each event a bounded
 * number of bytes, so signals, timers and pid 1 are never kept waiting.
 *
 * A connection goes: request head (HTTP CONNECT, an absolute-URI http://
 * request, or SOCKS5), the rules, the addresses (a literal, localhost's,
 * or a lookup in a child, see netresolve.c), each address checked (the
 * address connected is the address checked: no name is resolved twice),
 * a non-blocking connect from the host's namespace, then a relay through
 * two bounded buffers.  What it defends against, and how:
 *  - a sandbox that reaches the host or its cloud through a name: a
 *    name's answer is never a loopback, link-local, metadata or own
 *    address (netrule.c);
 *  - a client that never finishes its request, or sends an endless one:
 *    a head must be whole within HEAD_SECONDS and NET_HEAD_MAX bytes;
 *  - a flood of connections: at most MAX_CONNS at once, the rest are
 *    answered 503 and closed; every buffer has a fixed size;
 *  - a slow or dead server: resolving and connecting have UPSTREAM_SECONDS;
 *  - running out of fds: accepting pauses for LINGER_SECONDS rather than
 *    waking the loop again and again.
 * A refused request is answered (403 and a one-line reason; SOCKS5: its
 * reply code), reported, and counted for the summary at exit. */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <sys/timerfd.h>

#include "log.h"
#include "netproxy.h"
#include "netproxy_conn.h"
#include "sandbox.h"
#include "stage_fail.h"
#include "util.h"

/* ---- prepare, and pid 1's side ---- */

/* The proxy's state, every fd -1, or NULL. */
static struct netproxy_state *new_state(void)
{
	struct netproxy_state *st = calloc(1, sizeof(*st));

	if (!st)
		return NULL;
	st->handover[0] = st->handover[1] = st->epoll = st->timer = -1;
	st->listeners[0] = st->listeners[1] = -1;
	for (int i = 0; i < MAX_CONNS; i++)
		proxy_conn_reset(&st->conns[i]);
	for (int i = 0; i < 2 * MAX_CONNS; i++)
		st->reap[i] = -1;
	return st;
}

int netproxy_prepare(struct sandbox *sb)
{
	if (sb->plan->n_net_rules == 0)
		return 0;
	sb->net = new_state();
	if (!sb->net) {
		errno = ENOMEM;
		return stage_fail(sb, "allocate", "the proxy");
	}
	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sb->net->handover) < 0)
		return stage_fail(sb, "socketpair", "for the proxy");
	return 0;
}

/* A listening socket on ADDR (text) at the proxy's port; -1 with errno. */
static int listen_on(int family, const char *addr)
{
	struct sockaddr_storage ss = { .ss_family = (sa_family_t)family };
	socklen_t len = family == AF_INET ? sizeof(struct sockaddr_in) :
			sizeof(struct sockaddr_in6);
	int fd = socket(family, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	int on = 1, r = fd < 0 ? -1 : 0;

	if (family == AF_INET) {
		((struct sockaddr_in *)&ss)->sin_port = htons(NET_PROXY_PORT);
		inet_pton(AF_INET, addr, &((struct sockaddr_in *)&ss)->sin_addr);
	} else {
		((struct sockaddr_in6 *)&ss)->sin6_port = htons(NET_PROXY_PORT);
		inet_pton(AF_INET6, addr, &((struct sockaddr_in6 *)&ss)->sin6_addr);
		if (r == 0)
			r = setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &on, sizeof(on));
	}
	if (r == 0)
		r = setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &on, sizeof(on));
	if (r == 0)
		r = bind(fd, (struct sockaddr *)&ss, len);
	if (r == 0)
		r = listen(fd, 128);
	if (r < 0 && fd >= 0) {
		int saved = errno;

		close(fd);
		errno = saved;
		fd = -1;
	}
	return fd;
}

static int hand_over(struct sandbox *sb, char tag, int fd, const char *what)
{
	if (send_with_fd(sb->net->handover[1], &tag, 1, fd) != 1) {
		close(fd);
		return stage_fail(sb, "hand over", what);
	}
	close(fd);
	return 0;
}

int netproxy_child_listen(struct sandbox *sb)
{
	struct netproxy_state *st = sb->net;
	char what[64];
	int v4, v6, r;

	if (!st)
		return 0;
	close_fd(&st->handover[0]);
	snprintf(what, sizeof(what), "127.0.0.1:%d (the --allow-net proxy)", NET_PROXY_PORT);
	v4 = listen_on(AF_INET, "127.0.0.1");
	if (v4 < 0)
		return stage_fail(sb, "listen on", what);
	r = hand_over(sb, TAG_V4, v4, what);
	/* Without IPv6 in the kernel or on lo, 127.0.0.1 serves alone. */
	v6 = r == 0 ? listen_on(AF_INET6, "::1") : -1;
	snprintf(what, sizeof(what), "[::1]:%d (the --allow-net proxy)", NET_PROXY_PORT);
	if (v6 >= 0)
		r = hand_over(sb, TAG_V6, v6, what);
	close_fd(&st->handover[1]);
	return r;
}

/* ---- accepting ---- */

static int take_slot(struct netproxy_state *st)
{
	for (int i = 0; i < MAX_CONNS; i++)
		if (st->conns[i].phase == PH_FREE)
			return i;
	return -1;
}

static void no_room(struct sandbox *sb, int fd)
{
	struct conn c = { .client = fd, .started = monotonic_now() };
	char reason[REASON_LEN];
	char msg[256];
	int n;

	snprintf(reason, sizeof(reason), "more than %d connections at once", MAX_CONNS);
	proxy_count_refusal(sb->net, &c, reason);
	proxy_report_conn(sb, &c, "refused", reason);
	n = snprintf(msg, sizeof(msg), "HTTP/1.1 503 Service Unavailable\r\nContent-Length: %zu"
		     "\r\nConnection: close\r\n\r\nhutch: %s\n", strlen(reason) + 8, reason);
	(void)send(fd, msg, (size_t)n, MSG_NOSIGNAL | MSG_DONTWAIT);
	close(fd);
}

static void open_conn(struct sandbox *sb, int fd)
{
	struct netproxy_state *st = sb->net;
	int i = take_slot(st);
	struct conn *c;
	int on = 1;

	if (i < 0) {
		no_room(sb, fd);
		return;
	}
	c = &st->conns[i];
	c->up.data = malloc(RELAY_BUF);
	c->down.data = malloc(RELAY_BUF);
	if (!c->up.data || !c->down.data) {
		free(c->up.data);
		free(c->down.data);
		c->up.data = c->down.data = NULL;
		close(fd);
		return;
	}
	(void)setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &on, sizeof(on));
	c->client = fd;
	c->phase = PH_HEAD;
	c->started = monotonic_now();
	c->deadline = c->started + HEAD_SECONDS;
	proxy_update_watch(st, c);
}

/* Listening, or not: a listener whose accept fails for want of fds stays
 * readable, and would wake the loop at once, again and again. */
static void watch_listeners(struct netproxy_state *st, bool on)
{
	for (int i = 0; i < st->n_listeners; i++) {
		struct epoll_event ev = { .events = EPOLLIN,
					  .data.u64 = tag_of(TAG_LISTENER, (unsigned)i) };

		epoll_ctl(st->epoll, on ? EPOLL_CTL_ADD : EPOLL_CTL_DEL, st->listeners[i], &ev);
	}
}

static void on_listener(struct sandbox *sb, int listener)
{
	struct netproxy_state *st = sb->net;

	for (int i = 0; i < ACCEPTS_PER_WAKEUP; i++) {
		int fd = accept4(listener, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);

		if (fd < 0 && (errno == EMFILE || errno == ENFILE || errno == ENOBUFS ||
			       errno == ENOMEM) && st->listen_again_at == 0) {
			watch_listeners(st, false);
			st->listen_again_at = monotonic_now() + LINGER_SECONDS;
		}
		if (fd < 0)
			return;
		open_conn(sb, fd);
	}
}

/* Only a listening TCP socket is served: whatever else came over the
 * hand-over socket is closed, never read. */
static bool is_listener(int fd)
{
	int accepting = 0, type = 0;
	socklen_t len = sizeof(int);

	if (getsockopt(fd, SOL_SOCKET, SO_ACCEPTCONN, &accepting, &len) < 0)
		return false;
	len = sizeof(int);
	return accepting && getsockopt(fd, SOL_SOCKET, SO_TYPE, &type, &len) == 0 &&
	       type == SOCK_STREAM;
}

static void on_handover(struct sandbox *sb)
{
	struct netproxy_state *st = sb->net;
	char tag;
	int fd;
	ssize_t n;

	while ((n = recv_with_fd(st->handover[0], &tag, 1, &fd)) == 1) {
		if (fd < 0 || st->n_listeners == 2 || !is_listener(fd)) {
			if (fd >= 0)
				close(fd);
			continue;
		}
		st->listeners[st->n_listeners] = fd;
		proxy_watch_fixed(st, fd, tag_of(TAG_LISTENER, (unsigned)st->n_listeners));
		st->n_listeners++;
	}
	if (n < 0 && (errno == EAGAIN || errno == EINTR))
		return;
	/* EOF: pid 1 has handed over all it will. */
	close_fd(&st->handover[0]);
}

/* ---- deadlines ---- */

static void on_deadline(struct sandbox *sb, struct conn *c)
{
	char reason[REASON_LEN];

	switch (c->phase) {
	case PH_HEAD:
		snprintf(reason, sizeof(reason), "no whole request within %gs", HEAD_SECONDS);
		proxy_refuse(sb, c, 408, SOCKS_TTL_EXPIRED, reason);
		break;
	case PH_RESOLVING:
		snprintf(reason, sizeof(reason), "resolving %s took more than %gs", c->req.host,
			 UPSTREAM_SECONDS);
		proxy_fail_upstream(sb, c, 504, SOCKS_TTL_EXPIRED, reason);
		break;
	case PH_CONNECTING:
		snprintf(reason, sizeof(reason), "connecting to %s port %d took more than %gs",
			 c->req.host, c->req.port, UPSTREAM_SECONDS);
		proxy_fail_upstream(sb, c, 504, SOCKS_TTL_EXPIRED, reason);
		break;
	default:
		proxy_conn_close(sb, c);
		break;
	}
}

static void arm_timer(struct netproxy_state *st)
{
	struct itimerspec its = { 0 };
	double next = 0, delta;

	for (int i = 0; i < MAX_CONNS; i++) {
		double d = st->conns[i].deadline;

		if (st->conns[i].phase != PH_FREE && d > 0 && (next == 0 || d < next))
			next = d;
	}
	if (st->listen_again_at > 0 && (next == 0 || st->listen_again_at < next))
		next = st->listen_again_at;
	if (next == st->armed_for)
		return;
	st->armed_for = next;
	if (next > 0) {
		delta = next - monotonic_now();
		if (delta < 0.001)
			delta = 0.001;
		its.it_value.tv_sec = (time_t)delta;
		its.it_value.tv_nsec = (long)((delta - (double)(time_t)delta) * 1e9);
	}
	timerfd_settime(st->timer, 0, &its, NULL);
}

static void on_timer(struct sandbox *sb)
{
	struct netproxy_state *st = sb->net;
	uint64_t ticks;
	double t = monotonic_now();

	if (read(st->timer, &ticks, sizeof(ticks)) < 0 && errno != EAGAIN)
		return;
	st->armed_for = 0;
	if (st->listen_again_at > 0 && st->listen_again_at <= t) {
		st->listen_again_at = 0;
		watch_listeners(st, true);
	}
	for (int i = 0; i < MAX_CONNS; i++) {
		struct conn *c = &st->conns[i];

		if (c->phase != PH_FREE && c->deadline > 0 && c->deadline <= t)
			on_deadline(sb, c);
	}
}

/* ---- the loop's source ---- */

static void on_conn(struct sandbox *sb, struct conn *c, bool server_side)
{
	switch (c->phase) {
	case PH_HEAD:
		if (!server_side)
			proxy_read_head(sb, c);
		break;
	case PH_CONNECTING:
		if (server_side)
			proxy_on_connected(sb, c);
		break;
	case PH_RELAY:
		proxy_relay(sb, c);
		break;
	case PH_LINGER:
		proxy_drain_linger(sb, c);
		break;
	default:
		break;
	}
}

static void on_reap(struct netproxy_state *st, int i)
{
	if (st->reap[i] >= 0 && net_lookup_end(st->reap[i], false))
		close_fd(&st->reap[i]);
}

static void dispatch(struct sandbox *sb, uint64_t tag)
{
	struct netproxy_state *st = sb->net;
	unsigned i = (unsigned)(tag & 0xffffffffu);

	switch ((enum tag)(tag >> 32)) {
	case TAG_CLIENT: case TAG_SERVER:
		if (i < MAX_CONNS && st->conns[i].phase != PH_FREE)
			on_conn(sb, &st->conns[i], (tag >> 32) == TAG_SERVER);
		break;
	case TAG_RESOLVER:
		if (i < MAX_CONNS && st->conns[i].lookup_fd >= 0)
			proxy_on_lookup(sb, &st->conns[i]);
		break;
	case TAG_REAP:
		if (i < 2 * MAX_CONNS)
			on_reap(st, (int)i);
		break;
	case TAG_LISTENER:
		if (i < 2)
			on_listener(sb, st->listeners[i]);
		break;
	case TAG_TIMER:
		on_timer(sb);
		break;
	case TAG_HANDOVER:
		on_handover(sb);
		break;
	}
}

static void on_epoll(struct sandbox *sb, short revents)
{
	struct netproxy_state *st = sb->net;
	struct epoll_event evs[EVENTS_PER_WAKEUP];
	int n;

	(void)revents;
	n = epoll_wait(st->epoll, evs, EVENTS_PER_WAKEUP, 0);
	for (int i = 0; i < n; i++)
		dispatch(sb, evs[i].data.u64);
	arm_timer(st);
}

int netproxy_start(struct sandbox *sb)
{
	struct netproxy_state *st = sb->net;

	if (!st)
		return 0;
	close_fd(&st->handover[1]);
	st->epoll = epoll_create1(EPOLL_CLOEXEC);
	st->timer = timerfd_create(CLOCK_MONOTONIC, TFD_CLOEXEC | TFD_NONBLOCK);
	if (st->epoll < 0 || st->timer < 0)
		return stage_fail(sb, "start", "the --allow-net proxy");
	proxy_watch_fixed(st, st->handover[0], tag_of(TAG_HANDOVER, 0));
	proxy_watch_fixed(st, st->timer, tag_of(TAG_TIMER, 0));
	if (supervise_add_source(sb, st->epoll, POLLIN, on_epoll) < 0) {
		stage_fail_msg(sb, "the --allow-net proxy: too many poll "
			 "sources");
		return -1;
	}
	return 0;
}

/* ---- at exit ---- */

void netproxy_finish(struct sandbox *sb)
{
	struct netproxy_state *st = sb->net;

	if (!st)
		return;
	if (st->epoll >= 0)
		supervise_remove_source(sb, st->epoll);
	for (int i = 0; i < MAX_CONNS; i++)
		if (st->conns[i].phase != PH_FREE)
			proxy_conn_close(sb, &st->conns[i]);
	for (int i = 0; i < 2 * MAX_CONNS; i++)
		if (st->reap[i] >= 0) {
			net_lookup_end(st->reap[i], true);
			close_fd(&st->reap[i]);
		}
	if (st->lines_dropped > 0)
		proxy_write_dropped_line(sb);
	if (st->refused > 0)
		proxy_print_summary(sb);
	close_fd(&st->listeners[0]);
	close_fd(&st->listeners[1]);
	close_fd(&st->handover[0]);
	close_fd(&st->handover[1]);
	close_fd(&st->timer);
	close_fd(&st->epoll);
	free(st->first);
	free(st);
	sb->net = NULL;
}
