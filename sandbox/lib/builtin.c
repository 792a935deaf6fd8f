/* Lookup in the table of embedded files that builtin-gen.sh writes. */
#include <string.h>

#include "builtin.h"

struct builtin_entry {
	const char *kind;
	const char *name;
	const char *start;
	const char *end;
};

extern const struct builtin_entry hutch_builtin_table[];
extern const unsigned char *const hutch_init_image[2];

const char *builtin_file(const char *kind, const char *name, size_t *len)
{
	for (const struct builtin_entry *e = hutch_builtin_table; e->kind; e++)
		if (strcmp(e->kind, kind) == 0 && strcmp(e->name, name) == 0) {
			*len = (size_t)(e->end - e->start);
			return e->start;
		}
	return NULL;
}

const unsigned char *builtin_init_image(size_t *len)
{
	*len = (size_t)(hutch_init_image[1] - hutch_init_image[0]);
	return hutch_init_image[0];
}
