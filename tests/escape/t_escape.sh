# Escape tests (issue 5).  Each program in tests/escape/*.c tries one way
# out and prints the precise outcome ("WHAT:ok" or "WHAT:ERRNO").  Each
# test runs it inside hutch as root and as uid 65534, with one layer of
# defence on and, where an option allows, the others off, so that no test
# passes because another defence happened to stop the attack.  Each test
# also runs the attack with its layer off (or outside the sandbox where no
# option turns the layer off) and asserts that it then succeeds: a test
# that cannot fail proves nothing.
#
# Every attack also runs from three starting directories: a project
# directory ($T/work, which BOX binds read-only), /tmp and
# $XDG_RUNTIME_DIR; from the last two the bind is refused (issue 16), and
# the assertion is that refusal, before the attack runs.  And again with
# each fd option given an fd the caller never opened: refused while
# parsing, before hutch opens any fd of its own (see attack_everywhere).
#
# Layers and the switches that turn them off:
#   seccomp        --seccomp-policy none
#   capabilities   --cap-add ALL (or one CAP)
#   mount view, mount locking, pid namespace, fd closing, fresh keyring,
#   nosuid + no_new_privs: no switch in hutch mode

ESCAPE_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
NOSECCOMP="--seccomp-policy none"
ALLCAPS="--cap-add ALL"

# build_attack NAME...: compile tests/escape/NAME.c into $T/bin/NAME, and
# set BOX: the sandbox every test starts from.  No profile, so that every
# layer is chosen on the command line; every namespace new; the system's
# programs and a fresh /proc; the attack programs read-only, but not the
# rest of $T; the starting directory read-only, as the profiles that bind
# it do.  No --dev: with it an unprivileged caller gets a second user
# namespace, which would be one more defence in the way.
build_attack() {
	local name
	mkdir -p "$T/bin"
	chmod 0755 "$T/bin"
	for name in "$@"; do
		gcc -O2 -Wall -o "$T/bin/$name" "$ESCAPE_DIR/$name.c" ||
			fail "cannot build $name"
	done
	BOX="--profile none --unshare-all --ro-bind /usr /usr --mirror /bin"
	BOX+=" --mirror /lib --mirror /lib64 --proc /proc --chdir /"
	BOX+=" --ro-bind $T/bin $T/bin --ro-bind-cwd"
}

# output_line CMD...: CMD's output (stdout and stderr) on one line.
output_line() {
	"$@" 2>&1 | tr -d '\r' | grep -Ev '^hutch: ([0-9]+ actions? refused|limits: --pids)' |
		paste -sd' ' -
}

# expect WANT WHAT CMD...: CMD's outcome must be WANT.
expect() {
	local want=$1 what=$2
	shift 2
	assert_eq "$want" "$(output_line "$@")" "$what"
}

# refused_from DIR PROGRAM: started in DIR (/tmp, or XDG, the runtime
# directory), PROGRAM is refused before it runs.
refused_from() {
	local why="is $1, which holds the sockets of programs outside the sandbox (tmux, X11, ssh-agent)"
	[ "$1" = /tmp ] ||
		why="is your runtime directory $1, which holds the sockets of your session (D-Bus, Wayland, ssh-agent)"
	expect "hutch: parse: current directory $1: $why: bound, even read-only, they let COMMAND connect() to those programs; run from a project directory, or use --profile none and bind what COMMAND needs" \
		"$2 from $1" from "$1" env XDG_RUNTIME_DIR="$XDG" "$H" $BOX "$T/bin/$2"
}

# refused_unopened PROGRAM: with each fd option given an fd the caller
# never opened, PROGRAM is refused before it runs.
refused_unopened() {
	local o words
	for o in "${FD_OPTIONS[@]}" "${HUTCH_FD_OPTIONS[@]}"; do
		read -ra words <<<"$o"
		(without_fds expect "hutch: parse: --${words[0]} ${words[1]}: Bad file descriptor" \
			"$1 with --$o, never opened" $AS "$H" $BOX "--${words[0]}" "${words[@]:1}" \
			"$T/bin/$1")
	done
	(without_fds expect "hutch: parse: --listen-fds: fd 3 of LISTEN_FDS=1: Bad file descriptor" \
		"$1 with --listen-fds, fd 3 never opened" $AS env LISTEN_FDS=1 "$H" $BOX --listen-fds \
		"$T/bin/$1")
}

# refused_everywhere PROGRAM...: each PROGRAM, from /tmp and from
# $XDG_RUNTIME_DIR (a directory of the caller's), and with unopened fds.
refused_everywhere() {
	local XDG=$T/xdg.$AS program
	mkdir -p "$XDG"
	chmod 0700 "$XDG"
	caller_is_root || chown $NOBODY:$NOBODY "$XDG"
	for program in "$@"; do
		refused_from /tmp "$program"
		refused_from "$XDG" "$program"
		refused_unopened "$program"
	done
}

# attack_everywhere CHECK PROGRAM...: CHECK as root and as uid 65534,
# from the project directory; then the refusals, for each of the attack
# PROGRAMs CHECK runs.
attack_everywhere() {
	local check=$1
	shift
	for_each_caller "$check"
	for_each_caller refused_everywhere "$@"
}

# for_each_caller_with PROGRAM CHECK: build the attack PROGRAM, then CHECK
# as root and as uid 65534, from everywhere.
for_each_caller_with() {
	build_attack "$1"
	attack_everywhere "$2" "$1"
}

# end_coproc NAME: close coprocess NAME's stdin, on which it waits for EOF
# to exit, and reap it.
end_coproc() {
	local -n co=$1
	local pid_var=${1}_PID
	local pid=${!pid_var}
	eval "exec ${co[1]}>&-"
	wait "$pid" || true
}

# caller_is_root: is $AS the root caller?
caller_is_root() { [ "$AS" = as_root ]; }

# --- the Landlock fallback ---------------------------------------------------

# docs/guarantees.md's table "What each mode guarantees", row by row, under the
# fallback (forced where user namespaces work): tests/escape/fallback.sh.
test_fallback_table() {
	bash "$ESCAPE_DIR/fallback.sh" "$H" >"$T/table" 2>&1 || { sed 's/^/    /' "$T/table" >&2; fail "tests/escape/fallback.sh"; }
	sed 's/^/    /' "$T/table" >&2
}

# The same rows as a kernel of Landlock ABI 2 (Debian 12's 6.1, before
# signal and abstract socket scoping) gives them, on a kernel with
# scoping: the fault build told to use no more of Landlock than ABI 2.
test_fallback_table_landlock_abi_2() {
	need_fault_build
	[ "$(landlock_abi)" -gt 2 ] || skip "this kernel's Landlock ABI is $(landlock_abi): test_fallback_table runs its rows"
	HUTCH_FAULT=landlock-abi:2 bash "$ESCAPE_DIR/fallback.sh" "$T/hutch-fault" >"$T/table" 2>&1 ||
		{ sed 's/^/    /' "$T/table" >&2; fail "tests/escape/fallback.sh with HUTCH_FAULT=landlock-abi:2"; }
	assert_match "Landlock ABI 2; as root" "$(head -n 1 "$T/table")" "the table's ABI"
	sed 's/^/    /' "$T/table" >&2
}

# --- TIOCSTI ---------------------------------------------------------------

# in_pty CMD: run the shell command CMD in a new pty, as $AS.  CMD shares
# the pty as its controlling terminal with what runs after it.
in_pty() {
	output_line $AS script -qec "$1" /dev/null </dev/null
}

# tiocsti_try VARIANT OPTIONS...: push "Z" into the terminal from inside,
# then look outside, after hutch exits, whether it arrived.  --no-pty:
# with hutch's pty relay (on by default on a terminal) the character
# would only reach the inner pty, a defence of its own (tests/integration/t_pty.sh).
tiocsti_try() {
	local variant=$1
	shift
	in_pty "$H $BOX --no-pty $* $T/bin/tiocsti $variant; $T/bin/tiocsti pending"
}

# Layer: seccomp (the ioctl rule, on the request's low 32 bits).  Off:
# capabilities (--cap-add ALL); no --new-session, so the terminal is the
# sandbox's controlling terminal too and the kernel's own refusal of
# TIOCSTI on another session's terminal does not apply.
check_tiocsti() {
	local variant out
	for variant in plain high; do
		out=$(tiocsti_try $variant $ALLCAPS)
		assert_match "tiocsti:EPERM( .*)? pending:none$" "$out" "$variant TIOCSTI, default policy"
		# The control: without the filter the same call must not be
		# refused as EPERM (dev.tty.legacy_tiocsti=0 makes it EIO).
		out=$(tiocsti_try $variant $ALLCAPS $NOSECCOMP)
		assert_no_match "tiocsti:EPERM" "$out" "$variant TIOCSTI, no filter: refused by something else"
		if printf '%s' "$out" | grep -q "tiocsti:ok"; then
			assert_match "pending:Z$" "$out" "$variant TIOCSTI, no filter: the character arrives"
		fi
	done
}
test_tiocsti_refused_by_seccomp() {
	[ "$(cat /proc/sys/dev/tty/legacy_tiocsti 2>/dev/null || echo 1)" = 1 ] ||
		echo "    note: dev.tty.legacy_tiocsti=0, the controls expect EIO" >&2
	build_attack tiocsti
	attack_everywhere check_tiocsti tiocsti
}

# --- files and processes of the host ---------------------------------------

# Layer: the mount namespace's view (only $T/bin of $T is bound).  Off:
# seccomp; capabilities for root.
check_host_file() {
	local off="$NOSECCOMP $ALLCAPS"
	expect "read:ENOENT" "canary outside the bound tree" \
		$AS "$H" $BOX $off "$T/bin/file" read "$T/canary"
	expect "read:ok:host-secret" "control: canary bound" \
		$AS "$H" $BOX $off --ro-bind "$T" "$T" "$T/bin/file" read "$T/canary"
}
test_host_file_outside_tree() {
	build_attack file
	echo host-secret >"$T/canary"
	chmod 0644 "$T/canary"
	attack_everywhere check_host_file file
}

# Layer: the pid namespace (hutch mode always has one, so the control runs
# outside).  Off: seccomp, capabilities.  The victim runs as the caller's
# uid, so nothing but the namespace keeps the caller from it.
check_host_process() {
	local pid out control
	coproc VICTIM { $AS sh -c 'echo $$; exec cat'; }
	read -r pid <&"${VICTIM[0]}"
	out=$(output_line $AS "$H" $BOX $NOSECCOMP $ALLCAPS "$T/bin/peer" "$pid")
	control=$(output_line $AS "$T/bin/peer" "$pid")
	end_coproc VICTIM
	# Where /proc is the caller's (a fresh procfs refused), the process
	# is listed there, its environment fenced off (t_fs.sh checks that).
	local want="proc:ENOENT kill:ESRCH ptrace:ESRCH"
	have_fresh_procfs || want="proc:ok kill:ESRCH ptrace:ESRCH"
	assert_eq "$want" "$out" "host process $pid from inside"
	assert_eq "proc:ok kill:ok ptrace:ok" "$control" "control: host process $pid from outside"
}
test_host_process_out_of_reach() { for_each_caller_with peer check_host_process; }

# Layer: pid 1 (hutch's init) is not dumpable, and COMMAND lacks
# CAP_SYS_PTRACE.  Off: seccomp.  The control keeps CAP_SYS_PTRACE, which
# overrides non-dumpability.
check_ptrace_pid1() {
	local out
	out=$(output_line $AS "$H" $BOX $NOSECCOMP "$T/bin/peer" 1)
	assert_match "ptrace:EPERM$" "$out" "ptrace of pid 1"
	command_caps_withheld && { skip_part "the control: $WHY"; return 0; }
	out=$(output_line $AS "$H" $BOX $NOSECCOMP --cap-add SYS_PTRACE "$T/bin/peer" 1)
	assert_match "ptrace:ok$" "$out" "control: ptrace of pid 1 with CAP_SYS_PTRACE"
}
# Where /proc is the caller's, COMMAND's Landlock fence refuses ptrace
# outside its domain, pid 1 included: the control cannot succeed.
test_ptrace_pid1() {
	have_fresh_procfs || skip "$WHY: the Landlock fence of the caller's /proc refuses ptrace of pid 1 too"
	for_each_caller_with peer check_ptrace_pid1
}

# --- mounts ----------------------------------------------------------------

# mount_test CHECK: CHECK as both callers, with $T/ro (holding "data")
# bound read-only on /mnt/m over a bind of $T/lower (holding "secret"),
# which it hides (see mounts_box), and a tmpfs on /scratch.
mount_test() {
	build_attack mountattack
	mkdir -p "$T/ro" "$T/lower"
	echo original >"$T/ro/data"
	echo hidden >"$T/lower/secret"
	chmod -R a+rX "$T/ro" "$T/lower"
	attack_everywhere "$1" mountattack
}
mounts_box() {
	echo "$BOX --tmpfs /mnt --ro-bind $T/lower /mnt/m --ro-bind $T/ro /mnt/m --tmpfs /scratch"
}

# mount_attacks EXPECT_REMOUNT EXPECT_SETATTR EXPECT_UMOUNT OPTIONS...
mount_attacks() {
	local remount=$1 setattr=$2 umount=$3 box
	shift 3
	box=$(mounts_box)
	expect "$remount" "remount,rw [$*]" \
		$AS "$H" $box "$@" "$T/bin/mountattack" remount /mnt/m data
	expect "$setattr" "mount_setattr -RDONLY [$*]" \
		$AS "$H" $box "$@" "$T/bin/mountattack" setattr /mnt/m data
	expect "$umount" "umount [$*]" $AS "$H" $box "$@" "$T/bin/mountattack" umount /mnt/m secret
	assert_eq original "$(cat "$T/ro/data")" "the host file under the read-only bind"
}

# The control for mount attacks: on a read-only mount of its own, which
# nothing locks, the same remount succeeds when capabilities allow it.
mount_control() {
	command_caps_withheld && { skip_part "the control: $WHY"; return 0; }
	expect "mount:ok make-ro:ok remount:ok ro:no" "control: unlocked mount" \
		$AS "$H" $(mounts_box) $NOSECCOMP $ALLCAPS "$T/bin/mountattack" unlocked /scratch
}

# Layer: capabilities (all dropped, the default).  Off: seccomp.  Mount
# locking would refuse the same calls with other errors (EINVAL for umount).
check_mounts_caps() {
	mount_attacks "remount:EPERM ro:yes write:EROFS" "setattr:EPERM ro:yes write:EROFS" \
		"umount:EPERM hidden:ENOENT" $NOSECCOMP
	mount_control
}
test_mount_ro_bind_caps_dropped() { mount_test check_mounts_caps; }

# Layer: mount locking (the kernel keeps a less privileged user namespace
# from clearing the read-only flag of a mount it received locked, or
# unmounting it).  Off: seccomp, capabilities (--cap-add ALL).
check_mounts_locked() {
	command_caps_withheld && { skip_part "$WHY"; return 0; }
	mount_attacks "remount:EPERM ro:yes write:EROFS" "setattr:EPERM ro:yes write:EROFS" \
		"umount:EINVAL hidden:ENOENT" $NOSECCOMP $ALLCAPS
	mount_control
}
test_mount_ro_bind_locked() { mount_test check_mounts_locked; }

# Layer: mount locking of /proc/sys's read-only bind: a root caller mapped
# to root who makes it writable writes the host's sysctls (core_pattern).
# Off: seccomp, capabilities.  Nothing is written: ro:yes/no only.
check_proc_sys_locked() {
	command_caps_withheld && { skip_part "$WHY"; return 0; }
	expect "remount:EPERM ro:yes" "remount /proc/sys rw" \
		$AS "$H" $BOX $NOSECCOMP $ALLCAPS "$T/bin/mountattack" remount /proc/sys
}
test_proc_sys_bind_locked() { for_each_caller_with mountattack check_proc_sys_locked; }

# Layer: seccomp (mount and umount2 EPERM, the new mount API ENOSYS).
# Off: capabilities (--cap-add ALL).  Mount locking is not off (no option
# does that), but it would answer mount_setattr with EPERM and umount2 with
# EINVAL: these errnos are the filter's.  The control runs without it.
check_mounts_seccomp() {
	command_caps_withheld && { skip_part "$WHY"; return 0; }
	mount_attacks "remount:EPERM ro:yes write:EROFS" "setattr:ENOSYS ro:yes write:EROFS" \
		"umount:EPERM hidden:ENOENT" $ALLCAPS
	mount_control
}
test_mount_ro_bind_seccomp() { mount_test check_mounts_seccomp; }

# Layer: /proc/sys bound read-only over the fresh /proc.  Off: seccomp,
# capabilities.  The caller root is mapped to root, which sysctl files
# check: only the read-only mount stops the write (EROFS).  uid 65534 is
# refused by the file's mode first (EACCES): not this layer, but asserted.
# --unshare-all gives a new UTS namespace: a write that got through would
# change the sandbox's hostname only.
check_proc_sys() {
	local want=EACCES
	caller_is_root && want=EROFS
	expect "write:$want" "write /proc/sys/kernel/hostname" \
		$AS "$H" $BOX $NOSECCOMP $ALLCAPS "$T/bin/file" write /proc/sys/kernel/hostname escaped
}
test_proc_sys_read_only() {
	local before
	needs_root_unshare --uts
	needs_writable_proc_sys
	build_attack file
	before=$(hostname)
	attack_everywhere check_proc_sys file
	assert_eq "$before" "$(hostname)" "host name"
	# The control: where /proc/sys is writable (root, outside, in a UTS
	# namespace of its own), the same write succeeds.
	expect "write:ok" "control: writable /proc/sys" \
		unshare --uts "$T/bin/file" write /proc/sys/kernel/hostname escaped
}

# --- kernel interfaces -----------------------------------------------------

# Layer: seccomp (finit_module EPERM).  Off: capabilities.  Without the
# filter the kernel answers itself: ENOSYS without module support, EPERM
# for lack of CAP_SYS_MODULE in the initial user namespace.  When that is
# EPERM too the two layers cannot be told apart here.
check_module() {
	local out
	expect "finit_module:EPERM" "finit_module" $AS "$H" $BOX $ALLCAPS "$T/bin/module"
	out=$(output_line $AS "$H" $BOX $ALLCAPS $NOSECCOMP "$T/bin/module")
	assert_match "^finit_module:E" "$out" "control: finit_module without the filter"
	[ "$out" != "finit_module:EPERM" ] ||
		echo "    note: the kernel refuses finit_module with EPERM too; layers not separable here" >&2
}
test_kernel_module() { for_each_caller_with module check_module; }

# Layer: --disable-userns (a user namespace count limit).  Off: seccomp,
# capabilities.  The control runs without --disable-userns.
check_userns() {
	expect "unshare:ENOSPC" "nested user namespace with --disable-userns" \
		$AS "$H" $BOX $NOSECCOMP $ALLCAPS --disable-userns "$T/bin/userns"
	expect "unshare:ok" "control: nested user namespace" \
		$AS "$H" $BOX $NOSECCOMP $ALLCAPS "$T/bin/userns"
}
test_nested_userns_disabled() {
	needs_writable_proc_sys
	build_attack userns
	"$H" $BOX --disable-userns true 2>/dev/null ||
		skip "--disable-userns not implemented yet"
	attack_everywhere check_userns userns
}

# Layer: seccomp's architecture check (an i386 syscall kills with SIGSYS,
# 128 + 31).  Off: capabilities.  The control runs without the filter.
check_int80() {
	local rc=0
	$AS "$H" $BOX $ALLCAPS "$T/bin/int80" >/dev/null 2>&1 || rc=$?
	assert_eq 159 "$rc" "int 0x80 keyctl: exit status (SIGSYS)"
	expect "int80:ok" "control: int 0x80 keyctl without the filter" \
		$AS "$H" $BOX $ALLCAPS $NOSECCOMP "$T/bin/int80"
}
test_int80_refused() {
	local rc=0
	build_attack int80
	# In a shell of its own, which reports the crash into /dev/null.
	bash -c '"$0"; exit $?' "$T/bin/int80" >/dev/null 2>&1 || rc=$?
	[ "$rc" != 139 ] || skip "no IA32 emulation in this kernel: int 0x80 segfaults outside a sandbox"
	attack_everywhere check_int80 int80
}

# Layer: seccomp (open_by_handle_at EPERM).  Off: capabilities, which in
# this kernel let the sandbox's root open handles of directories on a
# file system its user namespace mounted (a tmpfs): the control.
check_handle() {
	[ "$(output_line $AS unshare -Ur "$T/bin/handle" probe)" != "open_by_handle:EPERM" ] ||
		skip "open_by_handle_at is refused here before the kernel reads its arguments, without" \
			"hutch (a seccomp filter of the machine's, or a kernel that wants CAP_DAC_READ_SEARCH first)"
	expect "name_to_handle:ok open_by_handle:EPERM" "open_by_handle_at" \
		$AS "$H" $BOX --tmpfs /scratch $ALLCAPS "$T/bin/handle" /scratch
	expect "name_to_handle:ok open_by_handle:ok" "control: open_by_handle_at without the filter" \
		$AS "$H" $BOX --tmpfs /scratch $ALLCAPS $NOSECCOMP "$T/bin/handle" /scratch
}
test_open_by_handle_at() { for_each_caller_with handle check_handle; }

# --- keys ------------------------------------------------------------------

# keys with-key runs the rest as $AS in a fresh session keyring holding a
# key the caller's uid may only view (possessors may read it); KEYID and
# OUTER become the key's and the keyring's ids.
# Layer: the fresh session keyring COMMAND joins.  Off: seccomp.  The
# control is bwrap mode, which keeps the caller's session keyring.
# needs_keyring: $AS can add a key outside hutch (a container engine's
# seccomp profile may refuse add_key); else there is nothing to steal.
needs_keyring() {
	local why
	why=$($AS "$T/bin/keys" with-key probe true 2>&1) ||
		skip "no key can be added here, outside hutch: ${why:-failed}"
}

check_keyring() {
	needs_keyring
	local bw="--unshare-all --ro-bind /usr /usr --symlink usr/bin /bin --symlink usr/lib /lib --symlink usr/lib64 /lib64 --proc /proc --ro-bind $T/bin $T/bin"
	expect "read:EACCES session:other" "caller's key from inside" \
		$AS "$T/bin/keys" with-key s3cret "$H" $BOX $NOSECCOMP "$T/bin/keys" probe KEYID OUTER
	expect "read:ok:s3cret session:same" "control: caller's key from bwrap mode" \
		$AS "$T/bin/keys" with-key s3cret "$T/bwrap" $bw "$T/bin/keys" probe KEYID OUTER
}
test_keyring_fresh_session() { for_each_caller_with keys check_keyring; }

# Layer: seccomp (keyctl ENOSYS in the default policy).  Off: capabilities.
# The control is the fresh-keyring test's run without the filter.
check_keyctl_seccomp() {
	needs_keyring
	expect "read:ENOSYS session:ENOSYS" "keyctl, default policy" \
		$AS "$T/bin/keys" with-key s3cret "$H" $BOX $ALLCAPS "$T/bin/keys" probe KEYID OUTER
}
test_keyctl_refused_by_seccomp() { for_each_caller_with keys check_keyctl_seccomp; }

# --- privileges and fds ----------------------------------------------------

# suid_capable_bin: $T/bin on a mount where setuid works, or a skip.
# Where $T's mount is nosuid (Debian 13's /tmp, a tmpfs of systemd's
# tmp.mount) the control, the setuid binary run outside, would not gain
# euid 0 either: $T/bin becomes a tmpfs of its own without nosuid,
# unmounted when the test ends.
suid_capable_bin() {
	local opts
	opts=$(findmnt -n -o OPTIONS -T "$T") || skip "findmnt cannot say how $T is mounted"
	[[ ,$opts, == *,nosuid,* ]] || return 0
	mkdir -p "$T/bin"
	mount -t tmpfs -o mode=0755,size=16m hutch-suid "$T/bin" 2>/dev/null ||
		skip "$T is on a nosuid mount ($opts) and root cannot mount a tmpfs here: a setuid binary gains nothing outside either"
	trap 'umount "$T/bin"; cleanup_scratch' EXIT
}

# A setuid-root copy of whoami (which prints the effective uid and
# capabilities).  Layers: for uid 65534, the nosuid bind, no_new_privs and
# uid 0 being unmapped in the sandbox's user namespace, none of which an
# option turns off, so they are not separable here; the control runs it
# outside.  For root, the capability bounding set and no_new_privs (also
# not separable); the control keeps every capability.  Seccomp is off.
check_setuid() {
	if caller_is_root; then
		expect "euid:0 capeff:0000000000000000" "setuid root binary as root" \
			$AS "$H" $BOX $NOSECCOMP "$T/bin/suid"
		assert_no_match "capeff:0000000000000000" "$(output_line $AS "$H" $BOX $NOSECCOMP $ALLCAPS "$T/bin/suid")" "control: with --cap-add ALL"
	else
		expect "euid:65534 capeff:0000000000000000" "setuid root binary as uid 65534" \
			$AS "$H" $BOX $NOSECCOMP "$T/bin/suid"
		assert_match "^euid:0 " "$(output_line $AS "$T/bin/suid")" "control: setuid root binary outside"
	fi
}
test_setuid_binary() {
	suid_capable_bin
	build_attack whoami
	cp "$T/bin/whoami" "$T/bin/suid"
	chown root:root "$T/bin/suid"
	chmod 4755 "$T/bin/suid"
	attack_everywhere check_setuid suid
}

# Layer: fds closed before execve (close_range).  Off: seccomp,
# capabilities.  The control passes fd 5 on purpose with --pass-fd.
check_inherited_fd() {
	local dir="$T/secretdir"
	expect "fstat:EBADF link:ENOENT openat:EBADF" "inherited fd 5" \
		$AS "$H" $BOX $NOSECCOMP $ALLCAPS "$T/bin/fdcheck" 5 secret 5<"$dir"
	expect "fstat:ok link:ok openat:ok" "control: --pass-fd 5" \
		$AS "$H" $BOX $NOSECCOMP $ALLCAPS --pass-fd 5 "$T/bin/fdcheck" 5 secret 5<"$dir"
}
test_inherited_fd_closed() {
	build_attack fdcheck
	mkdir -m 0755 "$T/secretdir"
	echo host-secret >"$T/secretdir/secret"
	chmod 0644 "$T/secretdir/secret"
	attack_everywhere check_inherited_fd fdcheck
}

# Layer: Landlock scoping of abstract unix sockets (issue 5), with the
# network namespace shared.  Off: seccomp, capabilities.  The listener
# runs outside as the caller; the control connects from outside.
check_abstract_socket() {
	local name="hutch-escape-$$-$RANDOM" line out control
	coproc LISTENER { $AS python3 -c 'import socket, sys
s = socket.socket(socket.AF_UNIX)
s.bind("\0" + sys.argv[1])
s.listen(8)
print("ready", flush=True)
sys.stdin.read()' "$name"; }
	read -r line <&"${LISTENER[0]}"
	assert_eq ready "$line" "listener"
	out=$(output_line $AS "$H" $BOX --share-net $NOSECCOMP $ALLCAPS "$T/bin/abstract" "$name")
	control=$(output_line $AS "$T/bin/abstract" "$name")
	end_coproc LISTENER
	assert_eq "connect:ok" "$control" "control: connect from outside"
	if [ "$ABI" -lt 6 ]; then
		# No scoping before Landlock ABI 6 (Linux 6.12): what --doctor
		# says, and the socket is indeed reachable.
		assert_eq "connect:ok" "$out" "Landlock ABI $ABI: no scoping, as --doctor says"
		assert_match "abstract unix sockets .* stay reachable" "$($AS "$H" --doctor 2>&1)" \
			"--doctor warns of it"
		skip "Landlock ABI $ABI here: abstract sockets are scoped from ABI 6 (Linux 6.12); checked that --doctor says so"
	fi
	assert_eq "connect:EPERM" "$out" "connect to the host's abstract socket with --share-net"
}
test_abstract_socket_scoped() {
	ABI=$(landlock_abi)
	for_each_caller_with abstract check_abstract_socket
}
