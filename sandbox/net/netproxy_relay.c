/* The --allow-net proxy's relay, in the worker: once a server is connected, the bytes
 * of each direction go through a pipe, spliced in from one socket and out
 * to the other, or through a fixed buffer where no pipe can be made;
 * each end is shut for writing once its direction is drained and ended.
 * What it defends against, and how:
 *  - a fast sender and a slow reader: a direction reads only while its
 *    pipe or buffer has room, so nothing grows beyond RELAY_PIPE;
 *  - one busy connection starving the rest: at most BYTES_PER_EVENT
 *    move per event;
 *  - a plain HTTP client sending a second request after the first (with
 *    a Host of its own): past the first request's body, its bytes are
 *    read and dropped, never relayed. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <sys/socket.h>

#include "netproxy_conn.h"

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

void netproxy_start_relay(struct proxy_worker *w, struct conn *c)
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
	netproxy_update_watch(w, c);
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
	size_t want = buf->pipe[0] >= 0 ? buf->pipe_cap - buf->in_pipe : buf_room(buf);
	ssize_t n;

	if (buf->limited && want > buf->left)
		want = (size_t)buf->left;
	if (buf->pipe[0] >= 0)
		n = splice(from, NULL, buf->pipe[1], NULL, want, SPLICE_F_MOVE | SPLICE_F_NONBLOCK);
	else
		n = recv(from, buf->data + buf->end, want, MSG_DONTWAIT);
	if (n > 0 && buf->limited)
		buf->left -= (unsigned long long)n;
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

/* Past a limited direction's end: what FROM sends is read and dropped.
 * The count dropped, 0 when there is nothing now, -1 on an error; *EOF
 * at the end. */
static ssize_t drop_in(int from, bool *eof)
{
	char scrap[4096];
	ssize_t n = recv(from, scrap, sizeof(scrap), MSG_DONTWAIT);

	if (n == 0)
		*eof = true;
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
		if (!*from_eof && buf->limited && buf->left == 0) {
			in = drop_in(from, from_eof);
			moved += in > 0 ? (size_t)in : 0;
		} else if (!*from_eof && relay_has_room(buf)) {
			in = take_in(from, buf, from_eof);
		}
		if (in < 0)
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

void netproxy_relay(struct proxy_worker *w, struct conn *c)
{
	if (pump(c->client, &c->up, c->server, &c->client_eof, &c->server_shut,
		 &c->bytes_up) < 0 ||
	    pump(c->server, &c->down, c->client, &c->server_eof, &c->client_shut,
		 &c->bytes_down) < 0 ||
	    (c->server_shut && c->client_shut)) {
		netproxy_conn_close(w, c);
		return;
	}
	netproxy_update_watch(w, c);
}
