/* The --allow-net proxy's worker, from a connection's first byte to
 * its verdict: the request head (HTTP CONNECT, an absolute-URI http://
 * request, or SOCKS5) parsed here, in the confined worker, and asked of
 * the supervisor (netproxy_chan.h), whose verdict comes back with the
 * connected socket or the words of a refusal.  What it defends against,
 * and how:
 *  - a client that sends an endless head: never more than NET_HEAD_MAX
 *    and a byte is read, the rest stays in the kernel;
 *  - a head that would not fit once rewritten: refused, never cut;
 *  - a second request on a plain HTTP connection, which would reach the
 *    allowed server with a Host of its own choosing: one request per
 *    connection, its head rewritten with "Connection: close", its body
 *    (Content-Length) forwarded, and every byte after it dropped;
 *  - a verdict for a connection that is not waiting: ignored, its
 *    socket closed. */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <sys/socket.h>

#include "netproxy_conn.h"

/* ---- asking ---- */

static void ask(struct proxy_worker *w, struct conn *c)
{
	c->have_request = true;
	c->phase = PH_WAITING;
	c->deadline = 0;	/* the supervisor answers within its own */
	netproxy_update_watch(w, c);
	if (!netproxy_tell(w, c, ASK_CONNECT, NULL))	/* the parsers never give one */
		netproxy_refuse(w, c, 400, SOCKS_BAD_ADDRESS, "a request the proxy cannot ask about");
}

void netproxy_on_verdict(struct proxy_worker *w, const struct proxy_verdict *v, int server)
{
	struct conn *c = v->id < MAX_CONNS ? &w->conns[v->id] : NULL;
	char reason[REASON_LEN];

	if (!c || c->phase != PH_WAITING || (v->kind != VERDICT_CONNECTED && server >= 0)) {
		if (server >= 0)
			close(server);
		return;
	}
	if (v->kind == VERDICT_CONNECTED && server < 0) {
		/* Lost on the way (no fd left to receive it): the supervisor
		 * is told the connection ended, the client why. */
		netproxy_tell(w, c, ASK_CLOSED, NULL);
		netproxy_answer(w, c, 502, SOCKS_FAILURE, "the connected socket did not reach the proxy");
		return;
	}
	if (v->kind == VERDICT_CONNECTED) {
		c->server = server;
		netproxy_start_relay(w, c);
		return;
	}
	snprintf(reason, sizeof(reason), "%.*s", (int)sizeof(v->reason), v->reason);
	netproxy_answer(w, c, v->status, v->socks_code, reason);
}

/* ---- reading the request ---- */

static void drop_head(struct relay_buf *b, size_t n)
{
	b->start += n;
	buf_compact(b);
}

/* SOCKS5: the greeting (answered at once), then the request. */
static void parse_socks(struct proxy_worker *w, struct conn *c)
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
			netproxy_refuse(w, c, 400, SOCKS_FAILURE, r == NET_PARSE_DONE ?
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
		netproxy_refuse(w, c, 400, reply, "not a SOCKS5 CONNECT request");
		return;
	}
	drop_head(&c->up, c->req.head_len);
	ask(w, c);
}

/* A plain request goes on with its head rewritten; its body (what the
 * head's Content-Length says) follows it, and nothing more: whatever
 * the client sends after it is read and dropped. */
static bool rewrite_http(struct conn *c)
{
	char head[NET_HEAD_MAX + 512];
	const char *old = c->up.data + c->up.start;
	size_t rest = buf_data(&c->up) - c->req.head_len;
	ssize_t n = net_http_rewrite(old, &c->req, head, sizeof(head));

	if (rest > c->req.body_len)
		rest = (size_t)c->req.body_len;
	c->up.limited = true;
	c->up.left = c->req.body_len - rest;
	if (n < 0 || (size_t)n + rest > RELAY_BUF)
		return false;
	memmove(c->up.data + n, old + c->req.head_len, rest);
	memcpy(c->up.data, head, (size_t)n);
	c->up.start = 0;
	c->up.end = (size_t)n + rest;
	return true;
}

static void parse_http(struct proxy_worker *w, struct conn *c)
{
	char why[128], reason[REASON_LEN];
	enum net_parse r = net_http_parse(c->up.data + c->up.start, buf_data(&c->up), &c->req,
					  why, sizeof(why));

	switch (r) {
	case NET_PARSE_MORE:
		return;
	case NET_PARSE_TOO_LONG:
		snprintf(reason, sizeof(reason), "a request head over %d bytes", NET_HEAD_MAX);
		netproxy_refuse(w, c, 431, SOCKS_FAILURE, reason);
		return;
	case NET_PARSE_BAD:
		netproxy_refuse(w, c, 400, SOCKS_FAILURE, why);
		return;
	case NET_PARSE_DONE:
		break;
	}
	if (c->req.proto == NET_PROTO_CONNECT)
		drop_head(&c->up, c->req.head_len);
	else if (!rewrite_http(c)) {
		c->have_request = true;
		netproxy_refuse(w, c, 431, SOCKS_FAILURE, "a request head too long to forward");
		return;
	}
	ask(w, c);
}

void netproxy_read_head(struct proxy_worker *w, struct conn *c)
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
		netproxy_conn_close(w, c);	/* gone before asking anything */
		return;
	}
	c->up.end += (size_t)n;
	if (c->up.start == 0 && !c->socks_greeted && c->up.data[0] == 5)
		c->socks = true;
	if (c->socks)
		parse_socks(w, c);
	else
		parse_http(w, c);
}

void netproxy_drain_linger(struct proxy_worker *w, struct conn *c)
{
	char scrap[4096];
	ssize_t n = recv(c->client, scrap, sizeof(scrap), MSG_DONTWAIT);

	if (n == 0 || (n < 0 && errno != EAGAIN && errno != EINTR))
		netproxy_conn_close(w, c);
}
