# Self-sealing (issue 3): pid 1 runs from a sealed memfd, code inside
# cannot reach a writable copy of hutch's binary (CVE-2019-5736), a
# static root works, and no launch touches the caller's mount namespace.

. "$(dirname "${BASH_SOURCE[0]}")/tool_outside.sh"

# ---- pid 1's image, seen from outside ----

# COMMAND says "up" on a fifo and waits on another, so the sandbox lives
# while we look at its pid 1: the child of the hutch process.
test_pid1_runs_from_sealed_memfd() {
	local pid1 nspid exe seals
	AS=as_root
	shared_dir
	mkfifo "$T/s/ready" "$T/s/go"
	start_box $BASE --bind "$T/s" /s sh -c 'echo up >/s/ready; read x </s/go'
	wait_ready
	pid1=$(children "$(cat "$T/s/pid")")
	nspid=$(grep NSpid "/proc/$pid1/status")
	exe=$(readlink "/proc/$pid1/exe")
	seals=$($PY -c 'import fcntl, os, sys
print(fcntl.fcntl(os.open(sys.argv[1], os.O_RDONLY), 1034))' "/proc/$pid1/exe") || true
	echo go >"$T/s/go"
	wait "$BG" || fail "hutch failed: $(cat "$T/err")"
	assert_match "[[:space:]]1$" "$nspid" "the supervisor's child is pid 1 inside"
	assert_eq "/memfd:hutch-init (deleted)" "$exe" "pid 1 ($pid1) runs from"
	# F_SEAL_SEAL 1 | F_SEAL_SHRINK 2 | F_SEAL_GROW 4 | F_SEAL_WRITE 8
	assert_eq 15 "$((${seals:-0} & 15))" "seals of pid 1's memfd (F_GET_SEALS gave ${seals:-nothing})"
}

# ---- the binary, attacked from inside ----

# Inside: open every visible /proc/PID/exe for writing, ptrace pid 1, and
# send O_PATH fds of /proc/1/exe and (the control) /proc/self/exe out
# through a socket in /s, bound by name (the connect broker hands over no
# other socket of the host).  The sender runs from /s/exeprobe, a writable
# copy the caller owns: the receiver, outside, must manage to reopen and
# write it after hutch has exited, which shows that the channel works
# and that the same move on /proc/1/exe would have been seen.
PROBES='/t/exeprobe write /proc/[0-9]*/exe
/t/exeprobe ptrace 1
/s/exeprobe send /s/sock /proc/1/exe /proc/self/exe'

# exe_attack ARGS...: as $AS, owner of a private copy of hutch, run
# $PROBES in a sandbox of that copy with ARGS; the receiver outside
# reopens what it got once hutch has exited.  Output in $T/probe.
exe_attack() {
	local sum
	build_tool exeprobe
	shared_dir
	mkdir -p "$T/t" "$T/mine"
	cp "$T/exeprobe" "$T/t/exeprobe"
	cp "$T/exeprobe" "$T/s/exeprobe"
	cp "$H" "$T/mine/hutch"
	chown -R "$(caller_uid):$(caller_uid)" "$T/s" "$T/mine"
	copy_makes_sandbox "$T/mine/hutch" || { skip_part "$WHY"; return 0; }
	sum=$(sha256sum <"$T/mine/hutch")
	$AS timeout 60 "$T/t/exeprobe" recv "$T/s/sock" "$T/mine/hutch" $BASE "$@" \
		--ro-bind "$T/t" /t --bind "$T/s" /s --bind "$T/s/sock" /s/sock \
		sh -c "$PROBES" >"$T/probe" 2>&1 ||
		fail "receiver: $(cat "$T/probe")"
	assert_eq "$sum" "$(sha256sum <"$T/mine/hutch")" "hutch's binary after the attack"
	check_probe_output "$(cat "$T/probe")"
}

check_probe_output() {
	local out=$1 pid1_end
	assert_match "^status 0$" "$out" "hutch's status"
	assert_no_match "^/proc/[0-9]+/exe: ok$" "$out" "a /proc/PID/exe opened for writing"
	assert_match "^ptrace 1: .+$" "$out" "ptrace of pid 1 tried"
	[ "${PTRACE_ALLOWED:-}" = yes ] || assert_no_match "^ptrace 1: ok$" "$out" "ptrace of pid 1"
	# Refused at the O_PATH open inside, at the reopen, or at the write.
	pid1_end=$(printf '%s\n' "$out" | grep -E '^/proc/1/exe: (not sent|reopen|write)' | tail -1)
	assert_match "^/proc/1/exe: (not sent|reopen for writing|write): " "$pid1_end" "O_PATH attack on pid 1"
	assert_no_match ": ok$" "$pid1_end" "O_PATH attack on pid 1"
	assert_match "^/proc/self/exe: write: ok$" "$out" "control: the sender's own writable binary"
}

# The unprivileged owner of the binary: with hutch's defaults (no
# capabilities, the default seccomp policy, Landlock scoping while the
# network is shared), then with only what this is about: no seccomp
# policy, and a network namespace of its own, which leaves out the
# Landlock scope (it too refuses ptrace of pid 1, and would hide the
# lack of the others).
check_exe_attack_user() {
	exe_attack
	exe_attack --seccomp-policy none --unshare-net
}
test_exe_unreachable_as_owner() { needs_user_sandbox; AS=as_user check_exe_attack_user; }

# Root with every other layer off (all capabilities in the sandbox's user
# namespace, no seccomp, no Landlock scope): what stops the attack is
# only the sealed memfd.  CAP_SYS_PTRACE in pid 1's user namespace, which
# --cap-add ALL grants, overrides "not dumpable" (the kernel's rule): so
# ptrace of pid 1 and the O_PATH open succeed here, and the reopened fd
# names the memfd, whose F_SEAL_WRITE refuses the write.
test_exe_unreachable_without_other_layers() {
	AS=as_root PTRACE_ALLOWED=yes exe_attack --seccomp-policy none --cap-add ALL --unshare-net
}

# bwrap mode without --unshare-pid, with --proc /proc: the supervisor
# (COMMAND's parent) is in sight; its exe must not open.  As root without
# a user namespace COMMAND keeps every capability (like bwrap), which
# passes any check, so root runs with --unshare-user.  --unshare-net
# leaves out the Landlock scope.  What refuses the access then is the
# supervisor being not dumpable and, as COMMAND's user namespace is a
# child of the supervisor's, the kernel's capability check for ptrace
# access across user namespaces: this checks the property, not which of
# the two holds it.
SUPERVISOR_PROBES='tr "\0" " " </proc/$PPID/cmdline; echo
/t/exeprobe open path /proc/$PPID/exe
/t/exeprobe open read /proc/$PPID/exe
/t/exeprobe write /proc/$PPID/exe
/t/exeprobe ptrace $PPID'

check_supervisor_exe() {
	local out
	build_tool exeprobe
	mkdir -p "$T/t" "$T/mine"
	cp "$T/exeprobe" "$T/t/exeprobe"
	cp "$H" "$T/mine/hutch"
	ln -sf hutch "$T/mine/bwrap"
	chown -R "$(caller_uid):$(caller_uid)" "$T/mine"
	copy_makes_sandbox "$T/mine/hutch" || { skip_part "$WHY"; return 0; }
	out=$($AS "$T/mine/bwrap" --ro-bind /usr /usr --symlink usr/bin /bin --symlink usr/lib /lib \
		--symlink usr/lib64 /lib64 --proc /proc --dev /dev --unshare-user --unshare-net \
		--ro-bind "$T/t" /t sh -c "$SUPERVISOR_PROBES" 2>&1) || fail "bwrap mode: $out"
	assert_match "^$T/mine/bwrap --ro-bind" "$out" "COMMAND's parent is the supervisor"
	assert_no_match ": ok$" "$out" "the supervisor's exe from inside"
	assert_eq 4 "$(printf '%s\n' "$out" | grep -c -E '^(/proc/[0-9]+/exe|ptrace [0-9]+): ')" \
		"probes run: $out"
}
test_supervisor_exe_unreachable_in_bwrap_mode() { for_each_caller check_supervisor_exe; }

# ---- a root with nothing but a static binary ----

check_static_root() {
	build_tool hello -static
	mkdir -p "$T/app"
	cp "$T/hello" "$T/app/hello"
	assert_eq "hello from a static root" \
		"$($AS "$H" --profile none --ro-bind "$T/app" /app /app/hello 2>&1)" "static binary alone"
}
test_static_root() { for_each_caller check_static_root; }

# ---- the caller's mount namespace ----

# Each line: the status expected, the program (hutch or bwrap), options.
# $T and $BASE are expanded when the file is written.  Where the machine
# refuses sethostname in a user namespace, no --hostname; where root
# cannot make namespaces of its own, bwrap mode as root needs
# --unshare-user; where a fresh procfs is refused, bwrap mode's --proc
# fails, as bwrap's does (each said in a note).
launch_variants() {
	local base hostname="--hostname box" userns="" proc="--proc /proc"
	base=${BASE//$'\n'/ }
	have_hostname_in_userns || { hostname=""; echo "    note: no --hostname: $WHY" >&2; }
	have_fresh_procfs || { proc=""; echo "    note: bwrap mode without --proc: $WHY" >&2; }
	if [ "$AS" = as_root ] && ! have_root_unshare; then
		userns=--unshare-user
		echo "    note: bwrap mode as root with --unshare-user: $WHY" >&2
	fi
	cat <<EOF
0 hutch true
0 hutch $base true
0 hutch $base --as-pid-1 true
0 hutch $base --unshare-all $hostname --tmpfs /tmp --dir /tmp/a/b --chmod 0700 /tmp/a true
0 hutch $base --bind $T/s /s --ro-bind $T/s /ro --remount-ro /s --symlink /usr /tmp-link true
0 hutch $base --dev-bind /dev/null /null --mirror /etc/passwd --ro-bind-cwd true
0 hutch --profile none --ro-bind / / --tmpfs /tmp --proc /proc --dev /dev true
0 bwrap --ro-bind / / $userns --unshare-pid $proc --dev /dev --tmpfs /tmp true
0 bwrap --ro-bind / / $userns --tmpfs /tmp true
125 hutch --profile none --ro-bind /no/such/dir /x true
EOF
}

# many_launches N DIR: N launches of the variants in DIR/variants, in
# turn; a line on stderr for each that ends otherwise than expected.
# (Run by mountwatch through bash -c, as $AS: it carries its own code.)
many_launches() {
	local i rc want prog args
	mapfile -t variants <"$2/variants"
	for ((i = 0; i < $1; i++)); do
		read -r want prog args <<<"${variants[i % ${#variants[@]}]}"
		rc=0
		"$2/$prog" $args >/dev/null 2>"$2/s/launch.err" || rc=$?
		[ "$rc" = "$want" ] || echo "$prog $args: status $rc, not $want: $(cat "$2/s/launch.err")" >&2
	done
}

# watch_launches N: N launches as $AS under mountwatch, in this mount
# namespace; prints the watcher's verdict and any launch that misbehaved.
watch_launches() {
	$AS "$T/mountwatch" bash -c "$(declare -f many_launches); many_launches \"\$@\"" \
		many_launches "$1" "$T" 2>&1
}

check_mounts_untouched() {
	build_tool mountwatch
	shared_dir
	launch_variants >"$T/variants"
	assert_eq "events 0 status 0" "$(watch_launches 100)" "mount events in the caller's namespace"
}
test_mounts_untouched() { for_each_caller check_mounts_untouched; }

# The same inside a mount namespace whose mounts are shared (as on a
# systemd host): a mount made there by mistake, or propagated into it,
# is an event.  The control shows that the watcher sees one.
check_mounts_untouched_shared() {
	local control
	build_tool mountwatch
	mkdir -p "$T/m"
	control=$(as_root "$T/mountwatch" sh -c "mount -t tmpfs none $T/m && umount $T/m")
	# Two changes close together can wake the watcher once (the kernel
	# raises POLLPRI again only after it has read): 1 or 2 events.
	assert_match "^events [12] status 0$" "$control" "control: a mount and an unmount"
	for_each_caller check_mounts_untouched
}
test_mounts_untouched_shared_propagation() {
	needs_root_unshare -m --propagation shared
	in_mountns shared check_mounts_untouched_shared
}

# ---- vm.memfd_noexec = 2 ----

# The sysctl holds for a pid namespace and those it creates: set in a
# child one, it refuses executable memfds to hutch, which must say so
# and fail rather than run pid 1 from an unsealed binary.
check_memfd_noexec() {
	local before rc=0 drop=
	before=$(cat /proc/sys/vm/memfd_noexec)
	[ "$AS" = as_user ] && drop="setpriv --reuid=$NOBODY --regid=$NOBODY --clear-groups"
	(cd "$T/work" && unshare -pf --mount-proc sh -c \
		'sysctl -q -w vm.memfd_noexec=2 && exec "$@"' sh $drop "$H" $BASE true) 2>"$T/err" || rc=$?
	assert_eq "$before" "$(cat /proc/sys/vm/memfd_noexec)" "the host's vm.memfd_noexec"
	assert_eq 125 "$rc" "hutch under vm.memfd_noexec = 2"
	assert_match "^hutch: seal: .*vm\.memfd_noexec" "$(cat "$T/err")" "message"
	assert_eq 1 "$(wc -l <"$T/err")" "one line: $(cat "$T/err")"
}
test_memfd_noexec_refused() {
	[ -e /proc/sys/vm/memfd_noexec ] || skip "this kernel has no vm.memfd_noexec (before 6.3)"
	needs_root_unshare -pf --mount-proc
	needs_writable_proc_sys
	for_each_caller check_memfd_noexec
}
