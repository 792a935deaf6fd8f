/* The sandbox's resolver's parser: the input is a DNS query as a client
 * in the sandbox sends it (dnsmsg.c).  It must never read past the bytes
 * given (ASan), and what it accepts must hold: a question that ends
 * inside the query, a name the supervisor's check takes (the worker's
 * ask about it passes netproxy_ask_valid), and a reply, with the most
 * addresses the supervisor gives, that fits its buffer and echoes the
 * query's id. */
#include "fuzz.h"

#include <sys/socket.h>

#include "net/dnsmsg.h"
#include "net/netproxy_chan.h"

static void must_ask(const struct dns_question *q)
{
	struct proxy_ask a = { .kind = ASK_DNS, .qtype = q->qtype };

	snprintf(a.host, sizeof(a.host), "%s", q->name);
	if (!netproxy_ask_valid(&a))
		abort();
}

static void must_reply(const uint8_t *data, size_t qend, int rcode, int family)
{
	struct net_addr addrs[NET_MAX_ADDRS];
	unsigned char out[DNS_REPLY_MAX];
	size_t n;

	memset(addrs, 0x5a, sizeof(addrs));
	for (int i = 0; i < NET_MAX_ADDRS; i++)
		addrs[i].family = family;
	n = dnsmsg_reply_build(data, qend, rcode, addrs, NET_MAX_ADDRS, NET_DNS_TTL, out, sizeof(out));
	if (n < DNS_HEADER || n > sizeof(out) || memcmp(out, data, 2) != 0 || !(out[2] & 0x80))
		abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct dns_question q;
	int rcode;

	if (size > 2 * DNS_QUERY_MAX)
		return -1;
	rcode = dnsmsg_query_read(data, size, &q);
	if (rcode < 0)
		return 0;
	if (q.end > size || (rcode == DNS_NOERROR && q.end == 0))
		abort();
	if (rcode == DNS_NOERROR) {
		must_ask(&q);
		must_reply(data, q.end, DNS_NOERROR, q.qtype == DNS_TYPE_A ? AF_INET : AF_INET6);
	} else {
		must_reply(data, q.end, rcode, AF_INET);
	}
	return 0;
}
