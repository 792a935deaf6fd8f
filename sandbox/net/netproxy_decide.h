/* The --allow-net proxy's supervisor side: what it keeps of each request
 * the worker asks about (netproxy_chan.h), and the calls its files make
 * of each other (nothing else includes this); each calls only those
 * below it:
 *
 *   netproxy.c         the worker forked, the loop's source, the end at exit
 *   netproxy_decide.c  an ask checked, the rules, the lookup, the connect, the verdict
 *   netproxy_report.c  the --report lines and the summary at exit */
#ifndef HUTCH_NETPROXY_DECIDE_H
#define HUTCH_NETPROXY_DECIDE_H

#include <stdbool.h>
#include <stdint.h>

#include "netproxy_chan.h"
#include "netresolve.h"
#include "plan/plan.h"

struct sandbox;

#define UPSTREAM_SECONDS 10.0	/* from the request to a connected server */
#define MAX_OWN 64		/* this host's addresses considered */

enum sup_tag { STAG_CHAN, STAG_SERVER, STAG_RESOLVER, STAG_REAP, STAG_TIMER, STAG_WORKER,
	       STAG_DNS };

#define DNS_GRANTS 256		/* names' addresses the sandbox's resolver gave, kept */

enum decision_phase {
	D_FREE,
	D_RESOLVING,	/* a lookup child runs */
	D_CONNECTING,	/* a non-blocking connect runs */
	D_OPEN,		/* the socket is the worker's: until it says ASK_CLOSED */
};

/* One request the worker asked about, by its id. */
struct decision {
	enum decision_phase phase;
	enum net_proto proto;
	char host[NET_NAME_MAX + 2];
	int port;
	const struct net_rule *rule;
	struct net_addr addrs[NET_MAX_ADDRS];
	int n_addrs, next_addr;
	char connect_error[128];	/* the last address's failure */
	int server;
	bool server_watched;
	int lookup_fd, lookup_pidfd;
	double started, deadline;
};

/* A question of the sandbox's resolver (ASK_DNS), by its slot. */
struct dns_pending {
	bool busy;
	char host[NET_NAME_MAX + 2];
	int family;
	const struct net_rule *rule;
	int lookup_fd, lookup_pidfd;
	double deadline;
};

/* An address the sandbox's resolver gave for NAME, until EXPIRY
 * (monotonic): a plain connect to it is matched against the rules as
 * NAME (netconnect.c). */
struct dns_grant {
	char name[NET_NAME_MAX + 2];	/* "": a free entry */
	struct net_addr addr;
	double expiry;
};

struct proxy_record;

struct netproxy_state {
	/* netproxy_report.c's netproxy_report_line, for the connect broker's
	 * lines (netconnect.c), which cannot call it: report.c calls the
	 * broker, and netproxy_report.c calls report.c. */
	void (*report_line)(struct sandbox *sb, const struct proxy_record *r,
			    const char *verdict, const char *reason, bool count);
	int handover[2];	/* [0] the worker's, [1] pid 1's: the listeners */
	int diag_pass[2];	/* [1] pid 1's: its NETLINK_SOCK_DIAG socket */
	int diag;		/* that socket once taken (netconnect.c), or -1 */
	int chan;		/* the supervisor's end of the channel */
	int worker_pidfd;
	int epoll, timer;
	double armed_for;	/* the deadline the timer is set to, or 0 */
	bool worker_gone;
	struct decision d[PROXY_MAX_CONNS];
	int reap[2 * PROXY_MAX_CONNS];	/* pidfds of lookups killed, still to reap */
	unsigned long long refused, lines_dropped;
	char *first;		/* "HOST:PORT" or the reason of the first refusal */
	struct dns_pending dns[PROXY_DNS_SLOTS];
	struct dns_grant grants[DNS_GRANTS];
};

static inline uint64_t stag_of(enum sup_tag t, unsigned index)
{
	return (uint64_t)t << 32 | index;
}

/* netproxy_decide.c */
void netproxy_decision_reset(struct decision *d);
void netproxy_on_ask(struct sandbox *sb, const struct proxy_ask *ask);
void netproxy_on_lookup(struct sandbox *sb, int id);
void netproxy_on_connected(struct sandbox *sb, int id);
void netproxy_on_deadline(struct sandbox *sb, int id);
void netproxy_on_reap(struct netproxy_state *st, int i);
void netproxy_drop_decision(struct sandbox *sb, int id);
/* A lookup nobody waits for any more: killed, reaped now or later. */
void netproxy_abandon_lookup(struct netproxy_state *st, int *lookup_fd, int *lookup_pidfd);

/* netdns.c: the sandbox's resolver's questions, and what they granted. */
void netdns_reset(struct dns_pending *q);
void netdns_on_ask(struct sandbox *sb, const struct proxy_ask *ask);
void netdns_on_lookup(struct sandbox *sb, int slot);
void netdns_on_deadline(struct sandbox *sb, int slot);
void netdns_drop(struct sandbox *sb, int slot);

/* netproxy_report.c: a connection's line, whoever decided. */
struct proxy_record {
	enum net_proto proto;
	const char *host;	/* NULL: no request was read */
	int port;
	const struct net_rule *rule;
	const struct net_addr *address;	/* the one connected, or NULL */
	unsigned long long bytes_out, bytes_in;
	bool bytes_unknown;	/* a plain connect: the bytes go kernel to kernel */
	double seconds;
};
void netproxy_report(struct sandbox *sb, const struct proxy_record *r, const char *verdict,
		     const char *reason);
void netproxy_count_refusal(struct netproxy_state *st, const struct proxy_record *r,
			    const char *reason);
/* netproxy_report, and with COUNT the refusal counted. */
void netproxy_report_line(struct sandbox *sb, const struct proxy_record *r, const char *verdict,
			  const char *reason, bool count);
void netproxy_write_dropped_line(struct sandbox *sb);
void netproxy_print_summary(struct sandbox *sb);

#endif
