/* --explain for the Landlock fallback: the rules it would apply for this
 * plan (rights per path, per-run directories, what is made in them,
 * network, approximations), or why the plan cannot run under it; as
 * text and as one JSON object. */
#define _GNU_SOURCE
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "lib/lib.h"
#include "fallback.h"
#include "landlock/landlock.h"

static const char *access_name(uint64_t access)
{
	if (access == 0)
		return "no access";
	if ((access & R_WRITE) && (access & LL_FS_MAKE_CHAR))
		return "read-write, devices";
	if (access & R_WRITE)
		return "read-write";
	if (access == R_NODE)
		return "read-write (device)";
	return (access & LL_FS_EXECUTE) ? "read, execute" : "read";
}

static int area_at(const struct fallback *fb, const char *path)
{
	for (int a = 0; a < N_AREAS; a++)
		if (fb->areas[a].dest && strcmp(fb->areas[a].dest, path) == 0)
			return a;
	return -1;
}

/* A rule of no access on a per-run area is said with the area. */
static bool said_with_area(const struct fallback *fb, size_t i)
{
	return fb->rules[i].access == 0 && area_at(fb, fb->rules[i].path) >= 0;
}

/* A host path the per-run directory links to, rather than a --symlink. */
static bool made_as_link_to_host(const struct fallback *fb, size_t i)
{
	return fb->makes[i].kind == MAKE_LINK && fb->makes[i].op->kind != FS_SYMLINK;
}

static void explain_rules(const struct fallback *fb, FILE *out)
{
	char what[PATH_MAX * 2 + 32];

	for (size_t i = 0; i < fb->n_rules; i++) {
		if (said_with_area(fb, i))
			continue;	/* said below */
		landlock_describe_op(fb->rules[i].op, what, sizeof(what));
		fprintf(out, "  %-20s %s    (%s, %s)\n", access_name(fb->rules[i].access),
			fb->rules[i].path, what, fb->rules[i].op->origin);
	}
	for (int a = 0; a < N_AREAS; a++)
		if (fb->areas[a].dest)
			fprintf(out, "  %-20s %s: a per-run directory instead, named by $%s, "
				"removed at exit\n", access_name(fb->areas[a].access),
				fb->areas[a].dest, a == AREA_TMP ? "TMPDIR" : "HOME");
	for (size_t i = 0; i < fb->n_makes; i++) {
		landlock_describe_op(fb->makes[i].op, what, sizeof(what));
		fprintf(out, "  %-20s %s: made in the per-run directory%s\n", "", what,
			made_as_link_to_host(fb, i) ? " as a symlink to the host path" : "");
	}
}

static void explain_network(const struct fallback *fb, FILE *out)
{
	const struct fallback_facts *found = fb->found;

	if (!fb->deny_net)
		fprintf(out, "  network: the host's (shared)\n");
	else
		fprintf(out, "  network: none: socket() only for AF_UNIX (seccomp)%s\n",
			found->abi >= 4 ? ", TCP bind and connect denied (Landlock)" : "");
}

void fallback_explain(const struct plan *plan, FILE *out)
{
	struct fallback_facts found = { .abi = 0 };
	struct fallback fb;
	char err[4096], approx[1024];

	if (plan->mode == MODE_BWRAP)
		return;
	if (plan->fallback == FALLBACK_NONE) {
		fprintf(out, "fallback: none: where user namespaces are refused, fail "
			"(exit 125) naming what refused and the fix\n");
		return;
	}
	found.abi = landlock_abi_version();
	landlock_rules_init(&fb, plan, &found, err, sizeof(err));
	if (landlock_translate(&fb) < 0) {
		fprintf(out, "fallback: landlock, but this plan cannot run under it: %s\n",
			err + strlen("fallback: "));
	} else {
		fprintf(out, "fallback: landlock (ABI %d here), where user namespaces are "
			"refused; everything not listed is denied:\n", found.abi);
		explain_rules(&fb, out);
		explain_network(&fb, out);
		landlock_format_approximations(&found, approx, sizeof(approx));
		fprintf(out, "  approximations: %s\n", approx);
	}
	landlock_rules_free(&fb);
}

static void json_rules(const struct fallback *fb, struct json_writer *w)
{
	char what[PATH_MAX * 2 + 32];

	json_key(w, "rules");
	json_begin_array(w, JSON_SPACED);
	for (size_t i = 0; i < fb->n_rules; i++) {
		if (said_with_area(fb, i))
			continue;	/* in per-run */
		landlock_describe_op(fb->rules[i].op, what, sizeof(what));
		json_begin_object(w, JSON_SPACED);
		json_key(w, "access");
		json_string(w, access_name(fb->rules[i].access));
		json_key(w, "path");
		json_string(w, fb->rules[i].path);
		json_key(w, "option");
		json_string(w, what);
		json_key(w, "origin");
		json_string(w, fb->rules[i].op->origin);
		json_end_object(w);
	}
	json_end_array(w);
	json_key(w, "per-run");
	json_begin_array(w, JSON_SPACED);
	for (int a = 0; a < N_AREAS; a++) {
		if (!fb->areas[a].dest)
			continue;
		json_begin_object(w, JSON_SPACED);
		json_key(w, "access");
		json_string(w, access_name(fb->areas[a].access));
		json_key(w, "dest");
		json_string(w, fb->areas[a].dest);
		json_key(w, "variable");
		json_string(w, a == AREA_TMP ? "TMPDIR" : "HOME");
		json_end_object(w);
	}
	json_end_array(w);
	json_key(w, "made");
	json_begin_array(w, JSON_SPACED);
	for (size_t i = 0; i < fb->n_makes; i++) {
		landlock_describe_op(fb->makes[i].op, what, sizeof(what));
		json_begin_object(w, JSON_SPACED);
		json_key(w, "option");
		json_string(w, what);
		json_key(w, "as-symlink");
		json_bool(w, made_as_link_to_host(fb, i));
		json_end_object(w);
	}
	json_end_array(w);
}

void fallback_explain_json(const struct plan *plan, struct json_writer *w)
{
	struct fallback_facts found = { .abi = 0 };
	struct fallback fb;
	char err[4096];
	const char *text;

	json_begin_object(w, JSON_SPACED);
	json_key(w, "mode");
	if (plan->mode == MODE_BWRAP || plan->fallback == FALLBACK_NONE) {
		json_string(w, "none");
		json_end_object(w);
		return;
	}
	json_string(w, "landlock");
	found.abi = landlock_abi_version();
	landlock_rules_init(&fb, plan, &found, err, sizeof(err));
	json_key(w, "usable");
	if (landlock_translate(&fb) < 0) {
		json_bool(w, false);
		json_key(w, "reason");
		json_string(w, err + strlen("fallback: "));
		json_end_object(w);
		landlock_rules_free(&fb);
		return;
	}
	json_bool(w, true);
	json_key(w, "abi");
	json_int(w, found.abi);
	json_rules(&fb, w);
	json_key(w, "network");
	json_string(w, fb.deny_net ? "none" : "shared");
	json_key(w, "approximations");
	json_begin_array(w, JSON_SPACED);
	for (int i = 0; (text = landlock_approximation(&found, i)); i++)
		json_string(w, text);
	json_end_array(w);
	json_end_object(w);
	landlock_rules_free(&fb);
}
