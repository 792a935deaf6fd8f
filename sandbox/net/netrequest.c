/* The proxy's request parsers: an HTTP request head (CONNECT or an
 * absolute-URI http:// request) and SOCKS5's greeting and request.  They
 * read only the bytes given, never more than NET_HEAD_MAX of them, and
 * write only into the caller's structures. */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>

#include "netrequest.h"
#include "lib/lib.h"

static enum net_parse bad(char *why, size_t whylen, const char *text)
{
	snprintf(why, whylen, "%s", text);
	return NET_PARSE_BAD;
}

/* The end of the head: just past its empty line, or 0 if not there. */
static size_t head_end(const char *buf, size_t len)
{
	for (size_t i = 0; i < len; i++) {
		if (buf[i] != '\n')
			continue;
		if (i + 1 < len && buf[i + 1] == '\n')
			return i + 2;
		if (i + 2 < len && buf[i + 1] == '\r' && buf[i + 2] == '\n')
			return i + 3;
	}
	return 0;
}

static bool is_token_char(unsigned char c)
{
	return isalnum(c) || strchr("!#$%&'*+-.^_`|~", c);
}

/* HOST (a name or an address; TEXT of LEN bytes, IPv6 in brackets) into
 * REQ->host, lowercase, without brackets or a trailing dot. */
static bool take_host(const char *text, size_t len, struct net_request *req)
{
	struct net_addr addr;
	bool bracketed = len >= 2 && text[0] == '[' && text[len - 1] == ']';

	if (bracketed) {
		text++;
		len -= 2;
	}
	if (len == 0 || len >= sizeof(req->host))
		return false;
	memcpy(req->host, text, len);
	req->host[len] = '\0';
	for (char *c = req->host; *c; c++)
		*c = (char)tolower((unsigned char)*c);
	if (len > 1 && req->host[len - 1] == '.')
		req->host[len - 1] = '\0';
	if (bracketed)
		return netrule_addr_parse(req->host, &addr) == 0 && addr.family == AF_INET6;
	if (strchr(req->host, ':'))
		return false;	/* an IPv6 address without brackets */
	return netrule_addr_parse(req->host, &addr) == 0 || netrule_name_valid(req->host);
}

/* "host:port", "[v6]:port", or without ":port" when DEFAULT_PORT > 0. */
static bool take_authority(const char *text, size_t len, int default_port,
			   struct net_request *req)
{
	const char *colon = NULL;
	long long port = default_port;
	char digits[8];

	for (size_t i = len; i > 0; i--) {
		if (text[i - 1] == ']')
			break;
		if (text[i - 1] == ':') {
			colon = text + i - 1;
			break;
		}
	}
	if (memchr(text, '@', len))
		return false;	/* credentials in the target: not forwarded */
	if (colon) {
		size_t plen = len - (size_t)(colon - text) - 1;

		if (plen == 0 || plen >= sizeof(digits))
			return false;
		memcpy(digits, colon + 1, plen);
		digits[plen] = '\0';
		port = parse_uint(digits, 65535);
		len = (size_t)(colon - text);
	}
	if (port < 1)
		return false;
	req->port = (int)port;
	return take_host(text, len, req);
}

/* The target of a request that is not CONNECT: http://AUTHORITY[PATH]. */
static enum net_parse take_http_target(const char *target, size_t len,
				       size_t target_off, struct net_request *req,
				       char *why, size_t whylen)
{
	static const char scheme[] = "http://";
	size_t auth_len, skip = sizeof(scheme) - 1;

	if (len >= 8 && strncasecmp(target, "https://", 8) == 0)
		return bad(why, whylen, "an https:// URL goes through CONNECT, not a plain request");
	if (len < skip || strncasecmp(target, scheme, skip) != 0)
		return bad(why, whylen, "not a proxy request: the target is not an http:// URL");
	for (auth_len = 0; skip + auth_len < len; auth_len++)
		if (strchr("/?#", target[skip + auth_len]))
			break;
	if (!take_authority(target + skip, auth_len, 80, req))
		return bad(why, whylen, "the URL's host or port is not valid");
	req->proto = NET_PROTO_HTTP;
	req->path_off = target_off + skip + auth_len;
	req->path_len = len - skip - auth_len;
	return NET_PARSE_DONE;
}

/* "METHOD SP TARGET SP HTTP/1.x" in LINE (LEN bytes, no line end). */
static enum net_parse parse_request_line(const char *line, size_t len,
					 struct net_request *req, char *why, size_t whylen)
{
	const char *sp1 = memchr(line, ' ', len), *sp2;
	size_t target_len;

	if (!sp1 || sp1 == line)
		return bad(why, whylen, "not an HTTP request line");
	for (const char *c = line; c < sp1; c++)
		if (!is_token_char((unsigned char)*c))
			return bad(why, whylen, "not an HTTP request line");
	sp2 = memchr(sp1 + 1, ' ', len - (size_t)(sp1 + 1 - line));
	if (!sp2 || sp2 == sp1 + 1)
		return bad(why, whylen, "not an HTTP request line");
	req->method_len = (size_t)(sp1 - line);
	req->version_off = (size_t)(sp2 + 1 - line);
	req->version_len = len - req->version_off;
	if (req->version_len != 8 || strncmp(sp2 + 1, "HTTP/1.", 7) != 0 ||
	    (sp2[8] != '0' && sp2[8] != '1'))
		return bad(why, whylen, "not HTTP/1.0 or HTTP/1.1");
	target_len = (size_t)(sp2 - sp1 - 1);
	if (req->method_len == 7 && strncmp(line, "CONNECT", 7) == 0) {
		if (!take_authority(sp1 + 1, target_len, 0, req))
			return bad(why, whylen, "CONNECT needs HOST:PORT");
		req->proto = NET_PROTO_CONNECT;
		return NET_PARSE_DONE;
	}
	return take_http_target(sp1 + 1, target_len, (size_t)(sp1 + 1 - line), req, why,
				whylen);
}

/* The header NAME's value in LINE (LEN bytes, no line end), without
 * the spaces around it; NULL if LINE is another header. */
static const char *header_value(const char *line, size_t len, const char *name,
				size_t *vlen)
{
	size_t n = strlen(name), start, end = len;

	if (len <= n || line[n] != ':' || strncasecmp(line, name, n) != 0)
		return NULL;
	for (start = n + 1; start < end && (line[start] == ' ' || line[start] == '\t'); start++)
		;
	while (end > start && (line[end - 1] == ' ' || line[end - 1] == '\t'))
		end--;
	*vlen = end - start;
	return line + start;
}

/* A plain request's body: Content-Length (one value, digits only), or
 * none.  Transfer-Encoding is refused: one request per connection needs
 * to know where the first ends, and hutch does not parse chunks. */
static enum net_parse take_body_length(const char *head, size_t head_len,
				       struct net_request *req, char *why, size_t whylen)
{
	const char *p = memchr(head, '\n', head_len) + 1, *end = head + head_len, *v;
	bool seen = false;
	size_t len, line_len, vlen;

	for (; p < end; p += len + 1) {
		len = (size_t)((const char *)memchr(p, '\n', (size_t)(end - p)) - p);
		line_len = len > 0 && p[len - 1] == '\r' ? len - 1 : len;
		if (header_value(p, line_len, "transfer-encoding", &vlen))
			return bad(why, whylen, "a request body in chunks (Transfer-Encoding); "
				   "send Content-Length");
		v = header_value(p, line_len, "content-length", &vlen);
		if (!v)
			continue;
		if (vlen == 0 || vlen > 18 || strspn(v, "0123456789") < vlen ||
		    (seen && req->body_len != strtoull(v, NULL, 10)))
			return bad(why, whylen, "a Content-Length that is not one number");
		req->body_len = strtoull(v, NULL, 10);
		seen = true;
	}
	return NET_PARSE_DONE;
}

enum net_parse net_http_parse(const char *buf, size_t len, struct net_request *req,
			      char *why, size_t whylen)
{
	size_t scan = len < NET_HEAD_MAX ? len : NET_HEAD_MAX;
	const char *nl = memchr(buf, '\n', scan);
	size_t end, line_len;
	enum net_parse r;

	memset(req, 0, sizeof(*req));
	if (!nl)
		return len >= NET_HEAD_MAX ? NET_PARSE_TOO_LONG : NET_PARSE_MORE;
	line_len = (size_t)(nl - buf);
	if (line_len > 0 && buf[line_len - 1] == '\r')
		line_len--;
	/* The request line decides at once: garbage never waits for more. */
	r = parse_request_line(buf, line_len, req, why, whylen);
	if (r != NET_PARSE_DONE)
		return r;
	end = head_end(buf, scan);
	if (end == 0)
		return len >= NET_HEAD_MAX ? NET_PARSE_TOO_LONG : NET_PARSE_MORE;
	if (memchr(buf, '\0', end))
		return bad(why, whylen, "a NUL byte in the request head");
	req->head_len = end;
	return req->proto == NET_PROTO_HTTP ? take_body_length(buf, end, req, why, whylen) :
	       NET_PARSE_DONE;
}

/* ---- forwarding a plain request ---- */

static const char *const dropped_headers[] = {
	"proxy-connection", "proxy-authorization", "connection", "keep-alive", "host",
};

static bool dropped(const char *line, size_t len)
{
	const char *colon = memchr(line, ':', len);

	if (!colon)
		return false;
	for (size_t i = 0; i < sizeof(dropped_headers) / sizeof(dropped_headers[0]); i++) {
		size_t n = strlen(dropped_headers[i]);

		if ((size_t)(colon - line) == n && strncasecmp(line, dropped_headers[i], n) == 0)
			return true;
	}
	return false;
}

struct out_buf {
	char *data;
	size_t len, cap;
	bool short_of_room;
};

static void put(struct out_buf *o, const char *s, size_t n)
{
	if (o->len + n > o->cap) {
		o->short_of_room = true;
		return;
	}
	memcpy(o->data + o->len, s, n);
	o->len += n;
}

static void put_str(struct out_buf *o, const char *s)
{
	put(o, s, strlen(s));
}

/* Host: as the request's target names it, whatever the client said: a
 * proxy must not let one allowed server be asked for another's site. */
static void put_host(struct out_buf *o, const struct net_request *req)
{
	char line[NET_NAME_MAX + 32];
	bool v6 = strchr(req->host, ':') != NULL;

	if (req->port == 80)
		snprintf(line, sizeof(line), "Host: %s%s%s\r\n", v6 ? "[" : "", req->host,
			 v6 ? "]" : "");
	else
		snprintf(line, sizeof(line), "Host: %s%s%s:%d\r\n", v6 ? "[" : "", req->host,
			 v6 ? "]" : "", req->port);
	put_str(o, line);
}

/* The header lines after the request line, less the dropped ones (and
 * their continuation lines). */
static void put_headers(struct out_buf *o, const char *head, size_t head_len)
{
	const char *p = memchr(head, '\n', head_len) + 1;
	const char *end = head + head_len;
	bool skipping = false;

	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t len = (size_t)(nl - p);

		if (len > 0 && p[len - 1] == '\r')
			len--;
		if (len == 0)
			break;
		if (p[0] != ' ' && p[0] != '\t')
			skipping = dropped(p, len);
		if (!skipping) {
			put(o, p, len);
			put_str(o, "\r\n");
		}
		p = nl + 1;
	}
}

ssize_t net_http_rewrite(const char *head, const struct net_request *req, char *out,
			 size_t outlen)
{
	struct out_buf o = { .data = out, .cap = outlen };

	put(&o, head, req->method_len);
	put_str(&o, " ");
	if (req->path_len == 0 || head[req->path_off] != '/')
		put_str(&o, "/");
	put(&o, head + req->path_off, req->path_len);
	put_str(&o, " ");
	put(&o, head + req->version_off, req->version_len);
	put_str(&o, "\r\n");
	put_host(&o, req);
	put_headers(&o, head, req->head_len);
	put_str(&o, "Connection: close\r\n\r\n");
	return o.short_of_room ? -1 : (ssize_t)o.len;
}

/* ---- SOCKS5 ---- */

enum net_parse net_socks_greeting(const unsigned char *buf, size_t len, size_t *used,
				  bool *noauth)
{
	if (len < 2)
		return NET_PARSE_MORE;
	if (buf[0] != 5 || buf[1] == 0)
		return NET_PARSE_BAD;
	if (len < 2 + (size_t)buf[1])
		return NET_PARSE_MORE;
	*noauth = memchr(buf + 2, 0, buf[1]) != NULL;
	*used = 2 + (size_t)buf[1];
	return NET_PARSE_DONE;
}

/* ATYP 3: a length byte and the name. */
static enum net_parse socks_name(const unsigned char *buf, size_t len, size_t *addr_len,
				 struct net_request *req, int *reply)
{
	size_t n;

	if (len < 5)
		return NET_PARSE_MORE;
	n = buf[4];
	*addr_len = 1 + n;
	if (len < 4 + *addr_len)
		return NET_PARSE_MORE;
	if (n == 0 || memchr(buf + 5, '\0', n) || !take_host((const char *)buf + 5, n, req)) {
		struct net_addr addr;
		char text[256];

		/* An IPv6 address needs no brackets where no port follows. */
		memcpy(text, buf + 5, n);
		text[n] = '\0';
		if (netrule_addr_parse(text, &addr) == 0) {
			netrule_addr_format(&addr, req->host, sizeof(req->host));
			return NET_PARSE_DONE;
		}
		*reply = SOCKS_BAD_ADDRESS;
		return NET_PARSE_BAD;
	}
	return NET_PARSE_DONE;
}

/* ATYP 1 and 4: the address as text in REQ->host. */
static enum net_parse socks_address(const unsigned char *buf, size_t len, int family,
				    size_t *addr_len, struct net_request *req)
{
	struct net_addr addr = { .family = family };

	*addr_len = family == AF_INET ? 4 : 16;
	if (len < 4 + *addr_len)
		return NET_PARSE_MORE;
	memcpy(addr.bytes, buf + 4, *addr_len);
	netrule_addr_format(&addr, req->host, sizeof(req->host));
	/* ::ffff:a.b.c.d becomes a.b.c.d, as everywhere else. */
	if (netrule_addr_parse(req->host, &addr) == 0)
		netrule_addr_format(&addr, req->host, sizeof(req->host));
	return NET_PARSE_DONE;
}

enum net_parse net_socks_request(const unsigned char *buf, size_t len,
				 struct net_request *req, int *reply)
{
	size_t addr_len = 0;
	enum net_parse r;

	memset(req, 0, sizeof(*req));
	req->proto = NET_PROTO_SOCKS5;
	*reply = SOCKS_FAILURE;
	if (len < 4)
		return NET_PARSE_MORE;
	if (buf[0] != 5 || buf[2] != 0)
		return NET_PARSE_BAD;
	if (buf[1] != 1) {
		*reply = SOCKS_BAD_COMMAND;	/* BIND and UDP ASSOCIATE: no */
		return NET_PARSE_BAD;
	}
	switch (buf[3]) {
	case 1: r = socks_address(buf, len, AF_INET, &addr_len, req); break;
	case 3: r = socks_name(buf, len, &addr_len, req, reply); break;
	case 4: r = socks_address(buf, len, AF_INET6, &addr_len, req); break;
	default: *reply = SOCKS_BAD_ADDRESS; return NET_PARSE_BAD;
	}
	if (r != NET_PARSE_DONE)
		return r;
	if (len < 4 + addr_len + 2)
		return NET_PARSE_MORE;
	req->port = buf[4 + addr_len] << 8 | buf[4 + addr_len + 1];
	req->head_len = 4 + addr_len + 2;
	if (req->port == 0) {
		*reply = SOCKS_BAD_ADDRESS;
		return NET_PARSE_BAD;
	}
	return NET_PARSE_DONE;
}
