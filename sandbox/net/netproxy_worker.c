/* The --allow-net proxy's worker: the process that reads what the
 * sandbox sends.  The supervisor forks it at prepare; it confines
 * itself (netproxy_confine.c) before it reads a byte, says so, then
 * serves: it takes the listening sockets pid 1 hands over, accepts the
 * sandbox's connections, reads each request head (netproxy_head.c),
 * asks the supervisor over the channel (netproxy_chan.h), applies the
 * verdict and relays the bytes (netproxy_relay.c).  It ends when the
 * supervisor closes the channel (every open connection then told), or
 * with the supervisor (its parent-death signal).  What it defends
 * against, and how:
 *  - a flood of connections: at most MAX_CONNS at once, the rest are
 *    answered 503 and closed; every buffer has a fixed size;
 *  - a client that never finishes its request: a head must be whole
 *    within HEAD_SECONDS;
 *  - running out of fds: accepting pauses for LINGER_SECONDS rather than
 *    waking the loop again and again;
 *  - anything but a listener coming over the hand-over socket: closed. */
#define _GNU_SOURCE
#include <errno.h>
#include <signal.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <sys/timerfd.h>

#include "netproxy_conn.h"
#include "lib/lib.h"

/* ---- accepting ---- */

static int take_slot(struct proxy_worker *w)
{
	for (int i = 0; i < MAX_CONNS; i++)
		if (w->conns[i].phase == PH_FREE)
			return i;
	return -1;
}

static void no_room(struct proxy_worker *w, int fd)
{
	char reason[REASON_LEN];
	char msg[256];
	int n;

	snprintf(reason, sizeof(reason), "more than %d connections at once", MAX_CONNS);
	netproxy_tell_no_room(w, reason);
	n = snprintf(msg, sizeof(msg), "HTTP/1.1 503 Service Unavailable\r\nContent-Length: %zu"
		     "\r\nConnection: close\r\n\r\nhutch: %s\n", strlen(reason) + 8, reason);
	(void)send(fd, msg, (size_t)n, MSG_NOSIGNAL | MSG_DONTWAIT);
	close(fd);
}

static void open_conn(struct proxy_worker *w, int fd)
{
	int i = take_slot(w);
	struct conn *c;
	int on = 1;

	if (i < 0) {
		no_room(w, fd);
		return;
	}
	c = &w->conns[i];
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
	netproxy_update_watch(w, c);
}

/* Listening, or not: a listener whose accept fails for want of fds stays
 * readable, and would wake the loop at once, again and again. */
static void watch_listeners(struct proxy_worker *w, bool on)
{
	for (int i = 0; i < w->n_listeners; i++) {
		struct epoll_event ev = { .events = EPOLLIN,
					  .data.u64 = tag_of(TAG_LISTENER, (unsigned)i) };

		epoll_ctl(w->epoll, on ? EPOLL_CTL_ADD : EPOLL_CTL_DEL, w->listeners[i], &ev);
	}
}

static void on_listener(struct proxy_worker *w, int listener)
{
	for (int i = 0; i < ACCEPTS_PER_WAKEUP; i++) {
		int fd = accept4(listener, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);

		if (fd < 0 && (errno == EMFILE || errno == ENFILE || errno == ENOBUFS ||
			       errno == ENOMEM) && w->listen_again_at == 0) {
			watch_listeners(w, false);
			w->listen_again_at = monotonic_now() + LINGER_SECONDS;
		}
		if (fd < 0)
			return;
		open_conn(w, fd);
	}
}

/* The sandbox's resolver's socket: UDP. */
static bool is_dns_socket(int fd)
{
	int type = 0;
	socklen_t len = sizeof(int);

	return getsockopt(fd, SOL_SOCKET, SO_TYPE, &type, &len) == 0 && type == SOCK_DGRAM;
}

static void take_dns_socket(struct proxy_worker *w, int fd)
{
	if (w->dns >= 0 || !is_dns_socket(fd)) {
		close(fd);
		return;
	}
	w->dns = fd;
	netproxy_watch_fixed(w, fd, tag_of(TAG_DNS, 0));
}

/* Only a listening TCP socket is served (and the resolver's UDP socket,
 * tagged so): whatever else came over the hand-over socket is closed,
 * never read. */
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

static void on_handover(struct proxy_worker *w)
{
	char tag;
	int fd;
	ssize_t n;

	while ((n = recv_with_fd(w->handover, &tag, 1, &fd)) == 1) {
		if (fd >= 0 && tag == PROXY_TAG_DNS) {
			take_dns_socket(w, fd);
			continue;
		}
		if (fd < 0 || w->n_listeners == 2 || !is_listener(fd)) {
			if (fd >= 0)
				close(fd);
			continue;
		}
		w->listeners[w->n_listeners] = fd;
		netproxy_watch_fixed(w, fd, tag_of(TAG_LISTENER, (unsigned)w->n_listeners));
		w->n_listeners++;
	}
	if (n < 0 && (errno == EAGAIN || errno == EINTR))
		return;
	/* EOF: pid 1 has handed over all it will. */
	close_fd(&w->handover);
}

/* ---- the supervisor's verdicts ---- */

static void on_chan(struct proxy_worker *w)
{
	struct proxy_verdict v;
	int fd;
	ssize_t n;

	while ((n = recv_with_fd(w->chan, &v, sizeof(v), &fd)) > 0) {
		if ((size_t)n == sizeof(v) && v.kind == VERDICT_DNS) {
			netproxy_dns_on_verdict(w, &v);
			if (fd >= 0)
				close(fd);
		} else if ((size_t)n == sizeof(v)) {
			netproxy_on_verdict(w, &v, fd);
		}
		else if (fd >= 0)
			close(fd);
	}
	if (n == 0)
		w->ending = true;	/* the supervisor is done */
}

/* ---- deadlines ---- */

static void on_deadline(struct proxy_worker *w, struct conn *c)
{
	char reason[REASON_LEN];

	if (c->phase == PH_HEAD) {
		snprintf(reason, sizeof(reason), "no whole request within %gs", HEAD_SECONDS);
		netproxy_refuse(w, c, 408, SOCKS_TTL_EXPIRED, reason);
	} else {
		netproxy_conn_close(w, c);
	}
}

static void arm_timer(struct proxy_worker *w)
{
	double next = 0;

	for (int i = 0; i < MAX_CONNS; i++) {
		double d = w->conns[i].deadline;

		if (w->conns[i].phase != PH_FREE && d > 0 && (next == 0 || d < next))
			next = d;
	}
	if (w->listen_again_at > 0 && (next == 0 || w->listen_again_at < next))
		next = w->listen_again_at;
	if (netproxy_dns_next_deadline(w) > 0 && (next == 0 || netproxy_dns_next_deadline(w) < next))
		next = netproxy_dns_next_deadline(w);
	timer_arm_at(w->timer, &w->armed_for, next);
}

static void on_timer(struct proxy_worker *w)
{
	uint64_t ticks;
	double t = monotonic_now();

	if (read(w->timer, &ticks, sizeof(ticks)) < 0 && errno != EAGAIN)
		return;
	w->armed_for = 0;
	if (w->listen_again_at > 0 && w->listen_again_at <= t) {
		w->listen_again_at = 0;
		watch_listeners(w, true);
	}
	netproxy_dns_expire(w, t);
	for (int i = 0; i < MAX_CONNS; i++) {
		struct conn *c = &w->conns[i];

		if (c->phase != PH_FREE && c->deadline > 0 && c->deadline <= t)
			on_deadline(w, c);
	}
}

/* ---- the loop ---- */

static void on_conn(struct proxy_worker *w, struct conn *c, bool server_side)
{
	switch (c->phase) {
	case PH_HEAD:
		if (!server_side)
			netproxy_read_head(w, c);
		break;
	case PH_RELAY:
		netproxy_relay(w, c);
		break;
	case PH_LINGER:
		netproxy_drain_linger(w, c);
		break;
	default:
		break;
	}
}

static void dispatch(struct proxy_worker *w, uint64_t tag)
{
	unsigned i = (unsigned)(tag & 0xffffffffu);

	switch ((enum tag)(tag >> 32)) {
	case TAG_CLIENT: case TAG_SERVER:
		if (i < MAX_CONNS && w->conns[i].phase != PH_FREE)
			on_conn(w, &w->conns[i], (tag >> 32) == TAG_SERVER);
		break;
	case TAG_LISTENER:
		if (i < 2)
			on_listener(w, w->listeners[i]);
		break;
	case TAG_TIMER:
		on_timer(w);
		break;
	case TAG_HANDOVER:
		on_handover(w);
		break;
	case TAG_CHAN:
		on_chan(w);
		break;
	case TAG_DNS:
		if (w->dns >= 0)
			netproxy_dns_read(w);
		break;
	}
}

static void serve(struct proxy_worker *w)
{
	struct epoll_event evs[EVENTS_PER_WAKEUP];

	netproxy_watch_fixed(w, w->chan, tag_of(TAG_CHAN, 0));
	netproxy_watch_fixed(w, w->handover, tag_of(TAG_HANDOVER, 0));
	netproxy_watch_fixed(w, w->timer, tag_of(TAG_TIMER, 0));
	while (!w->ending) {
		int n = epoll_wait(w->epoll, evs, EVENTS_PER_WAKEUP, -1);

		for (int i = 0; i < n; i++)
			dispatch(w, evs[i].data.u64);
		arm_timer(w);
	}
	/* Every connection still open is told, for its report line. */
	for (int i = 0; i < MAX_CONNS; i++)
		if (w->conns[i].phase != PH_FREE)
			netproxy_conn_close(w, &w->conns[i]);
}

/* The worker's state, its epoll set and timer made: NULL on failure. */
static struct proxy_worker *new_worker(int chan, int handover)
{
	struct proxy_worker *w = calloc(1, sizeof(*w));

	if (!w)
		return NULL;
	w->chan = chan;
	w->handover = handover;
	w->listeners[0] = w->listeners[1] = w->dns = -1;
	for (int i = 0; i < MAX_CONNS; i++)
		netproxy_conn_reset(&w->conns[i]);
	w->epoll = epoll_create1(EPOLL_CLOEXEC);
	w->timer = timerfd_create(CLOCK_MONOTONIC, TFD_CLOEXEC | TFD_NONBLOCK);
	return w->epoll < 0 || w->timer < 0 ? NULL : w;
}

_Noreturn void netproxy_worker_main(int chan, int handover)
{
	struct proxy_ready ready = { 0 };
	struct proxy_worker *w;
	const char *what = "its epoll set";

	/* A client gone mid-splice is an error to handle, not a death. */
	signal(SIGPIPE, SIG_IGN);
	w = new_worker(chan, handover);
	if (w) {
		int keep[] = { chan, handover, w->epoll, w->timer };

		if (netproxy_confine(keep, 4, &what) == 0)
			what = NULL;
	}
	if (what) {
		ready.err = errno ? errno : EINVAL;
		snprintf(ready.what, sizeof(ready.what), "%s", what);
	}
	(void)send(chan, &ready, sizeof(ready), MSG_NOSIGNAL);
	if (what)
		_exit(1);
	serve(w);
	_exit(0);
}
