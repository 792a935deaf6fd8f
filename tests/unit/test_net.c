/* Unit tests of the proxy's pure parts: --allow-net rules (netrule.c)
 * the request parsers (netrequest.c), and a plain connect's destination
 * and the sandbox's listeners (netconnect.c). */
#define _GNU_SOURCE
#include <check.h>

#include "run_suite.h"
#include <arpa/inet.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <linux/netlink.h>
#include <linux/sock_diag.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include "net/dnsmsg.h"
#include "net/netconnect.h"
#include "net/netproxy_chan.h"
#include "net/netproxy_decide.h"
#include "net/netrequest.h"
#include "plan/netrule.h"
#include "sandbox.h"
#include "lib/util.h"

static struct net_rule rule;
static char err[256];

static void parse_ok(const char *text)
{
	err[0] = '\0';
	ck_assert_msg(netrule_parse(text, "command line", &rule, err, sizeof(err)) == 0,
		      "%s: %s", text, err);
}

static void parse_bad(const char *text, const char *why)
{
	err[0] = '\0';
	ck_assert_msg(netrule_parse(text, "command line", &rule, err, sizeof(err)) < 0,
		      "%s parsed", text);
	ck_assert_msg(strstr(err, why), "%s: [%s] lacks [%s]", text, err, why);
}

static void done(void)
{
	free(rule.name);
	free(rule.text);
	free(rule.origin);
	memset(&rule, 0, sizeof(rule));
}

START_TEST(rule_names_and_ports)
{
	parse_ok("registry.npmjs.org");
	ck_assert_int_eq(rule.kind, NET_HOST_NAME);
	ck_assert_str_eq(rule.name, "registry.npmjs.org");
	ck_assert_int_eq(rule.port, 443);
	ck_assert_str_eq(rule.text, "registry.npmjs.org");
	done();
	parse_ok("Example.COM.:8080");
	ck_assert_str_eq(rule.name, "example.com");
	ck_assert_int_eq(rule.port, 8080);
	done();
	parse_ok("*.github.com:*");
	ck_assert_int_eq(rule.kind, NET_HOST_WILDCARD);
	ck_assert_str_eq(rule.name, "github.com");
	ck_assert_int_eq(rule.port, NET_ANY_PORT);
	done();
	parse_ok("*");
	ck_assert_int_eq(rule.kind, NET_HOST_WILDCARD);
	ck_assert_str_eq(rule.name, "");
	done();
	parse_bad("example.com:0", "port");
	parse_bad("example.com:65536", "port");
	parse_bad("example.com:", "port");
	parse_bad("example.com:x", "port");
	parse_bad(":443", "no host");
	parse_bad("exa mple.com", "not a DNS name");
	parse_bad("*..", "after");
	parse_bad("a..b", "not a DNS name");
	parse_bad("foo*.com", "not a DNS name");
	/* "*." is no wildcard of every name (its dot is not the root's). */
	parse_bad("*.:8080", "no domain after");
	parse_bad("*.", "no domain after");
	parse_bad("*.*", "after");
}
END_TEST

START_TEST(rule_addresses)
{
	char text[64];

	parse_ok("192.0.2.1:80");
	ck_assert_int_eq(rule.kind, NET_HOST_ADDR);
	ck_assert_int_eq(rule.prefix, 32);
	ck_assert_int_eq(rule.port, 80);
	done();
	parse_ok("[2001:db8::1]:8443");
	ck_assert_int_eq(rule.addr.family, AF_INET6);
	ck_assert_int_eq(rule.prefix, 128);
	ck_assert_int_eq(rule.port, 8443);
	done();
	parse_ok("2001:db8::/32");
	ck_assert_int_eq(rule.prefix, 32);
	ck_assert_int_eq(rule.port, 443);
	done();
	parse_ok("[2001:db8::/48]:*");
	ck_assert_int_eq(rule.prefix, 48);
	ck_assert_int_eq(rule.port, NET_ANY_PORT);
	done();
	/* The prefix outside the brackets is the same block. */
	parse_ok("[::]/0:8080");
	ck_assert_int_eq(rule.addr.family, AF_INET6);
	ck_assert_int_eq(rule.prefix, 0);
	ck_assert_int_eq(rule.port, 8080);
	ck_assert_str_eq(rule.text, "[::]/0:8080");
	done();
	parse_ok("[2001:db8::]/32");
	ck_assert_int_eq(rule.prefix, 32);
	ck_assert_int_eq(rule.port, 443);
	done();
	parse_bad("[2001:db8::]/129:80", "prefix");
	parse_bad("[2001:db8::]x:80", "[ADDR/N]:PORT");
	parse_ok("10.0.0.0/8:*");
	ck_assert_int_eq(rule.prefix, 8);
	done();
	/* An IPv4-mapped address is the IPv4 address. */
	parse_ok("[::ffff:127.0.0.1]:80");
	ck_assert_int_eq(rule.addr.family, AF_INET);
	netrule_addr_format(&rule.addr, text, sizeof(text));
	ck_assert_str_eq(text, "127.0.0.1");
	done();
	parse_bad("10.0.0.0/33", "prefix");
	parse_bad("[2001:db8::1", "brackets");
	parse_bad("[example.com]:80", "not an address");
	parse_bad("10.0.0.0/x", "prefix");
}
END_TEST

static struct net_rule rules[8];
static size_t n_rules;

static void add_rule(const char *text)
{
	ck_assert_msg(netrule_parse(text, "test", &rules[n_rules], err, sizeof(err)) == 0,
		      "%s: %s", text, err);
	n_rules++;
}

static void free_rules(void)
{
	for (size_t i = 0; i < n_rules; i++) {
		free(rules[i].name);
		free(rules[i].text);
		free(rules[i].origin);
	}
	n_rules = 0;
}

static const char *matched(const char *host, int port)
{
	const struct net_rule *r = netrule_match(rules, n_rules, host, port);

	return r ? r->text : "none";
}

START_TEST(matching)
{
	add_rule("registry.npmjs.org");
	add_rule("*.github.com:*");
	add_rule("10.0.0.0/8:22");
	add_rule("10.1.2.3:22");
	add_rule("localhost:8080");
	ck_assert_str_eq(matched("registry.npmjs.org", 443), "registry.npmjs.org");
	ck_assert_str_eq(matched("registry.npmjs.org", 80), "none");
	ck_assert_str_eq(matched("npmjs.org", 443), "none");
	ck_assert_str_eq(matched("evilregistry.npmjs.org", 443), "none");
	ck_assert_str_eq(matched("api.github.com", 22), "*.github.com:*");
	ck_assert_str_eq(matched("a.b.github.com", 443), "*.github.com:*");
	/* A wildcard names what is below the suffix, not the suffix. */
	ck_assert_str_eq(matched("github.com", 443), "none");
	ck_assert_str_eq(matched("evilgithub.com", 443), "none");
	/* The most specific address rule decides. */
	ck_assert_str_eq(matched("10.1.2.3", 22), "10.1.2.3:22");
	ck_assert_str_eq(matched("10.9.9.9", 22), "10.0.0.0/8:22");
	ck_assert_str_eq(matched("10.9.9.9", 23), "none");
	/* Address rules match literals only, name rules names only. */
	ck_assert_str_eq(matched("11.0.0.1", 22), "none");
	ck_assert_str_eq(matched("localhost", 8080), "localhost:8080");
	ck_assert_str_eq(matched("127.0.0.1", 8080), "none");
	free_rules();
	add_rule("*:*");
	ck_assert_str_eq(matched("anything.example", 1), "*:*");
	ck_assert_str_eq(matched("192.0.2.1", 443), "none");
	free_rules();
}
END_TEST

static struct net_addr addr(const char *text)
{
	struct net_addr a;

	ck_assert_int_eq(netrule_addr_parse(text, &a), 0);
	return a;
}

START_TEST(special_addresses)
{
	static const char *const special[][2] = {
		{ "127.0.0.1", "loopback" }, { "127.255.0.9", "loopback" },
		{ "::1", "loopback" }, { "::ffff:127.0.0.1", "loopback" },
		{ "169.254.169.254", "cloud metadata" }, { "fd00:ec2::254", "cloud metadata" },
		{ "100.100.100.200", "cloud metadata" },
		{ "169.254.1.1", "link-local" }, { "fe80::1", "link-local" },
		{ "febf::1", "link-local" }, { "0.0.0.0", "unspecified" },
		{ "::", "unspecified" }, { "224.0.0.1", "multicast" }, { "ff02::1", "multicast" },
		{ "255.255.255.255", "broadcast" },
	};
	static const char *const ordinary[] = {
		"192.0.2.1", "10.0.0.1", "2001:db8::1", "fec0::1", "128.0.0.1", "100.100.100.201",
		"fd00::2",
	};

	for (size_t i = 0; i < sizeof(special) / sizeof(special[0]); i++) {
		struct net_addr a = addr(special[i][0]);
		const char *why = netrule_addr_special(&a);

		ck_assert_msg(why && strstr(why, special[i][1]), "%s: %s", special[i][0],
			      why ? why : "ordinary");
	}
	for (size_t i = 0; i < sizeof(ordinary) / sizeof(ordinary[0]); i++) {
		struct net_addr a = addr(ordinary[i]);

		ck_assert_msg(!netrule_addr_special(&a), "%s is special", ordinary[i]);
	}
}
END_TEST

/* What a connection allowed by the rule TEXT may reach. */
static bool reaches(const char *text, const char *to, bool via_dns)
{
	struct net_addr own[2] = { addr("192.0.2.2"), addr("fd00::2") };
	struct net_addr a = addr(to);
	bool ok;

	add_rule(text);
	ok = netrule_addr_refusal(&rules[0], &a, via_dns, own, 2) == NULL;
	free_rules();
	return ok;
}

START_TEST(names_never_reach_the_host)
{
	/* A name's DNS answer: never loopback, link-local, metadata, own. */
	ck_assert(reaches("example.com", "93.184.216.34", true));
	ck_assert(!reaches("example.com", "127.0.0.1", true));
	ck_assert(!reaches("*.example.com", "::1", true));
	ck_assert(!reaches("*", "169.254.169.254", true));
	ck_assert(!reaches("*", "fe80::1", true));
	ck_assert(!reaches("*", "192.0.2.2", true));
	ck_assert(!reaches("*", "fd00::2", true));
	ck_assert(!reaches("localhost:80", "127.0.0.1", true));
	/* localhost itself reaches loopback, and only loopback. */
	ck_assert(reaches("localhost:80", "127.0.0.1", false));
	ck_assert(reaches("localhost:80", "::1", false));
	ck_assert(!reaches("localhost:80", "169.254.169.254", false));
	/* A literal needs a rule naming exactly that address... */
	ck_assert(reaches("127.0.0.1:80", "127.0.0.1", false));
	ck_assert(reaches("169.254.169.254:80", "169.254.169.254", false));
	ck_assert(reaches("192.0.2.2:80", "192.0.2.2", false));
	ck_assert(reaches("[::1]:80", "::1", false));
	/* ... and no block reaches it, however wide. */
	ck_assert(!reaches("127.0.0.0/8:80", "127.0.0.1", false));
	ck_assert(!reaches("0.0.0.0/0:*", "169.254.169.254", false));
	ck_assert(!reaches("192.0.2.0/24:*", "192.0.2.2", false));
	ck_assert(reaches("192.0.2.0/24:*", "192.0.2.9", false));
}
END_TEST

START_TEST(name_validity)
{
	ck_assert(netrule_name_valid("a.b-c_d.example"));
	ck_assert(netrule_name_valid("example.com."));
	ck_assert(!netrule_name_valid(""));
	ck_assert(!netrule_name_valid("."));
	ck_assert(!netrule_name_valid("a..b"));
	ck_assert(!netrule_name_valid(".a"));
	ck_assert(!netrule_name_valid("a b"));
	ck_assert(!netrule_name_valid("a/b"));
	char label[80], name[400];

	memset(label, 'a', 64);
	label[64] = '\0';
	ck_assert(!netrule_name_valid(label));
	label[63] = '\0';
	ck_assert(netrule_name_valid(label));
	snprintf(name, sizeof(name), "%s.%s.%s.%s", label, label, label, label);
	ck_assert(!netrule_name_valid(name));	/* 255 characters */
}
END_TEST

/* ---- HTTP ---- */

static struct net_request req;
static char why[128];

static enum net_parse http(const char *text)
{
	why[0] = '\0';
	return net_http_parse(text, strlen(text), &req, why, sizeof(why));
}

/* A head, and what the parser makes of it: the result, and for a
 * parsed one the protocol, host, port and origin-form path's length. */
struct http_case {
	const char *head;
	enum net_parse result;
	enum net_proto proto;
	const char *host;
	int port;
	size_t path_len;
	const char *why;	/* BAD: words of the reason */
};

static const struct http_case http_cases[] = {
	{ "CONNECT registry.npmjs.org:443 HTTP/1.1\r\nHost: registry.npmjs.org:443\r\n\r\n\x16",
	  NET_PARSE_DONE, NET_PROTO_CONNECT, "registry.npmjs.org", 443, 0, NULL },
	{ "CONNECT [::1]:8443 HTTP/1.0\n\n", NET_PARSE_DONE, NET_PROTO_CONNECT, "::1", 8443, 0,
	  NULL },
	{ "CONNECT Example.COM.:80 HTTP/1.1\r\n\r\n", NET_PARSE_DONE, NET_PROTO_CONNECT,
	  "example.com", 80, 0, NULL },
	{ "CONNECT example.com HTTP/1.1\r\n\r\n", NET_PARSE_BAD, 0, NULL, 0, 0, "HOST:PORT" },
	{ "CONNECT ::1:443 HTTP/1.1\r\n\r\n", NET_PARSE_BAD, 0, NULL, 0, 0, "HOST:PORT" },
	{ "CONNECT user@example.com:443 HTTP/1.1\r\n\r\n", NET_PARSE_BAD, 0, NULL, 0, 0, NULL },
	{ "CONNECT example.com:99999 HTTP/1.1\r\n\r\n", NET_PARSE_BAD, 0, NULL, 0, 0, NULL },
	{ "CONNECT [example.com]:443 HTTP/1.1\r\n\r\n", NET_PARSE_BAD, 0, NULL, 0, 0, NULL },
	{ "GET http://localhost:8080/a/b?c=d HTTP/1.1\r\nHost: x\r\n\r\n", NET_PARSE_DONE,
	  NET_PROTO_HTTP, "localhost", 8080, 8, NULL },
	{ "HEAD HTTP://[2001:db8::1] HTTP/1.0\r\n\r\n", NET_PARSE_DONE, NET_PROTO_HTTP,
	  "2001:db8::1", 80, 0, NULL },
	{ "GET https://example.com/ HTTP/1.1\r\n\r\n", NET_PARSE_BAD, 0, NULL, 0, 0, "CONNECT" },
	{ "GET / HTTP/1.1\r\nHost: example.com\r\n\r\n", NET_PARSE_BAD, 0, NULL, 0, 0,
	  "not a proxy request" },
	{ "GET ftp://example.com/ HTTP/1.1\r\n\r\n", NET_PARSE_BAD, 0, NULL, 0, 0, NULL },
	{ "GET http://exa mple.com/ HTTP/1.1\r\n\r\n", NET_PARSE_BAD, 0, NULL, 0, 0, NULL },
	{ "GET http://a@example.com/ HTTP/1.1\r\n\r\n", NET_PARSE_BAD, 0, NULL, 0, 0, NULL },
	{ "GET http://example.com/ HTTP/2.0\r\n\r\n", NET_PARSE_BAD, 0, NULL, 0, 0, "HTTP/1.1" },
	{ "G(T http://example.com/ HTTP/1.1\r\n\r\n", NET_PARSE_BAD, 0, NULL, 0, 0, NULL },
	{ "\x05\x01\x00", NET_PARSE_MORE, 0, NULL, 0, 0, NULL },
};

START_TEST(http_heads)
{
	const struct http_case *t = &http_cases[_i];
	const char *end = strstr(t->head, "\r\n\r\n");

	ck_assert_msg(http(t->head) == t->result, "%s: %s", t->head, why);
	if (t->why)
		ck_assert_msg(strstr(why, t->why), "%s: [%s] lacks [%s]", t->head, why, t->why);
	if (t->result != NET_PARSE_DONE)
		return;
	ck_assert_int_eq(req.proto, t->proto);
	ck_assert_str_eq(req.host, t->host);
	ck_assert_int_eq(req.port, t->port);
	if (t->proto == NET_PROTO_HTTP)
		ck_assert_int_eq(req.path_len, t->path_len);
	if (end)	/* what follows the head is not part of it */
		ck_assert_int_eq(req.head_len, (size_t)(end + 4 - t->head));
}
END_TEST

/* Where a plain request ends: its Content-Length, one number; a body in
 * chunks is refused (one request per connection needs its end). */
START_TEST(http_body_length)
{
	ck_assert_int_eq(http("GET http://a.example/ HTTP/1.1\r\n\r\nGET /x HTTP/1.1\r\n\r\n"),
			 NET_PARSE_DONE);
	ck_assert_uint_eq(req.body_len, 0);
	ck_assert_int_eq(http("POST http://a.example/ HTTP/1.1\r\ncontent-length:  12 \r\n"
			      "Content-Length: 12\r\n\r\n"), NET_PARSE_DONE);
	ck_assert_uint_eq(req.body_len, 12);
	ck_assert_int_eq(http("POST http://a.example/ HTTP/1.1\nContent-Length: 3\n\n"),
			 NET_PARSE_DONE);
	ck_assert_uint_eq(req.body_len, 3);
	ck_assert_int_eq(http("POST http://a.example/ HTTP/1.1\r\nContent-Length: 1\r\n"
			      "Content-Length: 2\r\n\r\n"), NET_PARSE_BAD);
	ck_assert_int_eq(http("POST http://a.example/ HTTP/1.1\r\nContent-Length: -1\r\n\r\n"),
			 NET_PARSE_BAD);
	ck_assert_int_eq(http("POST http://a.example/ HTTP/1.1\r\nContent-Length: 1 2\r\n\r\n"),
			 NET_PARSE_BAD);
	ck_assert_int_eq(http("POST http://a.example/ HTTP/1.1\r\nContent-Length:\r\n\r\n"),
			 NET_PARSE_BAD);
	ck_assert_int_eq(http("POST http://a.example/ HTTP/1.1\r\nTransfer-Encoding: chunked"
			      "\r\n\r\n"), NET_PARSE_BAD);
	ck_assert_msg(strstr(why, "Content-Length"), "%s", why);
	/* A tunnel's bytes are the tunnel's: no body to look for. */
	ck_assert_int_eq(http("CONNECT a.example:443 HTTP/1.1\r\nTransfer-Encoding: x\r\n\r\n"),
			 NET_PARSE_DONE);
}
END_TEST

/* The supervisor's check of the worker's asks: every field bounded. */
START_TEST(asks_checked)
{
	struct proxy_ask a = { .kind = ASK_CONNECT, .id = 3, .proto = NET_PROTO_HTTP,
			       .port = 80 };

	strcpy(a.host, "a.example");
	ck_assert(netproxy_ask_valid(&a));
	strcpy(a.host, "2001:db8::1");
	ck_assert(netproxy_ask_valid(&a));
	strcpy(a.host, "A.example");
	ck_assert(!netproxy_ask_valid(&a));
	strcpy(a.host, "a example");
	ck_assert(!netproxy_ask_valid(&a));
	strcpy(a.host, "a.example");
	a.id = PROXY_MAX_CONNS;
	ck_assert(!netproxy_ask_valid(&a));
	a.id = 0;
	a.kind = 0;
	ck_assert(!netproxy_ask_valid(&a));
	a.kind = ASK_CLOSED + 1;
	ck_assert(!netproxy_ask_valid(&a));
	a.kind = ASK_CONNECT;
	a.proto = NET_PROTO_SOCKS5 + 1;
	ck_assert(!netproxy_ask_valid(&a));
	a.proto = NET_PROTO_SOCKS5;
	a.port = 65536;
	ck_assert(!netproxy_ask_valid(&a));
	a.port = 0;
	ck_assert(!netproxy_ask_valid(&a));	/* a connect names a port */
	memset(a.host, 'a', sizeof(a.host));	/* no NUL */
	a.port = 80;
	ck_assert(!netproxy_ask_valid(&a));
	memset(a.host, 0, sizeof(a.host));
	a.kind = ASK_REFUSED;
	a.port = 0;
	strcpy(a.reason, "not an HTTP request line");
	ck_assert(netproxy_ask_valid(&a));
	a.reason[3] = '\n';
	ck_assert(!netproxy_ask_valid(&a));
	memset(a.reason, 'x', sizeof(a.reason));
	ck_assert(!netproxy_ask_valid(&a));
}
END_TEST

START_TEST(http_incomplete_and_bounds)
{
	char *big = malloc(NET_HEAD_MAX + 64);

	ck_assert_int_eq(http("CONNECT example.com:443 HTTP/1.1\r\nHost: exa"), NET_PARSE_MORE);
	ck_assert_int_eq(http("CONNECT exam"), NET_PARSE_MORE);
	/* The request line decides before the head is complete. */
	ck_assert_int_eq(http("garbage\r\n"), NET_PARSE_BAD);
	ck_assert_int_eq(http("CONNECT a:1 HTTP/1.1\r\nX: \0\r\n\r\n"), NET_PARSE_MORE);
	ck_assert_int_eq(net_http_parse("CONNECT a:1 HTTP/1.1\r\nX: \0\r\n\r\n", 30, &req, why,
					sizeof(why)), NET_PARSE_BAD);
	/* A head that does not end within NET_HEAD_MAX: too long. */
	memset(big, 'a', NET_HEAD_MAX + 64);
	memcpy(big, "GET http://x/ HTTP/1.1\r\nX: ", 27);
	ck_assert_int_eq(net_http_parse(big, NET_HEAD_MAX - 1, &req, why, sizeof(why)),
			 NET_PARSE_MORE);
	ck_assert_int_eq(net_http_parse(big, NET_HEAD_MAX + 64, &req, why, sizeof(why)),
			 NET_PARSE_TOO_LONG);
	/* A request line longer than that, too. */
	memcpy(big, "GET http://x/", 13);
	ck_assert_int_eq(net_http_parse(big, NET_HEAD_MAX, &req, why, sizeof(why)),
			 NET_PARSE_TOO_LONG);
	free(big);
}
END_TEST

START_TEST(http_rewrite)
{
	static const char head[] =
		"POST http://example.com:8080/api?x=1 HTTP/1.1\r\n"
		"Host: evil.example\r\n"
		"Proxy-Connection: keep-alive\r\n"
		"Proxy-Authorization: Basic eA==\r\n"
		"Content-Length: 4\r\n"
		"connection: keep-alive\r\n"
		"Keep-Alive: 5\r\n"
		"X-Folded: a\r\n"
		" b\r\n"
		"\r\n";
	char out[1024];
	ssize_t n;

	ck_assert_int_eq(http(head), NET_PARSE_DONE);
	n = net_http_rewrite(head, &req, out, sizeof(out));
	ck_assert_int_gt(n, 0);
	out[n] = '\0';
	ck_assert_str_eq(out, "POST /api?x=1 HTTP/1.1\r\n"
			 "Host: example.com:8080\r\n"
			 "Content-Length: 4\r\n"
			 "X-Folded: a\r\n"
			 " b\r\n"
			 "Connection: close\r\n\r\n");
	ck_assert_int_eq(http("GET http://[::1] HTTP/1.0\n\n"), NET_PARSE_DONE);
	n = net_http_rewrite("GET http://[::1] HTTP/1.0\n\n", &req, out, sizeof(out));
	out[n] = '\0';
	ck_assert_str_eq(out, "GET / HTTP/1.0\r\nHost: [::1]\r\nConnection: close\r\n\r\n");
	ck_assert_int_eq(net_http_rewrite("GET http://[::1] HTTP/1.0\n\n", &req, out, 20), -1);
}
END_TEST

/* ---- SOCKS5 ---- */

START_TEST(socks)
{
	static const unsigned char greeting[] = { 5, 2, 2, 0 };
	static const unsigned char name_req[] = { 5, 1, 0, 3, 9, 'l', 'o', 'c', 'a', 'l', 'h',
						  'o', 's', 't', 0x1f, 0x90 };
	static const unsigned char v4_req[] = { 5, 1, 0, 1, 127, 0, 0, 1, 0, 80 };
	static const unsigned char v6_req[] = { 5, 1, 0, 4, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
						0, 0, 0, 1, 1, 0xbb };
	static const unsigned char bind_req[] = { 5, 2, 0, 1, 127, 0, 0, 1, 0, 80 };
	static const unsigned char bad_name[] = { 5, 1, 0, 3, 3, 'a', ' ', 'b', 0, 80 };
	size_t used = 0;
	bool noauth = false;
	int reply = -1;

	ck_assert_int_eq(net_socks_greeting(greeting, 3, &used, &noauth), NET_PARSE_MORE);
	ck_assert_int_eq(net_socks_greeting(greeting, 4, &used, &noauth), NET_PARSE_DONE);
	ck_assert_int_eq(used, 4);
	ck_assert(noauth);
	ck_assert_int_eq(net_socks_greeting((const unsigned char *)"\5\1\2", 3, &used, &noauth),
			 NET_PARSE_DONE);
	ck_assert(!noauth);
	ck_assert_int_eq(net_socks_greeting((const unsigned char *)"\4\1", 2, &used, &noauth),
			 NET_PARSE_BAD);

	ck_assert_int_eq(net_socks_request(name_req, sizeof(name_req) - 1, &req, &reply),
			 NET_PARSE_MORE);
	ck_assert_int_eq(net_socks_request(name_req, sizeof(name_req), &req, &reply),
			 NET_PARSE_DONE);
	ck_assert_str_eq(req.host, "localhost");
	ck_assert_int_eq(req.port, 8080);
	ck_assert_int_eq(req.head_len, sizeof(name_req));
	ck_assert_int_eq(net_socks_request(v4_req, sizeof(v4_req), &req, &reply), NET_PARSE_DONE);
	ck_assert_str_eq(req.host, "127.0.0.1");
	ck_assert_int_eq(req.port, 80);
	ck_assert_int_eq(net_socks_request(v6_req, sizeof(v6_req), &req, &reply), NET_PARSE_DONE);
	ck_assert_str_eq(req.host, "::1");
	ck_assert_int_eq(req.port, 443);
	ck_assert_int_eq(net_socks_request(bind_req, sizeof(bind_req), &req, &reply),
			 NET_PARSE_BAD);
	ck_assert_int_eq(reply, SOCKS_BAD_COMMAND);
	ck_assert_int_eq(net_socks_request(bad_name, sizeof(bad_name), &req, &reply),
			 NET_PARSE_BAD);
	ck_assert_int_eq(reply, SOCKS_BAD_ADDRESS);
}
END_TEST

/* A connect()'s address as the rules see it: ::ffff:a.b.c.d is a.b.c.d;
 * no port, a short length or another family is no destination. */
START_TEST(connect_destinations)
{
	struct sockaddr_storage ss = { 0 };
	struct sockaddr_in *sin = (struct sockaddr_in *)&ss;
	struct sockaddr_in6 *sin6 = (struct sockaddr_in6 *)&ss;
	struct net_dest d;
	char buf[64];

	sin->sin_family = AF_INET;
	sin->sin_port = htons(8080);
	inet_pton(AF_INET, "127.0.0.1", &sin->sin_addr);
	ck_assert(netconnect_dest(&ss, sizeof(*sin), &d));
	ck_assert_int_eq(d.port, 8080);
	netrule_addr_format(&d.addr, buf, sizeof(buf));
	ck_assert_str_eq(buf, "127.0.0.1");
	ck_assert(!netconnect_dest(&ss, sizeof(*sin) - 1, &d));
	sin->sin_port = 0;
	ck_assert(!netconnect_dest(&ss, sizeof(*sin), &d));

	memset(&ss, 0, sizeof(ss));
	sin6->sin6_family = AF_INET6;
	sin6->sin6_port = htons(443);
	inet_pton(AF_INET6, "::ffff:127.0.0.1", &sin6->sin6_addr);
	ck_assert(netconnect_dest(&ss, sizeof(*sin6), &d));
	ck_assert_int_eq(d.addr.family, AF_INET);
	netrule_addr_format(&d.addr, buf, sizeof(buf));
	ck_assert_str_eq(buf, "127.0.0.1");
	inet_pton(AF_INET6, "::1", &sin6->sin6_addr);
	ck_assert(netconnect_dest(&ss, sizeof(*sin6), &d));
	ck_assert_int_eq(d.addr.family, AF_INET6);

	memset(&ss, 0, sizeof(ss));
	ss.ss_family = AF_UNSPEC;
	ck_assert(!netconnect_dest(&ss, sizeof(ss), &d));
}
END_TEST

static void write_table(int dir, const char *name, const char *text)
{
	int fd = openat(dir, name, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);

	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(write(fd, text, strlen(text)), (ssize_t)strlen(text));
	close(fd);
}

/* A listener of the sandbox's is found by port and state 0A (LISTEN)
 * in net/tcp (IPv4 only) and net/tcp6 (either family). */
START_TEST(sandbox_listeners)
{
	static const char head[] = "  sl  local_address rem_address   st\n";
	char tmpl[] = "/tmp/hutch-unit-net.XXXXXX";
	char *path = mkdtemp(tmpl);
	struct sandbox sb = { 0 };	/* no proxy state: /proc's tables are read */
	int dir, net;

	ck_assert_ptr_nonnull(path);
	dir = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	ck_assert_int_ge(mkdirat(dir, "net", 0700), 0);
	net = openat(dir, "net", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	write_table(net, "tcp", "  sl  local_address rem_address   st\n"
		    "   0: 0100007F:1F90 00000000:0000 0A 00000000:00000000\n"
		    "   1: 0100007F:1F91 0100007F:9C40 01 00000000:00000000\n");
	write_table(net, "tcp6", head);
	ck_assert(netconnect_sandbox_listens(&sb, path, AF_INET, 8080));
	ck_assert(!netconnect_sandbox_listens(&sb, path, AF_INET, 8081));	/* connected, not listening */
	ck_assert(!netconnect_sandbox_listens(&sb, path, AF_INET6, 8080));	/* an IPv4 listener only */
	write_table(net, "tcp6", "  sl  local_address rem_address   st\n"
		    "   0: 00000000000000000000000000000000:1F91 "
		    "00000000000000000000000000000000:0000 0A 0\n");
	ck_assert(netconnect_sandbox_listens(&sb, path, AF_INET6, 8081));
	ck_assert(netconnect_sandbox_listens(&sb, path, AF_INET, 8081));	/* dual-stack: maybe, so yes */
	unlinkat(net, "tcp", 0);
	unlinkat(net, "tcp6", 0);
	close(net);
	unlinkat(dir, "net", AT_REMOVEDIR);
	close(dir);
	rmdir(path);
}
END_TEST

/* A TCP socket on 127.0.0.1 at a port the kernel picks: listening, or
 * only bound; its port in *PORT. */
static int tcp_socket_on_loopback(bool listening, int *port)
{
	struct sockaddr_in sin = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	socklen_t len = sizeof(sin);
	int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);

	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(bind(fd, (struct sockaddr *)&sin, sizeof(sin)), 0);
	if (listening)
		ck_assert_int_eq(listen(fd, 1), 0);
	ck_assert_int_eq(getsockname(fd, (struct sockaddr *)&sin, &len), 0);
	*port = ntohs(sin.sin_port);
	return fd;
}

/* With pid 1's socket diagnostics socket passed over (here: one of this
 * namespace), the kernel is asked, and /proc is not read: a path that
 * does not exist answers nothing.  Anything but a NETLINK_SOCK_DIAG
 * socket on the passing socket is not taken. */
START_TEST(sandbox_listeners_by_diag)
{
	struct netproxy_state st = { .diag = -1 };
	struct sandbox sb = { .net = &st };
	int listening, bound, on, off, fake;
	int diag = socket(AF_NETLINK, SOCK_DGRAM | SOCK_CLOEXEC, NETLINK_SOCK_DIAG);

	ck_assert_int_ge(diag, 0);
	ck_assert_int_eq(socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC | SOCK_NONBLOCK, 0,
				    st.diag_pass), 0);
	listening = tcp_socket_on_loopback(true, &on);
	bound = tcp_socket_on_loopback(false, &off);
	fake = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	ck_assert_int_eq(send_with_fd(st.diag_pass[1], "d", 1, fake), 1);
	ck_assert(!netconnect_sandbox_listens(&sb, "/nonexistent", AF_INET, on));
	ck_assert_int_eq(st.diag, -1);
	ck_assert_int_eq(send_with_fd(st.diag_pass[1], "d", 1, diag), 1);
	ck_assert(netconnect_sandbox_listens(&sb, "/nonexistent", AF_INET, on));
	ck_assert_int_ge(st.diag, 0);
	ck_assert(!netconnect_sandbox_listens(&sb, "/nonexistent", AF_INET, off));
	ck_assert(!netconnect_sandbox_listens(&sb, "/nonexistent", AF_INET6, on));
	ck_assert(netconnect_sandbox_listens(&sb, "/nonexistent", AF_INET, on));	/* a second ask */
	close(listening);
	close(bound);
	close(fake);
	close(diag);
	close(st.diag);
	close(st.diag_pass[0]);
	close(st.diag_pass[1]);
}
END_TEST

/* A query of one question NAME (dotted), QTYPE, class IN, in OUT: its length. */
static size_t dns_query(unsigned char *out, const char *name, unsigned qtype, unsigned qdcount)
{
	static const unsigned char head[12] = { 0xab, 0xcd, 0x01, 0x00, 0, 1, 0, 0, 0, 0, 0, 0 };
	size_t n = sizeof(head);

	memcpy(out, head, n);
	out[5] = (unsigned char)qdcount;
	while (*name) {
		size_t len = strcspn(name, ".");

		out[n++] = (unsigned char)len;
		memcpy(out + n, name, len);
		n += len;
		name += len + (name[len] == '.');
	}
	out[n++] = 0;
	out[n++] = (unsigned char)(qtype >> 8);
	out[n++] = (unsigned char)qtype;
	out[n++] = 0;
	out[n++] = 1;
	return n;
}

START_TEST(dns_queries)
{
	unsigned char m[600], out[DNS_REPLY_MAX];
	struct dns_question q;
	struct net_addr a[2];
	size_t n = dns_query(m, "Registry.NPMJS.org", DNS_TYPE_AAAA, 1), len;

	ck_assert_int_eq(dnsmsg_query_read(m, n, &q), DNS_NOERROR);
	ck_assert_str_eq(q.name, "registry.npmjs.org");
	ck_assert_int_eq(q.qtype, DNS_TYPE_AAAA);
	ck_assert_uint_eq(q.end, n);
	n = dns_query(m, "example.com", 15, 1);
	ck_assert_int_eq(dnsmsg_query_read(m, n, &q), DNS_REFUSED);	/* MX */
	n = dns_query(m, "example.com", DNS_TYPE_A, 2);
	ck_assert_int_eq(dnsmsg_query_read(m, n, &q), DNS_FORMERR);	/* two questions */
	n = dns_query(m, "ex ample.com", DNS_TYPE_A, 1);
	ck_assert_int_eq(dnsmsg_query_read(m, n, &q), DNS_REFUSED);	/* no DNS name */
	n = dns_query(m, "example.com", DNS_TYPE_A, 1);
	ck_assert_int_eq(dnsmsg_query_read(m, n - 1, &q), DNS_FORMERR);	/* cut */
	ck_assert_int_eq(dnsmsg_query_read(m, 11, &q), -1);		/* no header */
	m[2] |= 0x80;
	ck_assert_int_eq(dnsmsg_query_read(m, n, &q), -1);			/* a response */
	m[2] = 0x08;
	ck_assert_int_eq(dnsmsg_query_read(m, n, &q), DNS_NOTIMP);		/* opcode 1 */
	m[2] = 0x01;
	m[12] = 0xc0;
	m[13] = 0x0c;
	ck_assert_int_eq(dnsmsg_query_read(m, n, &q), DNS_FORMERR);	/* a pointer to itself */
	memset(m + 12, 'a', 600 - 12);
	ck_assert_int_eq(dnsmsg_query_read(m, 600, &q), DNS_REFUSED);	/* longer than 512 */

	n = dns_query(m, "a.test", DNS_TYPE_A, 1);
	ck_assert_int_eq(dnsmsg_query_read(m, n, &q), DNS_NOERROR);
	netrule_addr_parse("192.0.2.1", &a[0]);
	netrule_addr_parse("192.0.2.2", &a[1]);
	len = dnsmsg_reply_build(m, q.end, DNS_NOERROR, a, 2, 60, out, sizeof(out));
	ck_assert_uint_eq(len, n + 2 * 16);
	ck_assert(out[0] == 0xab && out[1] == 0xcd && out[2] == 0x81 && out[3] == 0x80);
	ck_assert(out[7] == 2 && out[n + 9] == 60 && out[n + 11] == 4);
	ck_assert(memcmp(out + n + 12, "\xc0\x00\x02\x01", 4) == 0);
	len = dnsmsg_reply_build(m, q.end, DNS_NXDOMAIN, NULL, 0, 60, out, sizeof(out));
	ck_assert(len == n && (out[3] & 0x0f) == DNS_NXDOMAIN && out[7] == 0);
	ck_assert_uint_eq(dnsmsg_reply_build(m, q.end, DNS_NOERROR, a, 2, 60, out, n + 20), 0);
}
END_TEST

START_TEST(dns_asks_and_names)
{
	struct proxy_ask ask = { .kind = ASK_DNS, .qtype = DNS_TYPE_A };
	struct net_rule named[3];

	strcpy(ask.host, "a.example.com");
	ck_assert(netproxy_ask_valid(&ask));
	ask.id = PROXY_DNS_SLOTS;
	ck_assert(!netproxy_ask_valid(&ask));
	ask.id = 0;
	ask.qtype = 15;
	ck_assert(!netproxy_ask_valid(&ask));
	ask.qtype = DNS_TYPE_AAAA;
	strcpy(ask.host, "192.0.2.1");
	ck_assert(!netproxy_ask_valid(&ask));	/* a name only */
	strcpy(ask.host, "A.example.com");
	ck_assert(!netproxy_ask_valid(&ask));
	/* A DNS ask's reason is a string too (the netrequest fuzzer's find). */
	strcpy(ask.host, "a.example.com");
	ck_assert(netproxy_ask_valid(&ask));
	memset(ask.reason, 'x', sizeof(ask.reason));
	ck_assert(!netproxy_ask_valid(&ask));

	ck_assert_int_eq(netrule_parse("*.example.com:8080", "t", &named[0], err, sizeof(err)), 0);
	ck_assert_int_eq(netrule_parse("api.example.com", "t", &named[1], err, sizeof(err)), 0);
	ck_assert_int_eq(netrule_parse("10.0.0.0/8:*", "t", &named[2], err, sizeof(err)), 0);
	ck_assert_ptr_eq(netrule_match_name(named, 3, "api.example.com"), &named[1]);
	ck_assert_ptr_eq(netrule_match_name(named, 3, "b.example.com"), &named[0]);
	ck_assert_ptr_null(netrule_match_name(named, 3, "example.com"));
	ck_assert_ptr_null(netrule_match_name(named, 3, "10.0.0.1"));
	for (int i = 0; i < 3; i++) {
		free(named[i].name);
		free(named[i].text);
		free(named[i].origin);
	}
}
END_TEST

static Suite *net_suite(void)
{
	Suite *s = suite_create("net");
	TCase *tc = tcase_create("net");

	tcase_add_test(tc, rule_names_and_ports);
	tcase_add_test(tc, rule_addresses);
	tcase_add_test(tc, matching);
	tcase_add_test(tc, special_addresses);
	tcase_add_test(tc, names_never_reach_the_host);
	tcase_add_test(tc, name_validity);
	tcase_add_loop_test(tc, http_heads, 0, sizeof(http_cases) / sizeof(http_cases[0]));
	tcase_add_test(tc, http_incomplete_and_bounds);
	tcase_add_test(tc, http_body_length);
	tcase_add_test(tc, asks_checked);
	tcase_add_test(tc, http_rewrite);
	tcase_add_test(tc, socks);
	tcase_add_test(tc, connect_destinations);
	tcase_add_test(tc, sandbox_listeners);
	tcase_add_test(tc, sandbox_listeners_by_diag);
	tcase_add_test(tc, dns_queries);
	tcase_add_test(tc, dns_asks_and_names);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return run_suite(net_suite());
}
