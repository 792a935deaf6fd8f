/* The --allow-net proxy's insides, shared by its files (nothing else
 * includes this): one connection's state and its two bounded buffers,
 * the proxy's state, the limits that bound every one of them, and the
 * calls the files make of each other.  Each file calls only those below
 * it (no cycle):
 *
 *   netproxy.c         the event loop: listeners, accepting, deadlines, dispatch
 *   netproxy_decide.c  the request head, the rules, the lookup, the connect
 *   netproxy_relay.c   the bytes relayed once a server is connected
 *   netproxy_conn.c    a connection's epoll events, its answer, its end
 *   netproxy_report.c  the --report lines and the summary at exit */
#ifndef HUTCH_NETPROXY_CONN_H
#define HUTCH_NETPROXY_CONN_H

#include <stdbool.h>
#include <stdint.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "netrequest.h"
#include "netresolve.h"
#include "netrule.h"
#include "process.h"

struct sandbox;

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

static inline uint64_t tag_of(enum tag t, unsigned index)
{
	return (uint64_t)t << 32 | index;
}

static inline int conn_index(const struct netproxy_state *st, const struct conn *c)
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

/* netproxy_decide.c: from the request's first byte to a connected server. */
void proxy_read_head(struct sandbox *sb, struct conn *c);
void proxy_drain_linger(struct sandbox *sb, struct conn *c);
void proxy_on_lookup(struct sandbox *sb, struct conn *c);
void proxy_on_connected(struct sandbox *sb, struct conn *c);

/* netproxy_relay.c: the relay, once connected. */
void proxy_start_relay(struct sandbox *sb, struct conn *c);
void proxy_relay(struct sandbox *sb, struct conn *c);

/* netproxy_conn.c: the epoll set, answers of refusal and failure, a
 * connection's end. */
void proxy_conn_reset(struct conn *c);
void proxy_watch(struct netproxy_state *st, int fd, uint64_t tag, uint32_t want,
		 uint32_t *have);
void proxy_watch_fixed(struct netproxy_state *st, int fd, uint64_t tag);
void proxy_update_watch(struct netproxy_state *st, struct conn *c);
void proxy_abandon_lookup(struct netproxy_state *st, struct conn *c);
void proxy_conn_close(struct sandbox *sb, struct conn *c);
void proxy_refuse(struct sandbox *sb, struct conn *c, int status, int socks_code,
		  const char *reason);
void proxy_fail_upstream(struct sandbox *sb, struct conn *c, int status, int socks_code,
			 const char *reason);

/* netproxy_report.c: report lines, the summary at exit. */
void proxy_report_conn(struct sandbox *sb, const struct conn *c, const char *verdict,
		       const char *reason);
void proxy_count_refusal(struct netproxy_state *st, const struct conn *c, const char *reason);
void proxy_write_dropped_line(struct sandbox *sb);
void proxy_print_summary(struct sandbox *sb);

#endif
