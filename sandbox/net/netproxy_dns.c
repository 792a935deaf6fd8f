/* The sandbox's resolver, in the --allow-net proxy's worker: a UDP
 * socket on 127.0.0.1:53 of the sandbox's network namespace (pid 1's,
 * handed over with the listeners), named by the sandbox's
 * /etc/resolv.conf.  Each query is read here (dnsmsg.c), never in the
 * supervisor, which is asked only a name and a type (ASK_DNS) and
 * answers the addresses it allows (netdns.c); the reply is built here.
 * What it defends against, and how:
 *  - a flood of queries: at most PROXY_DNS_SLOTS questions wait for the
 *    supervisor, the rest are answered SERVFAIL at once; at most
 *    QUERIES_PER_WAKEUP are read per wakeup;
 *  - a query that is no question of ours (a response, another opcode,
 *    class or type, several questions, a bad name): answered FORMERR,
 *    NOTIMP or REFUSED without asking the supervisor, or dropped when
 *    not even its header is there;
 *  - a question the supervisor never answers: its slot is freed after
 *    DNS_SECONDS. */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>

#include "netproxy_conn.h"

#define QUERIES_PER_WAKEUP 16

static void reply(struct proxy_worker *w, const unsigned char *query, size_t qend, int rcode,
		  const struct net_addr *addrs, int n, const struct sockaddr_storage *to,
		  socklen_t to_len)
{
	unsigned char out[DNS_REPLY_MAX];
	size_t len = dnsmsg_reply_build(query, qend, rcode, addrs, n, NET_DNS_TTL, out,
					sizeof(out));

	if (len > 0)
		(void)sendto(w->dns, out, len, MSG_DONTWAIT | MSG_NOSIGNAL,
			     (const struct sockaddr *)to, to_len);
}

static int free_slot(const struct proxy_worker *w)
{
	for (int i = 0; i < PROXY_DNS_SLOTS; i++)
		if (!w->dns_slots[i].busy)
			return i;
	return -1;
}

/* Ask the supervisor about Q, for the query in slot I. */
static void ask(struct proxy_worker *w, int i, const struct dns_question *q)
{
	struct proxy_ask a = { .kind = ASK_DNS, .id = (uint32_t)i, .qtype = q->qtype };

	snprintf(a.host, sizeof(a.host), "%s", q->name);
	if (send(w->chan, &a, sizeof(a), MSG_NOSIGNAL) != (ssize_t)sizeof(a))
		return;	/* the slot expires; the client asks again */
	w->dns_slots[i].busy = true;
	w->dns_slots[i].deadline = monotonic_now() + DNS_SECONDS;
}

static void on_query(struct proxy_worker *w, unsigned char *query, size_t len,
		     const struct sockaddr_storage *from, socklen_t from_len)
{
	struct dns_question q;
	int rcode = dnsmsg_query_read(query, len, &q), i;
	struct dns_slot *s;

	if (rcode < 0)
		return;
	if (rcode != DNS_NOERROR) {
		reply(w, query, q.end, rcode, NULL, 0, from, from_len);
		return;
	}
	i = free_slot(w);
	if (i < 0) {
		reply(w, query, q.end, DNS_SERVFAIL, NULL, 0, from, from_len);
		return;
	}
	s = &w->dns_slots[i];
	memcpy(s->query, query, q.end);
	s->qend = q.end;
	s->from = *from;
	s->from_len = from_len;
	ask(w, i, &q);
}

void netproxy_dns_read(struct proxy_worker *w)
{
	for (int i = 0; i < QUERIES_PER_WAKEUP; i++) {
		unsigned char query[DNS_QUERY_MAX + 1];
		struct sockaddr_storage from;
		socklen_t from_len = sizeof(from);
		ssize_t n = recvfrom(w->dns, query, sizeof(query), MSG_DONTWAIT,
				     (struct sockaddr *)&from, &from_len);

		if (n < 0)
			return;
		on_query(w, query, (size_t)n, &from, from_len);
	}
}

void netproxy_dns_on_verdict(struct proxy_worker *w, const struct proxy_verdict *v)
{
	struct dns_slot *s;
	int n = v->n_addrs;

	if (v->id >= PROXY_DNS_SLOTS || !w->dns_slots[v->id].busy)
		return;
	s = &w->dns_slots[v->id];
	if (n < 0 || n > NET_MAX_ADDRS || v->rcode != DNS_NOERROR)
		n = 0;
	reply(w, s->query, s->qend, v->rcode & 0x0f, v->addrs, n, &s->from, s->from_len);
	s->busy = false;
}

void netproxy_dns_expire(struct proxy_worker *w, double now)
{
	for (int i = 0; i < PROXY_DNS_SLOTS; i++)
		if (w->dns_slots[i].busy && w->dns_slots[i].deadline <= now)
			w->dns_slots[i].busy = false;
}

double netproxy_dns_next_deadline(const struct proxy_worker *w)
{
	double next = 0;

	for (int i = 0; i < PROXY_DNS_SLOTS; i++)
		if (w->dns_slots[i].busy && (next == 0 || w->dns_slots[i].deadline < next))
			next = w->dns_slots[i].deadline;
	return next;
}
