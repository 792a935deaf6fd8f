/* The addresses the sandbox's resolver gave (netgrant.c). */
#ifndef HUTCH_NETGRANT_H
#define HUTCH_NETGRANT_H

#include "netproxy_decide.h"

/* NAME -> ADDR kept until NET_DNS_TTL from now: the same pair renewed,
 * else a free or expired entry, else the one that expires first. */
void netgrant_add(struct netproxy_state *st, const char *name, const struct net_addr *addr);
/* The name whose current answer gave ADDR and whose rule allows PORT,
 * with that rule in *RULE; NULL if none. */
const char *netgrant_find(const struct sandbox *sb, const struct net_addr *addr, int port,
			  const struct net_rule **rule);

#endif
