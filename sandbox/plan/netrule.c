/* --allow-net rules: HOST[:PORT] with HOST a name, *.suffix, "*", an
 * address or a CIDR block, and what a connection allowed by one may
 * reach.  The proxy (netproxy.c) asks here; nothing here touches the
 * system, and inet_pton/inet_ntop are only text conversions. */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <ctype.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "netrule.h"
#include "lib/lib.h"

static size_t addr_len(int family)
{
	return family == AF_INET ? 4 : 16;
}

static const unsigned char v4_mapped[12] = { 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff };

int netrule_addr_parse(const char *text, struct net_addr *addr)
{
	memset(addr, 0, sizeof(*addr));
	if (inet_pton(AF_INET, text, addr->bytes) == 1) {
		addr->family = AF_INET;
		return 0;
	}
	if (inet_pton(AF_INET6, text, addr->bytes) != 1)
		return -1;
	addr->family = AF_INET6;
	/* ::ffff:127.0.0.1 is 127.0.0.1: one spelling for every check. */
	if (memcmp(addr->bytes, v4_mapped, sizeof(v4_mapped)) == 0) {
		memmove(addr->bytes, addr->bytes + 12, 4);
		memset(addr->bytes + 4, 0, 12);
		addr->family = AF_INET;
	}
	return 0;
}

void netrule_addr_format(const struct net_addr *addr, char *buf, size_t len)
{
	if (!inet_ntop(addr->family, addr->bytes, buf, (socklen_t)len))
		snprintf(buf, len, "?");
}

bool netrule_addr_equal(const struct net_addr *a, const struct net_addr *b)
{
	return a->family == b->family && memcmp(a->bytes, b->bytes, addr_len(a->family)) == 0;
}

/* Do the first BITS bits of A and B agree? */
static bool prefix_match(const unsigned char *a, const unsigned char *b, int bits)
{
	int whole = bits / 8, rest = bits % 8;
	unsigned char mask = (unsigned char)(0xff << (8 - rest));

	if (memcmp(a, b, (size_t)whole) != 0)
		return false;
	return rest == 0 || ((a[whole] ^ b[whole]) & mask) == 0;
}

/* Addresses that lead into this host, its link or a cloud's metadata
 * service rather than to a server, by class: CIDR blocks, the most
 * specific class first. */
static const struct {
	const char *why;
	const char *blocks;
} special_classes[] = {
	{ "cloud metadata", "169.254.169.254/32 100.100.100.200/32 fd00:ec2::254/128" },
	{ "unspecified (this host)", "0.0.0.0/8 ::/128" },
	{ "loopback", "127.0.0.0/8 ::1/128" },
	{ "link-local", "169.254.0.0/16 fe80::/10" },
	{ "multicast", "224.0.0.0/4 ff00::/8" },
	{ "broadcast", "255.255.255.255/32" },
};

/* Is ADDR in the block CIDR ("a.b.c.d/bits", LEN bytes)? */
static bool in_block(const struct net_addr *addr, const char *cidr, size_t len)
{
	char text[64];
	const char *slash = memchr(cidr, '/', len);
	struct net_addr base;

	if (!slash || (size_t)(slash - cidr) >= sizeof(text))
		return false;
	memcpy(text, cidr, (size_t)(slash - cidr));
	text[slash - cidr] = '\0';
	return netrule_addr_parse(text, &base) == 0 && base.family == addr->family &&
	       prefix_match(addr->bytes, base.bytes, atoi(slash + 1));
}

const char *netrule_addr_special(const struct net_addr *addr)
{
	for (size_t i = 0; i < sizeof(special_classes) / sizeof(special_classes[0]); i++) {
		const char *b = special_classes[i].blocks;

		while (*b) {
			size_t len = strcspn(b, " ");

			if (in_block(addr, b, len))
				return special_classes[i].why;
			b += len + strspn(b + len, " ");
		}
	}
	return NULL;
}

bool netrule_name_valid(const char *host)
{
	size_t len = strlen(host), label = 0;

	if (len > 0 && host[len - 1] == '.')
		len--;
	if (len == 0 || len > NET_NAME_MAX)
		return false;
	for (size_t i = 0; i < len; i++) {
		unsigned char c = (unsigned char)host[i];

		if (c == '.') {
			if (label == 0)
				return false;
			label = 0;
			continue;
		}
		if (!isalnum(c) && c != '-' && c != '_')
			return false;
		if (++label > 63)
			return false;
	}
	return label > 0;
}

/* ---- parsing ---- */

static int rule_fail(char *err, size_t errlen, const char *why)
{
	snprintf(err, errlen, "%s", why);
	return -1;
}

/* PORT: 1 to 65535 or "*". */
static int parse_port(const char *s, int *port)
{
	long long v;

	if (strcmp(s, "*") == 0) {
		*port = NET_ANY_PORT;
		return 0;
	}
	v = parse_uint(s, 65535);
	if (v < 1)
		return -1;
	*port = (int)v;
	return 0;
}

/* "[v6]/N...": the prefix into the brackets, "[v6/N]...", in place.
 * CLOSE is the ']'; returns where it is now. */
static char *prefix_into_brackets(char *close)
{
	size_t n = strcspn(close + 1, ":");

	memmove(close, close + 1, n);
	close[n] = ']';
	return close + n;
}

/* Split TEXT into HOST and PORT text: "[v6]:port", "[v6]", "[v6/N]:port"
 * (or "[v6]/N:port"), "host:port", "host", and a bare IPv6 address or
 * CIDR (more than one colon). */
static int split_host_port(char *text, char **host, char **port)
{
	char *colon;

	*port = NULL;
	if (text[0] == '[') {
		char *close = strchr(text, ']');

		if (close && close[1] == '/')
			close = prefix_into_brackets(close);
		if (!close || (close[1] && close[1] != ':'))
			return -1;
		*close = '\0';
		*host = text + 1;
		if (close[1] == ':')
			*port = close + 2;
		return 0;
	}
	*host = text;
	colon = strchr(text, ':');
	if (colon && !strchr(colon + 1, ':')) {
		*colon = '\0';
		*port = colon + 1;
	}
	return 0;
}

static int parse_cidr(const char *host, struct net_rule *rule, char *err, size_t errlen)
{
	char *addr = xstrdup(host);
	char *slash = strchr(addr, '/');
	long long bits = -1;
	int r = -1;

	if (slash) {
		*slash = '\0';
		bits = parse_uint(slash + 1, 128);
	}
	if (netrule_addr_parse(addr, &rule->addr) < 0) {
		free(addr);
		return rule_fail(err, errlen, "not an address or CIDR block");
	}
	if (!slash)
		bits = (long long)addr_len(rule->addr.family) * 8;
	if (bits >= 0 && bits <= (long long)addr_len(rule->addr.family) * 8) {
		rule->prefix = (int)bits;
		rule->kind = NET_HOST_ADDR;
		r = 0;
	}
	free(addr);
	return r == 0 ? 0 : rule_fail(err, errlen, "a CIDR prefix is a number of bits, at most 32 (IPv4) or 128 (IPv6)");
}

static void lowercase(char *s)
{
	for (; *s; s++)
		*s = (char)tolower((unsigned char)*s);
}

static int parse_host(char *host, bool bracketed, struct net_rule *rule, char *err,
		      size_t errlen)
{
	size_t len;

	lowercase(host);
	len = strlen(host);
	/* A final dot is the root's ("example.com."); "*." has none of its own. */
	if (len > 1 && host[len - 1] == '.' && strcmp(host, "*.") != 0)
		host[--len] = '\0';
	if (bracketed || strchr(host, '/') || strchr(host, ':'))
		return parse_cidr(host, rule, err, errlen);
	if (netrule_addr_parse(host, &rule->addr) == 0)
		return parse_cidr(host, rule, err, errlen);
	if (strcmp(host, "*") == 0) {
		rule->kind = NET_HOST_WILDCARD;
		rule->name = xstrdup("");
		return 0;
	}
	if (strcmp(host, "*.") == 0)
		return rule_fail(err, errlen, "no domain after \"*.\": *.example.com, or * for any name");
	if (strncmp(host, "*.", 2) == 0) {
		if (!netrule_name_valid(host + 2))
			return rule_fail(err, errlen, "not a DNS name after \"*.\"");
		rule->kind = NET_HOST_WILDCARD;
		rule->name = xstrdup(host + 2);
		return 0;
	}
	if (!netrule_name_valid(host))
		return rule_fail(err, errlen, "not a DNS name, *.suffix, address or CIDR block");
	rule->kind = NET_HOST_NAME;
	rule->name = xstrdup(host);
	return 0;
}

int netrule_parse(const char *text, const char *origin, struct net_rule *rule,
		  char *err, size_t errlen)
{
	char *copy = xstrdup(text);
	char *host, *port;
	int r;

	memset(rule, 0, sizeof(*rule));
	rule->port = NET_DEFAULT_PORT;
	r = split_host_port(copy, &host, &port);
	if (r < 0)
		r = rule_fail(err, errlen, "an IPv6 address must stand in brackets: [ADDR]:PORT, "
			      "[ADDR/N]:PORT or [ADDR]/N:PORT");
	if (r == 0 && port && parse_port(port, &rule->port) < 0)
		r = rule_fail(err, errlen, "the port is not a number from 1 to 65535 or *");
	if (r == 0 && !*host)
		r = rule_fail(err, errlen, "no host");
	if (r == 0)
		r = parse_host(host, copy[0] == '[', rule, err, errlen);
	free(copy);
	if (r < 0) {
		free(rule->name);
		rule->name = NULL;
		return -1;
	}
	rule->text = xstrdup(text);
	rule->origin = xstrdup(origin);
	return 0;
}

void netrule_free_all(struct net_rule *rules, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		free(rules[i].name);
		free(rules[i].text);
		free(rules[i].origin);
	}
	free(rules);
}

/* ---- matching ---- */

static bool name_matches(const struct net_rule *rule, const char *host)
{
	size_t hl = strlen(host), sl;

	if (rule->kind == NET_HOST_NAME)
		return strcmp(rule->name, host) == 0;
	if (rule->kind != NET_HOST_WILDCARD)
		return false;
	sl = strlen(rule->name);
	if (sl == 0)
		return true;	/* "*": any name */
	/* *.example.com: a.example.com and a.b.example.com, not example.com. */
	return hl > sl + 1 && strcmp(host + hl - sl, rule->name) == 0 && host[hl - sl - 1] == '.';
}

/* How specific a rule is, so that the most specific one decides: a
 * longer prefix, a name over a wildcard, a longer suffix. */
static size_t specificity(const struct net_rule *rule)
{
	switch (rule->kind) {
	case NET_HOST_ADDR: return (size_t)rule->prefix;
	case NET_HOST_NAME: return (size_t)-1;
	case NET_HOST_WILDCARD: return strlen(rule->name);
	}
	return 0;
}

static bool rule_matches(const struct net_rule *rule, const char *host,
			 const struct net_addr *literal, int port)
{
	if (rule->port != NET_ANY_PORT && rule->port != port)
		return false;
	if (!literal)
		return name_matches(rule, host);
	return rule->kind == NET_HOST_ADDR && rule->addr.family == literal->family &&
	       prefix_match(rule->addr.bytes, literal->bytes, rule->prefix);
}

const struct net_rule *netrule_match(const struct net_rule *rules, size_t n,
				     const char *host, int port)
{
	struct net_addr literal;
	bool is_literal = netrule_addr_parse(host, &literal) == 0;
	const struct net_rule *best = NULL;

	for (size_t i = 0; i < n; i++)
		if (rule_matches(&rules[i], host, is_literal ? &literal : NULL, port) &&
		    (!best || specificity(&rules[i]) > specificity(best)))
			best = &rules[i];
	return best;
}

const struct net_rule *netrule_match_name(const struct net_rule *rules, size_t n,
					  const char *host)
{
	const struct net_rule *best = NULL;

	for (size_t i = 0; i < n; i++)
		if (name_matches(&rules[i], host) &&
		    (!best || specificity(&rules[i]) > specificity(best)))
			best = &rules[i];
	return best;
}

bool netrule_is_localhost(const struct net_rule *rule)
{
	return rule->kind == NET_HOST_NAME && strcmp(rule->name, "localhost") == 0;
}

static bool is_own(const struct net_addr *addr, const struct net_addr *own, size_t n_own)
{
	for (size_t i = 0; i < n_own; i++)
		if (netrule_addr_equal(addr, &own[i]))
			return true;
	return false;
}

/* Only a rule naming this one address reaches a special or own address:
 * a CIDR block, a name or a wildcard never does. */
static bool names_exactly(const struct net_rule *rule, const struct net_addr *addr)
{
	return rule->kind == NET_HOST_ADDR &&
	       rule->prefix == (int)addr_len(addr->family) * 8 &&
	       netrule_addr_equal(&rule->addr, addr);
}

const char *netrule_addr_refusal(const struct net_rule *rule, const struct net_addr *addr,
				 bool via_dns, const struct net_addr *own, size_t n_own)
{
	const char *special = netrule_addr_special(addr);
	bool mine = is_own(addr, own, n_own);

	if (!special && !mine)
		return NULL;
	if (via_dns)
		return "a name never reaches a loopback, link-local, metadata, multicast or "
		       "own address";
	if (netrule_is_localhost(rule) && special && strcmp(special, "loopback") == 0)
		return NULL;
	if (names_exactly(rule, addr))
		return NULL;
	return "only a rule naming this very address reaches it";
}
