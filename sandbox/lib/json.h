/* A small JSON writer for hutch's machine-readable outputs: --explain=json,
 * --info-fd and --json-status-fd, the --report lines.  The writer puts
 * the commas, the colons and the layout's white space; every string goes
 * through one escaper (json_encode_char), so that every output stays
 * valid JSON whatever bytes a path or a name holds. */
#ifndef HUTCH_JSON_H
#define HUTCH_JSON_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#define JSON_MAX_DEPTH 8

/* How a container lays out its items; each output keeps the layout it
 * has always had. */
enum json_layout {
	JSON_COMPACT,	/* {"a":1,"b":[1,2]} */
	JSON_SPACED,	/* {"a": 1, "b": [1, 2]} */
	JSON_PADDED,	/* { "a": 1, "b": 2 }, as bwrap writes its status */
	JSON_LINES,	/* one item a line, indented; the bracket on a line of its own */
	JSON_ROWS,	/* one item a line, indented; the bracket after the last item */
};

struct json_level {
	enum json_layout layout;
	bool object;
	bool has_items;
	bool after_key;	/* an object's key is written, its value is next */
};

struct json_writer {
	FILE *out;
	int indent;	/* spaces per level of JSON_LINES or JSON_ROWS */
	int depth;
	struct json_level level[JSON_MAX_DEPTH];
};

/* A writer on OUT; INDENT spaces per line-laid-out level. */
void json_init(struct json_writer *w, FILE *out, int indent);

void json_begin_object(struct json_writer *w, enum json_layout layout);
void json_end_object(struct json_writer *w);
void json_begin_array(struct json_writer *w, enum json_layout layout);
void json_end_array(struct json_writer *w);

/* An object's key; its value is the next thing written. */
void json_key(struct json_writer *w, const char *key);

/* S as a string, or null when S is NULL. */
void json_string(struct json_writer *w, const char *s);
/* A string made of FMT and its arguments, escaped like any other. */
void json_stringf(struct json_writer *w, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* S as a string, cut short once MAX bytes of its escaped text are
 * written (a character is never split): a line stays bounded. */
void json_string_cut(struct json_writer *w, const char *s, size_t max);
void json_int(struct json_writer *w, long long v);
void json_uint(struct json_writer *w, unsigned long long v);
/* A number in FMT ("%g", "%.6f"); the caller's format makes a number. */
void json_number(struct json_writer *w, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
void json_bool(struct json_writer *w, bool v);
void json_null(struct json_writer *w);

/* S as a quoted JSON string on OUT. */
void json_fputs(FILE *out, const char *s);
/* One character of S as it goes in a JSON string, into OUT (its length
 * returned), *USED the bytes of S it took: valid UTF-8 as it is, quotes
 * and backslashes escaped; control characters (C0, DEL, C1, U+2028,
 * U+2029), stray bytes, $ and ` as \uXXXX, so that no output holds a
 * raw line end, escape or NUL, nor an expansion a shell would run. */
size_t json_encode_char(const char *s, char out[8], size_t *used);

#endif
