/* The JSON writer of json.h, and its one escaper.  What it defends
 * against: a path, a host name or a command name with quotes, control
 * characters or bytes that are not UTF-8, which written as they are
 * would end a string early, make the document invalid or drive the
 * terminal that shows it; a command name such as "$(id>~/PWNED)" that
 * a shell would run if the line ever reached one; and
 * hand-counted commas, which a new field would get wrong. */
#define _GNU_SOURCE
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "json.h"

/* ---- the escaper ---- */

/* Length of the valid UTF-8 sequence at S (a NUL ends it), or 0. */
static size_t utf8_length(const unsigned char *s)
{
	size_t n = s[0] >= 0xf5 ? 0 : s[0] >= 0xf0 ? 4 : s[0] >= 0xe0 ? 3 : s[0] >= 0xc2 ? 2 : 0;

	for (size_t i = 1; i < n; i++)
		if ((s[i] & 0xc0) != 0x80)
			return 0;
	/* No overlong forms, surrogates or code points past U+10FFFF. */
	if ((n == 3 && s[0] == 0xe0 && s[1] < 0xa0) || (n == 3 && s[0] == 0xed && s[1] >= 0xa0) ||
	    (n == 4 && s[0] == 0xf0 && s[1] < 0x90) || (n == 4 && s[0] == 0xf4 && s[1] >= 0x90))
		return 0;
	return n;
}

/* The code point of the valid UTF-8 sequence of N bytes at S. */
static unsigned code_point(const char *s, size_t n)
{
	const unsigned char *u = (const unsigned char *)s;
	unsigned cp = u[0] & (0xff >> (n + 1));

	for (size_t i = 1; i < n; i++)
		cp = (cp << 6) | (u[i] & 0x3f);
	return cp;
}

/* Written as it is, may the code point at S (N bytes) stay?  Not the C1
 * controls (U+0080-U+009F: CSI, a terminal's escape in UTF-8) nor the
 * line and paragraph separators (U+2028, U+2029: line ends to some
 * readers). */
static bool inert_code_point(const char *s, size_t n)
{
	unsigned cp = code_point(s, n);

	return !(cp >= 0x80 && cp <= 0x9f) && cp != 0x2028 && cp != 0x2029;
}

size_t json_encode_char(const char *s, char out[8], size_t *used)
{
	unsigned char c = (unsigned char)*s;
	size_t n = c >= 0x80 ? utf8_length((const unsigned char *)s) : 0;

	*used = n ? n : 1;
	if (n && !inert_code_point(s, n))
		return (size_t)snprintf(out, 8, "\\u%04x", code_point(s, n));
	if (n) {
		memcpy(out, s, n);
		return n;
	}
	/* A line that reaches a shell by mistake expands nothing: a JSON
	 * string's text stands inside the shell's double quotes, where
	 * only $ and ` start an expansion ("$(id)", `id`). */
	if (c == '$' || c == '`')
		return (size_t)snprintf(out, 8, "\\u%04x", c);
	if (c == '"' || c == '\\') {
		out[0] = '\\';
		out[1] = (char)c;
		return 2;
	}
	/* Control characters, and bytes that are not UTF-8 (as the code
	 * point of the same number): the document stays valid JSON. */
	if (c < 0x20 || c >= 0x7f)
		return (size_t)snprintf(out, 8, "\\u%04x", c);
	out[0] = (char)c;
	return 1;
}

void json_fputs(FILE *out, const char *s)
{
	char enc[8];
	size_t used;

	fputc('"', out);
	for (; s && *s; s += used)
		fwrite(enc, 1, json_encode_char(s, enc, &used), out);
	fputc('"', out);
}

/* ---- layout ---- */

static bool on_lines(enum json_layout layout)
{
	return layout == JSON_LINES || layout == JSON_ROWS;
}

/* Lines deep: how many line-laid-out containers enclose the items of
 * level DEPTH (DEPTH's own included when it is one). */
static int lines_deep(const struct json_writer *w, int depth)
{
	int n = 0;

	for (int i = 1; i <= depth; i++)
		n += on_lines(w->level[i].layout);
	return n;
}

static void new_line(struct json_writer *w, int lines)
{
	fprintf(w->out, "\n%*s", lines * w->indent, "");
}

/* What goes before an item of the innermost container. */
static void separate(struct json_writer *w)
{
	struct json_level *l = &w->level[w->depth];

	if (w->depth == 0)
		return;
	if (l->has_items)
		fputc(',', w->out);
	if (on_lines(l->layout))
		new_line(w, lines_deep(w, w->depth));
	else if (l->has_items && l->layout != JSON_COMPACT)
		fputc(' ', w->out);
	else if (!l->has_items && l->layout == JSON_PADDED)
		fputc(' ', w->out);
	l->has_items = true;
}

/* Before a value: an object's member has its separator from its key. */
static void before_value(struct json_writer *w)
{
	struct json_level *l = &w->level[w->depth];

	if (w->depth > 0 && l->object && l->after_key) {
		l->after_key = false;
		return;
	}
	separate(w);
}

static void begin(struct json_writer *w, enum json_layout layout, bool object)
{
	before_value(w);
	fputc(object ? '{' : '[', w->out);
	if (w->depth + 1 >= JSON_MAX_DEPTH)
		abort();	/* a writer's caller nests deeper than any output */
	w->depth++;
	w->level[w->depth] = (struct json_level){ .layout = layout, .object = object };
}

static void end(struct json_writer *w, char bracket)
{
	struct json_level *l = &w->level[w->depth];

	if (l->has_items && l->layout == JSON_LINES)
		new_line(w, lines_deep(w, w->depth - 1));
	else if (l->has_items && l->layout == JSON_PADDED)
		fputc(' ', w->out);
	fputc(bracket, w->out);
	w->depth--;
}

/* ---- the writer ---- */

void json_init(struct json_writer *w, FILE *out, int indent)
{
	memset(w, 0, sizeof(*w));
	w->out = out;
	w->indent = indent;
}

void json_begin_object(struct json_writer *w, enum json_layout layout)
{
	begin(w, layout, true);
}

void json_end_object(struct json_writer *w)
{
	end(w, '}');
}

void json_begin_array(struct json_writer *w, enum json_layout layout)
{
	begin(w, layout, false);
}

void json_end_array(struct json_writer *w)
{
	end(w, ']');
}

void json_key(struct json_writer *w, const char *key)
{
	struct json_level *l = &w->level[w->depth];

	separate(w);
	json_fputs(w->out, key);
	fputs(l->layout == JSON_COMPACT ? ":" : ": ", w->out);
	l->after_key = true;
}

/* A value that is already JSON text (a number, true, false, null). */
static void raw_value(struct json_writer *w, const char *text)
{
	before_value(w);
	fputs(text, w->out);
}

void json_string(struct json_writer *w, const char *s)
{
	if (!s) {
		json_null(w);
		return;
	}
	before_value(w);
	json_fputs(w->out, s);
}

void json_string_cut(struct json_writer *w, const char *s, size_t max)
{
	char enc[8];
	size_t used, written = 0;

	before_value(w);
	fputc('"', w->out);
	for (; *s && written < max; s += used)
		written += fwrite(enc, 1, json_encode_char(s, enc, &used), w->out);
	fputc('"', w->out);
}

void json_stringf(struct json_writer *w, const char *fmt, ...)
{
	char *s = NULL;
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vasprintf(&s, fmt, ap);
	va_end(ap);
	json_string(w, n < 0 ? "" : s);
	free(n < 0 ? NULL : s);
}

void json_int(struct json_writer *w, long long v)
{
	before_value(w);
	fprintf(w->out, "%lld", v);
}

void json_uint(struct json_writer *w, unsigned long long v)
{
	before_value(w);
	fprintf(w->out, "%llu", v);
}

void json_number(struct json_writer *w, const char *fmt, ...)
{
	va_list ap;

	before_value(w);
	va_start(ap, fmt);
	vfprintf(w->out, fmt, ap);
	va_end(ap);
}

void json_bool(struct json_writer *w, bool v)
{
	raw_value(w, v ? "true" : "false");
}

void json_null(struct json_writer *w)
{
	raw_value(w, "null");
}
