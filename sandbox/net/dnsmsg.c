/* DNS messages for the sandbox's resolver: one question read, one reply
 * built.  What it defends against: a query crafted to make the reader
 * read past its bytes (every length checked against what is left),
 * loop (a compression pointer in a question is refused: a query has no
 * earlier name to point at) or hand on a name the rules would see
 * otherwise than the client meant (each label checked, the whole name
 * by netrule_name_valid, lowercased as the proxy's parsers give names). */
#define _GNU_SOURCE
#include <string.h>
#include <sys/socket.h>

#include "dnsmsg.h"

static uint16_t get16(const unsigned char *p)
{
	return (uint16_t)(p[0] << 8 | p[1]);
}

static void put16(unsigned char *p, unsigned v)
{
	p[0] = (unsigned char)(v >> 8);
	p[1] = (unsigned char)v;
}

static char lower(unsigned char c)
{
	return (char)(c >= 'A' && c <= 'Z' ? c + ('a' - 'A') : c);
}

/* The question's name from OFF: the offset past it, or 0 when it is
 * malformed or too long; the name as text in NAME. */
static size_t read_name(const unsigned char *m, size_t len, size_t off, char *name)
{
	size_t out = 0;

	for (;;) {
		unsigned label;

		if (off >= len)
			return 0;
		label = m[off++];
		if (label == 0)
			break;
		/* A pointer (0xc0) or a reserved kind (0x40, 0x80). */
		if (label > 63 || off + label > len || out + label + 1 > NET_NAME_MAX + 1)
			return 0;
		if (out > 0)
			name[out++] = '.';
		for (unsigned i = 0; i < label; i++) {
			unsigned char c = m[off + i];

			if (c == '\0' || c == '.')
				return 0;
			name[out++] = lower(c);
		}
		off += label;
	}
	name[out] = '\0';
	return out > 0 && out <= NET_NAME_MAX ? off : 0;
}

int dnsmsg_query_read(const unsigned char *query, size_t len, struct dns_question *q)
{
	size_t off;

	memset(q, 0, sizeof(*q));
	if (len < DNS_HEADER || (query[2] & 0x80))
		return -1;	/* no header, or a response: never answered */
	if (len > DNS_QUERY_MAX)
		return DNS_REFUSED;
	if (((query[2] >> 3) & 0x0f) != 0)
		return DNS_NOTIMP;	/* an opcode other than QUERY */
	if (get16(query + 4) != 1 || get16(query + 6) != 0 || get16(query + 8) != 0)
		return DNS_FORMERR;
	off = read_name(query, len, DNS_HEADER, q->name);
	if (off == 0 || off + 4 > len) {
		q->name[0] = '\0';
		return DNS_FORMERR;
	}
	q->qtype = get16(query + off);
	q->end = off + 4;
	if (get16(query + off + 2) != DNS_CLASS_IN ||
	    (q->qtype != DNS_TYPE_A && q->qtype != DNS_TYPE_AAAA))
		return DNS_REFUSED;
	if (!netrule_name_valid(q->name))
		return DNS_REFUSED;
	return DNS_NOERROR;
}

size_t dnsmsg_reply_build(const unsigned char *query, size_t qend, int rcode,
			  const struct net_addr *addrs, int n, uint32_t ttl,
			  unsigned char *out, size_t cap)
{
	size_t off = qend > 0 ? qend : DNS_HEADER;

	if (qend > DNS_QUERY_MAX || cap < off)
		return 0;
	memcpy(out, query, off);
	out[2] = (unsigned char)(0x80 | (query[2] & 0x79));	/* QR, the opcode, RD */
	out[3] = (unsigned char)(0x80 | (rcode & 0x0f));	/* RA */
	put16(out + 4, qend > 0 ? 1 : 0);
	put16(out + 6, 0);
	put16(out + 8, 0);
	put16(out + 10, 0);
	for (int i = 0; i < n && qend > 0; i++) {
		size_t size = addrs[i].family == AF_INET ? 4 : 16;

		if (off + 12 + size > cap)
			return 0;
		put16(out + off, 0xc000 | DNS_HEADER);	/* the question's name */
		put16(out + off + 2, size == 4 ? DNS_TYPE_A : DNS_TYPE_AAAA);
		put16(out + off + 4, DNS_CLASS_IN);
		put16(out + off + 6, ttl >> 16);
		put16(out + off + 8, ttl & 0xffff);
		put16(out + off + 10, (unsigned)size);
		memcpy(out + off + 12, addrs[i].bytes, size);
		off += 12 + size;
		put16(out + 6, (unsigned)i + 1);
	}
	return off;
}
