# Nested sandboxes (issue 27, "Nested"): hutch inside hutch (default in
# default, agent in ci), hutch inside Debian's bubblewrap, and bwrap
# (hutch's link and /usr/bin/bwrap) inside hutch.  Each works, with a
# real effect checked (a pid namespace of its own, its own /proc, a file
# written where allowed, refused where not), or fails with one line that
# says what the outer sandbox withholds and how to allow it.
#
# The inner hutch is a copy outside every bound directory ($T/bin, bound
# read-only at /opt/hn): ci and agent refuse to bind hutch's own binary
# writable, and the outer /tmp is a tmpfs.

HN=/opt/hn
# COMMAND's pid, and its pid in the /proc it sees (the shell opens
# /proc/self itself: 2 and 2 in a pid namespace with a procfs of its own).
SELF='read -r p rest < /proc/self/stat; echo $$ $p'
SETFCAP_CAUSE="uid 0 without CAP_SETFCAP, which the sandbox around hutch withholds, cannot map uid 0 into a new user namespace; fix: start that sandbox with a uid other than 0 (hutch --allow-nested --uid 1000; bwrap --unshare-user --uid 1000)"
MOUNT_CAUSE="the sandbox around hutch refuses mount_setattr (Function not implemented) even in a user namespace of hutch's own; fix: start that hutch with --allow-nested (another sandbox: let its seccomp filter allow the mount calls hutch(1) lists under --allow-nested)"
MOUNT_HINT="a mount call among them: a sandbox inside needs --allow-nested"

# A sandbox inside needs the outer one's own /proc (its id map files, its
# pid namespace); where the machine allows no fresh procfs (a container
# engine's masked /proc), hutch gives COMMAND a read-only substitute and
# nothing nests.  Derived: COMMAND sees itself as pid 2 in its /proc.
fresh_proc_or_skip() {
	local pids
	pids=$(cd /tmp && "$H" --profile none --ro-bind / / --proc /proc --dev /dev -- \
		sh -c 'read -r p rest < /proc/self/stat; echo $$ $p' 2>/dev/null) || pids=""
	[ "$pids" = "2 2" ] || skip "no procfs of the sandbox's own here (COMMAND sees [$pids], not [2 2]: the machine allows no fresh procfs, as a container engine's masked /proc): nothing can nest"
}

# $T/bin: hutch and its bwrap link; $T/w-root, $T/w-user: a checkout each
# caller owns, with a .git for agent's protections.
setup_nested() {
	fresh_proc_or_skip
	mkdir -p "$T/bin" "$T/w-root/.git" "$T/w-user/.git"
	cp "$H" "$T/bin/hutch"
	ln -s hutch "$T/bin/bwrap"
	chmod 0755 "$T/bin" "$T/bin/hutch"
	chown -R "$NOBODY:$NOBODY" "$T/w-user"
}

# This caller's checkout, and what the outer hutch needs for nesting:
# root maps uid 0 only with CAP_SETFCAP, so it nests as uid 1000.
work() { [ "$AS" = as_root ] && echo "$T/w-root" || echo "$T/w-user"; }
nest_opts() { echo "--allow-nested"; [ "$AS" = as_root ] && echo "--uid 1000 --gid 1000"; return 0; }
cause() { [ "$AS" = as_root ] && echo "$SETFCAP_CAUSE" || echo "$MOUNT_CAUSE"; }
# The stage that sees it: uid 0's lack before clone, a refused mount at
# pid 1's first.
cause_stage() { [ "$AS" = as_root ] && echo clone || echo mounts; }

# The lines of FILE that are not the outer hutch's refusal summary.
inner_lines() { grep -v '^hutch: [0-9]* actions\{0,1\} refused by the seccomp policy' "$1" || true; }

# Default inside default, no --allow-nested: the inner falls back and
# says why in one line (its notice), and COMMAND runs, without a pid
# namespace of its own.
check_default_in_default_refused() {
	local out rc=0 err
	out=$(from "$(work)" "$H" --ro-bind "$T/bin" $HN -- $HN/hutch -- sh -c 'echo $$' 2>"$T/err") || rc=$?
	assert_eq 0 "$rc" "exit status ($(cat "$T/err"))"
	[ "$out" != 2 ] || fail "pid 2: a pid namespace, yet the notice says fallback"
	err=$(inner_lines "$T/err")
	assert_eq 1 "$(printf '%s\n' "$err" | wc -l)" "one line from the inner hutch: [$err]"
	if no_nesting_here; then
		assert_match "^hutch: fallback: user namespaces refused \($POWERLESS_RE" "$err" \
			"the notice names the security module, not a seccomp filter"
		return 0
	fi
	[[ $err == "hutch: fallback: user namespaces refused ($(cause)); running under Landlock ABI "* ]] ||
		fail "notice: [$err], expected the cause [$(cause)]"
	if [ "$AS" = as_user ]; then
		assert_match "; $MOUNT_HINT; " "$(cat "$T/err")" "the outer summary names --allow-nested"
	fi
}
test_nested_default_in_default_refused() { setup_nested; for_each_caller check_default_in_default_refused; }

# agent inside ci, no --allow-nested: agent has no fallback, so it fails
# with exit 125 and the one line; COMMAND never runs.
check_agent_in_ci_refused() {
	local out rc=0 err
	out=$(from "$(work)" "$H" --profile ci --ro-bind "$T/bin" $HN -- \
		$HN/hutch --profile agent -- sh -c 'echo ran; echo x > made' 2>"$T/err") || rc=$?
	assert_eq 125 "$rc" "exit status ($(cat "$T/err"))"
	assert_eq "" "$out" "COMMAND did not run"
	[ ! -e "$(work)/made" ] || fail "COMMAND wrote a file"
	err=$(inner_lines "$T/err")
	if no_nesting_here; then
		assert_match "^hutch: clone: new user namespace refused: $POWERLESS_RE" "$err" \
			"the one line names the security module, not a seccomp filter"
		return 0
	fi
	assert_eq "hutch: $(cause_stage): new namespaces: $(cause)" "$err" "the one line"
}
test_nested_agent_in_ci_refused() { setup_nested; for_each_caller check_agent_in_ci_refused; }

# agent inside ci with --allow-nested: the inner runs in a pid namespace
# of its own, writes the checkout, and is refused .git/config (agent's
# protection holds inside).
check_agent_in_ci_allowed() {
	local out rc=0 w
	no_nesting_here && { skip_part "$WHY"; return 0; }
	w=$(work)
	out=$(from "$w" "$H" --profile ci $(nest_opts) --ro-bind "$T/bin" $HN -- \
		$HN/hutch --profile agent -- sh -c 'echo $$; echo inner > made; echo evil > .git/config' \
		2>"$T/err") || rc=$?
	assert_eq 2 "$rc" "exit status: the last write refused ($(cat "$T/err"))"
	assert_eq 2 "$out" "the inner COMMAND is pid 2 of its own pid namespace"
	assert_eq inner "$(cat "$w/made")" "file written in the checkout"
	assert_match "\.git/config: Read-only file system" "$(cat "$T/err")" ".git/config refused"
	[ ! -s "$w/.git/config" ] || fail ".git/config was written: $(cat "$w/.git/config")"
	[ -z "$(inner_lines "$T/err" | grep -v '\.git/config')" ] || fail "other messages: $(cat "$T/err")"
}
test_nested_agent_in_ci_allowed() { setup_nested; for_each_caller check_agent_in_ci_allowed; }

# default inside default with --allow-nested: pid 2, and for a caller
# that is not root a procfs of its own (/proc/self is 2 there); a root
# caller's outer /proc keeps its covers, so the inner hutch shows the
# outer /proc read-only (the substitute).
check_default_in_default_allowed() {
	local out rc=0
	no_nesting_here && { skip_part "$WHY"; return 0; }
	out=$(from "$(work)" "$H" $(nest_opts) --ro-bind "$T/bin" $HN -- $HN/hutch -- \
		sh -c "$SELF" 2>"$T/err") || rc=$?
	assert_eq 0 "$rc" "exit status ($(cat "$T/err"))"
	assert_eq "" "$(cat "$T/err")" "no message"
	if [ "$AS" = as_user ]; then
		assert_eq "2 2" "$out" "pid 2, in a /proc of its own"
	else
		assert_match "^2 [0-9]+$" "$out" "pid 2"
		[ "$out" != "2 2" ] || fail "a fresh procfs inside, though the outer /proc has covers"
	fi
}
test_nested_default_in_default_allowed() { setup_nested; for_each_caller check_default_in_default_allowed; }

# Security regression: --allow-nested leaves /proc uncovered only where
# pid 1 can write none of it.  A host root writes sysctls by their mode
# alone (no capability needed): its /proc/sys stays read-only.  The
# value written is the one there, so a failing test changes nothing.
check_allow_nested_proc_sys() {
	local rc=0
	from "$(work)" "$H" --allow-nested -- sh -c \
		'v=$(cat /proc/sys/vm/overcommit_memory); echo "$v" > /proc/sys/vm/overcommit_memory' \
		2>"$T/err" || rc=$?
	[ "$rc" != 0 ] || fail "a sysctl of the host was writable inside"
	if [ "$AS" = as_root ]; then
		assert_match "Read-only file system" "$(cat "$T/err")" "covered for root"
	else
		assert_match "Permission denied" "$(cat "$T/err")" "refused by its mode, uncovered"
	fi
}
test_nested_allow_nested_proc_sys() { setup_nested; for_each_caller check_allow_nested_proc_sys; }

test_nested_allow_nested_conflicts() {
	local rc=0
	setup_nested
	as_root "$H" --allow-nested --disable-userns true 2>"$T/err" || rc=$?
	assert_eq 125 "$rc" "exit status"
	assert_eq "hutch: parse: --allow-nested: a sandbox inside needs a user namespace, which --disable-userns refuses; drop one of them" \
		"$(cat "$T/err")" "message"
}

# --doctor inside predicts the run: the same cause on its nested line,
# the mode the profile gets, and namespaces with --allow-nested.
check_doctor_predicts() {
	local out
	out=$(from "$(work)" "$H" --ro-bind "$T/bin" $HN -- $HN/hutch --doctor 2>/dev/null) || true
	assert_match "^FAIL nested: ${cause_re}" "$(grep '^FAIL nested' <<<"$out")" "nested line"
	[[ $(grep '^FAIL nested' <<<"$out") == *"; fix: ${cause_fix}" ]] || fail "fix: [$out]"
	assert_match "^WARN mode: landlock fallback \(" "$(tail -n1 <<<"$out")" "default: falls back"
	out=$(from "$(work)" "$H" --profile ci --ro-bind "$T/bin" $HN -- $HN/hutch --profile agent --doctor 2>/dev/null) || true
	assert_match "^FAIL nested: .*: \`hutch COMMAND\` fails saying so \(no fallback\)" "$out" "agent: fails"
	assert_match "^WARN mode: landlock fallback only when asked \(\`hutch COMMAND\` fails here" \
		"$(tail -n1 <<<"$out")" "agent's mode"
	out=$(from "$(work)" "$H" $(nest_opts) --ro-bind "$T/bin" $HN -- $HN/hutch --doctor 2>/dev/null) || true
	assert_match "^OK   nested: " "$out" "allowed: nested"
	assert_match "^OK   mode: namespaces" "$(tail -n1 <<<"$out")" "allowed: namespaces"
}
check_doctor_predicts_caller() {
	local c
	no_nesting_here && { skip_part "$WHY"; return 0; }
	c=$(cause)
	cause_fix=${c#*; fix: }
	cause_re=$(printf '%s' "${c%%; fix: *}" | sed 's/[][().*^$+?{}|\\]/\\&/g')
	check_doctor_predicts
}
test_nested_doctor_predicts() { setup_nested; for_each_caller check_doctor_predicts_caller; }

# ---- bwrap ----

# Debian's bubblewrap: installed as root where missing, else skipped.
needs_bubblewrap() {
	[ -x /usr/bin/bwrap ] && [ ! -L /usr/bin/bwrap ] && return 0
	if [ "$(id -u)" = 0 ] && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq bubblewrap >/dev/null 2>&1; then
		return 0
	fi
	skip "no /usr/bin/bwrap (Debian's bubblewrap); run: apt-get install -y bubblewrap"
}

# hutch inside Debian's bwrap: pid 2 in a /proc of its own.  Root's
# bwrap keeps root's capabilities; with --cap-drop ALL its child is uid 0
# without CAP_SETFCAP, and the inner hutch falls back saying why; with
# --unshare-user --uid 1000 it works again.
check_hutch_in_bwrap() {
	local out rc=0 bw="/usr/bin/bwrap --unshare-all --ro-bind / / --proc /proc --dev /dev --tmpfs /tmp --ro-bind $T $T"
	no_nesting_here && { skip_part "$WHY"; return 0; }
	if [ "$AS" = as_root ] && ! have_root_unshare; then
		skip_part "bwrap as root without --unshare-user: $WHY"
	elif [ "$AS" = as_root ]; then
		out=$(from "$(work)" $bw --cap-drop ALL -- "$T/bin/hutch" -- sh -c 'echo $$' 2>"$T/err") || rc=$?
		assert_eq 0 "$rc" "exit status ($(cat "$T/err"))"
		[[ $(cat "$T/err") == "hutch: fallback: user namespaces refused ($SETFCAP_CAUSE); running under Landlock ABI "* ]] ||
			fail "root in bwrap --cap-drop ALL: [$(cat "$T/err")]"
		[ "$out" != 2 ] || fail "pid 2, yet the notice says fallback"
		check_hutch_in_bwrap_runs "$bw"
		check_hutch_in_bwrap_runs "$bw --unshare-user --uid 1000 --gid 1000"
	else
		check_hutch_in_bwrap_runs "$bw"
	fi
}
# hutch inside BW runs in a pid namespace of its own: pid 2, and /proc
# its own where the caller is not root on the host; a host root's bwrap
# covers its /proc (as it could write there), so the inner hutch shows
# that /proc read-only instead (its substitute).
check_hutch_in_bwrap_runs() {
	local out rc=0
	out=$(from "$(work)" $1 -- "$T/bin/hutch" -- sh -c "$SELF" 2>"$T/err") || rc=$?
	assert_eq 0 "$rc" "exit status ($(cat "$T/err"))"
	assert_eq "" "$(cat "$T/err")" "no message"
	if [ "$AS" = as_root ]; then
		assert_match "^2 [0-9]+$" "$out" "pid 2 ($1)"
		[ "$out" != "2 2" ] || fail "a fresh procfs under a covered /proc ($1)"
	else
		assert_eq "2 2" "$out" "pid 2 in a /proc of its own"
	fi
}
test_nested_hutch_in_bwrap() { setup_nested; needs_bubblewrap; for_each_caller check_hutch_in_bwrap; }

# bwrap inside hutch: BWRAP is hutch's link (bound at /opt/hn) or
# Debian's.  Refused: bwrap's own line, and the outer summary's hint for
# a user (root's uid map fails before any mount).  With --allow-nested:
# pid 2, and for a user --proc gives a /proc of its own; a root caller's
# covered /proc makes bwrap's --proc fail with bwrap's line.
check_bwrap_in_hutch() {
	local out rc=0 bwrap=$1 args="--unshare-all --ro-bind / / --dev /dev"
	no_nesting_here && { skip_part "$WHY"; return 0; }
	out=$(from "$(work)" "$H" --ro-bind "$T/bin" $HN -- $bwrap $args true 2>"$T/err") || rc=$?
	assert_eq 1 "$rc" "exit status, refused ($(cat "$T/err"))"
	if [ "$AS" = as_root ]; then
		assert_eq "bwrap: setting up uid map: Operation not permitted" "$(inner_lines "$T/err")" "root's line"
	else
		assert_match "^bwrap: Failed to make / slave: (Operation not permitted|Function not implemented)$" \
			"$(inner_lines "$T/err")" "bwrap's line"
		assert_match "; $MOUNT_HINT; " "$(cat "$T/err")" "the outer summary names --allow-nested"
	fi
	rc=0
	out=$(from "$(work)" "$H" $(nest_opts) --ro-bind "$T/bin" $HN -- $bwrap $args sh -c 'echo $$' 2>"$T/err") || rc=$?
	assert_eq 0 "$rc" "exit status ($(cat "$T/err"))"
	assert_eq 2 "$out" "pid 2"
	rc=0
	out=$(from "$(work)" "$H" $(nest_opts) --ro-bind "$T/bin" $HN -- $bwrap $args --proc /proc \
		sh -c "$SELF" 2>"$T/err") || rc=$?
	if [ "$AS" = as_root ]; then
		assert_eq 1 "$rc" "exit status"
		# bwrap 0.12 (Debian 13's) names the point inside: /proc.
		if [ "$bwrap" = /usr/bin/bwrap ]; then
			assert_match "^bwrap: Can't mount proc on (/newroot)?/proc: Operation not permitted$" \
				"$(inner_lines "$T/err")" "--proc under root's covers"
		else
			assert_eq "bwrap: Can't mount proc on /newroot/proc: Operation not permitted" \
				"$(inner_lines "$T/err")" "--proc under root's covers"
		fi
	else
		assert_eq 0 "$rc" "exit status ($(cat "$T/err"))"
		assert_eq "2 2" "$out" "pid 2 in a /proc of its own"
	fi
}
check_link_in_hutch() { check_bwrap_in_hutch $HN/bwrap; }
check_debian_bwrap_in_hutch() { check_bwrap_in_hutch /usr/bin/bwrap; }
test_nested_bwrap_link_in_hutch() { setup_nested; for_each_caller check_link_in_hutch; }
test_nested_debian_bwrap_in_hutch() { setup_nested; needs_bubblewrap; for_each_caller check_debian_bwrap_in_hutch; }

# ---- an outer filter that refuses one call (tool_fallback_util's "refuse") ----

build_refuse_tool() {
	needs_userns
	mkdir -p "$T/bin"
	chmod 0755 "$T/bin"
	gcc -O2 -Wall -o "$T/bin/tool" "$(dirname "${BASH_SOURCE[0]}")/tool_fallback_util.c" -lseccomp ||
		skip "cannot build tool_fallback_util.c (gcc, libseccomp-dev)"
}

# Regression (the probe on every launch): under a filter that refuses
# nothing hutch needs, the supervisor makes one process, pid 1, and no
# throwaway child to look for what the filter withholds; before, every
# launch in a container forked one.  The same trace under a filter that
# refuses the first mount shows the probe's fork then: the trace sees it.
supervisor_forks() {
	local pid
	pid=$(awk '/execve\(/ { print $1; exit }' "$1")
	awk -v p="$pid" '$1 == p && /^[0-9]+ +(clone|clone3|fork|vfork)\(/' "$1" | wc -l
}
check_no_probe_when_nothing_refused() {
	# LeakSanitizer cannot run under a tracer (make asan): no leak check.
	local rc=0 trace="env ASAN_OPTIONS=detect_leaks=0 strace -f -qq -e trace=execve,clone,clone3,fork,vfork -o $T/traces/$AS"
	from "$T" "$T/bin/tool" refuse acct 1 $trace "$H" -- true 2>"$T/err" || rc=$?
	assert_eq 0 "$rc" "exit status ($(cat "$T/err"))"
	assert_eq "" "$(cat "$T/err")" "no message"
	assert_eq 1 "$(supervisor_forks "$T/traces/$AS")" "the supervisor's processes: pid 1 alone ($(cat "$T/traces/$AS"))"
	rc=0
	from "$T" "$T/bin/tool" refuse mount_setattr 38 $trace "$H" --fallback none -- true 2>"$T/err" || rc=$?
	assert_eq 125 "$rc" "exit status, mount_setattr refused ($(cat "$T/err"))"
	assert_eq 2 "$(supervisor_forks "$T/traces/$AS")" "pid 1 and the probe, on the failure path"
}
test_nested_no_probe_when_nothing_refused() {
	command -v strace >/dev/null || skip "no strace (apt-get install strace)"
	build_refuse_tool
	mkdir -m 1777 "$T/traces"
	for_each_caller check_no_probe_when_nothing_refused
}

# A mount call refused, or the process killed at it: the default
# profile falls back naming the call; without a fallback, the failure
# says the same.  The first mount itself, or a later call (pid 1 tries
# each right after its first, in a form that changes nothing), so that
# every refusal is seen before anything is built.  EPERM at the first
# mount under a filter is the filter's (the order of the causes).
check_mount_call_refused() {
	local rc=0 call=$1 how=$2 why=$3 c
	c="the sandbox around hutch refuses $call ($why) even in a user namespace of hutch's own; fix: start that hutch with --allow-nested"
	from "$T" "$T/bin/tool" refuse "$call" "$how" "$H" -- sh -c 'echo ran' >"$T/out" 2>"$T/err" || rc=$?
	assert_eq 0 "$rc" "$call $how: exit status ($(cat "$T/err"))"
	assert_eq ran "$(cat "$T/out")" "$call $how: COMMAND ran, under the fallback"
	[[ $(cat "$T/err") == "hutch: fallback: user namespaces refused ($c "* ]] ||
		fail "$call $how: notice: [$(cat "$T/err")], expected the cause [$c]"
	rc=0
	from "$T" "$T/bin/tool" refuse "$call" "$how" "$H" --fallback none -- sh -c 'echo ran' \
		>"$T/out" 2>"$T/err" || rc=$?
	assert_eq 125 "$rc" "$call $how: exit status without a fallback ($(cat "$T/err"))"
	assert_eq "" "$(cat "$T/out")" "$call $how: COMMAND did not run"
	[[ $(cat "$T/err") == "hutch: mounts: new namespaces: $c "* ]] ||
		fail "$call $how: failure: [$(cat "$T/err")], expected the cause [$c]"
}
check_first_mount_refused() {
	check_mount_call_refused mount_setattr 38 "Function not implemented"
	check_mount_call_refused mount_setattr 1 "Operation not permitted"
	check_mount_call_refused mount_setattr kill "killed by its seccomp filter"
}
check_later_call_refused() {
	check_mount_call_refused fsopen 1 "Operation not permitted"
	check_mount_call_refused move_mount 38 "Function not implemented"
	check_mount_call_refused umount2 kill "killed by its seccomp filter"
}
test_nested_first_mount_refused_by_filter() { build_refuse_tool; for_each_caller check_first_mount_refused; }
test_nested_later_call_refused_by_filter() { build_refuse_tool; for_each_caller check_later_call_refused; }

# --doctor under such a filter predicts what the launch does: the call,
# and the fallback.
check_doctor_agrees_under_filter() {
	local out
	out=$(from "$T" "$T/bin/tool" refuse fsopen 1 "$H" --doctor 2>/dev/null) || true
	assert_match "^FAIL nested: the sandbox around hutch refuses fsopen \(Operation not permitted\).*falls back to Landlock" \
		"$(grep '^FAIL nested' <<<"$out")" "nested line"
	assert_match "^WARN mode: landlock fallback \(" "$(tail -n1 <<<"$out")" "mode line"
}
test_nested_doctor_agrees_under_filter() { build_refuse_tool; for_each_caller check_doctor_agrees_under_filter; }

# A filter that refuses a call only for some arguments (move_mount with
# MOVE_MOUNT_F_EMPTY_PATH, 4 in its fifth) lets pid 1's check pass and
# refuses the mounts stage's real call: pid 1's own failure, then the
# cause and the fix, found on this failure path.
check_later_mount_refused() {
	local rc=0
	from "$T" "$T/bin/tool" refuse move_mount:4:4 1 "$H" -- sh -c 'echo ran' >"$T/out" 2>"$T/err" || rc=$?
	assert_eq 125 "$rc" "exit status ($(cat "$T/err"))"
	assert_eq "" "$(cat "$T/out")" "COMMAND did not run"
	assert_match "^hutch: mounts: .*Operation not permitted" "$(head -n1 "$T/err")" "pid 1's failure"
	assert_eq "hutch: mounts: new namespaces: the sandbox around hutch refuses move_mount (Operation not permitted) even in a user namespace of hutch's own; fix: start that hutch with --allow-nested (another sandbox: let its seccomp filter allow the mount calls hutch(1) lists under --allow-nested)" \
		"$(tail -n1 "$T/err")" "the cause, last"
	assert_eq 2 "$(wc -l < "$T/err")" "two lines"
	# Killed there instead: no message of pid 1's, the cause alone.
	rc=0
	from "$T" "$T/bin/tool" refuse move_mount:4:4 kill "$H" -- sh -c 'echo ran' >"$T/out" 2>"$T/err" || rc=$?
	assert_eq 125 "$rc" "killed: exit status ($(cat "$T/err"))"
	assert_eq "hutch: mounts: new namespaces: the sandbox around hutch refuses move_mount (killed by its seccomp filter) even in a user namespace of hutch's own; fix: start that hutch with --allow-nested (another sandbox: let its seccomp filter allow the mount calls hutch(1) lists under --allow-nested)" \
		"$(cat "$T/err")" "killed: the cause alone"
}
test_nested_later_mount_refused_by_filter() { build_refuse_tool; for_each_caller check_later_mount_refused; }
