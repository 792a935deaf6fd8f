/* The sandbox's resolver's messages: a DNS query read, a reply built.
 * Pure: no system call, so that the unit tests and the fuzzer drive it
 * alone.  Only the --allow-net proxy's worker, confined, calls it: the
 * bytes are the sandbox's (see netproxy_dns.c). */
#ifndef HUTCH_DNSMSG_H
#define HUTCH_DNSMSG_H

#include <stddef.h>
#include <stdint.h>

#include "plan/plan.h"

#define DNS_HEADER 12
#define DNS_QUERY_MAX 512	/* a query over UDP without EDNS; a longer one is refused */
#define DNS_REPLY_MAX 512	/* NET_MAX_ADDRS answers fit, with the longest name */
#define DNS_TYPE_A 1
#define DNS_TYPE_AAAA 28
#define DNS_CLASS_IN 1

enum dns_rcode {
	DNS_NOERROR = 0,
	DNS_FORMERR = 1,
	DNS_SERVFAIL = 2,
	DNS_NXDOMAIN = 3,
	DNS_NOTIMP = 4,
	DNS_REFUSED = 5,
};

struct dns_question {
	char name[NET_NAME_MAX + 2];	/* lowercase, no trailing dot */
	uint16_t qtype;
	size_t end;			/* the question's end in the query */
};

/* Read QUERY (LEN bytes): -1 when it is not even a query's header (to be
 * dropped unanswered), else an rcode: DNS_NOERROR with Q filled for one
 * question of type A or AAAA, class IN, with a valid name; else why not
 * (Q->end then 0 when the question itself could not be read). */
int dnsmsg_query_read(const unsigned char *query, size_t len, struct dns_question *q);

/* The reply to QUERY (whose question ends at QEND, or 0: none echoed)
 * with RCODE and the N addresses ADDRS (of the question's type), each
 * with TTL seconds, in OUT (CAP bytes): its length, or 0 when it does
 * not fit. */
size_t dnsmsg_reply_build(const unsigned char *query, size_t qend, int rcode,
			  const struct net_addr *addrs, int n, uint32_t ttl,
			  unsigned char *out, size_t cap);

#endif
