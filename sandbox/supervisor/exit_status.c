/* The exit status rules: what hutch returns once the run is over, from
 * what the supervision loop saw (pid 1's end, the set-up log, the exec
 * marker, a timeout, a stuck teardown), for the namespace path and the
 * Landlock fallback alike: a stuck teardown is 125; a set-up failure the
 * mode's failure status (plan.c); a --timeout in hutch mode 124;
 * COMMAND's end by signal N 128+N; else COMMAND's own status. */
#include <signal.h>
#include <sys/wait.h>

#include "sandbox.h"
#include "supervisor.h"

static int signal_status(int sig)
{
	return 128 + sig;
}

int supervisor_exit_status(struct sandbox *sb)
{
	struct run_state *rs = &sb->run;
	const struct plan *plan = sb->plan;

	if (rs->stuck)
		return 125;
	if (rs->log_len > 0)
		return rs->code == CLD_EXITED ? rs->status : plan_failure_status(plan);
	if (rs->timed_out && plan->mode == MODE_HUTCH)
		return 124;
	/* pid 1 gone before COMMAND ran is hutch's failure, not COMMAND's. */
	if (plan->mode == MODE_HUTCH && !rs->exec_seen)
		return 125;
	if (rs->code == CLD_EXITED)
		return rs->status;
	return signal_status(rs->status);
}
