/* hutch-completions: shell completions for hutch, written at build time
 * from hutch's own option table (sandbox/parse/cli.c), to which this program
 * is linked: an option added to the table is completed with no other
 * change, and none can be completed that hutch does not know.
 *
 *   hutch-completions bash|zsh|fish 'PROFILE...' 'POLICY...'
 *
 * PROFILE... and POLICY... are the names of the shipped profiles and
 * seccomp policies (the Makefile's, the ones it embeds in hutch).  What
 * an argument is completed with (a file, a directory, a profile name...)
 * comes from its row: the option's name for the few whose values are
 * words, else the argument's name in the table (SRC, DEST, DIR...). */
#define _GNU_SOURCE
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/capability.h>

#include "parse/options.h"

#ifndef HUTCH_DATADIR
#define HUTCH_DATADIR "/usr/local/share/hutch"
#endif

/* What an argument is completed with; VALUES: the words of kind_values. */
enum kind { K_NONE, K_FILE, K_DIR, K_PROFILE, K_POLICY, K_CAP, K_VALUES };

static const char *const kind_names[] = {
	[K_NONE] = "none", [K_FILE] = "file", [K_DIR] = "dir", [K_PROFILE] = "profile",
	[K_POLICY] = "policy", [K_CAP] = "cap", [K_VALUES] = "values",
};

/* The options whose arguments are words hutch knows (their apply
 * functions' and their help's): the rest go by the argument's name. */
static const struct { const char *option; enum kind kind; const char *values; } by_option[] = {
	{ "profile", K_PROFILE, NULL },
	{ "seccomp-policy", K_POLICY, NULL },
	{ "cap-add", K_CAP, NULL },
	{ "cap-drop", K_CAP, NULL },
	{ "fallback", K_VALUES, "landlock none" },
	{ "explain", K_VALUES, "text json" },
	{ "timing", K_VALUES, "text json" },
};

static const struct { const char *argname; enum kind kind; } by_argname[] = {
	{ "SRC", K_FILE }, { "DEST", K_FILE }, { "PATH", K_FILE }, { "RWSRC", K_DIR },
	{ "FILE", K_FILE }, { "DIR", K_DIR }, { "WORKDIR", K_DIR },
};

/* The kind of argument WORD (0-based) of row S; *VALUES for K_VALUES. */
static enum kind arg_kind(const struct opt_spec *s, int word, const char **values)
{
	const char *names = s->argnames;
	size_t len;

	*values = NULL;
	for (size_t i = 0; i < sizeof by_option / sizeof by_option[0]; i++)
		if (strcmp(by_option[i].option, s->name) == 0) {
			*values = by_option[i].values;
			return by_option[i].kind;
		}
	for (int i = 0; names && i < word; i++) {
		names = strchr(names, ' ');
		names = names ? names + 1 : NULL;
	}
	if (!names)
		return K_NONE;
	len = strcspn(names, " ");
	for (size_t i = 0; i < sizeof by_argname / sizeof by_argname[0]; i++)
		if (strlen(by_argname[i].argname) == len &&
		    strncmp(by_argname[i].argname, names, len) == 0)
			return by_argname[i].kind;
	return K_NONE;
}

/* The rows of hutch mode (every row is: bwrap's are hutch's too). */
static const struct opt_spec *table(size_t *n)
{
	return cli_option_table(n);
}

/* Capability names as hutch takes them (CAP_CHOWN...), libcap's list. */
static void print_caps(FILE *out, const char *sep)
{
	fputs("ALL", out);
	for (cap_value_t c = 0; c <= CAP_LAST_CAP; c++) {
		char *name = cap_to_name(c);

		fputs(sep, out);
		for (char *p = name; p && *p; p++)
			fputc(toupper((unsigned char)*p), out);
		cap_free(name);
	}
}

/* S with each space turned into C (a list in one shell word). */
static void print_joined(FILE *out, const char *s, char c)
{
	for (; *s; s++)
		fputc(*s == ' ' ? c : *s, out);
}

/* S inside single quotes, for sh and fish. */
static void print_squoted(FILE *out, const char *s)
{
	fputc('\'', out);
	for (; *s; s++)
		if (*s == '\'')
			fputs("'\\''", out);
		else if (*s == '\\')
			fputs("\\\\", out);
		else
			fputc(*s, out);
	fputc('\'', out);
}

/* ---- bash ---- */

/* _hutch_args OPTION: one word per argument naming its kind
 * ("=values:a,b" for an optional one given as --opt=VALUE). */
static void bash_args_function(FILE *out)
{
	size_t n;
	const struct opt_spec *s = table(&n);

	fputs("_hutch_args() {\n\tcase $1 in\n", out);
	for (size_t i = 0; i < n; i++) {
		const char *values;
		int letter = cli_option_letter(&s[i]);

		if (s[i].nargs == 0)
			continue;
		fprintf(out, "\t--%s", s[i].name);
		if (letter)
			fprintf(out, " | -%c", letter);
		fputs(") echo '", out);
		for (int w = 0; w < s[i].nargs; w++) {
			enum kind k = arg_kind(&s[i], w, &values);

			fprintf(out, "%s%s%s", w ? " " : "", s[i].flags & OPTARG ? "=" : "",
				kind_names[k]);
			if (values) {
				fputc(':', out);
				print_joined(out, values, ',');
			}
		}
		fputs("' ;;\n", out);
	}
	fputs("\tesac\n}\n\n", out);
}

static void write_bash(FILE *out, const char *profiles, const char *policies)
{
	size_t n;
	const struct opt_spec *s = table(&n);

	fputs("# bash completion for hutch.  Generated from hutch's option table by\n"
	      "# helpers/hutch-completions.c at build time: do not edit.\n\n", out);
	fputs("_hutch_options='", out);
	for (size_t i = 0; i < n; i++) {
		int letter = cli_option_letter(&s[i]);

		fprintf(out, "%s--%s", i ? " " : "", s[i].name);
		if (letter)
			fprintf(out, " -%c", letter);
	}
	fputs("'\n\n", out);
	bash_args_function(out);
	fprintf(out, "# _hutch_complete KIND: the candidates for an argument of that kind.\n"
		"_hutch_complete() {\n"
		"\tlocal kind=$1 cur=${COMP_WORDS[COMP_CWORD]} names d\n"
		"\t[ \"$cur\" = = ] && cur=\n"
		"\tcase $kind in\n"
		"\tfile) compopt -o filenames 2>/dev/null; COMPREPLY=($(compgen -f -- \"$cur\")) ;;\n"
		"\tdir) compopt -o filenames 2>/dev/null; COMPREPLY=($(compgen -d -- \"$cur\")) ;;\n"
		"\tprofile | policy)\n"
		"\t\tif [[ $cur == */* ]]; then\n"
		"\t\t\tcompopt -o filenames 2>/dev/null; COMPREPLY=($(compgen -f -- \"$cur\"))\n"
		"\t\t\treturn\n"
		"\t\tfi\n"
		"\t\tif [ \"$kind\" = policy ]; then\n"
		"\t\t\tnames='%s'\n"
		"\t\telse\n"
		"\t\t\tnames='none %s'\n"
		"\t\t\t# the search path of hutch-profile(5)\n"
		"\t\t\tfor d in \"${XDG_CONFIG_HOME:-$HOME/.config}/hutch/profiles\" /etc/hutch/profiles \\\n"
		"\t\t\t\t\t'%s/profiles'; do\n"
		"\t\t\t\t[ -d \"$d\" ] && names=\"$names $(command ls -- \"$d\" 2>/dev/null)\"\n"
		"\t\t\tdone\n"
		"\t\tfi\n"
		"\t\tCOMPREPLY=($(compgen -W \"$names\" -- \"$cur\")) ;;\n"
		"\tcap) COMPREPLY=($(compgen -W '",
		policies, profiles, HUTCH_DATADIR);
	print_caps(out, " ");
	fputs("' -- \"${cur^^}\")) ;;\n"
	      "\tvalues:*) names=${kind#values:}; COMPREPLY=($(compgen -W \"${names//,/ }\" -- \"$cur\")) ;;\n"
	      "\t*) COMPREPLY=() ;;\n"
	      "\tesac\n"
	      "}\n\n", out);
	fputs("# Options and their arguments up to COMMAND, then COMMAND's own.\n"
	      "_hutch() {\n"
	      "\tlocal cur=${COMP_WORDS[COMP_CWORD]} i=1 w kinds\n"
	      "\tCOMPREPLY=()\n"
	      "\twhile [ \"$i\" -lt \"$COMP_CWORD\" ]; do\n"
	      "\t\tw=${COMP_WORDS[i]}\n"
	      "\t\tcase $w in\n"
	      "\t\t--) i=$((i + 1)); break ;;\n"
	      "\t\t-*)\n"
	      "\t\t\tkinds=($(_hutch_args \"$w\"))\n"
	      "\t\t\tif [ \"${kinds[0]:0:1}\" = = ]; then\n"
	      "\t\t\t\t# --opt=VALUE: bash splits the word at the =\n"
	      "\t\t\t\tif [ \"${COMP_WORDS[i + 1]}\" = = ]; then\n"
	      "\t\t\t\t\tif [ $((i + 2)) -ge \"$COMP_CWORD\" ]; then\n"
	      "\t\t\t\t\t\t_hutch_complete \"${kinds[0]#=}\"; return\n"
	      "\t\t\t\t\tfi\n"
	      "\t\t\t\t\ti=$((i + 2))\n"
	      "\t\t\t\tfi\n"
	      "\t\t\t\tkinds=()\n"
	      "\t\t\tfi\n"
	      "\t\t\tif [ $((i + ${#kinds[@]})) -ge \"$COMP_CWORD\" ]; then\n"
	      "\t\t\t\t_hutch_complete \"${kinds[COMP_CWORD - i - 1]}\"; return\n"
	      "\t\t\tfi\n"
	      "\t\t\ti=$((i + ${#kinds[@]})) ;;\n"
	      "\t\t*) break ;;\n"
	      "\t\tesac\n"
	      "\t\ti=$((i + 1))\n"
	      "\tdone\n"
	      "\tif [ \"$i\" -lt \"$COMP_CWORD\" ] || { [ \"$i\" -eq \"$COMP_CWORD\" ] && [[ $cur != -* ]]; }; then\n"
	      "\t\t# COMMAND: bash-completion's own completion of a command line\n"
	      "\t\tif declare -F _command_offset >/dev/null; then\n"
	      "\t\t\t_command_offset \"$i\"\n"
	      "\t\telif [ \"$i\" -eq \"$COMP_CWORD\" ]; then\n"
	      "\t\t\tCOMPREPLY=($(compgen -c -- \"$cur\"))\n"
	      "\t\telse\n"
	      "\t\t\tcompopt -o filenames 2>/dev/null; COMPREPLY=($(compgen -f -- \"$cur\"))\n"
	      "\t\tfi\n"
	      "\t\treturn\n"
	      "\tfi\n"
	      "\tCOMPREPLY=($(compgen -W \"$_hutch_options\" -- \"$cur\"))\n"
	      "}\n"
	      "complete -F _hutch hutch\n", out);
}

/* ---- zsh ---- */

/* S for a zsh _arguments description: [ ] : \ escaped, inside '...'. */
static void print_zsh_text(FILE *out, const char *s)
{
	for (; *s; s++) {
		if (*s == '\'')
			fputs("'\\''", out);
		else if (strchr("[]:\\", *s))
			fprintf(out, "\\%c", *s);
		else
			fputc(*s, out);
	}
}

static void zsh_action(FILE *out, enum kind k, const char *values)
{
	switch (k) {
	case K_FILE: fputs("_files", out); break;
	case K_DIR: fputs("_files -/", out); break;
	case K_PROFILE: fputs("_hutch_profiles", out); break;
	case K_POLICY: fputs("_hutch_policies", out); break;
	case K_CAP: fputs("(", out); print_caps(out, " "); fputs(")", out); break;
	case K_VALUES: fprintf(out, "(%s)", values); break;
	case K_NONE: fputs(" ", out); break;
	}
}

static void zsh_spec(FILE *out, const struct opt_spec *s)
{
	int letter = cli_option_letter(s);
	const char *values;
	const char *argnames = s->argnames;

	fputs("\t'", out);
	/* an option may be given again, but --help and --version */
	if (s->nargs > 0 || !(s->flags & NOPROF))
		fputs("*", out);
	if (letter)
		fprintf(out, "'{-%c,--%s}'", letter, s->name);
	else
		fprintf(out, "--%s", s->name);
	if (s->flags & OPTARG)
		fputs("=-", out);
	fputc('[', out);
	print_zsh_text(out, s->doc);
	fputc(']', out);
	for (int w = 0; w < s->nargs; w++) {
		enum kind k = arg_kind(s, w, &values);
		size_t len = argnames ? strcspn(argnames, " ") : 0;

		fputs((s->flags & OPTARG) ? "::" : ":", out);
		fprintf(out, "%.*s:", (int)len, argnames ? argnames : "");
		zsh_action(out, k, values);
		argnames = argnames ? strchr(argnames, ' ') : NULL;
		argnames = argnames ? argnames + 1 : NULL;
	}
	fputs("' \\\n", out);
}

static void write_zsh(FILE *out, const char *profiles, const char *policies)
{
	size_t n;
	const struct opt_spec *s = table(&n);

	fputs("#compdef hutch\n"
	      "# zsh completion for hutch.  Generated from hutch's option table by\n"
	      "# helpers/hutch-completions.c at build time: do not edit.\n\n", out);
	fprintf(out, "_hutch_policies() {\n"
		"\tcompset -P '*/' && { _files; return }\n"
		"\tcompadd -- %s\n"
		"\t[[ $PREFIX == */* ]] || _files\n"
		"}\n\n", policies);
	fprintf(out, "_hutch_profiles() {\n"
		"\tlocal d\n"
		"\tlocal -a names\n"
		"\tnames=(none %s)\n"
		"\t# the search path of hutch-profile(5)\n"
		"\tfor d in ${XDG_CONFIG_HOME:-$HOME/.config}/hutch/profiles /etc/hutch/profiles \\\n"
		"\t\t\t'%s/profiles'; do\n"
		"\t\t[[ -d $d ]] && names+=($d/*(N:t))\n"
		"\tdone\n"
		"\tcompadd -a names\n"
		"\t_files\n"
		"}\n\n", profiles, HUTCH_DATADIR);
	fputs("_arguments -S \\\n", out);
	for (size_t i = 0; i < n; i++)
		zsh_spec(out, &s[i]);
	fputs("\t'(-)1:command:_command_names -e' \\\n"
	      "\t'*::arguments:_normal'\n", out);
}

/* ---- fish ---- */

static void write_fish(FILE *out, const char *profiles, const char *policies)
{
	size_t n;
	const struct opt_spec *s = table(&n);

	fputs("# fish completion for hutch.  Generated from hutch's option table by\n"
	      "# helpers/hutch-completions.c at build time: do not edit.\n\n", out);
	fprintf(out, "function __hutch_profiles\n"
		"\tprintf '%%s\\n' none %s\n"
		"\tfor d in (set -q XDG_CONFIG_HOME; and echo $XDG_CONFIG_HOME; or echo $HOME/.config)/hutch/profiles \\\n"
		"\t\t\t/etc/hutch/profiles '%s/profiles'\n"
		"\t\ttest -d $d; and command ls -- $d 2>/dev/null\n"
		"\tend\n"
		"end\n\n", profiles, HUTCH_DATADIR);
	/* After COMMAND, its own completions. */
	fputs("complete -c hutch -n 'not __fish_seen_subcommand_from --' -x -a '(__fish_complete_subcommand)'\n"
	      "complete -c hutch -n '__fish_seen_subcommand_from --' -x -a '(__fish_complete_subcommand -- --)'\n", out);
	for (size_t i = 0; i < n; i++) {
		const char *values;
		int letter = cli_option_letter(&s[i]);
		enum kind k = s[i].nargs ? arg_kind(&s[i], 0, &values) : K_NONE;

		fprintf(out, "complete -c hutch -l %s", s[i].name);
		if (letter)
			fprintf(out, " -s %c", letter);
		if (s[i].nargs > 0 && !(s[i].flags & OPTARG))
			fputs(k == K_FILE || k == K_DIR || k == K_POLICY ? " -r -F" : " -x", out);
		if (k == K_PROFILE)
			fputs(" -a '(__hutch_profiles)'", out);
		else if (k == K_POLICY)
			fprintf(out, " -a '%s'", policies);
		else if (k == K_CAP) {
			fputs(" -a '", out);
			print_caps(out, " ");
			fputc('\'', out);
		} else if (k == K_VALUES)
			fprintf(out, " -a '%s'", values);
		fputs(" -d ", out);
		print_squoted(out, s[i].doc);
		fputc('\n', out);
	}
}

int main(int argc, char **argv)
{
	if (argc != 4) {
		fprintf(stderr, "usage: hutch-completions bash|zsh|fish 'PROFILE...' 'POLICY...'\n");
		return 2;
	}
	if (strcmp(argv[1], "bash") == 0)
		write_bash(stdout, argv[2], argv[3]);
	else if (strcmp(argv[1], "zsh") == 0)
		write_zsh(stdout, argv[2], argv[3]);
	else if (strcmp(argv[1], "fish") == 0)
		write_fish(stdout, argv[2], argv[3]);
	else {
		fprintf(stderr, "hutch-completions: %s: not bash, zsh or fish\n", argv[1]);
		return 2;
	}
	return fflush(stdout) == 0 ? 0 : 1;
}
