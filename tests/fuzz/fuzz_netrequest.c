/* The proxy's parsers: the input is what a client in the sandbox sends
 * (an HTTP request head or SOCKS5's greeting and request), given to them
 * whole and in every prefix the proxy could have read so far; and, as
 * text, an --allow-net rule.  They must never read past the bytes given
 * (ASan), and what they accept must hold: a parsed head fits the input,
 * a rewritten head fits its buffer and ends the head, and the worker's
 * ask about it passes the supervisor's checks.  The input is also an
 * ask itself, as a worker taken over could write it: the check must
 * never read past it. */
#include "fuzz.h"

#include "net/netproxy_chan.h"
#include "net/netrequest.h"
#include "plan/netrule.h"

/* What the worker asks about a parsed request must pass the check. */
static void must_ask(const struct net_request *req)
{
	struct proxy_ask a = { .kind = ASK_CONNECT, .proto = req->proto,
			       .port = (uint32_t)req->port };

	snprintf(a.host, sizeof(a.host), "%s", req->host);
	if (!netproxy_ask_valid(&a))
		abort();
}

static void ask(const uint8_t *data, size_t size)
{
	struct proxy_ask a;

	memset(&a, 0, sizeof(a));
	memcpy(&a, data, size < sizeof(a) ? size : sizeof(a));
	if (netproxy_ask_valid(&a) && (strnlen(a.host, sizeof(a.host)) == sizeof(a.host) ||
				    strnlen(a.reason, sizeof(a.reason)) == sizeof(a.reason)))
		abort();
}

static void http(const char *data, size_t size)
{
	struct net_request req;
	char why[128], out[NET_HEAD_MAX + 512];
	/* The proxy parses after every read: a few prefixes stand for them. */
	size_t cuts[] = { size / 3, size / 2, size };

	for (size_t i = 0; i < sizeof(cuts) / sizeof(cuts[0]); i++) {
		enum net_parse r = net_http_parse(data, cuts[i], &req, why, sizeof(why));
		ssize_t n;

		if (r != NET_PARSE_DONE)
			continue;
		if (req.head_len > cuts[i] || req.port < 1 || req.port > 65535)
			abort();
		must_ask(&req);
		if (req.proto != NET_PROTO_HTTP)
			continue;
		if (req.path_off + req.path_len > req.head_len)
			abort();
		n = net_http_rewrite(data, &req, out, sizeof(out));
		if (n >= 0 && (n < 4 || memcmp(out + n - 4, "\r\n\r\n", 4) != 0))
			abort();
	}
}

static void socks(const unsigned char *data, size_t size)
{
	struct net_request req;
	size_t used = 0;
	bool noauth;
	int reply;

	if (net_socks_greeting(data, size, &used, &noauth) != NET_PARSE_DONE)
		return;
	if (used > size)
		abort();
	if (net_socks_request(data + used, size - used, &req, &reply) != NET_PARSE_DONE)
		return;
	if (req.head_len > size - used || req.port < 1)
		abort();
	must_ask(&req);
}

static void rule(const uint8_t *data, size_t size)
{
	struct net_rule r;
	char text[512], err[256];
	const struct net_rule *m;

	if (size >= sizeof(text))
		size = sizeof(text) - 1;
	memcpy(text, data, size);
	text[size] = '\0';
	if (netrule_parse(text, "fuzz", &r, err, sizeof(err)) < 0)
		return;
	m = netrule_match(&r, 1, r.name && r.kind == NET_HOST_NAME ? r.name : "example.com",
			  r.port ? r.port : 443);
	if (m && m != &r)
		abort();
	free(r.name);
	free(r.text);
	free(r.origin);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size > 2 * NET_HEAD_MAX)
		return -1;
	http((const char *)data, size);
	socks(data, size);
	rule(data, size);
	ask(data, size);
	return 0;
}
