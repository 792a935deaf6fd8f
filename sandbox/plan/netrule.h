/* --allow-net rules: parsing, matching a request against them, and the
 * classes of addresses a name must never reach.  Pure: no system call,
 * so that the unit tests and the fuzzer drive it alone. */
#ifndef HUTCH_NETRULE_H
#define HUTCH_NETRULE_H

#include <stdbool.h>
#include <stddef.h>

#define NET_DEFAULT_PORT 443
#define NET_ANY_PORT 0		/* a rule's port: any */
#define NET_NAME_MAX 253	/* a DNS name, without the trailing dot */
/* The proxy's port, on 127.0.0.1 and ::1 inside the sandbox: fixed, so
 * that the plan (and --explain) can name it before anything runs; the
 * sandbox's network namespace is new, so nothing else holds it. */
#define NET_PROXY_PORT 3128
/* Seconds an answer of the sandbox's resolver (127.0.0.1:53 inside)
 * holds, for the client and for the connects it allows: fixed, since
 * the lookup on the host (getent) gives no TTL. */
#define NET_DNS_TTL 60

/* An IPv4 address is kept as itself, never as ::ffff:a.b.c.d, so that
 * one comparison covers both spellings. */
struct net_addr {
	int family;		/* AF_INET or AF_INET6 */
	unsigned char bytes[16];
};

enum net_host_kind {
	NET_HOST_NAME,		/* a DNS name: that name only */
	NET_HOST_WILDCARD,	/* *.suffix: names below suffix; "*": any name */
	NET_HOST_ADDR,		/* an address, or a CIDR block */
};

struct net_rule {
	enum net_host_kind kind;
	char *name;		/* NAME: the name; WILDCARD: the suffix ("" for "*") */
	struct net_addr addr;	/* ADDR */
	int prefix;		/* ADDR: bits of addr that count (32 or 128: one address) */
	int port;		/* 1 to 65535, or NET_ANY_PORT */
	char *text;		/* as given, for messages */
	char *origin;		/* "command line" or FILE:LINE */
};

/* Parse TEXT ("HOST[:PORT]") into RULE.  0, or -1 with a reason in ERR
 * (which does not repeat TEXT). */
int netrule_parse(const char *text, const char *origin, struct net_rule *rule,
		  char *err, size_t errlen);
void netrule_free_all(struct net_rule *rules, size_t n);

/* Parse a literal address (IPv6 without brackets); 0 or -1.  An
 * IPv4-mapped IPv6 address becomes the IPv4 address. */
int netrule_addr_parse(const char *text, struct net_addr *addr);
/* ADDR as text ("192.0.2.1", "2001:db8::1"), no brackets. */
void netrule_addr_format(const struct net_addr *addr, char *buf, size_t len);
bool netrule_addr_equal(const struct net_addr *a, const struct net_addr *b);

/* Why a name must not lead to ADDR ("loopback", "link-local", "cloud
 * metadata", ...), or NULL when it is an ordinary unicast address. */
const char *netrule_addr_special(const struct net_addr *addr);

/* Is HOST a syntactically valid DNS name (letters, digits, '-', '_',
 * dots; labels of 1 to 63; at most NET_NAME_MAX)?  A trailing dot is
 * allowed. */
bool netrule_name_valid(const char *host);

/* The first rule allowing a request for HOST (a name, lowercase, or a
 * literal address) and PORT, or NULL.  A name is matched by name and
 * wildcard rules, a literal address by address rules only. */
const struct net_rule *netrule_match(const struct net_rule *rules, size_t n,
				     const char *host, int port);

/* The first rule by name or wildcard allowing HOST (a name, lowercase)
 * on some port, or NULL: what the sandbox's resolver may answer. */
const struct net_rule *netrule_match_name(const struct net_rule *rules, size_t n,
					  const char *host);

/* May a connection that RULE allowed go to ADDR?  VIA_DNS: ADDR came
 * from resolving a name.  OWN lists this host's own addresses.  NULL if
 * it may, else why not (for the refusal's message, after the address
 * and its class). */
const char *netrule_addr_refusal(const struct net_rule *rule, const struct net_addr *addr,
				 bool via_dns, const struct net_addr *own, size_t n_own);

/* Is RULE the name "localhost" itself, which reaches the loopback
 * addresses without asking DNS? */
bool netrule_is_localhost(const struct net_rule *rule);

#endif
