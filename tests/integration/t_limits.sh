# Resource limits: --rlimit, --pids (RLIMIT_NPROC in the sandbox's user
# namespace), and the cgroup v2 limits or, where none is usable, the
# error that says why.

# What hutch said.
said() { cat "$T/err"; }

# The caller's own limit inside: LINE of /proc/self/limits, soft and hard.
limit_of() {
	awk -v name="$1" 'index($0, name) == 1 { n = split(substr($0, length(name) + 1), f, " ");
		print f[1], f[2] }' /proc/self/limits
}

check_rlimits_inside() {
	local out
	out=$($AS "$H" --rlimit nofile=64:128 --rlimit as=1G --rlimit core=0 --rlimit stack=4M \
		sh -c 'echo $(ulimit -n) $(ulimit -Hn) $(ulimit -v) $(ulimit -c) $(ulimit -s)')
	assert_eq "64 128 1048576 0 4096" "$out" "ulimit -n -Hn -v -c -s inside"
	out=$($AS "$H" --rlimit nproc=20:30 --rlimit msgqueue=8K \
		sh -c 'grep -E "^Max (processes|msgqueue size)" /proc/self/limits | tr -s " "')
	assert_match "Max processes 20 30 processes" "$out" "nproc"
	assert_match "Max msgqueue size 8192 8192 bytes" "$out" "msgqueue"
	# The last setting of a resource wins (a profile's, then the command line's).
	assert_eq 100 "$($AS "$H" --rlimit nofile=64 --rlimit nofile=100 sh -c 'ulimit -n')" "last wins"
}
test_rlimits_inside() { for_each_caller check_rlimits_inside; }

check_rlimit_fsize() {
	local out
	out=$($AS "$H" --rlimit fsize=4K sh -c \
		'head -c 10000 /dev/zero >/tmp/f; echo "status $?"; wc -c </tmp/f' 2>&1)
	# SIGXFSZ ends the writer (128 + 25), or it ignores it and gets EFBIG.
	assert_match "status 153|File too large" "$out" "a write past RLIMIT_FSIZE"
	assert_match "^4096$" "$out" "the file stops at the limit"
}
test_rlimit_fsize() { for_each_caller check_rlimit_fsize; }

# SIGXCPU at the soft limit; at the hard one SIGKILL, which is all a
# busy loop gets when both are equal (the kernel checks the hard first).
check_rlimit_cpu() {
	local rc=0
	$AS timeout 60 "$H" --rlimit cpu=1:3 sh -c 'while :; do :; done' 2>"$T/err" || rc=$?
	assert_eq 152 "$rc" "a busy loop under RLIMIT_CPU ends with SIGXCPU"
	assert_match "^hutch: COMMAND was killed by SIGXCPU at its CPU time limit \(rlimit cpu 1s\)$" \
		"$(said)" "the CPU time limit is named"
	rc=0; $AS timeout 60 "$H" --json-status-fd 3 --rlimit cpu=1 sh -c 'while :; do :; done' \
		2>"$T/err" 3>"$T/status" || rc=$?
	assert_eq 137 "$rc" "soft = hard: SIGKILL"
	assert_match "^hutch: COMMAND was killed by SIGKILL at its CPU time limit \(rlimit cpu 1s\)$" \
		"$(said)" "the hard CPU time limit is named"
	# The status fd's last object names it too (it was null once the
	# limits' state had been freed before the object was written).
	assert_match '"limit": "cpu-time"' "$(tail -n 1 "$T/status")" "--json-status-fd names the limit"
}
test_rlimit_cpu() { for_each_caller check_rlimit_cpu; }

# A plain tree without --new-session: what is under test is the message.
PLAIN="--profile none --ro-bind / / --proc /proc --dev /dev --unshare-all"

check_rlimit_above_hard() {
	local rc=0
	$AS sh -c 'ulimit -n 512 && exec timeout 60 "$0" $1 --rlimit nofile=256:1024 true' \
		"$H" "$PLAIN" 2>"$T/err" || rc=$?
	assert_eq 125 "$rc" "a hard limit above the caller's"
	assert_eq "hutch: limits: rlimit nofile: Operation not permitted (hard limit above the caller's 512)" \
		"$(said)" "message"
}
test_rlimit_above_hard() { for_each_caller check_rlimit_above_hard; }

# ---- --pids ----

# A bounded fork bomb: a subshell forks sleepers until fork fails (then
# it exits); COMMAND says how many it made and in which pid namespace,
# and holds until a line comes on its stdin.
BOMB='ns=$(readlink /proc/self/ns/pid)
( i=0; while [ $i -lt 2000 ]; do sleep 1000 & i=$((i+1)); echo $i >/tmp/n; done ) 2>/dev/null
read n </tmp/n; echo "forked $n $ns"; read go'

# Processes in pid namespace NS ("pid:[N]"), seen from outside by CALLER,
# the sandbox's owner (a container's root, without CAP_SYS_PTRACE, cannot
# read the namespace links of another uid's processes).
count_in_pidns() {
	"$1" sh -c 'ls -l /proc/[0-9]*/ns/pid 2>/dev/null | grep -cF -- "-> $0" || true' "$2"
}

# bomb_as CALLER PIDS: run the bomb, and count the sandbox's processes
# from outside while it holds at its peak; sets FORKED, PEAK and RC.
bomb_as() {
	local line ns
	coproc BOMB_RUN { "$1" timeout 120 "$H" --pids "$2" sh -c "$BOMB" 2>"$T/err"; }
	read -t 100 -r line <&"${BOMB_RUN[0]}" || fail "the bomb said nothing: $(cat "$T/err")"
	ns=${line##* }
	PEAK=$(count_in_pidns "$1" "$ns")
	# The rest of the machine is unaffected: the same uid still forks.
	"$1" true || fail "the caller cannot fork outside during the bomb"
	echo go >&"${BOMB_RUN[1]}"
	RC=0; wait "$BOMB_RUN_PID" || RC=$?
	line=${line#forked }
	FORKED=${line%% *}
}

test_fork_bomb_stops_at_pids_cap() {
	needs_user_sandbox
	bomb_as as_user 50
	assert_eq 0 "$RC" "hutch returns after the bomb"
	# 50 = init + COMMAND + the forking subshell + 47 sleepers; the
	# subshell has exited when the count is taken.
	assert_eq 47 "$FORKED" "forks inside before the cap"
	[ "$PEAK" -le 50 ] && [ "$PEAK" -ge 45 ] ||
		fail "the sandbox had $PEAK processes at its peak, cap 50"
}

# Since Linux 5.14 RLIMIT_NPROC counts the processes of a uid in one user
# namespace: with more processes of the uid outside than the cap, the
# sandbox still forks up to its cap.
test_nproc_counted_per_user_namespace() {
	local pids="" p i out outside
	kernel_at_least 5 14 || skip "kernel $(uname -r): RLIMIT_NPROC is per user namespace from 5.14"
	needs_user_sandbox
	for i in $(seq 30); do
		setpriv --reuid=$NOBODY --regid=$NOBODY --clear-groups sleep 1000 &
		pids="$pids $!"
	done
	out=$(as_user "$H" --pids 10 sh -c '( i=0; while [ $i -lt 100 ]; do sleep 1000 & i=$((i+1));
		echo $i >/tmp/n; done ) 2>/dev/null; read n </tmp/n; echo "forked $n"' 2>&1) || true
	outside=$(ps -U $NOBODY -o pid= | wc -l)
	for p in $pids; do kill "$p"; done
	wait
	[ "$outside" -ge 30 ] || fail "only $outside processes of uid $NOBODY outside"
	assert_eq "forked 7" "$out" "10 = init + COMMAND + subshell + 7, with $outside outside"
}

kernel_at_least() {
	local major minor
	IFS=. read -r major minor _ <<<"$(uname -r)"
	[ "$major" -gt "$1" ] || { [ "$major" -eq "$1" ] && [ "${minor%%[!0-9]*}" -ge "$2" ]; }
}

# ---- cgroup v2 ----

# The cgroup2 mount point, and the controllers its root offers.
cgroup2_mount() { awk '$9 == "cgroup2" { print $5; exit }' /proc/self/mountinfo; }
cgroup2_has() {
	local mnt
	mnt=$(cgroup2_mount)
	[ -n "$mnt" ] && grep -qw "$1" "$mnt/cgroup.controllers"
}
cgroup2_list() { local m; m=$(cgroup2_mount); [ -z "$m" ] || cat "$m/cgroup.controllers"; }
# Why hutch finds no cgroup controller it can use, as it says it.
cgroup2_none() {
	if [ -z "$(cgroup2_mount)" ]; then
		echo "no cgroup2 file system is mounted"
	else
		echo "cgroup2 at $(cgroup2_mount) has: $(cgroup2_list)"
	fi
}
hutch_cgroups() { find "$(cgroup2_mount)" -maxdepth 3 -name 'hutch-*' -type d 2>/dev/null | sort; }

# As root, where a cgroup v2 pids controller is usable, --pids is also
# pids.max and holds.  Without one nothing holds root's processes (the
# kernel exempts the host's root from RLIMIT_NPROC): --pids on the
# command line is then an error; a profile's pids runs quietly, and
# --explain says it is not enforced.
test_pids_as_root() {
	local out want rc=0 why
	if cgroup2_has pids; then
		bomb_as as_root 50
		assert_eq 0 "$RC" "hutch returns after the bomb"
		[ "$FORKED" -le 47 ] || fail "root forked $FORKED under pids.max 50"
		assert_match "forks failed at the process limit \(pids.max 50\)" "$(cat "$T/err")" \
			"pids.events reported"
		return
	fi
	why="without a usable cgroup v2 pids controller ($(cgroup2_none))"
	as_root "$H" --pids 50 true 2>"$T/err" || rc=$?
	assert_eq 125 "$rc" "--pids as root, nothing to enforce it"
	assert_eq "hutch: limits: --pids 50 is not enforced for a caller that is root $why" \
		"$(cat "$T/err")" "the error"
	out=$(as_root "$H" sh -c 'grep "^Max processes" /proc/self/limits' 2>"$T/err")
	want=$(limit_of "Max processes")
	assert_match "^Max processes +${want% *} +${want#* } " "$out" "RLIMIT_NPROC left as the caller's"
	assert_eq "" "$(cat "$T/err")" "the default profile's pids: nothing said"
	assert_match "^  pids 4096: NOT enforced here: .*\($(cgroup2_none)\)" \
		"$(as_root "$H" --explain true)" "--explain says the default profile's pids is not enforced"
	assert_eq "" "$(as_root "$H" --pids 0 true 2>&1)" "--pids 0: no limit, nothing said"
}

check_cgroup_error() {
	local rc before opt ctl
	before=$(hutch_cgroups)
	for opt in "--memory 64M" "--memory-swap 1M" "--cpu 0.5"; do
		set -- $opt
		ctl=memory; [ "$1" = --cpu ] && ctl=cpu
		rc=0; $AS "$H" $opt true 2>"$T/err" || rc=$?
		assert_eq 125 "$rc" "$opt without a usable cgroup"
		assert_eq "hutch: limits: $1: no usable cgroup v2 $ctl controller ($(cgroup2_none))" \
			"$(said)" "$opt message"
	done
	assert_eq "$before" "$(hutch_cgroups)" "no cgroup directory left behind"
}
# Where no cgroup2 is mounted at all, too.
test_cgroup_limit_without_cgroup_is_an_error() {
	! cgroup2_has memory && ! cgroup2_has cpu ||
		skip "cgroup2 at $(cgroup2_mount) has memory or cpu: the error path needs a machine without"
	for_each_caller check_cgroup_error
}

test_cgroup_limits_enforced() {
	local rc before
	cgroup2_has memory && cgroup2_has pids ||
		skip "no cgroup v2 memory and pids controllers here ($(cgroup2_none))"
	before=$(hutch_cgroups)
	rc=0; as_root "$H" --memory 32M --memory-swap 4K \
		dd if=/dev/zero of=/dev/null bs=256M count=1 2>"$T/err" || rc=$?
	assert_eq 137 "$rc" "a memory hog is OOM-killed"
	assert_match "^hutch: COMMAND was killed by the OOM killer \(memory limit 32M\)$" \
		"$(cat "$T/err")" "the OOM message"
	assert_eq "$before" "$(hutch_cgroups)" "the cgroup is gone afterwards"
}

# --cpu 0.2: a busy loop of 2 s wall gets about 0.4 s of CPU (cpu.max),
# against the 2 s it takes when nothing limits it.  The CPU time is what
# the shell inside counts for its children (`times`).
test_cgroup_cpu_share() {
	local before out used
	cgroup2_has cpu || skip "no cgroup v2 cpu controller here ($(cgroup2_none))"
	before=$(hutch_cgroups)
	out=$(as_root "$H" --cpu 0.2 sh -c 'timeout 2 sh -c "while :; do :; done"; times' 2>"$T/err")
	used=$(printf '%s\n' "$out" | awk 'NR == 2 { split($1, u, /[ms]/); split($2, s, /[ms]/);
		printf "%.2f", u[1] * 60 + u[2] + s[1] * 60 + s[2] }')
	assert_eq "" "$(cat "$T/err")" "nothing said"
	awk -v u="$used" 'BEGIN { exit !(u > 0.1 && u < 0.8) }' ||
		fail "--cpu 0.2 for 2 s: ${used}s of CPU used, want about 0.4 (times: $out)"
	assert_eq "$before" "$(hutch_cgroups)" "the cgroup is gone afterwards"
}

# A run killed before its end leaves its cgroup; the next start removes
# it when its supervisor is gone, and leaves a live one's alone.
test_left_over_cgroup_removed() {
	local mnt
	mnt=$(cgroup2_mount)
	[ -n "$mnt" ] && [ -w "$mnt" ] || skip "no writable cgroup2 hierarchy"
	# Where a run makes its cgroup, as --doctor says (a systemd host:
	# the user's slice); without one, every level up to the root is
	# looked at, the root last.
	mnt=$(as_root "$H" --doctor | sed -n "s/^.... cgroup: a run's cgroup goes under \([^;,]*\)[;,].*/\1/p")
	[ -n "$mnt" ] || mnt=$(cgroup2_mount)
	mkdir "$mnt/hutch-2147483647-0000" "$mnt/hutch-$$-0000"
	as_root "$H" true 2>/dev/null || true
	[ ! -d "$mnt/hutch-2147483647-0000" ] || { rmdir "$mnt/hutch-2147483647-0000"; \
		rmdir "$mnt/hutch-$$-0000"; fail "the dead run's cgroup stayed"; }
	[ -d "$mnt/hutch-$$-0000" ] || fail "a live supervisor's cgroup was removed"
	rmdir "$mnt/hutch-$$-0000"
}

check_explain() {
	local out
	out=$($AS "$H" --explain --rlimit nofile=64:128 --memory 512M --cpu 0.5 true)
	assert_match "^  rlimit nofile 64, hard 128    \(command line\)$" "$out" "rlimit and origin"
	assert_match "^  pids 4096: (RLIMIT_NPROC|pids.max|NOT enforced here).*    \(.*default:[0-9]+\)$" "$out" \
		"the default profile's pids and where it came from"
	[ "$AS" = as_root ] || assert_match "^  pids 4096: RLIMIT_NPROC in the sandbox's user namespace" \
		"$out" "an unprivileged caller's --pids is RLIMIT_NPROC"
	assert_match "^  memory 512M: cgroup v2 memory.max" "$out" "memory"
	assert_match "^  cpu 0.5 of one CPU: cgroup v2 cpu.max \"50000 100000\"" "$out" "cpu"
}
test_explain_limits() { for_each_caller check_explain; }

# Issue 26: --rlimit limits COMMAND, never hutch's set-up.  nofile=8 left
# hutch's seccomp listener no fd (exit 125), where `prlimit --nofile=8
# bwrap ...` gives COMMAND its 8; nproc=1 kept --assert-userns-disabled's
# probe from forking (the host's root is exempt from RLIMIT_NPROC).
check_rlimit_not_setup() {
	local out rc=0
	out=$($AS "$H" --rlimit nofile=8 sh -c 'echo $(ulimit -n) $(ulimit -Hn)' 2>"$T/err") ||
		fail "--rlimit nofile=8: $(said)"
	assert_eq "8 8" "$out" "COMMAND's nofile"
	out=$($AS "$H" --seccomp-policy strict --rlimit nofile=4 \
		/bin/cat /proc/self/limits 2>"$T/err") || fail "strict, nofile=4: $(said)"
	assert_match "Max open files +4 +4 " "$out" "COMMAND's nofile under the strict policy"
	if ! have_sandbox_for_caller && have_userns; then
		# The fallback takes no user namespace away where the machine
		# still makes them (powerless, under Ubuntu's restriction): the
		# assertion refuses the run, as bwrap's does.
		$AS "$H" --disable-userns --assert-userns-disabled --rlimit nproc=1 true 2>"$T/err" || rc=$?
		assert_eq 125 "$rc" "--assert-userns-disabled under the fallback, user namespaces still made: $(said)"
		assert_match "creation of new user namespaces was not disabled as requested" "$(cat "$T/err")" \
			"the assertion's refusal"
	elif have_writable_proc_sys; then
		$AS "$H" --disable-userns --assert-userns-disabled --rlimit nproc=1 true 2>"$T/err" ||
			fail "--rlimit nproc=1 with --assert-userns-disabled: $(said)"
	else
		skip_part "--disable-userns: $WHY"
	fi
	mkdir -p "$T/work/rep" && chmod 0777 "$T/work/rep"
	$AS "$H" --report "$T/work/rep/$AS" --rlimit nofile=5 true 2>"$T/err" ||
		fail "--report, nofile=5: $(said)"
}
test_rlimit_limits_command_not_setup() { for_each_caller check_rlimit_not_setup; }
