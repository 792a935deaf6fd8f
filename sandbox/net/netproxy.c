/* The --allow-net proxy, in two processes.  pid 1 listens in the
 * sandbox's network namespace and hands the sockets over; the worker, a
 * child of the supervisor confined before it reads a byte
 * (netproxy_confine.c), takes them, accepts, parses every request head
 * and relays (netproxy_worker.c); the supervisor keeps only the
 * decision: it reads fixed-size asks on a channel (netproxy_chan.h),
 * checks the rules, resolves, connects from the host's namespace and
 * hands the connected socket over (netproxy_decide.c).  This file is
 * the supervisor's side of it: the worker forked at prepare, pid 1's
 * listeners, the source the proxy is in the supervisor's poll loop, and
 * the end at exit.  What it defends against, and how:
 *  - a parser bug turned into code with the caller's rights: no byte the
 *    sandbox writes is parsed in the supervisor (see netproxy_decide.c);
 *  - a worker that fails to confine itself: the run fails at prepare,
 *    before the sandbox exists;
 *  - a worker that hangs at exit: it is given one second to report its
 *    open connections, then killed;
 *  - the supervisor kept waiting: its side is one epoll set, polled as
 *    one source, each wakeup a bounded batch of events. */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <linux/netlink.h>
#include <linux/sock_diag.h>
#include <sys/epoll.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/timerfd.h>
#include <sys/wait.h>

#include "messages/messages.h"
#include "net.h"
#include "netproxy_decide.h"
#include "lib/lib.h"
#include "sandbox.h"

#define END_SECONDS 1.0		/* the worker's time to report its connections at exit */
#define ASKS_PER_WAKEUP (2 * PROXY_MAX_CONNS)
#define EVENTS_PER_WAKEUP 64
#define TAG_V4 '4'		/* the hand-over's tag of each listener */
#define TAG_V6 '6'

/* ---- prepare: the worker ---- */

/* The proxy's state, every fd -1, or NULL. */
static struct netproxy_state *new_state(void)
{
	struct netproxy_state *st = calloc(1, sizeof(*st));

	if (!st)
		return NULL;
	st->handover[0] = st->handover[1] = st->chan = st->worker_pidfd = -1;
	st->diag_pass[0] = st->diag_pass[1] = st->diag = -1;
	st->epoll = st->timer = -1;
	st->report_line = netproxy_report_line;
	for (int i = 0; i < PROXY_MAX_CONNS; i++)
		netproxy_decision_reset(&st->d[i]);
	for (int i = 0; i < 2 * PROXY_MAX_CONNS; i++)
		st->reap[i] = -1;
	for (int i = 0; i < PROXY_DNS_SLOTS; i++)
		netdns_reset(&st->dns[i]);
	return st;
}

/* The worker forked, and its word that it is confined: 0, or -1 with
 * sb->err set. */
static int start_worker(struct sandbox *sb)
{
	struct netproxy_state *st = sb->net;
	struct proxy_ready ready;
	pid_t parent = getpid(), pid;
	int chan[2];
	ssize_t n;

	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, chan) < 0)
		return stage_fail(sb, "socketpair", "for the proxy's worker");
	pid = clone_with_pidfd(0, &st->worker_pidfd, -1);
	if (pid == 0) {
		if (!die_with(parent))
			_exit(1);
		(void)prctl(PR_SET_NAME, "hutch-proxy", 0, 0, 0);
		netproxy_worker_main(chan[1], st->handover[0]);
	}
	close(chan[1]);
	close_fd(&st->handover[0]);	/* the worker's */
	st->chan = chan[0];
	if (pid < 0)
		return stage_fail(sb, "fork", "the --allow-net proxy's worker");
	n = recv(st->chan, &ready, sizeof(ready), 0);
	if (n != (ssize_t)sizeof(ready)) {
		stage_fail_msg(sb, "the --allow-net proxy's worker: ended before it was confined");
		return -1;
	}
	if (ready.err != 0) {
		ready.what[sizeof(ready.what) - 1] = '\0';
		errno = ready.err;
		return stage_fail(sb, ready.what, "(the --allow-net proxy's worker)");
	}
	if (fcntl(st->chan, F_SETFL, O_NONBLOCK) < 0)
		return stage_fail(sb, "fcntl", "the --allow-net proxy's channel");
	return 0;
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
	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sb->net->handover) < 0 ||
	    socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC | SOCK_NONBLOCK, 0,
		       sb->net->diag_pass) < 0)
		return stage_fail(sb, "socketpair", "for the proxy");
	return start_worker(sb);
}

/* ---- pid 1's side ---- */

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

/* The sandbox's resolver's UDP socket on 127.0.0.1:53; -1 with errno. */
static int bind_resolver(void)
{
	struct sockaddr_in sin = { .sin_family = AF_INET, .sin_port = htons(53),
				   .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	int fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);

	if (fd >= 0 && bind(fd, (struct sockaddr *)&sin, sizeof(sin)) < 0) {
		int saved = errno;

		close(fd);
		errno = saved;
		fd = -1;
	}
	return fd;
}

/* pid 1's socket diagnostics socket, made in the sandbox's network
 * namespace, to the supervisor: there it asks the kernel whether the
 * sandbox listens on a port (netconnect.c), in microseconds where
 * /proc/PID/net/tcp walks every TCP socket's bucket of the host.  None
 * made (netlink refused): the supervisor reads /proc as before. */
static void pass_diag_socket(struct netproxy_state *st)
{
	int fd = socket(AF_NETLINK, SOCK_DGRAM | SOCK_CLOEXEC, NETLINK_SOCK_DIAG);
	char byte = 'd';

	close_fd(&st->diag_pass[0]);
	if (fd >= 0) {
		(void)send_with_fd(st->diag_pass[1], &byte, 1, fd);
		close(fd);
	}
	close_fd(&st->diag_pass[1]);
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
	if (r == 0) {
		int dns = bind_resolver();

		snprintf(what, sizeof(what), "udp 127.0.0.1:53 (the sandbox's resolver)");
		r = dns < 0 ? stage_fail(sb, "bind", what) : hand_over(sb, PROXY_TAG_DNS, dns, what);
	}
	close_fd(&st->handover[1]);
	if (r == 0)
		pass_diag_socket(st);
	return r;
}

/* ---- the supervisor's source ---- */

/* One ask of the worker's: the resolver's questions to netdns.c, the
 * rest to netproxy_decide.c (neither of which calls the other). */
static void on_ask(struct sandbox *sb, const struct proxy_ask *ask)
{
	if (ask->kind == ASK_DNS) {
		if (netproxy_ask_valid(ask))
			netdns_on_ask(sb, ask);
	} else {
		netproxy_on_ask(sb, ask);
	}
}

static void arm_timer(struct netproxy_state *st)
{
	double next = 0;

	for (int i = 0; i < PROXY_MAX_CONNS; i++) {
		double d = st->d[i].deadline;

		if (st->d[i].phase != D_FREE && d > 0 && (next == 0 || d < next))
			next = d;
	}
	for (int i = 0; i < PROXY_DNS_SLOTS; i++) {
		double d = st->dns[i].deadline;

		if (st->dns[i].busy && d > 0 && (next == 0 || d < next))
			next = d;
	}
	timer_arm_at(st->timer, &st->armed_for, next);
}

static void on_timer(struct sandbox *sb)
{
	struct netproxy_state *st = sb->net;
	uint64_t ticks;
	double t = monotonic_now();

	if (read(st->timer, &ticks, sizeof(ticks)) < 0 && errno != EAGAIN)
		return;
	st->armed_for = 0;
	for (int i = 0; i < PROXY_MAX_CONNS; i++)
		if (st->d[i].phase != D_FREE && st->d[i].deadline > 0 && st->d[i].deadline <= t)
			netproxy_on_deadline(sb, i);
	for (int i = 0; i < PROXY_DNS_SLOTS; i++)
		netdns_on_deadline(sb, i);
}

/* The worker's asks, at most ASKS_PER_WAKEUP: each exactly one struct
 * proxy_ask, or dropped unread (a longer message is cut, and seen so by
 * its length); an fd the worker attaches is closed by the kernel, since
 * no control buffer takes it. */
static void on_chan(struct sandbox *sb)
{
	struct netproxy_state *st = sb->net;
	struct proxy_ask ask;

	for (int i = 0; i < ASKS_PER_WAKEUP; i++) {
		ssize_t n = recv(st->chan, &ask, sizeof(ask), MSG_DONTWAIT | MSG_TRUNC);

		if (n < 0)
			return;
		if (n == 0) {
			/* The worker is gone: nothing more to read. */
			epoll_ctl(st->epoll, EPOLL_CTL_DEL, st->chan, NULL);
			return;
		}
		if (n == (ssize_t)sizeof(ask))
			on_ask(sb, &ask);
	}
}

/* The worker ended before hutch: said once; the sandbox keeps running
 * without its network. */
static void on_worker_end(struct sandbox *sb)
{
	struct netproxy_state *st = sb->net;
	siginfo_t si = { 0 };
	char msg[160];

	epoll_ctl(st->epoll, EPOLL_CTL_DEL, st->worker_pidfd, NULL);
	if (waitid(P_PIDFD, (id_t)st->worker_pidfd, &si, WEXITED | WNOHANG) < 0 || si.si_pid == 0)
		return;
	close_fd(&st->worker_pidfd);
	st->worker_gone = true;
	if (si.si_code == CLD_EXITED)
		snprintf(msg, sizeof(msg), "run: the --allow-net proxy's worker: exited with %d; "
			 "no more connections", si.si_status);
	else
		snprintf(msg, sizeof(msg), "run: the --allow-net proxy's worker: killed by "
			 "signal %d; no more connections", si.si_status);
	log_line(sb->plan->prog, msg);
}

static void dispatch(struct sandbox *sb, uint64_t tag)
{
	struct netproxy_state *st = sb->net;
	unsigned i = (unsigned)(tag & 0xffffffffu);

	switch ((enum sup_tag)(tag >> 32)) {
	case STAG_CHAN:
		on_chan(sb);
		break;
	case STAG_SERVER:
		if (i < PROXY_MAX_CONNS)
			netproxy_on_connected(sb, (int)i);
		break;
	case STAG_RESOLVER:
		if (i < PROXY_MAX_CONNS)
			netproxy_on_lookup(sb, (int)i);
		break;
	case STAG_REAP:
		if (i < 2 * PROXY_MAX_CONNS)
			netproxy_on_reap(st, (int)i);
		break;
	case STAG_TIMER:
		on_timer(sb);
		break;
	case STAG_WORKER:
		on_worker_end(sb);
		break;
	case STAG_DNS:
		if (i < PROXY_DNS_SLOTS)
			netdns_on_lookup(sb, (int)i);
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

static void watch_fixed(struct netproxy_state *st, int fd, uint64_t tag)
{
	struct epoll_event ev = { .events = EPOLLIN, .data.u64 = tag };

	(void)epoll_ctl(st->epoll, EPOLL_CTL_ADD, fd, &ev);
}

int netproxy_start(struct sandbox *sb)
{
	struct netproxy_state *st = sb->net;

	/* Under the fallback no pid 1 listens for it: Landlock's network
	 * rules stand in for the proxy, whose worker ends at finish. */
	if (!st || sb->fallback)
		return 0;
	close_fd(&st->handover[1]);	/* pid 1's */
	close_fd(&st->diag_pass[1]);
	st->epoll = epoll_create1(EPOLL_CLOEXEC);
	st->timer = timerfd_create(CLOCK_MONOTONIC, TFD_CLOEXEC | TFD_NONBLOCK);
	if (st->epoll < 0 || st->timer < 0)
		return stage_fail(sb, "start", "the --allow-net proxy");
	watch_fixed(st, st->chan, stag_of(STAG_CHAN, 0));
	watch_fixed(st, st->timer, stag_of(STAG_TIMER, 0));
	watch_fixed(st, st->worker_pidfd, stag_of(STAG_WORKER, 0));
	if (loop_add_source(sb, st->epoll, POLLIN, on_epoll) < 0) {
		stage_fail_msg(sb, "the --allow-net proxy: too many poll "
			 "sources");
		return -1;
	}
	return 0;
}

/* ---- at exit ---- */

/* The channel closed: the worker reports its open connections and ends.
 * Their asks are read for at most END_SECONDS; then it is killed and
 * reaped. */
static void end_worker(struct sandbox *sb)
{
	struct netproxy_state *st = sb->net;
	double deadline = monotonic_now() + END_SECONDS;
	struct proxy_ask ask;
	ssize_t n = -1;

	if (st->chan >= 0 && !st->worker_gone && shutdown(st->chan, SHUT_WR) == 0) {
		for (;;) {
			struct pollfd p = { .fd = st->chan, .events = POLLIN };
			double left = deadline - monotonic_now();

			if (left <= 0 || poll(&p, 1, (int)(left * 1000) + 1) <= 0)
				break;
			n = recv(st->chan, &ask, sizeof(ask), MSG_DONTWAIT | MSG_TRUNC);
			if (n == 0 || (n < 0 && errno != EAGAIN && errno != EINTR))
				break;
			/* Only the connections' ends: no new decision now. */
			if (n == (ssize_t)sizeof(ask) && ask.kind != ASK_CONNECT &&
			    ask.kind != ASK_DNS)
				netproxy_on_ask(sb, &ask);
		}
	}
	if (st->worker_pidfd >= 0) {
		siginfo_t si;

		pidfd_signal(st->worker_pidfd, SIGKILL);
		(void)waitid(P_PIDFD, (id_t)st->worker_pidfd, &si, WEXITED);
	}
}

void netproxy_finish(struct sandbox *sb)
{
	struct netproxy_state *st = sb->net;

	if (!st)
		return;
	if (st->epoll >= 0)
		loop_remove_source(sb, st->epoll);
	end_worker(sb);
	for (int i = 0; i < PROXY_MAX_CONNS; i++)
		if (st->d[i].phase != D_FREE)
			netproxy_drop_decision(sb, i);
	for (int i = 0; i < PROXY_DNS_SLOTS; i++)
		if (st->dns[i].busy)
			netdns_drop(sb, i);
	for (int i = 0; i < 2 * PROXY_MAX_CONNS; i++)
		if (st->reap[i] >= 0) {
			net_lookup_end(st->reap[i], true);
			close_fd(&st->reap[i]);
		}
	if (st->lines_dropped > 0)
		netproxy_write_dropped_line(sb);
	if (st->refused > 0)
		netproxy_print_summary(sb);
	close_fd(&st->handover[0]);
	close_fd(&st->handover[1]);
	close_fd(&st->diag_pass[0]);
	close_fd(&st->diag_pass[1]);
	close_fd(&st->diag);
	close_fd(&st->chan);
	close_fd(&st->worker_pidfd);
	close_fd(&st->timer);
	close_fd(&st->epoll);
	free(st->first);
	free(st);
	sb->net = NULL;
}
