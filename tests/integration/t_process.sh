# COMMAND's process: environment, directory, argv[0], signals, orphans,
# parent death and sessions, as root and as the unprivileged uid.

BASE="--profile none --ro-bind /usr /usr --symlink usr/bin /bin --symlink usr/lib /lib
 --symlink usr/lib64 /lib64 --symlink usr/sbin /sbin --proc /proc --dev /dev"

# box ARGS...: hutch as $AS with the base tree, then ARGS.
box() { $AS "$H" $BASE "$@"; }

# The environment COMMAND sees, but PWD, which hutch (like bwrap) always
# sets to the working directory.
env_without_pwd() {
	"$@" | grep -v '^PWD=' || true
}

check_env() {
	assert_eq "B=2" "$(env_without_pwd $AS env FOO=bar "$H" $BASE --setenv A 1 --clearenv --setenv B 2 env)" \
		"--clearenv drops what came before it, keeps what follows"
	assert_eq "A=2
FOO=bar" "$(env_without_pwd $AS env -i FOO=bar "$H" $BASE --setenv A 1 --setenv A 2 env | sort)" \
		"--setenv replaces, the caller's environment passes"
	assert_eq "B=1" "$(env_without_pwd $AS env -i FOO=bar "$H" $BASE --setenv B 1 --unsetenv FOO env)" \
		"--unsetenv removes a caller's variable"
	assert_eq "" "$(env_without_pwd $AS env -i FOO=bar "$H" $BASE --setenv B 1 --unsetenv B --unsetenv FOO env)" \
		"--unsetenv removes an earlier --setenv"
	assert_eq "PWD=/usr" "$($AS "$H" $BASE --clearenv --chdir /usr env)" "PWD is the working directory"
}
test_env_options() { for_each_caller check_env; }

check_chdir_argv0() {
	assert_eq "/usr/share" "$(box --chdir /usr/share pwd)" "--chdir"
	assert_eq "foo" "$(box --argv0 foo sh -c 'echo $0')" "--argv0"
	local rc=0
	box --chdir /no/such/dir true 2>"$T/err" || rc=$?
	assert_eq 125 "$rc" "--chdir to a missing directory"
	assert_match "^hutch: [a-z]+: chdir /no/such/dir: No such file or directory$" "$(cat "$T/err")" "message"
}
test_chdir_and_argv0() { for_each_caller check_chdir_argv0; }

# start_bg ARGS...: box ARGS in the background; BG is the job, and
# $T/s/pid will hold the pid that runs hutch.
start_bg() {
	$AS sh -c 'echo $$ >"$0"; exec "$@"' "$T/s/pid" "$H" $BASE "$@" &
	BG=$!
}

# The fifo's reader returns once COMMAND has written its line: COMMAND
# is running and its trap is set.
check_sigterm() {
	local rc=0
	shared_dir
	mkfifo -m 0666 "$T/s/ready"
	# Without the signal, COMMAND gives up after 30 s with status 9.
	start_bg --bind "$T/s" /s sh -c 'trap "exit 3" TERM; echo up >/s/ready; sleep 30 & wait; exit 9'
	assert_eq "up" "$(timeout 20 cat "$T/s/ready")" "COMMAND started"
	kill -TERM "$(cat "$T/s/pid")"
	wait "$BG" || rc=$?
	assert_eq 3 "$rc" "SIGTERM to hutch reaches COMMAND, whose status hutch returns"
}
test_sigterm_reaches_command() { for_each_caller check_sigterm; }

FORWARDED="USR1 USR2 QUIT HUP INT TERM"

# disposed IGN|DFL CMD...: CMD started with the signals of $FORWARDED
# ignored or at their default (a non-interactive shell's `cmd &` ignores
# INT and QUIT, nohup HUP).
disposed() {
	exec python3 -c 'import os, signal, sys
for name in os.environ["FORWARDED"].split():
    signal.signal(getattr(signal, "SIG" + name),
                  signal.SIG_IGN if sys.argv[1] == "IGN" else signal.SIG_DFL)
os.execv(sys.argv[2], sys.argv[2:])' "$@"
}

# COMMAND for check_signal_rule: says which of the signals named in its
# arguments it inherited ignored, then catches each, answering its name
# on /s/ack, until /s/go is written: exit 3 if it caught any, else 5.
SIGNAL_PROBE='import os, signal, sys
got = []
def caught(sig, frame):
    got.append(signal.Signals(sig).name[3:])
    with open("/s/ack", "w") as ack:
        ack.write(got[-1])
ignored = []
for name in sys.argv[1:]:
    sig = getattr(signal, "SIG" + name)
    if signal.getsignal(sig) == signal.SIG_IGN:
        ignored.append(name)
    signal.signal(sig, caught)
with open("/s/ready", "w") as f:
    f.write(" ".join(ignored) or "none")
open("/s/go").read()
os._exit(3 if got else 5)'

# bit NAME of a mask line (SigBlk, SigIgn) of /proc/PID/status
status_bit() {
	local mask
	mask=$(sed -n "s/^$2:[[:space:]]*//p" "/proc/$1/status")
	echo $(( (0x${mask:-0} >> ($(kill -l "$3") - 1)) & 1 ))
}

# start_disposed IGN|DFL: hutch as $AS with $FORWARDED so disposed,
# running SIGNAL_PROBE; BG is the job, $T/s/pid hutch's pid.
start_disposed() {
	shared_dir
	mkfifo -m 0666 "$T/s/ready" "$T/s/go" "$T/s/ack"
	$AS env FORWARDED="$FORWARDED" sh -c 'echo $$ >"$0"; exec "$@"' "$T/s/pid" \
		bash -c "$(declare -f disposed); disposed \"\$@\"" sh "$1" \
		"$H" $BASE --bind "$T/s" /s python3 -c "$SIGNAL_PROBE" $FORWARDED &
	BG=$!
}

# stop_disposed: on the way out of a check that failed with the sandbox
# still waiting for /s/go, SIGKILL the hutch it started (the sandbox
# dies with it) and reap it; then the scratch directory goes.
stop_disposed() {
	if [ -s "$T/s/pid" ]; then
		kill -KILL "$(cat "$T/s/pid")" 2>/dev/null || true
		wait "$BG" 2>/dev/null || true
	fi
	cleanup_scratch
}

# hutch(1), after --teardown-deadline: hutch takes and forwards SIGTERM,
# SIGINT, SIGHUP, SIGQUIT, SIGUSR1 and SIGUSR2, unless its caller
# ignores one: that one stays ignored in hutch (neither blocked nor
# taken: the kernel drops it), COMMAND inherits the ignore, and sending
# it ends nothing.
# (750d270 took it anyway: SIGINT to a `cmd &` sandbox killed it 5 s
# later, after forwarding it to a COMMAND that ignored it.)
check_signal_rule() {
	local name rc pid
	trap stop_disposed EXIT
	start_disposed DFL
	assert_eq none "$(timeout 20 cat "$T/s/ready")" "COMMAND gets the signals at their default"
	pid=$(cat "$T/s/pid")
	for name in $FORWARDED; do
		kill -"$name" "$pid"
		assert_eq "$name" "$(timeout 10 cat "$T/s/ack")" "SIG$name to hutch reaches COMMAND"
	done
	timeout 10 sh -c 'echo >"$0"' "$T/s/go"
	rc=0; wait "$BG" || rc=$?
	rm -f "$T/s/pid"
	assert_eq 3 "$rc" "COMMAND's status after the forwarded signals"

	start_disposed IGN
	assert_eq "$FORWARDED" "$(timeout 20 cat "$T/s/ready")" "COMMAND inherits the caller's ignores"
	pid=$(cat "$T/s/pid")
	for name in $FORWARDED; do
		assert_eq "1 0" "$(status_bit "$pid" SigIgn "$name") $(status_bit "$pid" SigBlk "$name")" \
			"hutch leaves SIG$name ignored, as its caller had it (SigIgn, SigBlk bits)"
		kill -"$name" "$pid"
	done
	timeout 10 sh -c 'echo >"$0"' "$T/s/go"
	rc=0; wait "$BG" || rc=$?
	rm -f "$T/s/pid"
	assert_eq 5 "$rc" "signals the caller ignores: none reaches COMMAND, the run goes on"
}
test_signal_rule() { for_each_caller check_signal_rule; }

# ignoring_sigchld CMD...: CMD started with SIGCHLD ignored, which execve
# keeps (a shell's `trap '' CHLD` does not reliably do it).
ignoring_sigchld() {
	python3 -c 'import os, signal, sys
signal.signal(signal.SIGCHLD, signal.SIG_IGN)
os.execv(sys.argv[1], sys.argv[1:])' "$@"
}

# A caller that ignores SIGCHLD must not have the kernel reap pid 1 (or
# COMMAND, under init) unseen: hutch still ends with COMMAND's status,
# and COMMAND gets the caller's disposition back (SigIgn bit 16).
check_sigchld_ignored() {
	local mode rc mask
	for mode in "" --as-pid-1; do
		rc=0
		$AS timeout 20 bash -c "$(declare -f ignoring_sigchld); ignoring_sigchld \"\$@\"" \
			sh "$H" $BASE $mode sh -c 'exit 3' || rc=$?
		assert_eq 3 "$rc" "status with SIGCHLD ignored ${mode:-with init}"
		mask=$($AS bash -c "$(declare -f ignoring_sigchld); ignoring_sigchld \"\$@\"" \
			sh "$H" $BASE $mode sed -n 's/^SigIgn:[[:space:]]*//p' /proc/self/status)
		assert_eq 1 "$(( (0x${mask:-0} >> 16) & 1 ))" \
			"COMMAND ignores SIGCHLD as its caller did ${mode:-with init} (SigIgn $mask)"
	done
}
test_sigchld_ignored_by_caller() { for_each_caller check_sigchld_ignored; }

# 200 orphans that exit at once: each is a child of a subshell that
# exits, so it falls to pid 1.  COMMAND then watches /proc (a glob of its
# shell: no process of its own) until only init and itself are left,
# zombies included; bounded, so that a leak fails and a slow reaper not.
ORPHANS='for i in $(seq 200); do (sh -c "exit 0" &); done
n=0
while [ $n -lt 100000 ]; do
	set -- /proc/[0-9]*
	[ $# = 2 ] && break
	n=$((n + 1))
done
echo "left: $*"'

# The same where /proc is the caller's (a fresh procfs refused): pid 1 is
# COMMAND's parent in /proc/self/stat, and COMMAND watches until pid 1 has
# no child but itself, zombies included (the same bound, in rounds that
# read every process's stat).
ORPHANS_CALLER_PROC='for i in $(seq 200); do (sh -c "exit 0" &); done
read -r me _ _ init _ </proc/self/stat
n=0
while [ $n -lt 100000 ]; do
	kids=""
	for s in /proc/[0-9]*/stat; do
		{ read -r line <"$s"; } 2>/dev/null || continue
		set -- ${line##*) }
		[ "$2" = "$init" ] && kids="$kids ${line%% *}"
	done
	[ "$kids" = " $me" ] && break
	n=$((n + 1000))
done
[ "$kids" = " $me" ] && kids=" COMMAND"
echo "children of pid 1:$kids"'

check_orphans() {
	if have_fresh_procfs; then
		assert_eq "left: /proc/1 /proc/2" "$(box sh -c "$ORPHANS")" \
			"orphans reaped while COMMAND runs"
	else
		assert_eq "children of pid 1: COMMAND" "$(box sh -c "$ORPHANS_CALLER_PROC")" \
			"orphans reaped while COMMAND runs ($WHY)"
	fi
}
test_orphans_are_reaped() { for_each_caller check_orphans; }

# The parent: a shell that starts LAUNCHER ARGS in the background and
# waits.  COMMAND holds the write end of the fifo $T/s/hold and says "up"
# on it; this test then drops its own write end, kills the parent and
# reads on: EOF comes only when every holder is dead.
check_die_with_parent() {
	local launcher=$1 tag=hutch-dwp-$RANDOM$RANDOM p line=
	shift
	shared_dir
	mkfifo -m 0666 "$T/s/hold"
	exec 5<>"$T/s/hold" 4<"$T/s/hold"
	$AS sh -c 'echo $$ >"$0"; "$@" & wait' "$T/s/pid" "$launcher" "$@" --die-with-parent \
		--setenv TAG "$tag" --bind "$T/s" "$T/s" \
		sh -c 'exec 3>"$0"; echo up >&3; exec sleep 1000' "$T/s/hold" 4<&- 5<&- 2>"$T/s/err" &
	read -t 20 -r line <&4 || true
	exec 5>&-
	assert_eq "up" "$line" "$launcher: COMMAND started ($(cat "$T/s/err"))"
	kill -KILL "$(cat "$T/s/pid")"
	if ! timeout 20 cat <&4; then
		for p in $(processes_tagged "$tag"); do kill -KILL "$p"; done
		fail "$launcher: COMMAND outlived its parent"
	fi
	exec 4<&-
	assert_eq "" "$(processes_tagged "$tag")" "$launcher: nothing of the sandbox is left"
}
check_die_with_parent_modes() {
	check_die_with_parent "$H" $BASE
	bwrap_as_caller || return 0
	check_die_with_parent "$T/bwrap" --ro-bind / / --unshare-pid
	check_die_with_parent "$T/bwrap" --ro-bind / /
}
test_die_with_parent() { for_each_caller check_die_with_parent_modes; }

# Under a pty (script), from COMMAND's /proc/self/stat: its session and
# controlling tty, and whether /dev/tty opens.  Where /proc is the
# caller's (a fresh procfs refused), a session outside the sandbox has
# its number there, not 0: CALLER_SID is the caller's, "caller" in the
# output; pid 2, COMMAND itself, its own.
SESSION='read -r pid comm state ppid pgrp sid tty rest </proc/self/stat
[ "$pid" != "$$" ] && [ "$sid" = "$CALLER_SID" ] && sid=caller
[ "$pid" != "$$" ] && [ "$sid" = "$pid" ] && sid=$$
(exec 3</dev/tty) 2>/dev/null && c=ctty || c=no-ctty
echo "sid=$sid tty=$([ "$tty" = 0 ] && echo none || echo some) $c"'

# session_in_pty ARGS...: hutch ARGS running $SESSION (from /s), under script, as $AS.
session_in_pty() {
	printf '%s\n' "$SESSION" >"$T/s/session.sh"
	$AS script -qec "$(printf '%q ' sh -c 'read -r _ _ _ _ _ CALLER_SID _ </proc/self/stat; export CALLER_SID; exec "$0" "$@"' \
		"$H" "$@" sh /s/session.sh)" /dev/null |
		tr -d '\r' | grep -v '^hutch: limits: --pids' || true
}

# --no-pty: hutch's pty relay (on by default on a terminal) gives COMMAND
# a terminal of its own; t_pty.sh tests that.  Here: the caller's own.
check_new_session() {
	local outside=0
	have_fresh_procfs || outside=caller
	shared_dir
	assert_eq "sid=$outside tty=some ctty" "$(session_in_pty $BASE --no-pty --bind "$T/s" /s)" \
		"without --new-session: the caller's session (outside) and terminal"
	assert_eq "sid=2 tty=none no-ctty" "$(session_in_pty $BASE --no-pty --bind "$T/s" /s --new-session)" \
		"--new-session: a session of its own, no controlling terminal"
	assert_eq "sid=2 tty=none no-ctty" "$(session_in_pty --no-pty --bind "$T/s" /s)" \
		"the default profile starts a new session"
}
test_new_session() { for_each_caller check_new_session; }

# Durations as timeout(1) takes them; a teardown deadline of 0 is refused.
test_durations() {
	local rc=0 err
	as_user "$H" --timeout 0.005m sleep 5 2>/dev/null || rc=$?
	assert_eq 124 "$rc" "--timeout 0.005m (0.3 s)"
	assert_eq 0 "$(as_user "$H" --timeout 1h --kill-after 2s true; echo $?)" "--timeout 1h --kill-after 2s"
	rc=0; err=$(as_user "$H" --teardown-deadline 0 true 2>&1) || rc=$?
	assert_eq 125 "$rc" "--teardown-deadline 0"
	assert_match '^hutch: parse: --teardown-deadline: not a duration above 0' "$err" "its message"
	rc=0; err=$(as_user "$H" --timeout 1x true 2>&1) || rc=$?
	assert_eq "125 hutch: parse: --timeout: not a duration (seconds, or with s, m, h or d): 1x" \
		"$rc $err" "a bad duration names the option"
}
