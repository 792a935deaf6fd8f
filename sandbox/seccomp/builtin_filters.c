/* The seccomp programs of the shipped policies, built by libseccomp when
 * hutch is built (build/hutch-seccomp --variant, embedded by
 * builtin-filters-gen.sh): a launch under a shipped policy as it ships
 * loads them instead of compiling the policy again. */
#include <linux/filter.h>
#include <stdlib.h>
#include <string.h>

#include "lib/lib.h"

struct builtin_filter {
	const char *policy;
	long variant;		/* enum seccomp_variant */
	const unsigned char *start;
	const unsigned char *end;
};

extern const struct builtin_filter hutch_filter_table[];

int builtin_filter_copy(const char *policy, int variant, struct sock_filter **prog,
			size_t *n)
{
	const size_t insn = sizeof(struct sock_filter);

	for (const struct builtin_filter *f = hutch_filter_table; f->policy; f++) {
		size_t len = (size_t)(f->end - f->start);

		if (f->variant != variant || strcmp(f->policy, policy) != 0)
			continue;
		if (len % insn != 0)
			return -1;
		*n = len / insn;
		*prog = NULL;
		if (len == 0)
			return 0;	/* built, and not needed */
		*prog = malloc(len);
		if (!*prog)
			return -1;
		memcpy(*prog, f->start, len);
		return 0;
	}
	return -1;
}
