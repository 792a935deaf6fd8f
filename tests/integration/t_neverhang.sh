# Never hang, never leak (issue 4): the log pipe, clean-up after a
# failure or a SIGKILL at any stage, and teardown with a deadline.

. "$(dirname "${BASH_SOURCE[0]}")/tool_outside.sh"

# launch_held CMD...: CMD as $AS, stdout to $T/out, stderr through a pipe
# into $T/err.  That pipe is how we wait for a sandbox without sleeping:
# every process of it inherits stderr (the set-up process, init, which
# keeps fd 2, COMMAND and its children), so the reader sees EOF only once
# hutch and all of them are gone, even when they die of
# PR_SET_PDEATHSIG after a SIGKILL of the supervisor.  RC is CMD's
# status; HELD is 124 when something still held the pipe after 20 s.
launch_held() {
	$AS "$@" 2>&1 >"$T/out" | { timeout 20 cat >"$T/err"; echo $? >"$T/held"; }
	RC=${PIPESTATUS[0]}
	HELD=$(cat "$T/held")
}

# What a launch could leave behind: mounts in the caller's namespace,
# files in /tmp, /dev/shm and the current directory.  Run in_private_tmp,
# so that other programs' files in /tmp do not count (and this stays
# cheap enough to run after each of hundreds of launches).
traces() {
	echo "$(</proc/self/mountinfo)"
	ls -A /tmp/ /dev/shm/
	ls -AR "$T/work"
}

# in_private_tmp FUNC...: FUNC in a mount namespace of its own whose /tmp
# and /dev/shm are new and empty but for $T, bound back at its path.
# Where root cannot make a mount namespace (a container's root), FUNC
# sees the machine's own /tmp and /dev/shm: what is tested is the same,
# and nothing else may make files there while it runs.
in_private_tmp() {
	if have_root_unshare -m; then
		in_mountns private private_tmp "$@"
	else
		echo "    note: $WHY: /tmp and /dev/shm are not private" >&2
		"$@"
	fi
}
private_tmp() {
	exec 9<"$T"
	mount -t tmpfs -o mode=1777 tmpfs /tmp
	mount -t tmpfs -o mode=1777 tmpfs /dev/shm
	mkdir -p "$T"
	mount --no-canonicalize --bind /proc/self/fd/9 "$T"
	exec 9<&-
	"$@"
}

# new_tag: a string unique to this run, in TAG.
new_tag() { TAG=hutch-tag-$$-$RANDOM$RANDOM; }

# leftovers: describe (pid, parent, state, pid in its namespace, command
# line) and kill what is tagged $TAG.
leftovers() {
	local p
	for p in $(processes_tagged "$TAG"); do
		{ echo "$p" $(grep -E '^(State|PPid|NSpid):' /proc/$p/status) $(tr '\0' ' ' </proc/$p/cmdline); } 2>/dev/null
		kill -KILL "$p" 2>/dev/null
	done
}

# wait_gone SECONDS PID...: wait (through pidfds, at most SECONDS) until
# every PID has exited; non-zero when one has not.
wait_gone() {
	$PY - "$@" <<'EOF'
import os, select, sys, time
end = time.monotonic() + float(sys.argv[1])
for pid in sys.argv[2:]:
    try:
        fd = os.pidfd_open(int(pid))
    except ProcessLookupError:
        continue
    p = select.poll()
    p.register(fd, select.POLLIN)
    if not p.poll(max(0.0, end - time.monotonic()) * 1000):
        sys.exit(1)
EOF
}

# held_run CMD...: launch_held CMD tagged $TAG (a new one), then look for
# what it left: processes (killed), mounts, files.  PROBLEMS says what
# is wrong, empty when nothing is.
held_run() {
	local before left
	new_tag
	before=$(traces)
	launch_held env HUTCH_TEST_TAG="$TAG" "$@"
	PROBLEMS=
	[ "$HELD" = 0 ] || PROBLEMS="stderr still held 20 s after hutch ended; "
	left=$(leftovers)
	[ -z "$left" ] || PROBLEMS+="left behind: $left; "
	[ "$before" = "$(traces)" ] ||
		PROBLEMS+="mounts or files changed: $(diff <(echo "$before") <(traces) | grep '^[<>]'); "
}

# clean_run WHAT CMD...: held_run CMD; fail when it left anything.
clean_run() {
	local what=$1
	shift
	held_run "$@"
	[ -z "$PROBLEMS" ] || fail "$what: $PROBLEMS"
}

# ---- the log pipe ----

# The fault build forks a `sleep 30` outside the sandbox that holds the
# log pipe's write end.  hutch must return COMMAND's status at once, not
# wait for that EOF.  The leak is checked (so the test cannot pass
# without it) and killed.
check_leaked_log_pipe() {
	local rc=0 leaked comm
	new_tag
	$AS env HUTCH_FAULT=clone:leak-log HUTCH_TEST_TAG="$TAG" \
		timeout 5 "$T/hutch-fault" $BASE sh -c 'exit 7' >"$T/out" 2>"$T/err" || rc=$?
	leaked=$(processes_tagged "$TAG")
	comm=$(cat /proc/$leaked/comm 2>/dev/null) || true
	[ -z "$leaked" ] || kill -KILL $leaked
	assert_eq 7 "$rc" "status with the log pipe held outside ($(cat "$T/err"))"
	assert_eq sleep "$comm" "the leaked holder ($leaked)"
	wait_gone 5 $leaked || fail "the leaked holder $leaked survived SIGKILL"
}
test_leaked_log_pipe_no_hang() { need_fault_build; for_each_caller check_leaked_log_pipe; }

# COMMAND starts a daemon (setsid, keeping stdout, stderr and every other
# fd), waits until it runs, and exits 0.
DAEMON='mkfifo /tmp/up
setsid sh -c "echo up >/tmp/up; exec sleep 600" &
read x </tmp/up
echo "daemon $x"'

check_daemon() {
	clean_run daemon timeout 5 "$H" $BASE --tmpfs /tmp sh -c "$DAEMON"
	assert_eq 0 "$RC" "status ($(cat "$T/err"))"
	assert_eq "daemon up" "$(cat "$T/out")" "the daemon ran"
}
test_daemon_does_not_hold_hutch() { in_private_tmp for_each_caller check_daemon; }

# ---- every stage, three ways ----

STAGES_C=$INTEGRATION_DIR/../../sandbox/stages.c

# The stage names, in order, from the stage table; read once, before a
# private /tmp can hide a source tree that lives there.
stage_names() {
	if [ -n "${STAGE_LIST:-}" ]; then
		echo "$STAGE_LIST"
	else
		sed -n '/namespace_rows\[\] = {/,/^};/s/^[[:space:]]*{ *"\([a-z0-9_-]*\)",.*/\1/p' "$STAGES_C"
	fi
}

stage_index() { stage_names | grep -n -x -- "$1" | cut -d: -f1; }

# expected_status STAGE MODE: the status (a regex) of a run under
# HUTCH_FAULT=STAGE:MODE (see walk_one for COMMAND).
#   fail             125, one line "hutch: STAGE: fault injection: injected failure"
#   kill-supervisor  137: the shell sees hutch die of SIGKILL
#   kill-child       no set-up process yet (up to clone) or none any more
#                    (after run): COMMAND's status, 0.  At run, COMMAND
#                    may have started: 125 before its execve, 137 (SIGKILL)
#                    after.  Between: set-up died, hutch's failure: 125
#                    and a line "hutch: STAGE: ...".
expected_status() {
	local i
	i=$(stage_index "$1")
	case $2 in
	fail) echo 125 ;;
	kill-supervisor) echo 137 ;;
	kill-child)
		if [ "$i" -le "$(stage_index clone)" ] || [ "$i" -gt "$(stage_index run)" ]; then
			echo 0
		elif [ "$1" = run ]; then
			echo '125|137'
		else
			echo 125
		fi ;;
	esac
}

# The message expected on stderr with status RC (a regex; empty: none).
expected_message() {
	case $1:$3 in
	fail:*) echo "^hutch: $2: fault injection: injected failure$" ;;
	*:125) echo "^hutch: ($(stage_names | paste -sd'|')): .+$" ;;
	*:0) echo "^$" ;;
	esac
}

# walk_one STAGE MODE [OPTIONS...]: one run (with $PIN before hutch, and
# OPTIONS); a line in $T/walk for each thing that went wrong.
walk_one() {
	local stage=$1 mode=$2 want msg err what
	shift 2
	what="$AS $stage:$mode${*:+ $*}"
	# With the supervisor killed, COMMAND never ends by itself: a sandbox
	# that outlived the supervisor would hold stderr.  Should the kill not
	# happen, --timeout ends the run (status 124, not 137).
	if [ "$mode" = kill-supervisor ]; then
		set -- --timeout 1 --kill-after 1 "$@" sh -c 'sleep 600 & exec sleep 600'
	else
		set -- "$@" sh -c 'sleep 600 & exit 0'
	fi
	held_run env HUTCH_FAULT="$stage:$mode" ${PIN:-} "$T/hutch-fault" $BASE "$@"
	[ -z "$PROBLEMS" ] || echo "$what: $PROBLEMS" >>"$T/walk"
	want=$(expected_status "$stage" "$mode")
	err=$(cat "$T/err")
	msg=$(expected_message "$mode" "$stage" "$RC")
	if ! [[ $RC =~ ^($want)$ ]]; then
		echo "$what: status $RC, expected $want; stderr [$err]" >>"$T/walk"
	elif [ -n "$msg" ] && { [ "$(wc -l <"$T/err")" -gt 1 ] || ! [[ $err =~ $msg ]]; }; then
		echo "$what: status $RC with stderr [$err], expected /$msg/" >>"$T/walk"
	fi
}

# walk_stages [OPTIONS...]: every stage, every mode.
walk_stages() {
	local stage mode
	for stage in $(stage_names); do
		for mode in fail kill-supervisor kill-child; do
			walk_one "$stage" "$mode" "$@"
		done
	done
}

# First as hutch runs by default, then with --as-pid-1 (no init: pid 1
# is COMMAND's own process, and nothing but its parent-death signal takes
# it down with the supervisor), pinned to one CPU: the supervisor then runs on through its stages
# before the child is scheduled, so that a kill of the supervisor after
# it released the child can come before the child's PR_SET_PDEATHSIG.
check_fault_walk() {
	: >"$T/walk"
	for_each_caller walk_stages
	PIN="taskset -c 0" for_each_caller walk_stages --as-pid-1
	[ ! -s "$T/walk" ] || fail "fault walk:
$(cat "$T/walk")"
}
test_fault_walk_every_stage() {
	need_fault_build
	[ -r "$STAGES_C" ] || skip "no stage table at $STAGES_C"
	STAGE_LIST=$(stage_names)
	assert_match "clone" "$STAGE_LIST" "stage names parsed from $STAGES_C"
	in_private_tmp check_fault_walk
}

# ---- the fallback's table, three ways ----

# Its stage names, in order (stages.c's fallback_rows).
fallback_stage_names() {
	sed -n '/fallback_rows\[\] = {/,/^};/s/^[[:space:]]*{ *"\([a-z0-9_-]*\)",.*/\1/p' "$STAGES_C"
}

# expected_fallback_status STAGE MODE: as expected_status, for the
# fallback's table: before fork there is no COMMAND's process to kill
# (0); after it, COMMAND's process dies before its execve (125); at run
# it may have executed COMMAND (137).
expected_fallback_status() {
	case $2:$1 in
	fail:*) echo 125 ;;
	kill-supervisor:*) echo 137 ;;
	kill-child:fallback | kill-child:fork) echo 0 ;;
	kill-child:run) echo '125|137' ;;
	kill-child:*) echo 125 ;;
	esac
}

# One run under Docker's default seccomp profile (user namespaces
# refused: the fallback), the fault at STAGE.  Its notice line is left
# out of the one line expected.
walk_fallback_one() {
	local stage=$1 mode=$2 want err what="$AS fallback $1:$2"
	if [ "$mode" = kill-supervisor ]; then
		set -- --timeout 1 --kill-after 1 sh -c 'sleep 600 & exec sleep 600'
	else
		set -- sh -c 'sleep 600 & exit 0'
	fi
	# hutch SIGKILLed once COMMAND may run: without a pid namespace its
	# descendants run on (docs/guarantees.md says so); held_run ends
	# them, and they must not hold stderr.
	[ "$stage:$mode" != run:kill-supervisor ] ||
		set -- --timeout 1 --kill-after 1 sh -c 'sleep 600 >/dev/null 2>&1 & exec sleep 600'
	held_run env HUTCH_FAULT="$stage:$mode" "$T/fallback_util" docker "$T/hutch-fault" \
		$BASE --fallback landlock "$@"
	[ "$stage:$mode" != run:kill-supervisor ] ||
		PROBLEMS=$(printf '%s' "$PROBLEMS" | sed 's/left behind: [^;]*; //')
	[ -z "$PROBLEMS" ] || echo "$what: $PROBLEMS" >>"$T/walk"
	want=$(expected_fallback_status "$stage" "$mode")
	err=$(grep -v '^hutch: fallback: user namespaces refused' "$T/err" || true)
	if ! [[ $RC =~ ^($want)$ ]]; then
		echo "$what: status $RC, expected $want; stderr [$(cat "$T/err")]" >>"$T/walk"
	elif [ "$mode" = fail ] && [ "$err" != "hutch: $stage: fault injection: injected failure" ]; then
		echo "$what: stderr [$err], expected the injected failure named after $stage" >>"$T/walk"
	elif [ "$RC" = 125 ] && [ "$mode" != fail ] &&
		! [[ $err =~ ^hutch:\ ($(fallback_stage_names | paste -sd'|')):\ .+$ ]]; then
		echo "$what: status 125 with stderr [$err], expected one line named after a stage" >>"$T/walk"
	fi
}

check_fallback_walk() {
	local stage mode
	: >"$T/walk"
	for stage in $(fallback_stage_names); do
		for mode in fail kill-supervisor kill-child; do
			walk_fallback_one "$stage" "$mode"
		done
	done
	[ ! -s "$T/walk" ] || fail "fault walk of the fallback's table:
$(cat "$T/walk")"
}
test_fault_walk_fallback_table() {
	need_fault_build
	[ -r "$STAGES_C" ] || skip "no stage table at $STAGES_C"
	assert_match "confine" "$(fallback_stage_names | paste -sd' ')" "the fallback's stage names"
	gcc -O2 -o "$T/fallback_util" "$INTEGRATION_DIR/tool_fallback_util.c" -lseccomp ||
		skip "cannot build tool_fallback_util.c"
	[ "$(landlock_abi)" -ge 1 ] || skip "Landlock is not available: no fallback to walk"
	in_private_tmp for_each_caller check_fallback_walk
}

# ---- SIGKILL at random moments ----

# 100 runs per caller (200 in all), each SIGKILLed 1 to 30 ms after its
# start (timeout --foreground signals hutch alone): the random delay is
# what is tested.  The sandbox never ends by itself, so every run must
# die of the kill; a third of them with --as-pid-1, a third with the
# default profile.
random_kills() {
	local i ms opts
	for ((i = 0; i < 100; i++)); do
		ms=$((RANDOM % 30 + 1))
		case $((i % 3)) in
		0) opts=$BASE ;;
		1) opts="$BASE --as-pid-1" ;;
		2) opts= ;;
		esac
		clean_run "kill after $ms ms (${opts:-default profile})" \
			timeout --foreground -s KILL "$(printf '0.%03d' $ms)" "$H" $opts \
			sh -c 'sleep 600 & exec sleep 600'
		assert_eq 137 "$RC" "status after a kill $ms ms in ($(cat "$T/err"))"
	done
}
test_random_sigkill_leaves_nothing() { in_private_tmp for_each_caller random_kills; }

# ---- teardown ----

# term_box BOUND: SIGTERM to the hutch of start_box, then wait (at most
# BOUND seconds) for it to end.  Its status in RC, the time in TOOK.
term_box() {
	local hp start
	hp=$(cat "$T/s/pid")
	start=$(now)
	kill -TERM "$hp"
	wait_gone "$1" "$hp" || { kill -KILL "$hp"; fail "hutch still runs $1 s after SIGTERM"; }
	TOOK=$(seconds_since "$start")
	RC=0
	wait "$BG" || RC=$?
}

# The cgroup v1 freezer stops a task even for SIGKILL (a cgroup2 freeze
# does not), so teardown cannot finish: hutch must give up at the
# deadline, counted from the start of teardown (after --kill-after), and
# name the process.
FREEZER=/sys/fs/cgroup/freezer

# thaw_and_remove CGROUP: thaw, wait (bounded) until its tasks are gone
# (they have a SIGKILL pending), remove it.
thaw_and_remove() {
	[ -d "$1" ] || return 0
	echo THAWED >"$1/freezer.state"
	# (cgroup files have no size: read them)
	timeout 10 sh -c 'while [ -n "$(cat "$0/cgroup.procs")" ]; do :; done' "$1" || true
	rmdir "$1"
}

# freeze CGROUP PID: PID frozen in the new CGROUP (bounded until FROZEN).
freeze() {
	mkdir "$1"
	echo "$2" >"$1/cgroup.procs"
	echo FROZEN >"$1/freezer.state"
	timeout 10 sh -c 'until grep -qx FROZEN "$0/freezer.state"; do :; done' "$1" ||
		fail "$2 did not freeze"
}

test_teardown_deadline_names_frozen_process() {
	local cg=$FREEZER/hutch-test-$$ pid1 cmd cmdline
	[ -w "$FREEZER/cgroup.procs" ] || skip "no cgroup v1 freezer at $FREEZER"
	trap "thaw_and_remove $cg; cleanup_scratch" EXIT
	AS=as_root
	shared_dir
	mkfifo -m 0666 "$T/s/ready"
	start_box $BASE --kill-after 1 --teardown-deadline 2 --bind "$T/s" /s \
		sh -c 'echo up >/s/ready; exec sleep 600'
	wait_ready
	pid1=$(children "$(cat "$T/s/pid")")
	cmd=$(children "$pid1")
	freeze "$cg" "$cmd"
	cmdline=$(tr '\0' ' ' <"/proc/$cmd/cmdline")
	term_box 8
	thaw_and_remove "$cg"
	wait_gone 10 "$pid1" || fail "pid 1 ($pid1) still there after the thaw"
	assert_eq 125 "$RC" "status with a process stuck ($(cat "$T/err"))"
	# --kill-after 1, then the deadline of 2 s, and 1 s of grace.
	between 3 4 "teardown with a frozen process"
	grep -F "pid $cmd (state " "$T/err" | grep -q -F "wchan " ||
		fail "no line naming pid $cmd, its state and wchan: $(cat "$T/err")"
	grep -F "pid $cmd (state " "$T/err" | grep -q -F ": ${cmdline% }: " ||
		fail "the line does not give the command line [${cmdline% }]: $(cat "$T/err")"
}

# FUSE servers go last.  Inside: O, a process with 400 MB to free when it
# dies (tool_hog.c: slow to go), and F, a sleep holding /dev/fuse.  Each holds the
# write end of its own fifo in /s; eoforder (outside) prints the order
# in which the fifos see EOF: "O F", "O+F" (seen in one wakeup) or "F O".
# If everything were killed at once, F, with nothing to free, would go
# first: the control, a plain pid namespace whose pid 1 exits, shows it.
# $1: the fifos' directory; $2: exit (COMMAND exits once both run) or
# wait (COMMAND ignores SIGTERM and waits: --timeout ends it).
FUSE_BOX='d=$1
trap "" TERM
mkfifo "$d/ready"
exec 5<>"$d/ready"
"$d/hog" 400 "$d/o" "$d/ready" 5<&- &
sh -c "exec 9<>/dev/fuse 8>\"\$0/f\"; echo f >\"\$0/ready\"; exec sleep 600" "$d" 5<&- &
read a <&5; read b <&5
[ "$2" = exit ] || wait'

EOFORDER='import os, select, sys
fds = {os.open(sys.argv[1] + "/o", os.O_RDONLY): "O"}
fds[os.open(sys.argv[1] + "/f", os.O_RDONLY)] = "F"
poll, order = select.poll(), []
for fd in fds:
    poll.register(fd, select.POLLIN)
while fds:
    gone = [fd for fd, _ in poll.poll() if not os.read(fd, 64)]
    for fd in gone:
        poll.unregister(fd)
    order.append("+".join(sorted((fds.pop(fd) for fd in gone), key="OF".index)))
print(" ".join(o for o in order if o))'

# fuse_order CMD...: CMD (which runs $FUSE_BOX) with the observer; the
# order in $ORDER, CMD's status in RC.
fuse_order() {
	local observer
	shared_dir
	mkfifo "$T/s/o" "$T/s/f"
	build_tool hog
	cp "$T/hog" "$T/s/hog"
	timeout 30 $PY -c "$EOFORDER" "$T/s" >"$T/order" &
	observer=$!
	RC=0
	timeout 30 "$@" >"$T/out" 2>"$T/err" || RC=$?
	wait "$observer" || fail "observer: $(cat "$T/order") ($(cat "$T/err"))"
	ORDER=$(cat "$T/order")
}

# check_fuse_last MODE [OPTIONS...]
check_fuse_last() {
	local mode=$1
	shift
	fuse_order "$H" $BASE "$@" --dev-bind /dev/fuse /dev/fuse --bind "$T/s" /s \
		sh -c "$FUSE_BOX" sh /s "$mode"
	assert_match "^O(\+F| F)$" "$ORDER" "order of exits, $mode $* ($(cat "$T/err"))"
}

test_fuse_server_killed_last() {
	[ -c /dev/fuse ] || skip "no /dev/fuse"
	# The control may see both in one wakeup on a busy machine: 3 tries.
	for _ in 1 2 3; do
		fuse_order unshare -pf sh -c "$FUSE_BOX" sh "$T/s" exit
		[ "$ORDER" = "F O" ] && break
	done
	assert_eq "F O" "$ORDER" "control: all killed at once, the FUSE holder ends first"
	check_fuse_last exit
	assert_eq 0 "$RC" "status when COMMAND exits ($(cat "$T/err"))"
	check_fuse_last wait --timeout 3 --kill-after 1
	assert_eq 124 "$RC" "status at the timeout ($(cat "$T/err"))"
}

# ---- timeout and forwarded signals ----

# run_timed CMD...: CMD as $AS, status in RC, seconds taken in TOOK.
run_timed() {
	local start
	start=$(now)
	RC=0
	$AS timeout 20 "$@" >"$T/out" 2>"$T/err" || RC=$?
	TOOK=$(seconds_since "$start")
}

# between LOW HIGH WHAT: LOW <= TOOK < HIGH.
between() {
	awk -v t="$TOOK" -v l="$1" -v h="$2" 'BEGIN { exit !(t >= l && t < h) }' ||
		fail "$3: took ${TOOK}s, expected between $1 and $2"
}

check_timeout() {
	run_timed "$H" $BASE --timeout 1 sleep 600
	assert_eq 124 "$RC" "--timeout ($(cat "$T/err"))"
	assert_match "^hutch: run: COMMAND stopped after the timeout of 1s$" "$(cat "$T/err")" "message"
	between 1 3 "--timeout 1"
	# COMMAND ignores SIGTERM: SIGKILL after the grace, still 124.
	run_timed "$H" $BASE --timeout 1 --kill-after 1 sh -c 'trap "" TERM; sleep 600'
	assert_eq 124 "$RC" "--timeout when SIGKILL was needed ($(cat "$T/err"))"
	between 2 4 "--timeout 1 --kill-after 1"
}
test_timeout_status() { for_each_caller check_timeout; }

# A timeout before COMMAND is executed (issue 26; set-up waits on a
# --block-fd that stays empty): one line, the true one, and 124, not also
# "the sandbox ended before COMMAND was executed".
check_timeout_during_setup() {
	local rc=0
	sleep 1 | $AS sh -c 'exec "$@" 3<&0' sh "$H" $BASE --timeout 0.2 --block-fd 3 true \
		2>"$T/err" || rc=$?
	assert_eq 124 "$rc" "--timeout 0.2 ($(cat "$T/err"))"
	assert_eq "hutch: run: the timeout of 0.2s ended the sandbox before COMMAND was executed" \
		"$(cat "$T/err")" "the one line"
}
test_timeout_during_setup_one_line() { for_each_caller check_timeout_during_setup; }

# SIGTERM to hutch reaches COMMAND, which notes it and carries on; after
# --kill-after, teardown kills it: 128 + SIGKILL.
check_kill_after() {
	shared_dir
	mkfifo -m 0666 "$T/s/ready"
	start_box $BASE --kill-after 1 --bind "$T/s" /s sh -c \
		'trap "echo got TERM >/s/log" TERM; echo up >/s/ready; while :; do sleep 600 & wait; done'
	wait_ready
	term_box 6
	assert_eq "got TERM" "$(cat "$T/s/log" 2>/dev/null)" "SIGTERM forwarded to COMMAND"
	assert_eq 137 "$RC" "status after --kill-after ($(cat "$T/err"))"
	between 1 3 "--kill-after 1"
}
test_sigterm_then_kill_after() { for_each_caller check_kill_after; }
