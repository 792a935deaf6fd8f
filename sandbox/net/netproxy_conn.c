/* The --allow-net proxy's connections, in the worker: a connection's
 * place in the epoll set (the events each socket needs now, from its
 * phase and buffers), its end: closed, or answered (an HTTP status and a
 * one-line reason, or a SOCKS5 reply code) and lingering, and what the
 * supervisor is told of it (netproxy_chan.h).  What it defends against,
 * and how:
 *  - a socket that would wake the loop for nothing: each one is watched
 *    only for what its phase can use (no reading into a full buffer);
 *  - a client reading a reset instead of the reason it was refused: the
 *    answer is written at once, then the client's rest is dropped until
 *    it closes or LINGER_SECONDS pass. */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <sys/epoll.h>
#include <sys/socket.h>

#include "netproxy_conn.h"

/* C free: no phase, every fd -1. */
void netproxy_conn_reset(struct conn *c)
{
	memset(c, 0, sizeof(*c));
	c->phase = PH_FREE;
	c->client = c->server = -1;
	c->up.pipe[0] = c->up.pipe[1] = c->down.pipe[0] = c->down.pipe[1] = -1;
}

/* ---- epoll bookkeeping ---- */

static void watch(struct proxy_worker *w, int fd, uint64_t tag, uint32_t want,
		  uint32_t *have)
{
	struct epoll_event ev = { .events = want, .data.u64 = tag };
	int op = *have == 0 ? EPOLL_CTL_ADD : want == 0 ? EPOLL_CTL_DEL : EPOLL_CTL_MOD;

	if (fd < 0 || want == *have)
		return;
	if (epoll_ctl(w->epoll, op, fd, &ev) == 0 || op == EPOLL_CTL_DEL)
		*have = want;
}

void netproxy_watch_fixed(struct proxy_worker *w, int fd, uint64_t tag)
{
	uint32_t have = 0;

	watch(w, fd, tag, EPOLLIN, &have);
}

/* The events each socket needs now, from the phase and the buffers. */
void netproxy_update_watch(struct proxy_worker *w, struct conn *c)
{
	unsigned i = (unsigned)conn_index(w, c);
	uint32_t cw = 0, sw = 0;

	switch (c->phase) {
	case PH_HEAD:
	case PH_LINGER:
		cw = EPOLLIN;
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
	watch(w, c->client, tag_of(TAG_CLIENT, i), cw, &c->client_mask);
	watch(w, c->server, tag_of(TAG_SERVER, i), sw, &c->server_mask);
}

/* ---- the supervisor told ---- */

/* One ask of KIND about C (REASON for ASK_REFUSED).  The channel is
 * blocking: the supervisor reads every ask at once.  False, and nothing
 * sent, if the supervisor would not take it (it ignores an ask that
 * fails its checks). */
bool netproxy_tell(struct proxy_worker *w, const struct conn *c, enum proxy_ask_kind kind,
		   const char *reason)
{
	struct proxy_ask a = {
		.kind = kind, .id = (uint32_t)conn_index(w, c),
		.proto = c->socks ? NET_PROTO_SOCKS5 : c->have_request ? c->req.proto :
			 NET_PROTO_HTTP,
		.port = c->have_request ? (uint32_t)c->req.port : 0,
		.bytes_out = c->bytes_up, .bytes_in = c->bytes_down,
		.millis = (uint32_t)((monotonic_now() - c->started) * 1000),
	};

	if (c->have_request)
		snprintf(a.host, sizeof(a.host), "%s", c->req.host);
	snprintf(a.reason, sizeof(a.reason), "%s", reason ? reason : "");
	if (!netproxy_ask_valid(&a))
		return false;
	(void)send(w->chan, &a, sizeof(a), MSG_NOSIGNAL);
	return true;
}

/* A connection refused before it had a slot (all are taken). */
void netproxy_tell_no_room(struct proxy_worker *w, const char *reason)
{
	struct proxy_ask a = { .kind = ASK_REFUSED, .proto = NET_PROTO_HTTP };

	snprintf(a.reason, sizeof(a.reason), "%s", reason);
	(void)send(w->chan, &a, sizeof(a), MSG_NOSIGNAL);
}

/* ---- ending a connection ---- */

void netproxy_conn_close(struct proxy_worker *w, struct conn *c)
{
	if (c->phase == PH_RELAY)
		netproxy_tell(w, c, ASK_CLOSED, NULL);
	/* Closing removes a socket from the epoll set. */
	close_fd(&c->client);
	close_fd(&c->server);
	for (int i = 0; i < 2; i++) {
		close_fd(&c->up.pipe[i]);
		close_fd(&c->down.pipe[i]);
	}
	free(c->up.data);
	free(c->down.data);
	netproxy_conn_reset(c);
}

/* ---- answering ---- */

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
void netproxy_answer(struct proxy_worker *w, struct conn *c, int status, int socks_code,
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
	close_fd(&c->server);
	c->server_mask = 0;
	c->phase = PH_LINGER;
	c->deadline = monotonic_now() + LINGER_SECONDS;
	netproxy_update_watch(w, c);
}

/* Refused by the worker itself (a bad or late head): the supervisor
 * counts and reports it. */
void netproxy_refuse(struct proxy_worker *w, struct conn *c, int status, int socks_code,
		     const char *reason)
{
	netproxy_tell(w, c, ASK_REFUSED, reason);
	netproxy_answer(w, c, status, socks_code, reason);
}
