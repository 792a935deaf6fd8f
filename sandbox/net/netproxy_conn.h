/* The --allow-net proxy's worker: the confined process that accepts the
 * sandbox's connections, reads each request head, asks the supervisor
 * (netproxy_chan.h), answers the client and relays the bytes.  Its
 * files share this header (nothing else includes it); each calls only
 * those below it (no cycle):
 *
 *   netproxy_worker.c   the event loop: listeners, accepting, deadlines, verdicts
 *   netproxy_head.c     the request head, the ask, the verdict applied
 *   netproxy_relay.c    the bytes relayed once a server is connected
 *   netproxy_conn.c     a connection's epoll events, its answer, its end
 *   netproxy_confine.c  the worker's confinement, before it reads a byte */
#ifndef HUTCH_NETPROXY_CONN_H
#define HUTCH_NETPROXY_CONN_H

#include <stdbool.h>
#include <stdint.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/socket.h>

#include "dnsmsg.h"
#include "netproxy_chan.h"
#include "netrequest.h"
#include "lib/lib.h"

#define MAX_CONNS PROXY_MAX_CONNS	/* connections at once */
#define RELAY_BUF (64 * 1024)	/* each direction's buffer, for the head and replies */
#define RELAY_PIPE (1024 * 1024)	/* each direction's pipe, for the bytes relayed (the
					   unprivileged maximum, pipe-max-size) */
#define HEAD_SECONDS 5.0	/* from accept to a whole request */
#define LINGER_SECONDS 1.0	/* after an answer of refusal, the client's rest is dropped */
#define EVENTS_PER_WAKEUP 64
#define BYTES_PER_EVENT (1024 * 1024)
#define ACCEPTS_PER_WAKEUP 16
#define REASON_LEN PROXY_REASON_LEN

enum tag { TAG_CLIENT, TAG_SERVER, TAG_LISTENER, TAG_TIMER, TAG_HANDOVER, TAG_CHAN, TAG_DNS };

#define DNS_SECONDS 12.0	/* a question's slot, at most: the supervisor answers within 10 */

enum phase {
	PH_FREE,
	PH_HEAD,	/* reading the request (HTTP, or SOCKS5 greeting and request) */
	PH_WAITING,	/* asked: the supervisor decides, resolves, connects */
	PH_RELAY,
	PH_LINGER,	/* refused: the answer is sent, the client's rest dropped */
};

/* One direction of a connection: what hutch wrote or read itself (a
 * request head, a reply) in DATA, then the relayed bytes in a pipe,
 * spliced in from one socket and out to the other without a copy
 * through the worker.  Without a pipe (none could be made), DATA
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
	/* A plain HTTP request: only LEFT more bytes (its body) go on; the
	 * rest is read and dropped, so one connection carries one request. */
	bool limited;
	unsigned long long left;
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
	struct relay_buf up, down;	/* client -> server, server -> client */
	unsigned long long bytes_up, bytes_down;
	bool client_eof, server_eof, server_shut, client_shut;
};

/* A question of the sandbox's resolver, asked of the supervisor. */
struct dns_slot {
	bool busy;
	double deadline;
	struct sockaddr_storage from;	/* the client's address, to reply to */
	socklen_t from_len;
	size_t qend;			/* the question's end in QUERY */
	unsigned char query[DNS_QUERY_MAX];
};

struct proxy_worker {
	int chan;		/* to the supervisor */
	int handover;		/* from pid 1, until it has handed the listeners over */
	int epoll, timer;
	int listeners[2];
	int n_listeners;
	double armed_for;	/* the deadline the timer is set to, or 0 */
	double listen_again_at;	/* accept failed (no fd left): paused until then */
	bool ending;		/* the supervisor has closed the channel */
	struct conn conns[MAX_CONNS];
	int dns;		/* the sandbox's resolver's UDP socket, or -1 */
	struct dns_slot dns_slots[PROXY_DNS_SLOTS];
};

static inline uint64_t tag_of(enum tag t, unsigned index)
{
	return (uint64_t)t << 32 | index;
}

static inline int conn_index(const struct proxy_worker *st, const struct conn *c)
{
	return (int)(c - st->conns);
}

static inline size_t buf_room(const struct relay_buf *b)
{
	return RELAY_BUF - b->end;
}

static inline size_t buf_data(const struct relay_buf *b)
{
	return b->end - b->start;
}

/* Bytes waiting to go out, and whether more may come in. */
static inline size_t relay_pending(const struct relay_buf *b)
{
	return buf_data(b) + b->in_pipe;
}

static inline bool relay_has_room(const struct relay_buf *b)
{
	return b->pipe[0] >= 0 ? !b->pipe_full && b->in_pipe < b->pipe_cap : buf_room(b) > 0;
}

static inline void buf_compact(struct relay_buf *b)
{
	if (b->start == b->end) {
		b->start = b->end = 0;
	} else if (b->start > 0 && b->end == RELAY_BUF) {
		memmove(b->data, b->data + b->start, b->end - b->start);
		b->end -= b->start;
		b->start = 0;
	}
}

/* netproxy_head.c: from the request's first byte to the verdict. */
void netproxy_read_head(struct proxy_worker *w, struct conn *c);
void netproxy_drain_linger(struct proxy_worker *w, struct conn *c);
void netproxy_on_verdict(struct proxy_worker *w, const struct proxy_verdict *v, int server);

/* netproxy_relay.c: the relay, once connected. */
void netproxy_start_relay(struct proxy_worker *w, struct conn *c);
void netproxy_relay(struct proxy_worker *w, struct conn *c);

/* netproxy_conn.c: the epoll set, answers of refusal and failure, a
 * connection's end, and the words to the supervisor. */
void netproxy_conn_reset(struct conn *c);
void netproxy_watch_fixed(struct proxy_worker *w, int fd, uint64_t tag);
void netproxy_update_watch(struct proxy_worker *w, struct conn *c);
void netproxy_conn_close(struct proxy_worker *w, struct conn *c);
bool netproxy_tell(struct proxy_worker *w, const struct conn *c, enum proxy_ask_kind kind,
		   const char *reason);
void netproxy_tell_no_room(struct proxy_worker *w, const char *reason);
void netproxy_refuse(struct proxy_worker *w, struct conn *c, int status, int socks_code,
		     const char *reason);
void netproxy_answer(struct proxy_worker *w, struct conn *c, int status, int socks_code,
		     const char *reason);

/* netproxy_dns.c: the sandbox's resolver, its questions asked of the
 * supervisor and answered. */
void netproxy_dns_read(struct proxy_worker *w);
void netproxy_dns_on_verdict(struct proxy_worker *w, const struct proxy_verdict *v);
void netproxy_dns_expire(struct proxy_worker *w, double now);
double netproxy_dns_next_deadline(const struct proxy_worker *w);

/* netproxy_confine.c: the worker, before it reads a byte, keeping only
 * the fds KEEP: 0, or -1 with errno and *WHAT naming the step that
 * failed. */
int netproxy_confine(const int *keep, int n_keep, const char **what);

#endif
