/* hutch: run COMMAND in a sandbox.  main parses the plan, runs the
 * supervisor's stages, and turns the outcome into an exit status. */
#define _GNU_SOURCE
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "parse/parse.h"
#include "child/child.h"
#include "diag/diag.h"
#include "lib/lib.h"
#include "limits/limits.h"
#include "messages/messages.h"
#include "net/net.h"
#include "learn/learn.h"
#include "seccomp/seccomp.h"
#include "mount/mount.h"
#include "loop/loop.h"
#include "plan/plan.h"
#include "supervisor/supervisor.h"
#include "sandbox.h"

#define HUTCH_VERSION "0.1.0"

static void init_sandbox(struct sandbox *sb, const struct plan *plan)
{
	memset(sb, 0, sizeof(*sb));
	sb->plan = plan;
	sb->clone_flags = plan->clone_flags;
	sb->info_fd = plan->info_fd;
	sb->json_status_fd = plan->json_status_fd;
	sb->block_fd = plan->block_fd;
	sb->userns_block_fd = plan->userns_block_fd;
	for (int i = 0; i < 2; i++) {
		sb->log_pipe[i] = sb->release_pipe[i] = -1;
		sb->control_pipe[i] = sb->status_pipe[i] = sb->go_pipe[i] = -1;
	}
	sb->sigfd = sb->init_image = sb->pid1_fd = sb->command_fd = -1;
	sb->self_proc = sb->old_mntns = -1;
	sb->fault_supervisor_fd = -1;
	sb->cgroup_fd = -1;
	sb->timing_fd = -1;
	sb->userns_limit_fd = -1;
	sb->report_sock[0] = sb->report_sock[1] = -1;
	sb->run.timerfd = -1;
}

static bool is_stage_name(const char *s, size_t len)
{
	for (int i = 0; i < stages_count; i++)
		if (strlen(stages[i].name) == len && strncmp(stages[i].name, s, len) == 0)
			return true;
	return false;
}

/* A message "STAGE: rest"; bwrap's messages carry no stage. */
static void print_message(const struct plan *plan, const char *msg)
{
	const char *colon = strstr(msg, ": ");

	if (plan->mode == MODE_BWRAP && colon && is_stage_name(msg, (size_t)(colon - msg)))
		msg = colon + 2;
	log_line(plan->prog, msg);
}

static void print_log(struct sandbox *sb)
{
	char *save = NULL;

	sb->run.log[sb->run.log_len] = '\0';
	for (char *line = strtok_r(sb->run.log, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save))
		print_message(sb->plan, line);
}

/* After a failed supervisor stage: nothing may stay behind. */
static void kill_sandbox(struct sandbox *sb)
{
	siginfo_t si;

	if (sb->pid1_fd < 0)
		return;
	syscall(SYS_pidfd_send_signal, sb->pid1_fd, SIGKILL, NULL, 0);
	waitid(P_PIDFD, (id_t)sb->pid1_fd, &si, WEXITED);
}

/* pid 1 ended, COMMAND never ran, and no stage said why: say it.  The
 * timeout says it itself (timeout_message). */
static void explain_early_end(struct sandbox *sb)
{
	struct run_state *rs = &sb->run;
	char msg[160];

	if (sb->plan->mode != MODE_HUTCH || rs->exec_seen || rs->log_len > 0 || rs->stuck ||
	    rs->timed_out)
		return;
	snprintf(msg, sizeof(msg), "run: the sandbox ended before COMMAND was executed (pid 1 %s %d)",
		 rs->code == CLD_EXITED ? "exited with" : "was killed by signal", rs->status);
	log_line(sb->plan->prog, msg);
}

/* The one line a timeout gets: what it stopped, COMMAND or the set-up
 * that had not executed it yet. */
static void timeout_message(const struct sandbox *sb)
{
	char msg[160];

	if (!sb->run.timed_out || sb->plan->mode != MODE_HUTCH)
		return;
	if (sb->run.exec_seen)
		snprintf(msg, sizeof(msg), "run: COMMAND stopped after the timeout of %gs",
			 sb->plan->timeout);
	else
		snprintf(msg, sizeof(msg), "run: the timeout of %gs ended the sandbox before "
			 "COMMAND was executed", sb->plan->timeout);
	log_warning(sb->plan->prog, msg);
}

/* Every way out: the terminal restored, the cgroup gone. */
static void finish(struct sandbox *sb)
{
	pty_finish(sb);
	limits_finish(sb);
	netproxy_finish(sb);	/* its last lines go to the report */
	report_finish(sb);
	learn_finish(sb);	/* after the report's: their refusals counted */
	protect_finish(sb);
	protocol_release(sb);
	policy_ready_free(sb->policy);
	sb->policy = NULL;
}

static int parse_failure(struct plan *plan, const char *err)
{
	if (plan->mode == MODE_BWRAP && strcmp(err, "No command specified") == 0) {
		cli_help(plan, stderr);
		return 1;
	}
	if (plan->mode == MODE_BWRAP || strncmp(err, "parse: ", 7) == 0) {
		log_line(plan->prog, err);
	} else {
		char msg[4200];

		snprintf(msg, sizeof(msg), "parse: %s", err);
		log_line(plan->prog, msg);
	}
	return plan_failure_status(plan);
}

static int show_info(const struct plan *plan)
{
	if (plan->show_help) {
		cli_help(plan, stdout);
	} else if (plan->mode == MODE_BWRAP) {
		printf("bubblewrap 0.11.1\n");
	} else {
		printf("hutch %s\n", HUTCH_VERSION);
		printf("init image: %zu bytes, static, run from a sealed memfd\n",
		       seal_image_size());
	}
	return 0;
}

/* --timing, HUTCH_TIMING: the launch's marks reported, on every way out. */
static void report_timing(struct sandbox *sb)
{
	if (!sb->timing.on)
		return;
	timing_mark(&sb->timing, TM_END);
	timing_report(&sb->timing, sb->plan->timing, sb->timing_fd);
	close_fd(&sb->timing_fd);
}

static int run(const struct plan *plan, uint64_t started)
{
	struct sandbox sb;
	int status;

	init_sandbox(&sb, plan);
	if (plan->timing || plan->timing_file) {
		timing_start(&sb.timing, started);
		timing_mark(&sb.timing, TM_PARSED);
	}
	/* parse ran before the sandbox existed; its fault point is here. */
	if (fault_point(&sb, &stages[0]) < 0 ||
	    stages_run(&sb, WHO_SUPERVISOR, "parse", NULL) < 0) {
		kill_sandbox(&sb);
		/* A set-up process that failed first has said why; the
		 * supervisor's own failure (its /proc files gone) follows
		 * from it and would say less. */
		supervise_drain_log(&sb);
		finish(&sb);
		if (sb.run.log_len > 0)
			print_log(&sb);
		else
			print_message(plan, sb.err);
		status_exited(&sb, plan_failure_status(plan));
		limits_release(&sb);
		command_env_release(&sb);
		report_timing(&sb);
		return plan_failure_status(plan);
	}
	finish(&sb);
	print_log(&sb);
	explain_early_end(&sb);
	status = supervisor_exit_status(&sb);
	status_exited(&sb, status);
	limits_release(&sb);
	command_env_release(&sb);
	timeout_message(&sb);
	report_timing(&sb);
	return status;
}

int main(int argc, char **argv)
{
	struct plan plan;
	char err[4096];
	int parsed, status;
	/* For --timing, read before anything else (the vDSO: no system call). */
	uint64_t started = timing_now();

	parsed = parse_plan(&plan, argc, argv, environ, err, sizeof(err));

	for (size_t i = 0; i < plan.n_warnings; i++)
		log_warning(plan.prog, plan.warnings[i]);
	if (parsed < 0) {
		status = parse_failure(&plan, err);
	} else if (plan.show_help || plan.show_version) {
		status = show_info(&plan);
	} else if (plan.explain) {
		status = explain_plan(&plan, stdout);
	} else if (plan.doctor) {
		status = doctor_run(&plan, stdout);
	} else {
		status = run(&plan, started);
	}
	plan_free(&plan);
	return status;
}
