/* The sandbox's resolver, the supervisor's side: a question (a name and
 * a family, ASK_DNS, checked by netproxy_ask_valid) answered with the
 * addresses a rule lets that name reach, and each address given kept
 * for NET_DNS_TTL seconds, so that a plain connect() to it is matched
 * as the name (netconnect.c).  The worker reads and writes the DNS
 * bytes (netproxy_dns.c); none reaches here.  What it defends against:
 *  - a sandbox learning or reaching names no rule allows: such a name is
 *    never resolved, and answered NXDOMAIN;
 *  - a name whose answer changes to reach the host (DNS rebinding): every
 *    answer is checked as the proxy checks one (netrule_addr_refusal: a name
 *    never reaches a loopback, link-local, metadata or own address), and
 *    a connect is allowed only to an address a current answer gave;
 *  - a lookup that hangs: UPSTREAM_SECONDS, then SERVFAIL;
 *  - a flood of names: the table of grants is bounded, the oldest entry
 *    is replaced first. */
#define _GNU_SOURCE
#include <errno.h>
#include <netinet/in.h>
#include <stdio.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>

#include "dnsmsg.h"
#include "netgrant.h"
#include "netproxy_decide.h"
#include "plan/plan.h"
#include "sandbox.h"
#include "learn/learn.h"
#include "lib/lib.h"

void netdns_reset(struct dns_pending *q)
{
	memset(q, 0, sizeof(*q));
	q->lookup_fd = q->lookup_pidfd = -1;
}

void netdns_drop(struct sandbox *sb, int slot)
{
	struct dns_pending *q = &sb->net->dns[slot];

	netproxy_abandon_lookup(sb->net, &q->lookup_fd, &q->lookup_pidfd);
	netdns_reset(q);
}

/* The answer to SLOT to the worker; never waits. */
static void answer(struct sandbox *sb, int slot, int rcode, const struct net_addr *addrs, int n)
{
	struct proxy_verdict v = { .kind = VERDICT_DNS, .id = (uint32_t)slot, .rcode = rcode,
				   .n_addrs = n };

	if (n > 0)
		memcpy(v.addrs, addrs, (size_t)n * sizeof(addrs[0]));
	(void)send(sb->net->chan, &v, sizeof(v), MSG_NOSIGNAL | MSG_DONTWAIT);
	netdns_drop(sb, slot);
}

/* Of CANDIDATES, those of the question's family that its rule lets a
 * name reach, granted and answered. */
static void answer_checked(struct sandbox *sb, int slot, const struct net_addr *candidates,
			   int n)
{
	struct dns_pending *q = &sb->net->dns[slot];
	struct net_addr own[MAX_OWN], kept[NET_MAX_ADDRS];
	size_t n_own = net_own_addresses(own, MAX_OWN);
	int n_kept = 0;

	for (int i = 0; i < n && n_kept < NET_MAX_ADDRS; i++) {
		if (candidates[i].family != q->family ||
		    netrule_addr_refusal(q->rule, &candidates[i], true, own, n_own))
			continue;
		netgrant_add(sb->net, q->host, &candidates[i]);
		kept[n_kept++] = candidates[i];
	}
	answer(sb, slot, DNS_NOERROR, kept, n_kept);
}

/* "localhost" is loopback itself, as in the proxy; nothing granted: a
 * connect to loopback goes by the rule "localhost" (netconnect.c). */
static void answer_localhost(struct sandbox *sb, int slot)
{
	struct net_addr a;

	netrule_addr_parse(sb->net->dns[slot].family == AF_INET ? "127.0.0.1" : "::1", &a);
	answer(sb, slot, DNS_NOERROR, &a, 1);
}

void netdns_on_ask(struct sandbox *sb, const struct proxy_ask *ask)
{
	const struct plan *plan = sb->plan;
	struct dns_pending *q = &sb->net->dns[ask->id];

	if (q->busy)
		return;	/* not how a sound worker asks: ignored */
	q->busy = true;
	memcpy(q->host, ask->host, sizeof(q->host));
	q->family = ask->qtype == DNS_TYPE_A ? AF_INET : AF_INET6;
	q->rule = netrule_match_name(plan->net_rules, plan->n_net_rules, q->host);
	if (!q->rule) {
		learn_refused_net(sb, q->host, 0);
		answer(sb, (int)ask->id, DNS_NXDOMAIN, NULL, 0);
	} else if (netrule_is_localhost(q->rule)) {
		answer_localhost(sb, (int)ask->id);
	} else if (net_lookup_start(q->host, &q->lookup_fd, &q->lookup_pidfd) < 0) {
		answer(sb, (int)ask->id, DNS_SERVFAIL, NULL, 0);
	} else {
		struct epoll_event ev = { .events = EPOLLIN,
					  .data.u64 = stag_of(STAG_DNS, ask->id) };

		q->deadline = monotonic_now() + UPSTREAM_SECONDS;
		(void)epoll_ctl(sb->net->epoll, EPOLL_CTL_ADD, q->lookup_fd, &ev);
	}
}

void netdns_on_lookup(struct sandbox *sb, int slot)
{
	struct dns_pending *q = &sb->net->dns[slot];
	struct net_answer ans;
	int r;

	if (!q->busy || q->lookup_fd < 0)
		return;
	r = net_lookup_read(q->lookup_fd, &ans);
	if (r == 0)
		return;
	netproxy_abandon_lookup(sb->net, &q->lookup_fd, &q->lookup_pidfd);
	if (r < 0 || ans.n == 0)
		answer(sb, slot, DNS_NXDOMAIN, NULL, 0);
	else
		answer_checked(sb, slot, ans.addrs, ans.n);
}

void netdns_on_deadline(struct sandbox *sb, int slot)
{
	struct dns_pending *q = &sb->net->dns[slot];

	if (q->busy && q->deadline > 0 && q->deadline <= monotonic_now())
		answer(sb, slot, DNS_SERVFAIL, NULL, 0);
}

