# hutch --doctor: one line per check, tried for real; refusals simulated
# as real machines cause them (a user namespace count of 0, a container's
# seccomp profile, vm.memfd_noexec = 2).

LINE_FORMAT='^(OK   [a-z0-9_-]+: .+|(WARN|FAIL) [a-z0-9_-]+: .+; fix: .+)$'
NESTED="--profile none --ro-bind / / --proc /proc --dev /dev"

# Every line of OUT has the documented format.
assert_doctor_format() {
	local bad
	bad=$(printf '%s\n' "$1" | grep -Ev -- "$LINE_FORMAT" || true)
	[ -z "$bad" ] || fail "lines out of format: [$bad]"
	assert_match '^(OK  |WARN|FAIL) mode: ' "$(printf '%s\n' "$1" | tail -n 1)" "last line is the mode"
}

# assert_check OUT LEVEL NAME [REGEX]: the line of check NAME has LEVEL.
assert_check() {
	local line
	line=$(printf '%s\n' "$1" | grep -E -- "^[A-Z ]{4} $3: " || true)
	[ -n "$line" ] || fail "no line for $3 in [$1]"
	assert_match "^$2 +$3: .*${4:-}" "$line" "$3"
}

# A seccomp policy as Docker's default profile behaves: clone3 gives
# ENOSYS, clone and unshare with CLONE_NEWUSER give EPERM.
write_container_policy() {
	cat > "$T/container.policy" <<-'EOF'
	default allow
	deny clone3 ENOSYS
	deny clone EPERM if arg0 & CLONE_NEWUSER == CLONE_NEWUSER
	deny unshare EPERM if arg0 & CLONE_NEWUSER == CLONE_NEWUSER
	EOF
	chmod 0644 "$T/container.policy"
}

# expect_net_line: what --doctor's net line must say on this machine, from
# what the machine offers its probe (getent ahosts example.com, then a TCP
# connection to port 443 of the first address), found here with getent
# and bash's /dev/tcp as $AS: NET_LEVEL and NET_WORDS (a regex).  Where
# that takes a second or more, the probe's bound of 2 s makes its answer
# a race: NET_LEVEL is empty and WHY says so.
expect_net_line() {
	local start took names rc=0 addr
	start=$(now)
	names=$($AS timeout 3 getent ahosts example.com) || rc=$?
	addr=$(printf '%s\n' "$names" | awk 'NR == 1 { print $1 }')
	NET_LEVEL=WARN
	if [ -z "$addr" ] && [ "$rc" = 2 ]; then
		NET_WORDS="example\.com does not resolve \(Name or service not known\)"
	elif [ -z "$addr" ]; then
		NET_WORDS="example\.com does not resolve \("
	elif $AS timeout 3 bash -c 'exec 3<>"/dev/tcp/$0/443"' "$addr" 2>/dev/null; then
		NET_LEVEL=OK NET_WORDS="example\.com resolves \(${addr//./\\.}\) and port 443 answers"
	else
		NET_WORDS="example\.com resolves \(${addr//./\\.}\) but port 443 does not answer"
	fi
	took=$(seconds_since "$start")
	less_than "$took" 1 && return 0
	NET_LEVEL=
	WHY="the network took ${took}s to answer what --doctor's net probe asks (within 2 s): its answer cannot be foreseen"
}

check_doctor_here() {
	local out rc=0 name
	out=$($AS "$H" --doctor) || rc=$?
	assert_eq 0 "$rc" "exit status"
	assert_doctor_format "$out"
	for name in userns nested clone3 clone pidfd waitid pidfd_send_signal close_range openat2 proc \
		mount-api memfd seccomp seccomp-notify; do
		assert_check "$out" OK "$name"
	done
	# Landlock scoping needs ABI 6 (Linux 6.12): below it, a warning.
	if [ "$(landlock_abi)" -ge 6 ]; then
		assert_check "$out" OK landlock "ABI [0-9]+"
	else
		assert_check "$out" WARN landlock "ABI $(landlock_abi): the fallback works, but"
	fi
	assert_check "$out" OK mode "namespaces"
	if have_fresh_procfs; then
		assert_check "$out" OK procfs "a fresh procfs mounts"
	else
		assert_check "$out" WARN procfs "the kernel refuses a fresh procfs"
	fi
	check_doctor_predicts_cgroup "$out"
	if [ "$AS" = as_root ] && ! cgroup_line_has_pids "$out"; then
		assert_check "$out" WARN rlimit-nproc "not enforced for uid 0"
	elif [ "$AS" = as_root ]; then
		assert_check "$out" OK rlimit-nproc "not enforced for uid 0 .*cgroup v2 pids controller instead"
	else
		assert_check "$out" OK rlimit-nproc "counted per user namespace: .* RLIMIT_NPROC 8 forked 7"
	fi
	expect_net_line
	if [ -n "$NET_LEVEL" ]; then
		assert_check "$out" "$NET_LEVEL" net "$NET_WORDS"
	else
		skip_part "the net line: $WHY"
	fi
	assert_check "$out" OK profiles "HOME and the user's profiles read as they are"
	assert_eq 21 "$(printf '%s\n' "$out" | wc -l)" "one line per check and the mode"
}
test_doctor_here() { for_each_caller check_doctor_here; }

cgroup_line_has_pids() {
	printf '%s\n' "$1" | grep -E '^[A-Z ]{4} cgroup: ' | grep -Ev 'no cgroup for a run|no pids' | grep -q .
}

# The cgroup line says what a run with cgroup limits will do on this
# machine, whatever its cgroup layout: no expectation is written down.
check_doctor_predicts_cgroup() {
	local line rc=0
	line=$(printf '%s\n' "$1" | grep -E '^[A-Z ]{4} cgroup: ')
	$AS "$H" --memory 64M --cpu 0.5 true 2>"$T/err" || rc=$?
	if printf '%s' "$line" | grep -Eq 'no cgroup for a run|; no memory|; no cpu'; then
		assert_match '^WARN cgroup: ' "$line" "cgroup line"
		assert_eq 125 "$rc" "the doctor said [$line]; a run with --memory and --cpu: $(cat "$T/err")"
	else
		assert_eq 0 "$rc" "the doctor said [$line]; a run with --memory and --cpu: $(cat "$T/err")"
	fi
}

# No mount, no process left behind; nothing on stderr.
check_doctor_leaves_nothing() {
	local before after
	before=$(mountinfo_hash)
	$AS env HUTCH_DOCTOR_TAG=doctor-leaves-nothing "$H" --doctor >/dev/null 2>"$T/err"
	after=$(mountinfo_hash)
	assert_eq "$before" "$after" "mount table"
	assert_eq "" "$(processes_tagged doctor-leaves-nothing)" "processes left"
	assert_eq "" "$(cat "$T/err")" "stderr"
}
test_doctor_leaves_nothing() { for_each_caller check_doctor_leaves_nothing; }

# No call that could make a file, in the doctor or any of its children.
test_doctor_creates_no_file() {
	command -v strace >/dev/null || skip "strace is not installed"
	# LeakSanitizer (in an ASan build) cannot run under ptrace.
	as_root env ASAN_OPTIONS=detect_leaks=0 strace -f -qq -o "$T/trace" -e trace=%file "$H" --doctor >/dev/null
	local made
	grep -q 'uid_map' "$T/trace" || fail "the trace misses the children's calls"
	made=$(grep -E 'O_CREAT|O_TMPFILE| (mkdir|mkdirat|mknod|mknodat|symlink|symlinkat|link|linkat|rename|renameat|renameat2)\(' "$T/trace" |
		grep -v ' = -1 ' || true)
	assert_eq "" "$made" "calls that made a file"
}

# As root: a user namespace whose user.max_user_namespaces is 0.
test_doctor_user_namespace_count_zero() {
	local out rc=0
	needs_writable_proc_sys
	# The simulation is real: clone(CLONE_NEWUSER) fails with ENOSPC there.
	out=$(as_root unshare -Ur sh -c 'echo 0 > /proc/sys/user/max_user_namespaces && unshare -U true' 2>&1) || rc=$?
	[ "$rc" != 0 ] || fail "unshare -U worked with user.max_user_namespaces = 0"
	assert_match "No space left on device" "$out" "ENOSPC"
	rc=0
	out=$(as_root unshare -Ur sh -c 'echo 0 > /proc/sys/user/max_user_namespaces && exec "$1" --doctor' sh "$H") || rc=$?
	assert_eq 0 "$rc" "exit status (the Landlock fallback is usable)"
	assert_doctor_format "$out"
	assert_check "$out" FAIL userns "clone\(CLONE_NEWUSER\) failed with ENOSPC: user.max_user_namespaces = 0; fix: sysctl -w user.max_user_namespaces=[0-9]+"
	assert_check "$out" WARN mount-api "not tried"
	assert_check "$out" WARN mode "landlock fallback"
}

# Docker's default seccomp profile, as a policy of an outer hutch.
check_doctor_container_seccomp() {
	local out rc=0
	write_container_policy
	out=$($AS "$H" $NESTED --seccomp-policy "$T/container.policy" "$H" --doctor 2>/dev/null) || rc=$?
	assert_eq 0 "$rc" "exit status (the Landlock fallback is usable)"
	assert_doctor_format "$out"
	assert_check "$out" FAIL userns "clone\(CLONE_NEWUSER\) failed with EPERM under a seccomp filter.*; fix: run the container with --security-opt seccomp=unconfined"
	assert_check "$out" WARN clone3 "clone3 is refused with ENOSYS"
	assert_check "$out" OK clone
	assert_check "$out" OK pidfd
	assert_check "$out" WARN mode "landlock fallback .*: user namespaces refused: a seccomp filter refuses clone and unshare with CLONE_NEWUSER, as Docker's default profile does; fix: run the container with --security-opt seccomp=unconfined.*, for the full sandbox$"
}
test_doctor_container_seccomp() { for_each_caller check_doctor_container_seccomp; }

# check_doctor_agrees_with_a_run [WRAPPER...]: the verdict says what a run
# of the default profile gets here (under WRAPPER): namespaces, or the
# fallback with the very cause the fallback's notice names, and its fix
# (issue 27: under Docker's seccomp profile, the profile and the fix).
check_doctor_agrees_with_a_run() {
	local out mode cause rc=0
	out=$($AS "$@" "$H" --doctor 2>/dev/null) || rc=$?
	assert_eq 0 "$rc" "--doctor's exit status"
	mode=$(printf '%s\n' "$out" | tail -n 1)
	$AS "$@" "$H" true 2>"$T/err" || fail "hutch true: $(cat "$T/err")"
	cause=$(sed -n 's/^hutch: fallback: user namespaces refused (\(.*\)); running under .*/\1/p' "$T/err")
	if [ -z "$cause" ]; then
		assert_eq "" "$(cat "$T/err")" "a run's stderr"
		assert_match "^OK   mode: namespaces" "$mode" "the verdict where a run gets namespaces"
		return 0
	fi
	assert_match "^WARN mode: landlock fallback \(\`hutch COMMAND\` runs without namespaces" "$mode" \
		"the verdict where a run falls back"
	[[ $mode == *": user namespaces refused: $cause; fix: "* ]] ||
		fail "the verdict [$mode] does not name the run's cause [$cause] and a fix"
}
check_doctor_agrees() {
	check_doctor_agrees_with_a_run
	check_doctor_agrees_with_a_run "$T/bin/tool" docker
}
test_doctor_agrees_with_a_run() {
	mkdir -p "$T/bin"
	chmod 0755 "$T/bin"
	gcc -O2 -Wall -o "$T/bin/tool" "$(dirname "${BASH_SOURCE[0]}")/tool_fallback_util.c" -lseccomp ||
		skip "cannot build tool_fallback_util.c (gcc, libseccomp-dev)"
	for_each_caller check_doctor_agrees
}

# Neither user namespaces nor Landlock: hutch cannot run, exit 125.
check_doctor_cannot_run() {
	local out rc=0
	write_container_policy
	echo "deny landlock_create_ruleset ENOSYS" >> "$T/container.policy"
	out=$($AS "$H" $NESTED --seccomp-policy "$T/container.policy" "$H" --doctor 2>/dev/null) || rc=$?
	assert_eq 125 "$rc" "exit status"
	assert_doctor_format "$out"
	assert_check "$out" FAIL userns
	assert_check "$out" FAIL landlock "no Landlock"
	assert_check "$out" FAIL mode "none: hutch cannot run here"
}
test_doctor_cannot_run() { for_each_caller check_doctor_cannot_run; }

# As root: a pid namespace whose vm.memfd_noexec is 2 (the sysctl is per
# pid namespace and can only be raised), with its own /proc.
test_doctor_memfd_noexec() {
	local out rc=0
	[ -e /proc/sys/vm/memfd_noexec ] || skip "no vm.memfd_noexec on this kernel (Linux 6.3 added it)"
	needs_root_unshare -pfm --mount-proc
	needs_writable_proc_sys
	out=$(as_root unshare -pfm --mount-proc sh -c 'echo 2 > /proc/sys/vm/memfd_noexec && exec "$1" --doctor' sh "$H") || rc=$?
	assert_eq 0 "$rc" "exit status (the Landlock fallback needs no memfd)"
	assert_doctor_format "$out"
	assert_check "$out" FAIL memfd "executable memfds are refused: vm.memfd_noexec = 2 .*; fix: sysctl -w vm.memfd_noexec=0$"
	assert_check "$out" OK userns
	assert_check "$out" OK proc
	assert_check "$out" WARN mode "landlock fallback"
}

# As root: a new pid namespace that kept the host's /proc.
test_doctor_proc_of_another_pid_namespace() {
	local out rc=0
	needs_root_unshare -pf
	out=$(as_root unshare -pf "$H" --doctor) || rc=$?
	assert_eq 0 "$rc" "exit status"
	assert_doctor_format "$out"
	assert_check "$out" FAIL proc "/proc belongs to another pid namespace.*; fix: mount a /proc of this pid namespace"
	assert_check "$out" OK userns
	assert_check "$out" OK pidfd
	assert_check "$out" WARN mode "landlock fallback"
}
