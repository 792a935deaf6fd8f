/* What the sandbox's resolver granted (netdns.c): each address it gave
 * for an allowed name, until NET_DNS_TTL after the answer.  The plain
 * connect() of an address (netconnect.c) is matched against it.  A
 * table of its own, below both: the resolver adds, the connect broker
 * looks up, and neither needs the other. */
#define _GNU_SOURCE
#include <stdio.h>
#include <string.h>

#include "netgrant.h"
#include "plan/plan.h"
#include "lib/lib.h"
#include "sandbox.h"

/* NAME -> ADDR kept until NET_DNS_TTL from now: the same pair renewed,
 * else a free or expired entry, else the one that expires first. */
void netgrant_add(struct netproxy_state *st, const char *name, const struct net_addr *addr)
{
	double now = monotonic_now();
	struct dns_grant *g = &st->grants[0];

	for (int i = 0; i < DNS_GRANTS; i++) {
		struct dns_grant *e = &st->grants[i];

		if (e->name[0] && strcmp(e->name, name) == 0 && netrule_addr_equal(&e->addr, addr)) {
			g = e;
			break;
		}
		if (!e->name[0] || e->expiry < g->expiry)
			g = e;
	}
	snprintf(g->name, sizeof(g->name), "%s", name);
	g->addr = *addr;
	g->expiry = now + NET_DNS_TTL;
}

const char *netgrant_find(const struct sandbox *sb, const struct net_addr *addr, int port,
			   const struct net_rule **rule)
{
	const struct plan *plan = sb->plan;
	double now = monotonic_now();

	*rule = NULL;
	if (!sb->net)
		return NULL;
	for (int i = 0; i < DNS_GRANTS; i++) {
		const struct dns_grant *g = &sb->net->grants[i];

		if (!g->name[0] || g->expiry <= now || !netrule_addr_equal(&g->addr, addr))
			continue;
		*rule = netrule_match(plan->net_rules, plan->n_net_rules, g->name, port);
		if (*rule)
			return g->name;
	}
	return NULL;
}
