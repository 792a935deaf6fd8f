/* The --allow-net proxy, served by the supervisor.
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
 *  - a slow or dead server: resolving and connecting have UPSTREAM_SECONDS.
 * A refused request is answered (403 and a one-line reason; SOCKS5: its
 * reply code), reported, and counted for the summary at exit. */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <sys/timerfd.h>
#include <time.h>
#include <unistd.h>

#include "log.h"
#include "netproxy.h"
#include "netrequest.h"
#include "netresolve.h"
#include "netrule.h"
#include "report.h"
#include "sandbox.h"
#include "util.h"

#define MAX_CONNS 64		/* connections at once */
#define RELAY_BUF (64 * 1024)	/* each direction's buffer, for the head and replies */
#define RELAY_PIPE (1024 * 1024)	/* each direction's pipe, for the bytes relayed (the
					   unprivileged maximum, pipe-max-size) */
#define HEAD_SECONDS 5.0	/* from accept to a whole request */
#define UPSTREAM_SECONDS 10.0	/* from the request to a connected server */
#define LINGER_SECONDS 1.0	/* after an answer of refusal, the client's rest is dropped */
#define EVENTS_PER_WAKEUP 64
#define BYTES_PER_EVENT (1024 * 1024)
#define ACCEPTS_PER_WAKEUP 16
#define MAX_OWN 64		/* this host's addresses considered */
#define REASON_LEN 640	/* a refusal's words: a host name and more */
#define TAG_V4 '4'
#define TAG_V6 '6'

enum tag { TAG_CLIENT, TAG_SERVER, TAG_RESOLVER, TAG_REAP, TAG_LISTENER, TAG_TIMER,
	   TAG_HANDOVER };

enum phase {
	PH_FREE,
	PH_HEAD,	/* reading the request (HTTP, or SOCKS5 greeting and request) */
	PH_RESOLVING,	/* a lookup child runs */
	PH_CONNECTING,	/* a non-blocking connect runs */
	PH_RELAY,
	PH_LINGER,	/* refused: the answer is sent, the client's rest dropped */
};

/* One direction of a connection: what hutch wrote or read itself (a
 * request head, a reply) in DATA, then the relayed bytes in a pipe,
 * spliced in from one socket and out to the other without a copy
 * through the supervisor.  Without a pipe (none could be made), DATA
 * carries everything. */
struct relay_buf {
	char *data;
	size_t start, end;
	int pipe[2];
	size_t in_pipe, pipe_cap;
	/* The pipe took no more with bytes in it: full by its slots (small
	 * segments) if not by bytes.  No reading until it drains: asking for
	 * more of a readable socket would wake the loop for nothing. */
	bool pipe_full;
};

struct conn {
	enum phase phase;
	int client, server;
	uint32_t client_mask, server_mask;	/* events asked of epoll; 0: not in it */
	double started, deadline;
	bool socks;			/* the client speaks SOCKS5 */
	bool socks_greeted;
	struct net_request req;
	bool have_request;
	const struct net_rule *rule;
	struct net_addr addrs[NET_MAX_ADDRS];
	int n_addrs, next_addr;
	char connect_error[128];	/* the last address's failure */
	struct relay_buf up, down;	/* client -> server, server -> client */
	unsigned long long bytes_up, bytes_down;
	bool client_eof, server_eof, server_shut, client_shut;
	int lookup_fd, lookup_pidfd;
};

struct netproxy_state {
	int handover[2];	/* [0] supervisor, [1] pid 1 */
	int epoll, timer;
	int listeners[2];
	int n_listeners;
	double armed_for;	/* the deadline the timer is set to, or 0 */
	double listen_again_at;	/* accept failed (no fd left): paused until then */
	struct conn conns[MAX_CONNS];
	int reap[2 * MAX_CONNS];	/* pidfds of lookups killed, still to reap */
	unsigned long long refused, lines_dropped;
	char *first;		/* "HOST:PORT, reason" of the first refusal */
};

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static uint64_t tag_of(enum tag t, unsigned index)
{
	return (uint64_t)t << 32 | index;
}

static void close_fd(int *fd)
{
	if (*fd >= 0)
		close(*fd);
	*fd = -1;
}

static void conn_reset(struct conn *c)
{
	memset(c, 0, sizeof(*c));
	c->phase = PH_FREE;
	c->client = c->server = c->lookup_fd = c->lookup_pidfd = -1;
	c->up.pipe[0] = c->up.pipe[1] = c->down.pipe[0] = c->down.pipe[1] = -1;
}

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
		conn_reset(&st->conns[i]);
	for (int i = 0; i < 2 * MAX_CONNS; i++)
		st->reap[i] = -1;
	return st;
}

int netproxy_prepare(struct sandbox *sb)
{
	if (sb->plan->n_net_rules == 0)
		return 0;
	sb->net = new_state();
	if (!sb->net)
		return log_fail(sb->err, sizeof(sb->err), "prepare", "allocate", "the proxy",
				ENOMEM);
	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sb->net->handover) < 0)
		return log_fail(sb->err, sizeof(sb->err), "prepare", "socketpair",
				"for the proxy", errno);
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
		return log_fail(sb->err, sizeof(sb->err), "mounts", "hand over",
				what, errno);
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
		return log_fail(sb->err, sizeof(sb->err), "mounts", "listen on", what, errno);
	r = hand_over(sb, TAG_V4, v4, what);
	/* Without IPv6 in the kernel or on lo, 127.0.0.1 serves alone. */
	v6 = r == 0 ? listen_on(AF_INET6, "::1") : -1;
	snprintf(what, sizeof(what), "[::1]:%d (the --allow-net proxy)", NET_PROXY_PORT);
	if (v6 >= 0)
		r = hand_over(sb, TAG_V6, v6, what);
	close_fd(&st->handover[1]);
	return r;
}

/* ---- epoll bookkeeping ---- */

static void watch(struct netproxy_state *st, int fd, uint64_t tag, uint32_t want,
		  uint32_t *have)
{
	struct epoll_event ev = { .events = want, .data.u64 = tag };
	int op = *have == 0 ? EPOLL_CTL_ADD : want == 0 ? EPOLL_CTL_DEL : EPOLL_CTL_MOD;

	if (fd < 0 || want == *have)
		return;
	if (epoll_ctl(st->epoll, op, fd, &ev) == 0 || op == EPOLL_CTL_DEL)
		*have = want;
}

static void watch_fixed(struct netproxy_state *st, int fd, uint64_t tag)
{
	uint32_t have = 0;

	watch(st, fd, tag, EPOLLIN, &have);
}

static int conn_index(const struct netproxy_state *st, const struct conn *c)
{
	return (int)(c - st->conns);
}

static size_t buf_room(const struct relay_buf *b)
{
	return RELAY_BUF - b->end;
}

static size_t buf_data(const struct relay_buf *b)
{
	return b->end - b->start;
}

/* Bytes waiting to go out, and whether more may come in. */
static size_t relay_pending(const struct relay_buf *b)
{
	return buf_data(b) + b->in_pipe;
}

static bool relay_has_room(const struct relay_buf *b)
{
	return b->pipe[0] >= 0 ? !b->pipe_full && b->in_pipe < b->pipe_cap : buf_room(b) > 0;
}

static void buf_compact(struct relay_buf *b)
{
	if (b->start == b->end) {
		b->start = b->end = 0;
	} else if (b->start > 0 && b->end == RELAY_BUF) {
		memmove(b->data, b->data + b->start, b->end - b->start);
		b->end -= b->start;
		b->start = 0;
	}
}

/* The events each socket needs now, from the phase and the buffers. */
static void update_watch(struct netproxy_state *st, struct conn *c)
{
	unsigned i = (unsigned)conn_index(st, c);
	uint32_t cw = 0, sw = 0;

	switch (c->phase) {
	case PH_HEAD:
	case PH_LINGER:
		cw = EPOLLIN;
		break;
	case PH_CONNECTING:
		sw = EPOLLOUT;
		break;
	case PH_RELAY:
		cw = (!c->client_eof && relay_has_room(&c->up) ? EPOLLIN : 0) |
		     (relay_pending(&c->down) ? EPOLLOUT : 0);
		sw = (!c->server_eof && relay_has_room(&c->down) ? EPOLLIN : 0) |
		     (relay_pending(&c->up) ? EPOLLOUT : 0);
		break;
	default:
		break;
	}
	watch(st, c->client, tag_of(TAG_CLIENT, i), cw, &c->client_mask);
	watch(st, c->server, tag_of(TAG_SERVER, i), sw, &c->server_mask);
}

/* ---- reports ---- */

static const char *proto_name(const struct conn *c)
{
	if (c->socks)
		return "socks5";
	if (!c->have_request)
		return "http";
	return c->req.proto == NET_PROTO_CONNECT ? "connect" : "http";
}

static void json_field(FILE *f, const char *key, const char *value)
{
	fprintf(f, ",\"%s\":", key);
	if (value)
		json_fputs(f, value);
	else
		fputs("null", f);
}

/* One line: VERDICT "allowed", "refused" or "failed"; REASON or NULL. */
static void report_conn(struct sandbox *sb, const struct conn *c, const char *verdict,
			const char *reason)
{
	char when[40], addr[64] = "";
	char *line = NULL;
	size_t len = 0;
	FILE *f;

	if (!report_enabled(sb) || !(f = open_memstream(&line, &len)))
		return;
	report_time(when, sizeof(when));
	fprintf(f, "{\"time\":\"%s\",\"kind\":\"net\"", when);
	json_field(f, "protocol", proto_name(c));
	json_field(f, "host", c->have_request ? c->req.host : NULL);
	if (c->have_request)
		fprintf(f, ",\"port\":%d", c->req.port);
	else
		fputs(",\"port\":null", f);
	json_field(f, "verdict", verdict);
	json_field(f, "rule", c->rule ? c->rule->text : NULL);
	json_field(f, "origin", c->rule ? c->rule->origin : NULL);
	if (c->next_addr > 0 && c->next_addr <= c->n_addrs)
		net_addr_format(&c->addrs[c->next_addr - 1], addr, sizeof(addr));
	json_field(f, "address", addr[0] ? addr : NULL);
	json_field(f, "reason", reason);
	fprintf(f, ",\"bytes_out\":%llu,\"bytes_in\":%llu,\"seconds\":%.3f}\n", c->bytes_up,
		c->bytes_down, now() - c->started);
	fclose(f);
	if (line && !report_write_event(sb, line, len, true))
		sb->net->lines_dropped++;
	free(line);
}

static void count_refusal(struct netproxy_state *st, const struct conn *c, const char *reason)
{
	if (st->refused++ > 0)
		return;
	if (c->have_request)
		st->first = xasprintf("%s%s%s:%d", strchr(c->req.host, ':') ? "[" : "",
				      c->req.host, strchr(c->req.host, ':') ? "]" : "",
				      c->req.port);
	else
		st->first = xasprintf("%s", reason);
}

/* ---- ending a connection ---- */

/* A lookup nobody waits for any more: killed, reaped now or later. */
static void abandon_lookup(struct netproxy_state *st, struct conn *c)
{
	if (c->lookup_pidfd >= 0 && !net_lookup_end(c->lookup_pidfd, false)) {
		for (int i = 0; i < 2 * MAX_CONNS; i++)
			if (st->reap[i] < 0) {
				st->reap[i] = c->lookup_pidfd;
				watch_fixed(st, st->reap[i], tag_of(TAG_REAP, (unsigned)i));
				c->lookup_pidfd = -1;
				break;
			}
		if (c->lookup_pidfd >= 0)
			net_lookup_end(c->lookup_pidfd, true);	/* killed: ends now */
	}
	close_fd(&c->lookup_pidfd);
	close_fd(&c->lookup_fd);
}

static void conn_close(struct sandbox *sb, struct conn *c)
{
	struct netproxy_state *st = sb->net;

	if (c->phase == PH_RELAY)
		report_conn(sb, c, "allowed", NULL);
	abandon_lookup(st, c);
	/* Closing removes a socket from the epoll set. */
	close_fd(&c->client);
	close_fd(&c->server);
	for (int i = 0; i < 2; i++) {
		close_fd(&c->up.pipe[i]);
		close_fd(&c->down.pipe[i]);
	}
	free(c->up.data);
	free(c->down.data);
	conn_reset(c);
}

static const char *status_text(int status)
{
	switch (status) {
	case 400: return "Bad Request";
	case 403: return "Forbidden";
	case 408: return "Request Timeout";
	case 431: return "Request Header Fields Too Large";
	case 502: return "Bad Gateway";
	case 503: return "Service Unavailable";
	default: return "Gateway Timeout";
	}
}

/* The answer of refusal or failure, written at once: it is short, and
 * the socket's buffer is empty.  Then the client's rest is dropped until
 * it closes or LINGER_SECONDS pass, so that it reads the answer rather
 * than a reset. */
static void answer_and_linger(struct sandbox *sb, struct conn *c, int status, int socks_code,
			      const char *reason)
{
	char msg[512], body[320];
	int n;

	if (c->socks) {
		unsigned char reply[10] = { 5, (unsigned char)socks_code, 0, 1 };

		n = c->socks_greeted ? (int)sizeof(reply) : 0;
		memcpy(msg, reply, sizeof(reply));
	} else {
		snprintf(body, sizeof(body), "hutch: %s\n", reason);
		n = snprintf(msg, sizeof(msg), "HTTP/1.1 %d %s\r\nContent-Type: text/plain\r\n"
			     "Content-Length: %zu\r\nConnection: close\r\n\r\n%s", status,
			     status_text(status), strlen(body), body);
		if (n >= (int)sizeof(msg))
			n = (int)sizeof(msg) - 1;
	}
	if (n > 0)
		(void)send(c->client, msg, (size_t)n, MSG_NOSIGNAL | MSG_DONTWAIT);
	shutdown(c->client, SHUT_WR);
	abandon_lookup(sb->net, c);
	close_fd(&c->server);
	c->server_mask = 0;
	c->phase = PH_LINGER;
	c->deadline = now() + LINGER_SECONDS;
	update_watch(sb->net, c);
}

static void refuse(struct sandbox *sb, struct conn *c, int status, int socks_code,
		   const char *reason)
{
	count_refusal(sb->net, c, reason);
	report_conn(sb, c, "refused", reason);
	answer_and_linger(sb, c, status, socks_code, reason);
}

static void fail_upstream(struct sandbox *sb, struct conn *c, int status, int socks_code,
			  const char *reason)
{
	report_conn(sb, c, "failed", reason);
	answer_and_linger(sb, c, status, socks_code, reason);
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
	struct conn c = { .client = fd, .started = now() };
	char reason[REASON_LEN];
	char msg[256];
	int n;

	snprintf(reason, sizeof(reason), "more than %d connections at once", MAX_CONNS);
	count_refusal(sb->net, &c, reason);
	report_conn(sb, &c, "refused", reason);
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
	c->started = now();
	c->deadline = c->started + HEAD_SECONDS;
	update_watch(st, c);
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
			st->listen_again_at = now() + LINGER_SECONDS;
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
		watch_fixed(st, fd, tag_of(TAG_LISTENER, (unsigned)st->n_listeners));
		st->n_listeners++;
	}
	if (n < 0 && (errno == EAGAIN || errno == EINTR))
		return;
	/* EOF: pid 1 has handed over all it will. */
	close_fd(&st->handover[0]);
}

/* ---- deciding ---- */

static void start_relay(struct sandbox *sb, struct conn *c);

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
			update_watch(sb->net, c);
			return;
		}
		snprintf(c->connect_error, sizeof(c->connect_error), "%s", strerror(errno));
		if (fd >= 0)
			close(fd);
	}
	net_addr_format(&c->addrs[c->n_addrs - 1], addr, sizeof(addr));
	snprintf(reason, sizeof(reason), "connect to %s port %d: %s", addr, c->req.port,
		 c->connect_error);
	fail_upstream(sb, c, 502, SOCKS_REFUSED, reason);
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
	refuse(sb, c, 403, SOCKS_NOT_ALLOWED, reason);
}

static void start_lookup(struct sandbox *sb, struct conn *c)
{
	char reason[REASON_LEN];

	if (net_lookup_start(c->req.host, &c->lookup_fd, &c->lookup_pidfd) < 0) {
		snprintf(reason, sizeof(reason), "resolve %s: %s", c->req.host, strerror(errno));
		fail_upstream(sb, c, 502, SOCKS_HOST_UNREACHABLE, reason);
		return;
	}
	c->phase = PH_RESOLVING;
	watch_fixed(sb->net, c->lookup_fd, tag_of(TAG_RESOLVER,
				(unsigned)conn_index(sb->net, c)));
	update_watch(sb->net, c);
}

static void decide(struct sandbox *sb, struct conn *c)
{
	const struct plan *plan = sb->plan;
	struct net_addr literal[2];
	char reason[REASON_LEN];

	c->have_request = true;
	c->deadline = now() + UPSTREAM_SECONDS;
	c->rule = net_rules_match(plan->net_rules, plan->n_net_rules, c->req.host, c->req.port);
	if (!c->rule) {
		snprintf(reason, sizeof(reason), "no --allow-net rule allows %s%s%s:%d",
			 strchr(c->req.host, ':') ? "[" : "", c->req.host,
			 strchr(c->req.host, ':') ? "]" : "", c->req.port);
		refuse(sb, c, 403, SOCKS_NOT_ALLOWED, reason);
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

static void on_lookup(struct sandbox *sb, struct conn *c)
{
	struct net_answer ans;
	char reason[REASON_LEN];
	int r = net_lookup_read(c->lookup_fd, &ans);

	if (r == 0 || c->phase != PH_RESOLVING)
		return;
	abandon_lookup(sb->net, c);
	if (r < 0 || ans.n == 0) {
		snprintf(reason, sizeof(reason), "resolve %s: %s", c->req.host, ans.why);
		fail_upstream(sb, c, 502, SOCKS_HOST_UNREACHABLE, reason);
		return;
	}
	check_and_connect(sb, c, ans.addrs, ans.n, true);
}

static void on_connected(struct sandbox *sb, struct conn *c)
{
	int err = 0;
	socklen_t len = sizeof(err);

	if (getsockopt(c->server, SOL_SOCKET, SO_ERROR, &err, &len) < 0)
		err = errno;
	if (err == 0) {
		start_relay(sb, c);
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
			refuse(sb, c, 400, SOCKS_FAILURE, r == NET_PARSE_DONE ?
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
		refuse(sb, c, 400, reply, "not a SOCKS5 CONNECT request");
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
		refuse(sb, c, 431, SOCKS_FAILURE, reason);
		return;
	case NET_PARSE_BAD:
		refuse(sb, c, 400, SOCKS_FAILURE, why);
		return;
	case NET_PARSE_DONE:
		break;
	}
	if (c->req.proto == NET_PROTO_CONNECT)
		drop_head(&c->up, c->req.head_len);
	else if (!rewrite_http(c)) {
		c->have_request = true;
		refuse(sb, c, 431, SOCKS_FAILURE, "a request head too long to forward");
		return;
	}
	decide(sb, c);
}

static void read_head(struct sandbox *sb, struct conn *c)
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
		conn_close(sb, c);	/* gone before asking anything */
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

static void drain_linger(struct sandbox *sb, struct conn *c)
{
	char scrap[4096];
	ssize_t n = recv(c->client, scrap, sizeof(scrap), MSG_DONTWAIT);

	if (n == 0 || (n < 0 && errno != EAGAIN && errno != EINTR))
		conn_close(sb, c);
}

/* ---- relaying ---- */

/* A pipe for B, as large as RELAY_PIPE where the kernel allows; none
 * (DATA then carries the bytes) where no pipe can be made. */
static void make_pipe(struct relay_buf *b)
{
	int size;

	if (pipe2(b->pipe, O_CLOEXEC | O_NONBLOCK) < 0) {
		b->pipe[0] = b->pipe[1] = -1;
		return;
	}
	(void)fcntl(b->pipe[1], F_SETPIPE_SZ, RELAY_PIPE);
	size = fcntl(b->pipe[1], F_GETPIPE_SZ);
	b->pipe_cap = size > 0 ? (size_t)size : 4096;
}

static void start_relay(struct sandbox *sb, struct conn *c)
{
	static const char established[] = "HTTP/1.1 200 Connection established\r\n\r\n";
	static const unsigned char socks_ok[10] = { 5, SOCKS_OK, 0, 1 };

	c->phase = PH_RELAY;
	c->deadline = 0;
	make_pipe(&c->up);
	make_pipe(&c->down);
	c->down.start = c->down.end = 0;
	if (c->socks) {
		memcpy(c->down.data, socks_ok, sizeof(socks_ok));
		c->down.end = sizeof(socks_ok);
	} else if (c->req.proto == NET_PROTO_CONNECT) {
		memcpy(c->down.data, established, sizeof(established) - 1);
		c->down.end = sizeof(established) - 1;
	}
	update_watch(sb->net, c);
}

static bool would_wait(void)
{
	return errno == EAGAIN || errno == EINTR;
}

/* Out to TO: BUF's own bytes first, then its pipe's.  The count sent, 0
 * when TO takes nothing now, -1 on an error. */
static ssize_t send_out(struct relay_buf *buf, int to)
{
	ssize_t n;

	if (buf_data(buf) > 0) {
		n = send(to, buf->data + buf->start, buf_data(buf), MSG_NOSIGNAL | MSG_DONTWAIT);
		if (n > 0) {
			buf->start += (size_t)n;
			buf_compact(buf);
		}
	} else if (buf->in_pipe > 0) {
		n = splice(buf->pipe[0], NULL, to, NULL, buf->in_pipe,
			   SPLICE_F_MOVE | SPLICE_F_NONBLOCK);
		if (n > 0) {
			buf->in_pipe -= (size_t)n;
			buf->pipe_full = false;
		}
	} else {
		return 0;
	}
	return n < 0 ? (would_wait() ? 0 : -1) : n;
}

/* In from FROM, into the pipe (or BUF's data).  The count read, 0 when
 * there is nothing now, -1 on an error; *EOF at the end. */
static ssize_t take_in(int from, struct relay_buf *buf, bool *eof)
{
	ssize_t n;

	if (buf->pipe[0] >= 0)
		n = splice(from, NULL, buf->pipe[1], NULL, buf->pipe_cap - buf->in_pipe,
			   SPLICE_F_MOVE | SPLICE_F_NONBLOCK);
	else
		n = recv(from, buf->data + buf->end, buf_room(buf), MSG_DONTWAIT);
	if (n == 0)
		*eof = true;
	if (n < 0 && errno == EAGAIN && buf->pipe[0] >= 0 && buf->in_pipe > 0)
		buf->pipe_full = true;
	if (n > 0 && buf->pipe[0] >= 0)
		buf->in_pipe += (size_t)n;
	else if (n > 0)
		buf->end += (size_t)n;
	return n < 0 ? (would_wait() ? 0 : -1) : n;
}

/* Move bytes FROM -> BUF -> TO, at most BYTES_PER_EVENT.  -1 on a
 * socket error, else 0. */
static int pump(int from, struct relay_buf *buf, int to, bool *from_eof, bool *to_shut,
		unsigned long long *count)
{
	size_t moved = 0;

	while (moved < BYTES_PER_EVENT) {
		ssize_t out = send_out(buf, to), in = 0;

		if (out < 0)
			return -1;
		*count += (unsigned long long)out;
		moved += (size_t)out;
		if (!*from_eof && relay_has_room(buf) && (in = take_in(from, buf, from_eof)) < 0)
			return -1;
		if (*from_eof && relay_pending(buf) == 0 && !*to_shut) {
			shutdown(to, SHUT_WR);
			*to_shut = true;
		}
		if (out == 0 && in == 0)
			break;
	}
	return 0;
}

static void relay(struct sandbox *sb, struct conn *c)
{
	if (pump(c->client, &c->up, c->server, &c->client_eof, &c->server_shut,
		 &c->bytes_up) < 0 ||
	    pump(c->server, &c->down, c->client, &c->server_eof, &c->client_shut,
		 &c->bytes_down) < 0 ||
	    (c->server_shut && c->client_shut)) {
		conn_close(sb, c);
		return;
	}
	update_watch(sb->net, c);
}

static void on_conn(struct sandbox *sb, struct conn *c, bool server_side)
{
	switch (c->phase) {
	case PH_HEAD:
		if (!server_side)
			read_head(sb, c);
		break;
	case PH_CONNECTING:
		if (server_side)
			on_connected(sb, c);
		break;
	case PH_RELAY:
		relay(sb, c);
		break;
	case PH_LINGER:
		drain_linger(sb, c);
		break;
	default:
		break;
	}
}

/* ---- deadlines ---- */

static void on_deadline(struct sandbox *sb, struct conn *c)
{
	char reason[REASON_LEN];

	switch (c->phase) {
	case PH_HEAD:
		snprintf(reason, sizeof(reason), "no whole request within %gs", HEAD_SECONDS);
		refuse(sb, c, 408, SOCKS_TTL_EXPIRED, reason);
		break;
	case PH_RESOLVING:
		snprintf(reason, sizeof(reason), "resolving %s took more than %gs", c->req.host,
			 UPSTREAM_SECONDS);
		fail_upstream(sb, c, 504, SOCKS_TTL_EXPIRED, reason);
		break;
	case PH_CONNECTING:
		snprintf(reason, sizeof(reason), "connecting to %s port %d took more than %gs",
			 c->req.host, c->req.port, UPSTREAM_SECONDS);
		fail_upstream(sb, c, 504, SOCKS_TTL_EXPIRED, reason);
		break;
	default:
		conn_close(sb, c);
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
		delta = next - now();
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
	double t = now();

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
			on_lookup(sb, &st->conns[i]);
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
		return log_fail(sb->err, sizeof(sb->err), "run", "start", "the --allow-net proxy",
				errno);
	watch_fixed(st, st->handover[0], tag_of(TAG_HANDOVER, 0));
	watch_fixed(st, st->timer, tag_of(TAG_TIMER, 0));
	if (supervise_add_source(sb, st->epoll, POLLIN, on_epoll) < 0) {
		snprintf(sb->err, sizeof(sb->err), "run: the --allow-net proxy: too many poll "
			 "sources");
		return -1;
	}
	return 0;
}

/* ---- at exit ---- */

static void write_dropped_line(struct sandbox *sb)
{
	char when[40], line[200];
	int n;

	report_time(when, sizeof(when));
	n = snprintf(line, sizeof(line), "{\"time\":\"%s\",\"kind\":\"net\",\"dropped\":%llu,"
		     "\"reason\":\"more than 100 lines a second\"}\n", when,
		     sb->net->lines_dropped);
	(void)report_write_event(sb, line, (size_t)n, false);
}

static void print_summary(struct sandbox *sb)
{
	struct netproxy_state *st = sb->net;
	const char *dest = report_destination(sb);
	const char *s = st->refused == 1 ? "" : "s";
	char msg[1024];

	if (dest)
		snprintf(msg, sizeof(msg), "%llu network request%s refused (see %s)", st->refused,
			 s, dest);
	else
		snprintf(msg, sizeof(msg), "%llu network request%s refused (first: %s); use "
			 "--report FILE for details", st->refused, s, st->first ? st->first : "?");
	log_warning(sb->plan->prog, msg);
}

void netproxy_finish(struct sandbox *sb)
{
	struct netproxy_state *st = sb->net;

	if (!st)
		return;
	if (st->epoll >= 0)
		supervise_remove_source(sb, st->epoll);
	for (int i = 0; i < MAX_CONNS; i++)
		if (st->conns[i].phase != PH_FREE)
			conn_close(sb, &st->conns[i]);
	for (int i = 0; i < 2 * MAX_CONNS; i++)
		if (st->reap[i] >= 0) {
			net_lookup_end(st->reap[i], true);
			close_fd(&st->reap[i]);
		}
	if (st->lines_dropped > 0)
		write_dropped_line(sb);
	if (st->refused > 0)
		print_summary(sb);
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
