/* The policy stage: session keyring, capabilities, no_new_privs, seccomp. */
#define _GNU_SOURCE
#include "messages/messages.h"
#include "policy.h"
#include "seccomp_policy.h"
#include "lib/lib.h"

#include <ctype.h>
#include <sched.h>
#include <errno.h>
#include <linux/filter.h>
#include <linux/keyctl.h>
#include <linux/seccomp.h>
#include <seccomp.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/capability.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#define CAP_NAME_MAX 64

struct policy_ready {
	struct seccomp_policy *policy;	/* NULL in bwrap mode */
	struct sock_filter *bpf;	/* the plain filter; NULL: none to load */
	size_t n_insns;
	struct sock_filter *notify;	/* refusals notified, or NULL */
	size_t n_notify;
	struct sock_filter *late;	/* the hand-over calls' refusals, or NULL */
	size_t n_late;
	bool join_session_keyring;
	unsigned long long keep_caps;	/* caps_add minus caps_drop */
	cap_t caps;			/* keep_caps in E, P and I */
	struct bwrap_caps {		/* bwrap mode: how bwrap sets them */
		bool on;
		bool drop_bound;	/* in a user namespace of its own */
		bool set_caps;		/* E, P and I: not for a root caller
					   who named no capability */
		bool root_caller;	/* a refused capset is ignored */
	} bwrap;
};

/* ---- in the supervisor ---- */

int policy_load(const struct plan *plan, struct seccomp_policy **out,
		char *err, size_t errlen)
{
	struct seccomp_action action;

	if (seccomp_policy_load(plan->seccomp_policy, out, err, errlen) < 0)
		return -1;
	for (size_t i = 0; i < plan->n_syscall_rules; i++) {
		const struct syscall_rule *rule = &plan->syscall_rules[i];

		action.allow = rule->allow;
		action.errnum = rule->errnum;
		if (seccomp_policy_append(*out, rule->name, action,
					  "command line", err, errlen) < 0)
			return -1;
	}
	return 0;
}

int policy_allow_all_program(struct sock_filter **prog, size_t *n,
			     char *err, size_t errlen)
{
	static const char text[] = "default allow\n";
	struct seccomp_policy *pol = seccomp_policy_parse("allow-all", text,
							   sizeof(text) - 1, err, errlen);
	int rc = pol ? seccomp_policy_export(pol, SECCOMP_PLAIN, prog, n, err, errlen) : -1;

	seccomp_policy_free(pol);
	return rc;
}

/* VARIANT of READY's policy: the program built with hutch when the
 * policy is a shipped one as it ships, else libseccomp's build now
 * (the compilation is most of a launch's CPU time). */
static int filter_program(const struct plan *plan, const struct policy_ready *ready,
			  enum seccomp_variant variant, struct sock_filter **prog,
			  size_t *n, char *err, size_t errlen)
{
	if (plan->n_syscall_rules == 0 && !strchr(plan->seccomp_policy, '/') &&
	    builtin_filter_copy(plan->seccomp_policy, variant, prog, n) == 0)
		return 0;
	return seccomp_policy_export(ready->policy, variant, prog, n, err, errlen);
}

/* Upper-case name of capability CAP into BUF, for messages. */
static void cap_display_name(int cap, char *buf, size_t len)
{
	char *name = cap_to_name(cap);

	snprintf(buf, len, "%s", name ? name : "capability");
	for (char *c = buf; *c; c++)
		*c = (char)toupper((unsigned char)*c);
	cap_free(name);
}

/* The capabilities COMMAND could hold: in a user namespace of its own
 * (made or joined) all the kernel knows, since entering one gives a full
 * bounding set; otherwise this process's bounding set, which clone
 * passes on unchanged. */
static unsigned long long possible_caps(const struct plan *plan)
{
	bool own_userns = (plan->clone_flags & CLONE_NEWUSER) || plan->userns_fd >= 0;
	unsigned long long bits = 0;

	for (cap_value_t cap = 0; cap < cap_max_bits() && cap < 64; cap++)
		if (own_userns || cap_get_bound(cap) == 1)
			bits |= 1ULL << cap;
	return bits;
}

unsigned long long policy_effective_caps(void)
{
	cap_t caps = cap_get_proc();
	unsigned long long bits = 0;
	cap_flag_value_t on;

	if (!caps)
		return 0;
	for (cap_value_t cap = 0; cap < cap_max_bits() && cap < 64; cap++)
		if (cap_get_flag(caps, cap, CAP_EFFECTIVE, &on) == 0 && on == CAP_SET)
			bits |= 1ULL << cap;
	cap_free(caps);
	return bits;
}

static unsigned long long known_caps(void)
{
	return cap_max_bits() >= 64 ? ~0ULL : (1ULL << cap_max_bits()) - 1;
}

/* bwrap (not setuid) lowers the bounding set only in a user namespace
 * it made or joined (and not again in --userns2's), sets E, P and I
 * unless a root caller named no capability, and takes nothing it is
 * refused for an error: the kernel decides. */
static void prepare_bwrap_caps(const struct plan *plan, struct policy_ready *ready)
{
	bool own_userns = (plan->clone_flags & CLONE_NEWUSER) || plan->userns_fd >= 0;

	ready->keep_caps = plan->caps_add & ~plan->caps_drop & known_caps();
	ready->bwrap.on = true;
	ready->bwrap.drop_bound = own_userns && plan->userns2_fd < 0;
	ready->bwrap.root_caller = plan->caller_uid == 0;
	ready->bwrap.set_caps = plan->caps_given || plan->caller_uid != 0;
}

/* caps_add minus caps_drop; with POLICY_CAPS_ALL, only those that can be
 * kept.  A capability named on its own that cannot be kept is an error. */
static int caps_to_keep(const struct plan *plan, unsigned long long *keep,
			char *err, size_t errlen)
{
	unsigned long long possible = possible_caps(plan);
	unsigned long long wanted = plan->caps_add & ~plan->caps_drop;
	char name[CAP_NAME_MAX];

	if (plan->caps_add & POLICY_CAPS_ALL)
		wanted &= possible;
	if (wanted & ~possible) {
		cap_display_name(__builtin_ctzll(wanted & ~possible), name,
				 sizeof name);
		snprintf(err, errlen, "policy: %s: not in hutch's bounding set, "
			 "so it cannot be kept", name);
		return -1;
	}
	*keep = wanted;
	return 0;
}

/* The capabilities COMMAND keeps, as a cap_t ready for cap_set_proc. */
static int prepare_caps(const struct plan *plan, struct policy_ready *ready,
			char *err, size_t errlen)
{
	cap_flag_t sets[] = { CAP_EFFECTIVE, CAP_PERMITTED, CAP_INHERITABLE };

	if (plan->mode == MODE_BWRAP)
		prepare_bwrap_caps(plan, ready);
	else if (caps_to_keep(plan, &ready->keep_caps, err, errlen) < 0)
		return -1;
	ready->caps = cap_init();
	if (!ready->caps) {
		snprintf(err, errlen, "policy: capabilities: %s",
			 strerror(errno));
		return -1;
	}
	for (cap_value_t cap = 0; cap < 64; cap++) {
		if (!(ready->keep_caps & (1ULL << cap)))
			continue;
		for (size_t i = 0; i < sizeof sets / sizeof sets[0]; i++)
			cap_set_flag(ready->caps, sets[i], 1, &cap, CAP_SET);
	}
	return 0;
}

/* hutch mode reports refusals through NOTIFY and LATE.  A policy whose
 * variants libseccomp cannot build (a condition the late filter would
 * have to complement) runs with the plain filter, unreported. */
static void prepare_reporting(const struct plan *plan, struct policy_ready *ready)
{
	enum seccomp_variant notify = plan->learn_path ? SECCOMP_NOTIFY_LEARN : SECCOMP_NOTIFY;
	char ignored[256];

	if (filter_program(plan, ready, notify, &ready->notify, &ready->n_notify,
			   ignored, sizeof(ignored)) == 0 &&
	    filter_program(plan, ready, SECCOMP_LATE, &ready->late, &ready->n_late,
			   ignored, sizeof(ignored)) == 0)
		return;
	free(ready->notify);
	free(ready->late);
	ready->notify = ready->late = NULL;
	ready->n_notify = ready->n_late = 0;
}

int policy_prepare(const struct plan *plan, struct policy_ready **out,
		   char *err, size_t errlen)
{
	struct policy_ready *ready = calloc(1, sizeof *ready);

	if (!ready) {
		snprintf(err, errlen, "policy: prepare: out of memory");
		return -1;
	}
	if (prepare_caps(plan, ready, err, errlen) < 0)
		goto fail;
	if (!plan->seccomp_policy && plan->n_syscall_rules > 0) {
		snprintf(err, errlen, "seccomp: command line: %s: rules need "
			 "a seccomp policy", plan->syscall_rules[0].name);
		goto fail;
	}
	if (plan->seccomp_policy) {
		if (policy_load(plan, &ready->policy, err, errlen) < 0)
			goto fail;
		ready->join_session_keyring =
			!seccomp_policy_refuses(ready->policy, "keyctl");
		/* Always here, before COMMAND's limits could get in the way,
		 * and the judge of whether the policy can be expressed. */
		if (!seccomp_policy_is_empty(ready->policy) &&
		    filter_program(plan, ready, SECCOMP_PLAIN, &ready->bpf,
				   &ready->n_insns, err, errlen) < 0)
			goto fail;
		if (ready->bpf && plan->mode == MODE_HUTCH)
			prepare_reporting(plan, ready);
	}
	*out = ready;
	return 0;
fail:
	policy_ready_free(ready);
	return -1;
}

void policy_ready_free(struct policy_ready *ready)
{
	if (!ready)
		return;
	seccomp_policy_free(ready->policy);
	free(ready->bpf);
	free(ready->notify);
	free(ready->late);
	if (ready->caps)
		cap_free(ready->caps);
	free(ready);
}

bool policy_allows(const struct policy_ready *ready, const char *syscall)
{
	return !ready->policy ||
	       !seccomp_policy_refuses(ready->policy, syscall);
}

const char *policy_rule_source(const struct policy_ready *ready,
			       const char *syscall)
{
	return ready->bpf ? seccomp_policy_source(ready->policy, syscall) :
	       NULL;
}

const void *policy_ready_bpf(const struct policy_ready *ready, size_t *n_insns)
{
	*n_insns = ready->n_insns;
	return ready->bpf;
}

void policy_ready_programs(const struct policy_ready *ready,
			   struct policy_programs *out)
{
	out->notify = ready->notify;
	out->n_notify = ready->n_notify;
	out->late = ready->late;
	out->n_late = ready->n_late;
}

int policy_refusal(const struct policy_ready *ready, int nr,
		   const uint64_t args[6], const char **source)
{
	struct seccomp_action action;

	*source = NULL;
	if (!ready->policy)
		return 0;
	action = seccomp_policy_decide(ready->policy, nr, args, source);
	return action.allow ? 0 : action.errnum;
}

/* ---- in COMMAND's process ---- */

/* Is keyctl refused to this process as a whole by a seccomp filter it
 * runs under (a container's profile: Docker's default refuses keyctl,
 * add_key and request_key with EPERM)?  Each way of reading the session
 * keyring must fail so (the kernel itself answers them or says EACCES):
 * a filter that refused only some operations could leave the caller's
 * keys readable, and then the run fails as before. */
static bool keyctl_filtered_out(void)
{
	static const int reads[] = { KEYCTL_GET_KEYRING_ID, KEYCTL_DESCRIBE, KEYCTL_READ };

	if (errno != EPERM || prctl(PR_GET_SECCOMP, 0, 0, 0, 0) != 2)
		return false;
	for (size_t i = 0; i < sizeof(reads) / sizeof(reads[0]); i++)
		if (syscall(SYS_keyctl, reads[i], KEY_SPEC_SESSION_KEYRING, 0, 0) >= 0 ||
		    errno != EPERM)
			return false;
	return true;
}

/* Keyrings are not namespaced: without a session keyring of its own,
 * COMMAND would possess the caller's session keys. */
static int join_session_keyring(char *err, size_t errlen)
{
	if (syscall(SYS_keyctl, KEYCTL_JOIN_SESSION_KEYRING, NULL) >= 0)
		return 0;
	if (errno == ENOSYS)
		return 0;	/* a kernel without keyrings has none to leak */
	/* The filter stays on COMMAND (filters are inherited and cannot be
	 * removed): it cannot reach a key through keyctl either. */
	if (keyctl_filtered_out())
		return 0;
	snprintf(err, errlen, "policy: session keyring: %s%s", strerror(errno),
		 errno == EDQUOT ? " (kernel.keys.maxkeys)" : "");
	return -1;
}

/* CAP_SETPCAP into the effective set, if it is permitted (a uid switch
 * with keep-caps leaves it only permitted).  False if it is not held. */
static bool raise_setpcap(void)
{
	cap_t caps = cap_get_proc();
	cap_value_t setpcap = CAP_SETPCAP;
	cap_flag_value_t permitted = CAP_CLEAR;
	bool raised = caps &&
		cap_get_flag(caps, CAP_SETPCAP, CAP_PERMITTED, &permitted) == 0 &&
		permitted == CAP_SET &&
		cap_set_flag(caps, CAP_EFFECTIVE, 1, &setpcap, CAP_SET) == 0 &&
		cap_set_proc(caps) == 0;

	if (caps)
		cap_free(caps);
	return raised;
}

/* The bounding set limits what any later execve can grant, including the
 * full set a uid 0 gets.  Without CAP_SETPCAP it cannot be lowered; then
 * no_new_privs (set later) keeps execve from granting more than the
 * permitted set, which set_process_caps cuts down to KEEP. */
static int drop_bounding_set(unsigned long long keep, char *err,
			     size_t errlen)
{
	char name[CAP_NAME_MAX];

	if (!raise_setpcap())
		return 0;
	/* Dropping a capability that is not in the set succeeds: one call
	 * each, no read first. */
	for (cap_value_t cap = 0; cap < cap_max_bits(); cap++) {
		if ((keep & (1ULL << cap)) || prctl(PR_CAPBSET_DROP, cap, 0, 0, 0) == 0)
			continue;
		cap_display_name(cap, name, sizeof name);
		snprintf(err, errlen, "policy: %s: cannot drop from the "
			 "bounding set: %s", name, strerror(errno));
		return -1;
	}
	return 0;
}

/* A capability in KEEP that this process does not hold, or -1. */
static int first_missing_cap(unsigned long long keep)
{
	cap_t held = cap_get_proc();
	cap_flag_value_t value = CAP_CLEAR;
	int missing = -1;

	for (cap_value_t cap = 0; held && cap < 64 && missing < 0; cap++) {
		if (!(keep & (1ULL << cap)))
			continue;
		if (cap_get_flag(held, cap, CAP_PERMITTED, &value) < 0 ||
		    value != CAP_SET)
			missing = cap;
	}
	if (held)
		cap_free(held);
	return missing;
}

/* Effective, permitted and inheritable: exactly the kept capabilities. */
static int set_process_caps(const struct policy_ready *ready, char *err,
			    size_t errlen)
{
	char name[CAP_NAME_MAX];
	int saved, missing;

	if (cap_set_proc(ready->caps) == 0)
		return 0;
	saved = errno;
	missing = first_missing_cap(ready->keep_caps);
	if (missing < 0) {
		snprintf(err, errlen, "policy: capabilities: %s",
			 strerror(saved));
		return -1;
	}
	cap_display_name(missing, name, sizeof name);
	snprintf(err, errlen, "policy: %s: not held, so it cannot be kept",
		 name);
	return -1;
}

/* Ambient: the kept capabilities survive execve of a non-root uid. */
static int set_ambient_caps(unsigned long long keep, char *err,
			    size_t errlen)
{
	char name[CAP_NAME_MAX];

	/* One call (libcap's cap_reset_ambient asks about each first). */
	if (prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0) < 0) {
		snprintf(err, errlen, "policy: ambient capabilities: %s",
			 strerror(errno));
		return -1;
	}
	for (cap_value_t cap = 0; cap < 64; cap++) {
		if (!(keep & (1ULL << cap)) || cap_set_ambient(cap, CAP_SET) == 0)
			continue;
		cap_display_name(cap, name, sizeof name);
		snprintf(err, errlen, "policy: %s: cannot make it ambient: %s",
			 name, strerror(errno));
		return -1;
	}
	return 0;
}

static int bwrap_caps_fail(char *err, size_t errlen, enum bwrap_text id, cap_value_t cap)
{
	char num[16];

	snprintf(num, sizeof(num), "%d", (int)cap);
	return messages_bwrap_fail(err, errlen, MODE_BWRAP,
				   &(struct failure){ "policy", "", "", id, num, NULL }, errno);
}

/* bwrap's prctl loop over every capability the kernel knows: what it
 * refuses (EINVAL, EPERM) is let be, any other error is a failure. */
static int bwrap_caps_loop(unsigned long long keep, bool drop, char *err, size_t errlen)
{
	for (cap_value_t cap = 0; cap < cap_max_bits(); cap++) {
		bool kept = cap < 64 && (keep & (1ULL << cap));
		int r = 0;

		if (drop && !kept)
			r = prctl(PR_CAPBSET_DROP, cap, 0, 0, 0);
		else if (!drop && kept)
			r = prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_RAISE, cap, 0, 0);
		if (r < 0 && errno != EINVAL && errno != EPERM)
			return bwrap_caps_fail(err, errlen, drop ? BW_DROP_BOUND : BW_ADD_AMBIENT,
					       cap);
	}
	return 0;
}

static int apply_bwrap_caps(const struct policy_ready *ready, char *err, size_t errlen)
{
	const struct bwrap_caps *b = &ready->bwrap;

	if (b->drop_bound && bwrap_caps_loop(ready->keep_caps, true, err, errlen) < 0)
		return -1;
	if (b->set_caps && cap_set_proc(ready->caps) < 0 &&
	    !(errno == EPERM && b->root_caller))
		return bwrap_caps_fail(err, errlen, BW_CAPSET, 0);
	return bwrap_caps_loop(ready->keep_caps, false, err, errlen);
}

/* COMMAND gets no capability it was not given explicitly. */
static int apply_caps(const struct policy_ready *ready, char *err,
		      size_t errlen)
{
	if (ready->bwrap.on)
		return apply_bwrap_caps(ready, err, errlen);
	if (drop_bounding_set(ready->keep_caps, err, errlen) < 0 ||
	    set_process_caps(ready, err, errlen) < 0 ||
	    set_ambient_caps(ready->keep_caps, err, errlen) < 0)
		return -1;
	return 0;
}

/* Load N instructions with FLAGS: 0, the listener's fd, or -1 (errno). */
static int load_program(const struct sock_filter *insns, size_t n,
			unsigned flags)
{
	struct sock_fprog prog = {
		.len = (unsigned short)n,
		.filter = (struct sock_filter *)insns,
	};

	return (int)syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, flags, &prog);
}

static int filter_error(char *err, size_t errlen)
{
	snprintf(err, errlen, "seccomp: filter: %s", strerror(errno));
	return -1;
}

/* A filter confines COMMAND and everything it starts. */
static int load_filter(const struct sock_filter *insns, size_t n,
		       unsigned flags, char *err, size_t errlen)
{
	return load_program(insns, n, flags) < 0 ? filter_error(err, errlen) : 0;
}

static unsigned log_flag(bool log)
{
	return log ? SECCOMP_FILTER_FLAG_LOG : 0;
}

static int load_plain(const struct policy_ready *ready, unsigned flags,
		      char *err, size_t errlen)
{
	if (!ready->bpf)
		return 0;
	return load_filter(ready->bpf, ready->n_insns, flags, err, errlen);
}

/* Only one listener may exist in a filter chain: under a filter that has
 * one (a sandbox inside a sandbox), the plain filter, with refusals
 * logged by the kernel when they were to be reported. */
static int load_nested(const struct plan *plan,
		       const struct policy_ready *ready,
		       policy_hand_over_fn hand_over, struct sandbox *sb,
		       char *err, size_t errlen)
{
	bool log = plan->seccomp_log || plan->report_path ||
		   plan->report_fd >= 0;

	if (hand_over(sb, -EBUSY) < 0)
		return -1;
	return load_plain(ready, log_flag(log), err, errlen);
}

#ifndef SECCOMP_FILTER_FLAG_WAIT_KILLABLE_RECV
#define SECCOMP_FILTER_FLAG_WAIT_KILLABLE_RECV (1UL << 5)	/* Linux 5.19 */
#endif

/* The notifying filter, its listener returned.  Under --learn a call
 * the policy allows waits for the observer: once the supervisor has it,
 * only a fatal signal may end the wait (a timer's signal would make an
 * open or a stat return EINTR, which it never does without --learn).
 * Kernels before 5.19 refuse the flag (EINVAL): loaded without it. */
static int load_listener(const struct plan *plan, const struct policy_ready *ready,
			 unsigned flags)
{
	unsigned with = flags | SECCOMP_FILTER_FLAG_NEW_LISTENER;
	int listener = -1;

	if (plan->learn_path)
		listener = load_program(ready->notify, ready->n_notify,
					with | SECCOMP_FILTER_FLAG_WAIT_KILLABLE_RECV);
	if (listener >= 0 || (plan->learn_path && errno != EINVAL))
		return listener;
	return load_program(ready->notify, ready->n_notify, with);
}

/* The notifying filter, its listener handed to the supervisor (who
 * answers every refusal from then on), then the late filter. */
static int load_reporting(const struct plan *plan,
			  const struct policy_ready *ready,
			  policy_hand_over_fn hand_over, struct sandbox *sb,
			  char *err, size_t errlen)
{
	unsigned flags = log_flag(plan->seccomp_log);
	int listener = load_listener(plan, ready, flags);

	if (listener < 0 && errno == EBUSY)
		return load_nested(plan, ready, hand_over, sb, err, errlen);
	if (listener < 0)
		return filter_error(err, errlen);
	if (hand_over(sb, listener) < 0)
		return -1;
	if (!ready->late)
		return 0;
	return load_filter(ready->late, ready->n_late, flags, err, errlen);
}

/* Keyring, capabilities, no_new_privs: everything before the filter. */
static int apply_process(const struct policy_ready *ready, char *err,
			 size_t errlen)
{
	if (ready->join_session_keyring &&
	    join_session_keyring(err, errlen) < 0)
		return -1;
	if (apply_caps(ready, err, errlen) < 0)
		return -1;
	/* execve must not grant privileges: setuid and setgid bits and file
	 * capabilities are ignored from here on, in every descendant. */
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0) {
		snprintf(err, errlen, "policy: no_new_privs: %s",
			 strerror(errno));
		return -1;
	}
	return 0;
}

int policy_apply(const struct plan *plan, const struct policy_ready *ready,
		 char *err, size_t errlen)
{
	if (apply_process(ready, err, errlen) < 0)
		return -1;
	return load_plain(ready, log_flag(plan->seccomp_log), err, errlen);
}

int policy_apply_reporting(const struct plan *plan,
			   const struct policy_ready *ready,
			   policy_hand_over_fn hand_over, struct sandbox *sb,
			   char *err, size_t errlen)
{
	if (!ready->notify || !hand_over)
		return policy_apply(plan, ready, err, errlen);
	if (apply_process(ready, err, errlen) < 0)
		return -1;
	return load_reporting(plan, ready, hand_over, sb, err, errlen);
}

/* ---- names, for the option parser ---- */

/* A capability name without "cap_": a letter, then letters, digits or '_'. */
static bool cap_word_valid(const char *word)
{
	if (!isalpha((unsigned char)word[0]))
		return false;
	for (const char *c = word; *c; c++)
		if (!isalnum((unsigned char)*c) && *c != '_')
			return false;
	return true;
}

int policy_cap_from_name(const char *name)
{
	char lower[CAP_NAME_MAX] = "cap_";
	cap_value_t cap;
	size_t i;

	if (strcasecmp(name, "ALL") == 0)
		return -2;
	if (strncasecmp(name, "cap_", 4) == 0)
		name += 4;
	if (!cap_word_valid(name) || strlen(name) + 5 > sizeof lower)
		return -1;
	for (i = 0; name[i]; i++)
		lower[4 + i] = (char)tolower((unsigned char)name[i]);
	lower[4 + i] = '\0';
	if (cap_from_name(lower, &cap) < 0 || cap < 0 || cap >= 64)
		return -1;
	return cap;
}

bool policy_syscall_known(const char *name)
{
	return strcmp(name, SECCOMP_NEWER) == 0 ||
	       seccomp_syscall_resolve_name(name) >= 0;
}
