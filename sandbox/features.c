/* The feature table: each concern that several points of a launch serve,
 * as one row (feature/feature.h has the hooks and when each runs).  The
 * stages call the walkers at those points and name no feature; adding a
 * feature is its folder, a row here, its option in the option table, its
 * tests and its man page.  The order is the order of every hook: the
 * pty relay first (its prepare decides whether SIGWINCH is taken; its
 * finish gives the caller's terminal back before anything prints), the
 * proxy before the reports (its last lines go to the report at finish;
 * its worker, forked at prepare, holds none of the reports' fds). */
#include <stddef.h>

#include "sandbox.h"
#include "bwrap/bwrap.h"
#include "child/child.h"
#include "fallback/fallback.h"
#include "feature/feature.h"
#include "learn/learn.h"
#include "limits/limits.h"
#include "loop/loop.h"
#include "mount/mount.h"
#include "net/net.h"
#include "seccomp/seccomp.h"
#include "supervisor/supervisor.h"

/* --json-status-fd's last line carries hutch's exit status. */
static void status_release(struct sandbox *sb)
{
	status_exited(sb, sb->exit_status);
}

/* The seccomp program, built once before clone for the policy stage. */
static int policy_feature_prepare(struct sandbox *sb)
{
	return policy_prepare(sb->plan, &sb->policy, sb->err, sizeof(sb->err));
}

static void policy_feature_finish(struct sandbox *sb)
{
	policy_ready_free(sb->policy);
	sb->policy = NULL;
}

static const struct feature rows[] = {
	/* name       prepare          attach          release_ready
	 *            start            command_stopped finish            release */
	{ "pty",      pty_prepare,     NULL,           NULL,
		      pty_start,       pty_on_command_stop, pty_finish,  NULL },
	/* before limits: its last line names the limit that ended COMMAND,
	 * which limits' release frees */
	{ "status",   status_prepare,  NULL,           status_started,
		      NULL,            NULL,           NULL,             status_release },
	{ "limits",   limits_prepare,  limits_attach,  NULL,
		      NULL,            NULL,           limits_finish,    limits_release },
	{ "signals",  supervise_take_signals, NULL,    NULL,
		      NULL,            NULL,           NULL,             NULL },
	{ "proxy",    netproxy_prepare, NULL,          NULL,
		      netproxy_start,  NULL,           netproxy_finish,  NULL },
	{ "report",   report_prepare,  report_started, NULL,
		      NULL,            NULL,           report_finish,    NULL },
	/* after the proxy and the reports: their refusals counted */
	{ "learn",    learn_prepare,   learn_attach,   NULL,
		      learn_start,     NULL,           learn_finish,     NULL },
	{ "protect",  protect_prepare, NULL,           NULL,
		      NULL,            NULL,           protect_finish,   NULL },
	{ "protocol", protocol_prepare, NULL,          NULL,
		      NULL,            NULL,           protocol_release, NULL },
	{ "policy",   policy_feature_prepare, NULL,    NULL,
		      NULL,            NULL,           policy_feature_finish, NULL },
	{ "fallback", NULL,            NULL,           NULL,
		      NULL,            NULL,           fallback_finish,  fallback_release },
};

const struct feature_table features = { rows, sizeof(rows) / sizeof(rows[0]) };
