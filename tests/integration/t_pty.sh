# --pty: COMMAND on a pseudo-terminal of its own, relayed by hutch.
# The outer terminal is a pty of tool_ptyharness, which drives it step by
# step (send, expect, resize, kill, exit, modes) with poll and deadlines.

PTY_SRC=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)/tool_ptyharness.c
SHELL_ARGS=(--pty --setenv PS1 'P> ' sh -i)

# The harness in $T (and in $T/work, seen inside the default sandbox).
build_harness() {
	gcc -std=gnu11 -O2 -Wall -Wextra -Werror -o "$T/ptyharness" "$PTY_SRC"
	cp "$T/ptyharness" "$T/work/ptyharness"
}

# harness STEP... -- COMMAND...: as $AS, on a new outer terminal.
harness() {
	$AS "$T/ptyharness" "$@"
}

check_shell_sees_terminal() {
	harness expect:'P> ' \
		send:'tty\r' expect:'/dev/pts/' \
		send:'echo S$(stty size)E\r' expect:'S24 80E' \
		resize:41x123 send:'echo S$(stty size)E\r' expect:'S41 123E' \
		resize:30x100 send:'echo S$(stty size)E\r' expect:'S30 100E' \
		send:'[ -t 0 ] && [ -t 1 ] && [ -t 2 ] && echo T$((1+1))T\r' expect:T2T \
		send:'exit\r' exit:0 modes \
		-- "$H" "${SHELL_ARGS[@]}" || fail "an interactive shell on --pty"
	harness expect:'/dev/pts/' exit:0 -- "$H" tty || fail "--pty is on by default on a terminal"
	# A resize with no input after it: SIGWINCH alone carries it in.
	harness expect:WAITING resize:50x60 expect:W50x60W exit:0 \
		-- "$H" ./ptyharness winch || fail "SIGWINCH copies the new size"
}
test_shell_sees_terminal() { build_harness; for_each_caller check_shell_sees_terminal; }

# Without a ptmx in the sandbox (no /dev), COMMAND gets the slave of a
# pair hutch opened on the host's devpts: still a terminal, sized, though
# its name is not one the sandbox can see.
NO_DEV=(--profile none --ro-bind /usr /usr --symlink usr/bin /bin --symlink usr/lib /lib
	--symlink usr/lib64 /lib64 --proc /proc)
check_host_pair() {
	harness expect:'T1T' expect:'S24 80E' exit:0 modes \
		-- "$H" "${NO_DEV[@]}" sh -c '[ -t 0 ] && [ -t 1 ] && echo T$((1))T; echo S$(stty size)E' ||
		fail "a sandbox without /dev: the host pair"
}
test_host_pair() { build_harness; for_each_caller check_host_pair; }

# Under the Landlock fallback (user namespaces refused, as Docker's
# seccomp profile does): the same terminal, sizes and Ctrl-C.
FALLBACK=(--profile none --fallback landlock --unshare-all --tmpfs /tmp --mirror /usr
	--mirror /bin --mirror /lib --mirror /lib64 --mirror /etc/ld.so.cache --proc /proc --dev /dev)
check_fallback() {
	harness expect:'P> ' \
		send:'tty\r' expect:'/dev/pts/' \
		resize:33x99 send:'echo S$(stty size)E\r' expect:'S33 99E' \
		send:'(echo R$((3+4))Y; exec sleep 100)\r' expect:R7Y \
		send:'\x03' send:'echo RC$?X\r' expect:RC130X \
		send:'exit\r' exit:0 modes \
		-- "$T/fallback_util" docker "$H" "${FALLBACK[@]}" "${SHELL_ARGS[@]}" ||
		fail "--pty under the Landlock fallback"
}
test_fallback() {
	build_harness
	gcc -O2 -o "$T/fallback_util" "$(dirname "$PTY_SRC")/tool_fallback_util.c" -lseccomp ||
		skip "cannot build tool_fallback_util.c"
	for_each_caller check_fallback
}

# Ctrl-C ends the foreground job inside, not the shell.  The job says it
# started before ^C is typed; sleep would otherwise outlast the deadline.
check_ctrl_c() {
	harness expect:'P> ' \
		send:'(echo R$((3+4))Y; exec sleep 100)\r' expect:R7Y \
		send:'\x03' expect:'P> ' \
		send:'echo RC$?X\r' expect:RC130X \
		send:'exit\r' exit:0 modes \
		-- "$H" "${SHELL_ARGS[@]}" || fail "Ctrl-C interrupts sleep, the shell goes on"
}
test_ctrl_c() { build_harness; for_each_caller check_ctrl_c; }

# Ctrl-Z stops the foreground job inside: job control works in there.
check_ctrl_z() {
	harness expect:'P> ' \
		send:'(echo R$((5+5))Y; exec sleep 100)\r' expect:R10Y \
		send:'\x1a' expect:'Stopped' expect:'P> ' \
		send:'kill %1; fg; echo RC$?X\r' expect:RC143X \
		send:'exit\r' exit:0 modes \
		-- "$H" "${SHELL_ARGS[@]}" || fail "Ctrl-Z stops sleep, the shell goes on"
}
test_ctrl_z() { build_harness; for_each_caller check_ctrl_z; }

# TIOCSTI from inside lands in the inner pty (the shell reads it back),
# never in the outer terminal's input.  Seccomp is off, so only the pty
# stops it; the control run without pty or new session shows that the
# check sees an injection when there is one.
check_tiocsti() {
	harness exit:0 'input:inj\n' \
		-- "$H" --no-pty --seccomp-policy none --profile none --ro-bind / / \
		--proc /proc --dev /dev ./ptyharness sti 'inj\n' ||
		fail "control: without a pty TIOCSTI reaches the outer terminal"
	harness expect:'P> ' \
		send:'./ptyharness sti "inj\\n"; read -r l; echo "G${l}G"\r' expect:GinjG \
		send:'exit\r' exit:0 input: modes \
		-- "$H" --seccomp-policy none "${SHELL_ARGS[@]}" ||
		fail "TIOCSTI inside --pty reaches only the inner terminal"
}
test_tiocsti() {
	# Since Linux 6.2 the kernel can refuse TIOCSTI itself to a process
	# without CAP_SYS_ADMIN (Debian's 6.12 does): then there is nothing
	# to inject, and the control cannot show an injection.
	[ "$(cat /proc/sys/dev/tty/legacy_tiocsti 2>/dev/null || echo 1)" = 1 ] ||
		skip "the kernel refuses TIOCSTI here (dev.tty.legacy_tiocsti = 0): no injection to stop"
	build_harness
	for_each_caller check_tiocsti
}

# The outer terminal's modes: raw while COMMAND runs, exactly the
# previous ones after every way out.
READY=(sh -c 'echo RE$((1))ADY; exec sleep 100')
check_modes_restored() {
	local sig
	for sig in 15 2 1; do
		harness expect:RE1ADY raw kill:$sig exit:any modes -- "$H" "${READY[@]}" ||
			fail "modes after signal $sig to hutch"
	done
	harness expect:RE1ADY raw exit:124 modes -- "$H" --timeout 1 "${READY[@]}" ||
		fail "modes after a timeout"
	harness exit:125 modes expect:'/nonexistent' \
		-- "$H" --ro-bind /nonexistent /x true || fail "modes after a set-up failure"
	harness exit:125 modes expect:'seccomp' \
		-- "$H" --seccomp-policy /nonexistent true || fail "modes after a prepare failure"
	harness expect:RE1ADY exit:137 modes \
		-- "$H" sh -c 'echo RE$((1))ADY; kill -KILL $$' || fail "modes after COMMAND is killed"
	harness expect:RE1ADY exit:3 modes \
		-- "$H" sh -c 'echo RE$((1))ADY; exit 3' || fail "modes after a normal exit"
}
test_modes_restored() { build_harness; for_each_caller check_modes_restored; }

# No pty unless stdin and stdout are terminals, or with --no-pty, or in
# bwrap mode, where, as with bwrap, the caller's terminal is bound on
# /dev/console instead (its new devpts does not hold the caller's slave).
check_no_pty() {
	harness expect:'not a tty' exit:1 -- sh -c 'echo | exec "$0" tty' "$H" ||
		fail "stdin not a terminal: no pty"
	harness expect:'not a tty' exit:1 -- "$H" --no-pty tty || fail "--no-pty"
	harness expect:'not a tty' exit:any -- sh -c 'set -m; "$0" tty & wait' "$H" ||
		fail "a background job: no pty (it would stop on SIGTTOU)"
	! bwrap_as_caller || harness expect:'/dev/console' exit:0 \
		-- "$T/bwrap" --ro-bind / / --dev /dev --unshare-pid tty || fail "bwrap mode: no pty"
	assert_eq "not a tty" "$($AS "$H" tty </dev/null)" "no terminal at all"
}
test_no_pty() { build_harness; for_each_caller check_no_pty; }

# End of input is the terminal's EOF, after a partial line too; output
# written just before COMMAND ends is all there.
check_eof_and_drain() {
	local out rc=0
	out=$(printf 'hello\n' | $AS timeout 20 "$H" --pty sh -c 'tty; cat') || rc=$?
	assert_eq 0 "$rc" "--pty cat ends at EOF"
	assert_match '/dev/pts/[0-9]+' "$out" "a terminal inside"
	assert_eq 1 "$(printf '%s' "$out" | grep -c '^hello')" "hello copied, not echoed (no terminal outside)"
	out=$(printf 'abc' | $AS timeout 20 "$H" --pty cat) || rc=$?
	assert_eq 0 "$rc" "--pty cat ends at EOF after a partial line"
	assert_eq "abc" "$out" "the partial line, copied"
	out=$($AS "$H" --pty sh -c 'head -c 1000000 /dev/zero | tr "\0" x' </dev/null | wc -c)
	assert_eq 1000000 "$out" "all output relayed"
}
test_eof_and_drain() { for_each_caller check_eof_and_drain; }

# A stdout that goes away hangs up COMMAND's terminal (SIGHUP: 129).
check_stdout_closed() {
	local rc
	rc=0
	(set -o pipefail; $AS timeout 20 "$H" --pty yes </dev/null | head -c 1 >/dev/null) || rc=$?
	assert_eq 129 "$rc" "yes hung up when stdout closes"
}
test_stdout_closed() { for_each_caller check_stdout_closed; }

# Ctrl-Z with COMMAND itself in the foreground (no shell inside to do
# job control) suspends hutch as it would a plain command: the outer
# terminal gets its modes back; fg resumes the relay and COMMAND.
check_ctrl_z_suspends_hutch() {
	harness expect:'R3Y' send:'\x1a' stopped modes cont \
		send:'hello\r' expect:'got hello' exit:0 modes \
		-- "$H" --pty sh -c 'echo R$((1+2))Y; read x; echo "got $x"' ||
		fail "Ctrl-Z stops hutch, fg resumes it"
}
test_ctrl_z_suspends_hutch() { build_harness; for_each_caller check_ctrl_z_suspends_hutch; }

# COMMAND stopped from inside (kill -STOP) does not leave hutch waiting
# with the terminal raw: hutch stops too, and fg resumes both.
check_stop_from_inside() {
	harness expect:'R4Y' stopped modes cont expect:'resumed' exit:0 modes \
		-- "$H" --pty sh -c 'echo R$((2+2))Y; kill -STOP $$; echo resumed' ||
		fail "kill -STOP of COMMAND stops hutch, fg resumes it"
	# What COMMAND wrote before it stopped is on the caller's terminal
	# before hutch stops (it had stopped with output still in its buffer
	# or in the master: seen in CI).  300 kB keep the relay busy when the
	# stop arrives; on the old code about half the runs lost R4Y.
	local i
	for i in 1 2 3 4 5; do
		harness expect:'R4Y' stopped modes cont expect:'resumed' exit:0 modes \
			-- "$H" --pty sh -c 'head -c 300000 /dev/zero | tr "\0" x; echo R$((2+2))Y
				kill -STOP $$; echo resumed' ||
			fail "output before kill -STOP reaches the terminal before hutch stops (run $i)"
	done
}
test_stop_from_inside() { build_harness; for_each_caller check_stop_from_inside; }

# --pty without a terminal: the input is not echoed, LF stays LF.
check_pty_without_terminal() {
	local out
	out=$(echo hi | $AS "$H" --pty sh -c 'tty >/dev/null && echo tty; cat' | od -c | head -3)
	assert_eq "$(printf 'tty\nhi\n' | od -c | head -3)" "$out" "output of a pty fed from a pipe"
}
test_pty_without_terminal() { for_each_caller check_pty_without_terminal; }

# With the relay, no process of the sandbox has the caller's terminal as
# its controlling terminal: pid 1 left the caller's session too.  Pid 1
# is COMMAND's parent in /proc/self/stat (where /proc is the caller's it
# has its number there); field 7 of its stat is its terminal, 0 for none.
PID1_TTY='read -r line </proc/self/stat; set -- ${line##*) }
read -r line </proc/$2/stat; set -- ${line##*) }
echo TTY:$5:T'
check_pid1_off_caller_terminal() {
	harness expect:'TTY:0:T' exit:0 -- "$H" --pty sh -c "$PID1_TTY" ||
		fail "pid 1's controlling terminal"
}
test_pid1_off_caller_terminal() { build_harness; for_each_caller check_pid1_off_caller_terminal; }
