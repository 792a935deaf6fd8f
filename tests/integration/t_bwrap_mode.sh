# bwrap mode: the same invocation through the `bwrap` link ($T/bwrap) and
# through Debian's bwrap 0.8.0 (/usr/bin/bwrap) gives the same exit status,
# standard output and standard error (the program's path in messages
# normalised to "bwrap"), as root and as the unprivileged uid.
#
# Where hutch legitimately differs, nothing is compared:
# - pid 1 with --unshare-pid is hutch's init, run from a sealed memfd
#   (/proc/1/exe, /proc/1/cmdline), where bwrap's is bwrap itself;
# - /proc/self/mountinfo: mount ids, order, and the new root's source;
# - --help lists only the options hutch has (no --args, --userns, --pidns,
#   --seccomp, --bind-fd, --info-fd, --json-status-fd, --block-fd,
#   --sync-fd, --lock-file, --exec-label...); bwrap's usage line names
#   argv[0] ("usage: /usr/bin/bwrap"), hutch's says "usage: bwrap";
#   only the usage line and the status are compared, argv[0] normalised;
# - /proc/sys and /proc/sysrq-trigger are always read-only under --proc;
#   bwrap 0.8.0 skips them when access(W_OK) fails, so for a root caller
#   (no user namespace) its /proc/sys stays writable: with --unshare-pid
#   --proc /proc, `echo >/proc/sys/kernel/hostname` renames the host.
#   Never compared: it would change this machine;
# - --argv0 came in bwrap 0.9: 0.8.0 refuses it, so it is not compared;
# - a --bind-data/--ro-bind-data file has a link count of 1 (its data
#   lives in a private tmpfs), bwrap's 0 (unlinked): link counts are not
#   compared.

R="--ro-bind / /"
REAL=/usr/bin/bwrap

# outcome PROG ARGS...: PROG's exit status, output and messages, as $AS,
# with data on fds 3 to 6 for --file and --bind-data.
outcome() {
	local prog=$1 rc=0
	shift
	$AS "$prog" "$@" >"$T/out" 2>"$T/err" 3<<<three 4<<<four 5<<<five 6<<<six || rc=$?
	echo "exit $rc"
	sed "s#$prog#bwrap#g" "$T/out" "$T/err"
}

# same ARGS...: both give the same outcome; a difference is counted in
# DIFFS and shown, and the table goes on.
DIFFS=0
same() {
	local want got
	want=$(outcome "$REAL" "$@")
	got=$(outcome "$T/bwrap" "$@")
	[ "$want" = "$got" ] && return 0
	DIFFS=$((DIFFS + 1))
	echo "    DIFF ($AS) bwrap $*" >&2
	diff <(echo "$want") <(echo "$got") | sed -n 's/^[<>]/      &/p' >&2
}

# table FUNC: FUNC's rows as both callers; fails if any row differed.
table() {
	[ -x "$REAL" ] || skip "no $REAL to compare with"
	for_each_caller "$1"
	[ "$DIFFS" = 0 ] || fail "$DIFFS invocations differ from $REAL"
}

rows_exit_statuses() {
	same $R true
	same $R false
	same $R sh -c 'exit 42'
	same $R sh -c 'kill -SEGV $$'
	same $R /no/such/command
	same $R --unshare-pid sh -c 'exit 42'
	same $R --unshare-pid sh -c 'kill -SEGV $$'
	same $R --unshare-pid --as-pid-1 sh -c 'echo $$; exit 7'
	same --version
}
test_bwrap_exit_statuses() { table rows_exit_statuses; }

rows_errors() {
	same --ro-bind /no/such/dir /x true
	same --bogus-option true
	same $R --bind /
	same $R --tmpfs
	same $R --uid 5 id -u
	same $R --hostname box hostname
	same --size 100 $R true
	same $R --chdir /no/such/dir true
	same $R --perms 999 --tmpfs /tmp true
	same $R --unshare-user --uid abc true
	same $R --tmpfs /tmp --file 99 /tmp/x true
}
test_bwrap_errors() { table rows_errors; }

# The usage line and status only (see the top of this file).
usage_line() { outcome "$@" | sed -n '1,2p'; }
rows_usage() {
	assert_eq "$(usage_line "$REAL" --help)" "$(usage_line "$T/bwrap" --help)" "--help"
	assert_eq "$(usage_line "$REAL" $R)" "$(usage_line "$T/bwrap" $R)" "no command"
}
test_bwrap_usage() { [ -x "$REAL" ] || skip "no $REAL"; for_each_caller rows_usage; }

LIST='cd /tmp && stat -c "%n %A %s %N" * && cat f g b r
(echo x >>r) 2>&1 | grep -o Read-only; findmnt -n -o OPTIONS /tmp/s | sed "s/relatime,//"'
rows_fs() {
	same $R --tmpfs /tmp --perms 0750 --size 65536 --tmpfs /tmp/s --dir /tmp/d --perms 0700 \
		--dir /tmp/p --symlink /x /tmp/l --file 3 /tmp/f --perms 0640 --file 4 /tmp/g \
		--bind-data 5 /tmp/b --ro-bind-data 6 /tmp/r --chmod 0711 /tmp/d sh -c "$LIST"
	same $R --tmpfs /tmp --bind-try /no/such /tmp/a --ro-bind-try /usr/bin /tmp/u \
		--dev-bind-try /no/such /tmp/c --dev-bind /dev/null /tmp/n \
		sh -c 'ls /tmp; test -x /tmp/u/sh && echo >/tmp/n && echo ok'
	same $R --tmpfs /tmp --bind /dev/null /tmp/n sh -c 'echo >/tmp/n'
	same $R --tmpfs /tmp --dir /tmp/d --remount-ro /tmp sh -c 'touch /tmp/x; ls /tmp'
	same $R --tmpfs /tmp --ro-bind /etc/hostname /tmp/h sh -c 'cat /tmp/h; echo >>/tmp/h'
	same $R --tmpfs /tmp sh -c 'touch /tmp/x /dev/shm/x; ls /tmp'
	same $R --unshare-pid --proc /proc --dev /dev sh -c \
		'echo /proc/[0-9]* $(ls -A /dev); readlink /dev/ptmx'
	same $R --proc /proc sh -c 'test -r /proc/self/status && echo ok'
	same $R --dev /dev --unshare-ipc --mqueue /dev/mqueue findmnt -n -o FSTYPE /dev/mqueue
}
test_bwrap_fs_results() { table rows_fs; }

STATUS="grep -E ^(Uid|Gid|CapEff): /proc/self/status"
rows_ids_env() {
	same $R $STATUS
	same $R --unshare-user --uid 0 --gid 0 $STATUS
	same $R --unshare-user --uid 1234 --gid 567 $STATUS
	same $R --unshare-uts --hostname box hostname
	same $R --unshare-net sh -c 'cut -d: -f1 /proc/net/dev | tail -n +3'
	same $R --clearenv --setenv A 1 --setenv B 2 --unsetenv A env
	same $R --setenv A 1 --clearenv env
	same $R --setenv A 1 --unsetenv HOME env
	same $R --chdir /usr/share pwd
	same $R --unshare-pid sh -c 'echo $$'
	same $R --new-session sh -c 'read -r p c s pp pg sid rest </proc/self/stat; [ $sid = $p ] && echo leader'
}
test_bwrap_ids_and_env() { table rows_ids_env; }
