/* The parser's face to parse.c and profile.c: options recorded from the
 * command line, --args fds and profiles, then applied to the plan with
 * the parser's scratch (struct parse_ctx).  The table itself and the
 * apply functions are inside (options.h). */
#ifndef HUTCH_CLI_H
#define HUTCH_CLI_H

#include <stdbool.h>
#include <stdio.h>
#include <stddef.h>
#include "parse.h"
#include "plan/plan.h"

/* What only the parser needs, for the length of parse_plan: the state
 * one option leaves for the next, and what the final checks ask about.
 * The plan holds only what the stages, --explain and --doctor read. */
struct parse_ctx {
	struct plan *plan;
	char *const *envp;		/* the caller's environment */
	mode_t next_perms;		/* pending --perms for the next op */
	bool have_next_perms;
	unsigned long long next_size;	/* pending --size for the next --tmpfs */
	char **overlay_srcs;		/* --overlay-src given since the last overlay */
	size_t n_overlay_srcs;
	bool uid_set, gid_set;		/* --uid, --gid given */
};

/* One option as given: its key, its arguments and where it came from.
 * Parsing records options first and applies them second, so that
 * profiles named on the command line apply before its other options. */
struct opt_spec;

struct option_record {
	const struct opt_spec *spec;	/* its row in the option table */
	char *args[3];
	char *origin;
};

struct record_list {
	struct option_record *recs;
	size_t n;
	char **command;		/* COMMAND and its arguments, or NULL */
	int args_depth;		/* --args nesting */
};

/* Record the options of ARGV (ARGV[0] is a program name, ignored).
 * ORIGIN names where they come from.  IN_PROFILE forbids COMMAND and
 * the options a profile may not hold. */
int cli_record(struct plan *plan, int argc, char **argv, const char *origin,
	       bool in_profile, struct record_list *out, char *err, size_t errlen);
/* One profile line: option NAME (no "--") and its N words. */
int cli_record_line(struct plan *plan, const char *name, char **words, int n,
		    const char *origin, struct record_list *out, char *err, size_t errlen);
/* Apply one recorded option to the plan. */
int cli_apply(struct parse_ctx *p, const struct option_record *rec,
	      char *err, size_t errlen);
void cli_records_free(struct record_list *list);
/* Does a long option of this name exist for this mode (profiles use it)? */
bool cli_option_exists(const struct plan *plan, const char *name);
/* Is this record a --profile?  Does the list ask for --help or --version? */
bool cli_is_profile(const struct option_record *rec);
bool cli_wants_info(const struct record_list *list);
/* The long name of the option REC records (without dashes). */
const char *cli_option_name(const struct option_record *rec);
/* The option table (N rows) and a row's one-letter form (0: none), for
 * build-time generators (shell completions). */
const struct opt_spec *cli_option_table(size_t *n);
int cli_option_letter(const struct opt_spec *s);

#endif
