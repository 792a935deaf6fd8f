/* The channel's one check: an ask from the worker within its bounds
 * before the supervisor uses any of its fields.  What it defends
 * against: a worker taken over by the bytes it parses, which may write
 * anything into an ask; the supervisor must not then read past a
 * string, index past its table, or match, resolve or report a host that
 * the parsers could not have produced. */
#define _GNU_SOURCE
#include <string.h>

#include "netproxy_chan.h"
#include "dnsmsg.h"
#include "plan/plan.h"

static bool terminated(const char *s, size_t size)
{
	return memchr(s, '\0', size) != NULL;
}

static bool printable(const char *s)
{
	for (; *s; s++)
		if (*s < 0x20 || *s > 0x7e)
			return false;
	return true;
}

static bool host_valid(const char *host)
{
	struct net_addr addr;

	for (const char *c = host; *c; c++)
		if (*c >= 'A' && *c <= 'Z')
			return false;	/* the parsers give lowercase */
	return netrule_addr_parse(host, &addr) == 0 || netrule_name_valid(host);
}

/* Both strings, whatever the kind: a later reader of any ask (a report,
 * a log) must never run past one. */
static bool strings_valid(const struct proxy_ask *ask)
{
	return terminated(ask->host, sizeof(ask->host)) &&
	       terminated(ask->reason, sizeof(ask->reason)) && printable(ask->reason);
}

bool netproxy_ask_valid(const struct proxy_ask *ask)
{
	if (!strings_valid(ask))
		return false;
	if (ask->kind == ASK_DNS)
		return ask->id < PROXY_DNS_SLOTS && ask->port == 0 &&
		       (ask->qtype == DNS_TYPE_A || ask->qtype == DNS_TYPE_AAAA) &&
		       host_valid(ask->host) &&
		       netrule_addr_parse(ask->host, &(struct net_addr){ 0 }) < 0;
	if (ask->kind < ASK_CONNECT || ask->kind > ASK_CLOSED || ask->id >= PROXY_MAX_CONNS ||
	    ask->proto > NET_PROTO_SOCKS5 || ask->port > 65535)
		return false;
	if (ask->port == 0)
		return ask->host[0] == '\0' && ask->kind != ASK_CONNECT;
	return host_valid(ask->host);
}
