# The file system options: each one's effect inside, seen from inside
# and from the host, as root and as the unprivileged uid.

# A root of its own (a fresh tmpfs) with just enough to run a shell.
FS="--profile none --ro-bind /usr /usr --symlink usr/bin /bin --symlink usr/lib /lib
 --symlink usr/lib64 /lib64 --symlink usr/sbin /sbin --proc /proc --dev /dev"

# box ARGS...: hutch as $AS with the base tree, then ARGS.
box() { $AS "$H" $FS "$@"; }

# mine PATH...: directories that belong to the caller, so that a write
# there fails only because of what the sandbox does.
mine() {
	mkdir -p "$@"
	chown "$(caller_uid):$(caller_uid)" "$@"
}

# assert_erofs OUTPUT WHAT: a write failed with EROFS.
assert_erofs() { assert_match "Read-only file system" "$1" "$2"; }

# assert_empty_dir DIR WHAT: DIR exists and holds nothing.
assert_empty_dir() {
	[ -d "$1" ] || fail "$2: $1 is gone"
	assert_eq "" "$(ls -A "$1")" "$2: $1 must stay empty"
}

check_ro_bind() {
	mine "$T/d"
	assert_erofs "$(box --ro-bind "$T/d" /ro touch /ro/x 2>&1)" "--ro-bind"
	[ ! -e "$T/d/x" ] || fail "--ro-bind: the write reached the host"
	box --bind "$T/d" /rw touch /rw/y || fail "--bind: cannot write"
	[ -e "$T/d/y" ] || fail "--bind: the write did not reach the host"
	rm -rf "$T/d"
}
test_ro_bind_is_read_only() { for_each_caller check_ro_bind; }

# submount_run CMD...: CMD as $AS's uid, in a private mount namespace in
# which $T/sub/mnt is a tmpfs of its own, writable by anyone: a real
# submount of $T/sub, gone with the namespace.
submount_run() {
	local who=()
	[ "$AS" = as_user ] && who=(setpriv --reuid=$NOBODY --regid=$NOBODY --clear-groups)
	(cd "$T/work" && unshare -m --propagation private sh -c \
		'mount -t tmpfs -o mode=1777,size=1m hutch-sub "$0" && exec "$@"' \
		"$T/sub/mnt" "${who[@]}" env -i PATH=/usr/bin:/bin "$@")
}

check_ro_bind_submount() {
	local out
	mkdir -p "$T/sub/mnt"
	out=$(submount_run "$H" $FS --bind "$T/sub" /sub sh -c \
		'findmnt -n -o FSTYPE /sub/mnt; touch /sub/mnt/x && echo wrote')
	assert_eq "tmpfs
wrote" "$out" "--bind: the submount is there and writable"
	out=$(submount_run "$H" $FS --ro-bind "$T/sub" /sub touch /sub/mnt/x 2>&1) || true
	assert_erofs "$out" "--ro-bind: a submount is read-only too"
	rm -rf "$T/sub"
}
test_ro_bind_submount_is_read_only() { needs_root_unshare -m; for_each_caller check_ro_bind_submount; }

check_ro_bind_file() {
	echo host >"$T/f"
	chown "$(caller_uid)" "$T/f"
	assert_eq "host" "$(box --ro-bind "$T/f" /f cat /f)" "--ro-bind of a file: content"
	assert_erofs "$(box --ro-bind "$T/f" /f sh -c 'echo new >>/f' 2>&1)" "--ro-bind of a file"
	assert_eq "host" "$(cat "$T/f")" "--ro-bind of a file: host file unchanged"
	box --bind "$T/f" /f sh -c 'echo new >>/f' || fail "--bind of a file: cannot write"
	assert_eq "host
new" "$(cat "$T/f")" "--bind of a file writes through"
	rm -f "$T/f"
}
test_ro_bind_file() { for_each_caller check_ro_bind_file; }

check_try_binds() {
	local out
	out=$(box --bind-try /no/such /a --ro-bind-try /no/such /b --dev-bind-try /no/such /c \
		--ro-bind-try /usr/bin /d sh -c 'ls -d /a /b /c 2>/dev/null; test -x /d/sh && echo d')
	assert_eq "d" "$out" "-try binds: missing sources skipped, present one bound"
}
test_try_binds_skip_missing_source() { for_each_caller check_try_binds; }

check_dev_bind() {
	assert_match "Permission denied" "$(box --bind /dev/null /n sh -c 'echo >/n' 2>&1)" \
		"--bind: device nodes do not work"
	assert_eq "ok" "$(box --dev-bind /dev/null /n sh -c 'echo >/n && echo ok')" \
		"--dev-bind: device nodes work"
}
test_dev_bind_allows_devices() { for_each_caller check_dev_bind; }

check_tmpfs() {
	local out
	out=$(box --perms 0710 --size 1048576 --tmpfs /t sh -c \
		'stat -c %a /t; ls -A /t | wc -l; stat -f -c "%b %S" /t
		head -c 2000000 /dev/zero 2>&1 >/t/big | grep -o "No space left on device"')
	assert_eq "710
0
256 4096
No space left on device" "$out" "--perms --size --tmpfs: mode, empty, size, full"
	assert_eq "755" "$(box --tmpfs /t stat -c %a /t)" "--tmpfs: default mode"
}
test_tmpfs_mode_and_size() { for_each_caller check_tmpfs; }

check_dir_symlink_chmod() {
	local out
	out=$(box --tmpfs /t --dir /t/a --perms 0700 --dir /t/b --dir /t/x/y/z \
		--symlink a /t/l --chmod 0751 /t/a sh -c \
		'stat -c "%n %a %F" /t/a /t/b /t/x/y/z; readlink /t/l; cd /t/l && pwd -P')
	assert_eq "/t/a 751 directory
/t/b 700 directory
/t/x/y/z 755 directory
a
/t/a" "$out" "--dir, --perms, --symlink, --chmod"
}
test_dir_symlink_chmod() { for_each_caller check_dir_symlink_chmod; }

check_file_and_data() {
	local out
	out=$(box --tmpfs /t --file 3 /t/f --perms 0640 --file 4 /t/g \
		--bind-data 5 /t/b --ro-bind-data 6 /t/r sh -c \
		'stat -c "%n %a" /t/f /t/g /t/b /t/r; cat /t/f /t/g /t/b /t/r
		echo w >>/t/f && echo w >>/t/b && cat /t/b; (echo w >>/t/r) 2>&1 | grep -o Read-only' \
		3<<<three 4<<<four 5<<<five 6<<<six 2>&1)
	assert_eq "/t/f 666
/t/g 640
/t/b 600
/t/r 600
three
four
five
six
five
w
Read-only" "$out" "--file, --bind-data, --ro-bind-data"
}
test_file_and_bind_data() { for_each_caller check_file_and_data; }

check_remount_ro() {
	local out
	out=$(box --tmpfs /t --file 3 /t/f --remount-ro /t sh -c \
		'cat /t/f; touch /t/new 2>&1; echo more 2>&1 >>/t/f' 3<<<kept) || true
	assert_eq "kept
touch: cannot touch '/t/new': Read-only file system
sh: 1: cannot create /t/f: Read-only file system" "$out" "--remount-ro after set-up"
}
test_remount_ro() { for_each_caller check_remount_ro; }

# A user namespace always exists in hutch mode: an mqueue needs the IPC
# namespace that it owns.
check_mqueue() {
	local out
	out=$(box --unshare-ipc --mqueue /dev/mqueue sh -c \
		'findmnt -n -o FSTYPE /dev/mqueue; touch /dev/mqueue/q && head -c 7 /dev/mqueue/q')
	assert_eq "mqueue
QSIZE:0" "$out" "--mqueue: a message queue can be made"
}
test_mqueue() { for_each_caller check_mqueue; }

check_dev() {
	local out
	out=$(box sh -c 'echo $(ls /dev); readlink /dev/ptmx; findmnt -n -o FSTYPE /dev/pts
		echo x >/dev/null && head -c 3 /dev/zero | od -An -tx1')
	assert_eq "core fd full null ptmx pts random shm stderr stdin stdout tty urandom zero
pts/ptmx
devpts
 00 00 00" "$out" "--dev: contents"
}
test_dev() { for_each_caller check_dev; }

# Where the kernel refuses a fresh procfs, --proc is the caller's /proc
# behind a Landlock fence: what that promises is checked instead.
check_proc_fresh() {
	local out
	if ! have_fresh_procfs; then
		assert_proc_substitute $AS
		return
	fi
	# The shell's own glob: no process of the listing itself shows up.
	out=$(box sh -c 'for p in /proc/[0-9]*; do echo -n "${p#/proc/} "; done')
	assert_eq "1 2 " "$out" "--proc: only the sandbox's processes (init and COMMAND)"
}
test_proc_is_fresh() { for_each_caller check_proc_fresh; }

# Root mapped to root in its own uts namespace could write this sysctl
# on a plain procfs: the cover must stop it.  (The host name inside is
# the caller's: no --hostname, which a container's seccomp may refuse.)
check_proc_sys_ro() {
	local out
	out=$(box --unshare-uts --uid 0 sh -c '
		(echo after >/proc/sys/kernel/hostname) 2>&1 | grep -o "Read-only file system"
		hostname; findmnt -n -o OPTIONS /proc/sys | cut -d, -f1 | sort -u')
	assert_eq "Read-only file system
$(hostname)
ro" "$out" "/proc/sys: the write refused, hostname unchanged, mounted read-only"
}
test_proc_sys_mounted_read_only() { for_each_caller check_proc_sys_ro; }

check_unbound_unreachable() {
	local out
	echo secret >"$T/canary-file"
	chmod 0644 "$T/canary-file"
	out=$(box --bind "$T/work" /w sh -c "cat '$T/canary-file' 2>&1; echo \$(ls /w/..); pwd")
	assert_eq "cat: $T/canary-file: No such file or directory
bin dev lib lib64 proc sbin usr w
/" "$out" "an unbound host file, the root's contents, the unbound cwd"
	rm -f "$T/canary-file"
}
test_unbound_host_path_unreachable() { for_each_caller check_unbound_unreachable; }

# The attack: a writable bound tree holds an absolute symlink to a host
# directory (the canary) and a dangling one into it; set-up must resolve
# both as the sandbox sees them.
plant_links() {
	mine "$T/tree" "$T/canary"
	chmod 0700 "$T/canary"
	ln -s "$T/canary" "$T/tree/link"
	ln -s "$T/canary/x" "$T/tree/leaf"
	chown -h "$(caller_uid):$(caller_uid)" "$T/tree/link" "$T/tree/leaf"
}

# canary_untouched WHAT: the host canary is empty, mode 0700 as planted.
canary_untouched() {
	assert_empty_dir "$T/canary" "$1"
	assert_eq "700" "$(stat -c %a "$T/canary")" "$1: canary mode"
}

# attempt OPTIONS...: set-up through the links without a tmpfs on the
# canary's path: it must fail with one hutch line, or succeed inside.
attempt() {
	local rc=0
	box --bind "$T/tree" /tree "$@" true 3<<<data 2>"$T/err" || rc=$?
	[ "$rc" = 0 ] || { assert_eq 125 "$rc" "$* exit status"; assert_match "^hutch: " "$(cat "$T/err")" "$* message"; }
	canary_untouched "$*"
}

check_symlink_attack() {
	plant_links
	attempt --dir /tree/link/sub
	attempt --file 3 /tree/link/x
	attempt --bind-data 3 /tree/link/x
	attempt --ro-bind-data 3 /tree/link/x
	attempt --symlink /etc/passwd /tree/link/x
	attempt --tmpfs /tree/link/x
	attempt --chmod 0777 /tree/link
	attempt --file 3 /tree/leaf
	attempt --dir /tree/leaf
	rm -rf "$T/tree" "$T/canary"
}
test_symlink_attack_fails_without_target() { for_each_caller check_symlink_attack; }

check_symlink_attack_inside() {
	local out
	plant_links
	out=$(box --bind "$T/tree" /tree --tmpfs "$T/canary" --dir /tree/link/sub \
		--file 3 /tree/link/f sh -c "ls '$T/canary' | tr '\n' ' '; cat '$T/canary/f'" 3<<<data)
	assert_eq "f sub data" "$out" "set-up lands in the sandbox's $T/canary"
	canary_untouched "--tmpfs on the canary's path"
	# Another host directory bound at the canary's path gets it all.
	mine "$T/other"
	box --bind "$T/tree" /tree --bind "$T/other" "$T/canary" --dir /tree/link/sub \
		--file 3 /tree/link/f true 3<<<data || fail "set-up through the link"
	assert_eq "f sub" "$(echo $(ls "$T/other"))" "what the sandbox sees at the link's target"
	canary_untouched "a bind on the canary's path"
	rm -rf "$T/tree" "$T/canary" "$T/other"
}
test_symlink_attack_lands_inside() { for_each_caller check_symlink_attack_inside; }

# ---- where the kernel refuses a fresh procfs (containers) ----

# assert_proc_substitute RUN...: where the kernel refuses a fresh procfs,
# hutch (run as RUN... "$H") runs COMMAND anyway: the caller's /proc,
# read-only, and no way into another process of the same uid, whose
# environment holds a secret (as a CI runner's holds tokens); the
# sandbox's own processes are there; --doctor predicts it.
MOUNT_PY='import ctypes, os
libc = ctypes.CDLL(None, use_errno=True)
ok = libc.mount(b"none", b"/tmp", b"tmpfs", 0, None) == 0
print("mounted" if ok else os.strerror(ctypes.get_errno()))'
assert_proc_substitute() {
	local pid out rc=0 w want
	coproc SECRET { $AS env HUTCH_SECRET=hunter2 sh -c 'echo $$; exec cat'; }
	w=${SECRET[1]}
	read -r pid <&"${SECRET[0]}"
	# The control: the caller itself reads the secret.
	assert_match "^HUTCH_SECRET=hunter2$" "$($AS sh -c 'tr "\0" "\n" </proc/$0/environ' "$pid")" \
		"control: the secret, read by its uid outside"
	out=$("$@" "$H" sh -c '
		[ -d /proc/$0 ] && echo visible
		cat /proc/$0/environ 2>/dev/null | tr "\0" "\n" | grep HUTCH_SECRET
		read -r me _ _ init _ </proc/self/stat
		[ -d /proc/$init ] && [ -d /proc/$me ] && [ "$me" != "$$" ] && echo own-listed
		readlink /proc/self >/dev/null && ls /dev/fd/ >/dev/null && echo self-works
		touch /proc/self/comm 2>/dev/null && echo proc-writable; true' "$pid" 2>"$T/err") || rc=$?
	exec {w}>&-
	wait "$SECRET_PID" 2>/dev/null || true
	assert_eq 0 "$rc" "hutch where a fresh procfs is refused: $(cat "$T/err")"
	assert_eq "" "$(cat "$T/err")" "nothing said"
	assert_eq "visible
own-listed
self-works" "$out" "another process is listed, its environment unreadable; the sandbox's are listed; /proc/self works"
	# The fence is a Landlock scope from ABI 6: mounts are the policy's
	# to refuse, as where /proc is fresh.  Before, an fs right, with
	# which Landlock refuses every mount.
	want=mounted
	[ "$(landlock_abi)" -ge 6 ] || want="Operation not permitted"
	assert_eq "$want" "$("$@" "$H" --seccomp-policy none --cap-add SYS_ADMIN python3 -c "$MOUNT_PY" 2>&1)" \
		"a mount by COMMAND, with the capability and no seccomp policy"
	rc=0; "$@" "$T/bwrap" --unshare-all --ro-bind / / --proc /proc true 2>"$T/err" || rc=$?
	assert_eq 1 "$rc" "bwrap mode's --proc fails as bwrap's does: $(cat "$T/err")"
	assert_match "^WARN procfs: the kernel refuses a fresh procfs .*Landlock domain" \
		"$("$@" "$H" --doctor | grep '^.... procfs: ')" "--doctor predicts it"
}

# A /proc masked as container engines mask it, on a machine that mounts
# a fresh procfs otherwise.
check_proc_substitute() {
	[ -e /proc/keys ] || skip "no /proc/keys to mask on this kernel"
	have_fresh_procfs || skip "$WHY: no mask needed, test_proc_is_fresh checks the substitute"
	needs_root_unshare -m
	assert_proc_substitute in_masked_proc "$AS"
}
test_proc_substitute_where_procfs_is_refused() { for_each_caller check_proc_substitute; }

# Without Landlock nothing can fence the caller's /proc: an empty one.
# The mask here is the outer sandbox's own /proc covers.  (As root, the
# inner hutch cannot map uid 0 from a COMMAND without CAP_SETFCAP.)
test_proc_empty_without_landlock() {
	local out
	needs_user_sandbox
	if AS=as_user no_nesting_here; then skip "$WHY"; fi
	AS=as_user have_fresh_procfs || skip "$WHY: the outer sandbox's /proc is then" \
		"the caller's, read-only, where the inner hutch cannot write its child's id maps"
	printf 'default allow\ndeny landlock_create_ruleset ENOSYS\n' >"$T/nolandlock.policy"
	chmod 0644 "$T/nolandlock.policy"
	out=$(as_user "$H" --profile none --ro-bind / / --proc /proc --dev /dev \
		--seccomp-policy "$T/nolandlock.policy" "$H" sh -c 'ls -A /proc | wc -l' 2>"$T/err")
	assert_eq "0" "$out" "an empty /proc: $(cat "$T/err")"
}

# hutch mode takes --size as --memory does (16M); bwrap mode bytes only.
check_tmpfs_size_with_unit() {
	assert_eq 16384 "$($AS "$H" --size 16M --tmpfs /t sh -c "df -k /t | awk 'NR == 2 { print \$2 }'")" \
		"--size 16M"
	assert_eq "bwrap: --size takes a non-zero number of bytes" \
		"$($AS "$T/bwrap" --ro-bind / / --size 16M --tmpfs /t true 2>&1)" "bwrap mode: bytes only"
}
test_tmpfs_size_with_unit() { for_each_caller check_tmpfs_size_with_unit; }
