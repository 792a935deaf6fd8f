# bwrap mode: a differential table.  Every row runs through the `bwrap`
# link ($T/bwrap) and through Debian's bwrap (/usr/bin/bwrap: 0.8.0 on
# Debian 12; trixie's 0.12.0 words some failures otherwise, and there a
# row's stderr alone may differ, a part skipped: words_differ_only), as
# root and as the unprivileged uid, and compares these aspects:
#   exit      the exit status;
#   stdout    standard output (the program's path normalised to "bwrap");
#   stderr    standard error, the "bwrap: " prefix stripped;
#   json      what --json-status-fd 9 wrote (given to every row), pids and
#             namespace ids replaced by PID and NS: in bwrap mode the
#             objects must match key for key;
#   info      what --info-fd 14 wrote, normalised the same way;
#   mountinfo and status: a second run with the row's options and the
#             command replaced by a probe (rows with a command, after @),
#             which prints /proc/self/mountinfo and the Uid, Gid, CapEff,
#             CapBnd, NoNewPrivs and Seccomp lines of /proc/self/status.
# mountinfo is compared by shape: one line per mount with its mount point,
# its depth (ancestors by parent id, so that stacked mounts keep their
# order), its fs type and source ("proc" for a procfs, as bwrap mounts
# it) and its rw/ro, nosuid, nodev and noexec flags, sorted.  Dropped:
# mount and parent ids and major:minor (numbering), the mount root and
# the fs options (sizes and uids follow the machine), the
# propagation tags (they carry peer ids) and the order of the lines (the
# kernel lists mounts by creation: hutch clones every source before it
# makes the new root, bwrap mounts each in turn).
#
# Legitimate differences (for hutch(1) "Differences from bwrap"); where a
# row meets one, only that aspect of that row is skipped (SKIP=...):
# - pid 1 with --unshare-pid is hutch's init, run from a sealed memfd
#   (/proc/1/exe, /proc/1/cmdline), where bwrap's is bwrap itself: no
#   row looks at pid 1;
# - hutch's sandbox never outlives hutch, and hutch fails where bwrap
#   0.8.0 hangs for good: a bad --info-fd or --json-status-fd, or a
#   --userns2 whose setns fails (bwrap's parent waits on an eventfd that
#   its dead child never writes).  Never run against bwrap: hutch's own
#   result is checked (test_bwrap_hutch_only);
# - mounts hidden under another mount at the same point (the host's
#   stacked /dev/shm, /dev/pts...) get --ro-bind's flags too: hutch sets
#   them with mount_setattr(AT_RECURSIVE) on a clone taken before
#   pivot_root, bwrap remounts by path and reaches only the top one.
#   Their flags are shown as "shadowed";
# - likewise mounts whose parent directory COMMAND cannot search (a
#   host's /var/lib/containers/storage/... of mode 0700, seen as an
#   unprivileged caller): bwrap's remount of them by path fails with
#   EACCES, which it ignores, so they keep their flags (writable), where
#   hutch's recursive mount_setattr makes them read-only too.  Nothing
#   inside can reach them; the probe leaves them out;
# - --lock-file: hutch's lock is an OFD lock (F_OFD_SETLK, held by the
#   open file, so it survives pid 1's re-exec into init), bwrap's a POSIX
#   one: /proc/locks says OFDLCK and pid -1 where bwrap says POSIX and its
#   pid.  They conflict with other locks alike, which is what the row
#   compares.  A lock file that cannot be opened: bwrap's init takes the
#   locks after forking COMMAND, so COMMAND has run when bwrap exits 1;
#   hutch takes them before COMMAND exists.  The row runs `true` only;
# - --seccomp data is read and checked before the sandbox exists; bwrap
#   reads it in its child, after reporting child-pid: for bad data bwrap
#   has written a child-pid object and hutch none (SKIP=json);
# - an fd option given an fd that is not open fails while parsing, with
#   bwrap 0.11.1's message; bwrap finds out in its child, after writing
#   child-pid (SKIP=json), and ignores an unopened --sync-fd, --block-fd
#   or --userns-block-fd, where hutch fails (t_fds.sh);
# - --pidns whose setns fails: bwrap's intermediate process adds a second
#   line, "Unexpected short read from pid socket" (SKIP=stderr);
# - --args data may nest, and may hold COMMAND (issue 8 asks for
#   nesting): bwrap 0.8.0 refuses nesting ("--args not supported in
#   arguments file") and drops everything from the first non-option word
#   of the data.  Not compared; hutch's result is checked;
# - --help: bwrap 0.11.1's options, in hutch's own order and words, so
#   the later ones (--argv0, overlays, --level-prefix) too; compared are
#   the usage line, the status, and that every "--option ARGS" of 0.8.0
#   and nothing but those and the later ones is listed;
# - --argv0 (0.9), overlays and --level-prefix (0.11): 0.8.0 refuses
#   them; t_overlay.sh and t_protocol.sh check them against bwrap 0.11's
#   documentation;
# - --version says "bubblewrap 0.11.1", the bwrap hutch is; so do the
#   texts where 0.11.1 changed 0.8.0's (check_texts_of_0_11);
# - a --bind-data/--ro-bind-data file has a link count of 1 (its data
#   lives in a private tmpfs), bwrap's 0 (unlinked): not compared.
# Everything else that differs is a hutch bug, and its row fails.

R="--ro-bind / /"
REAL=/usr/bin/bwrap
# What the real bwrap says where it cannot make its sandbox at all.
REAL_REFUSED='(Creating new namespace failed|setting up uid map: Permission denied)'
BWRAP_SRC_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
STATUS_LINES='^(Uid|Gid|CapEff|CapBnd|NoNewPrivs|Seccomp):'
# The probe's mountinfo: only mounts whose parent directory it can search.
REACHABLE_MOUNTS='set -f; while IFS= read -r l; do set -- $l; d=${5%/*}; [ -x "${d:-/}" ] && echo "$l"; done </proc/self/mountinfo'
PROBE="$REACHABLE_MOUNTS; grep -E '$STATUS_LINES' /proc/self/status"
STATUS="grep -E $STATUS_LINES /proc/self/status"

# Files the rows read through fds: NUL-separated --args data, seccomp
# programs (uname(2) fails with EPERM, mkdir(2) with ENOSPC), a directory
# to bind; and tool_proto_ns, whose namespaces the rows join.
fixtures() {
	mkdir -p "$T/fix/dir"
	echo inside >"$T/fix/dir/f"
	printf '%s\0' --setenv FROM_ARGS yes --chdir /usr >"$T/fix/args"
	printf '%s\0' --args 7 --setenv NESTED yes >"$T/fix/args-nested"
	printf '%s\0' --ro-bind / / sh -c 'echo "[$0] [$1]"' 'a b' 'c	d' >"$T/fix/args-cmd"
	gcc -std=gnu11 -O2 -Wall -Werror -o "$T/bpf" "$BWRAP_SRC_DIR/tool_proto_bpf.c" -lseccomp ||
		fail "cannot build tool_proto_bpf (libseccomp-dev?)"
	gcc -std=gnu11 -O2 -Wall -Werror -o "$T/nshelper" "$BWRAP_SRC_DIR/tool_proto_ns.c" ||
		fail "cannot build tool_proto_ns"
	"$T/bpf" uname 1 >"$T/fix/deny-uname.bpf"
	"$T/bpf" mkdir 28 mkdirat 28 >"$T/fix/deny-mkdir.bpf"
	printf 'abc' >"$T/fix/short.bpf"
	: >"$T/fix/empty.bpf"
	"$T/bpf" seccomp 38 >"$T/fix/deny-seccomp.bpf"
}

# run_prog PROG ARGS...: PROG as $AS, with the fixture fds; $T/out,
# $T/err, $T/json and $T/info hold what it wrote; prints the status.
# The helper's namespaces (fds 12, 13, 16) are opened as $AS: a root
# without CAP_SYS_PTRACE (a container's) cannot open another uid's.
run_prog() {
	local rc=0
	$AS bash -c 'exec "${@:4}" 12<"$1" 13<"$2" 16<"$3"' run_prog "${NS_USER:-/dev/null}" \
		"${NS_PID:-/dev/null}" "${NS_USER2:-/dev/null}" "$@" \
		>"$T/out" 2>"$T/err" 3<<<three 4<<<four 5<<<five 6<<<six \
		7<"$T/fix/args" 8<"$T/fix/deny-uname.bpf" 9>"$T/json" 10<"$T/fix/dir" \
		11<"$T/fix/args-nested" \
		14>"$T/info" 15<"$T/fix/args-cmd" \
		17<"$T/fix/short.bpf" 18<"$T/fix/deny-mkdir.bpf" 19<"$T/fix/empty.bpf" \
		20<"$T/fix/deny-seccomp.bpf" || rc=$?
	echo "$rc"
}

# section NAME CMD...: CMD's output, each line tagged with NAME, unless
# NAME is in $SKIP (a legitimate difference of this row); a capitalised
# word in $SKIP names a /proc/self/status line left out of every aspect.
section() {
	local name=$1 drop='x^' key
	shift
	case " ${SKIP:-} " in *" $name "*) return 0 ;; esac
	for key in ${SKIP:-}; do
		[[ $key == [A-Z]* ]] && drop="$drop|^$key:"
	done
	"$@" | grep -Ev "$drop" | sed "s/^/$name| /"
}

normal_json() {
	sed -E 's/("child-pid": )[0-9]+/\1PID/; s/("[a-z]+-namespace": )[0-9]+/\1NS/g' "$1"
}

# The shape of a mountinfo (see the top of this file): "POINT DEPTH TYPE
# FLAGS" a mount.
MOUNT_SHAPE='
function flags(opts,    o, n, i, has, f) {
	n = split(opts, o, ",")
	for (i = 1; i <= n; i++)
		has[o[i]] = 1
	f = o[1]
	if ("nosuid" in has) f = f ",nosuid"
	if ("nodev" in has) f = f ",nodev"
	if ("noexec" in has) f = f ",noexec"
	return f
}
{
	for (sep = 7; $sep != "-"; sep++)
		;
	n++; ids[n] = $1; parent[$1] = $2; point[$1] = $5; type[$1] = $(sep + 1) " " $(sep + 2)
	flag[$1] = flags($6); under[$2 " " $5] = 1
}
END {
	for (j = 1; j <= n; j++) {
		id = ids[j]; depth = 0
		for (p = parent[id]; p in parent && depth < 100; p = parent[p])
			depth++
		f = (id " " point[id]) in under ? "shadowed" : flag[id]
		printf "%s %d %s %s\n", point[id], depth, type[id], f
	}
}'
normal_mountinfo() { grep -E '^[0-9]+ [0-9]+ ' | awk "$MOUNT_SHAPE" | sort; }

# run_aspects PROG ARGS...: the aspects of one run, as text to compare.
run_aspects() {
	local prog=$1 rc
	shift
	rc=$(run_prog "$prog" --json-status-fd 9 "$@")
	section exit echo "$rc"
	section stdout sed "s#$prog#bwrap#g" "$T/out"
	section stderr sed -E "s#$prog#bwrap#g; s#^bwrap: ##" "$T/err"
	section json normal_json "$T/json"
	section info normal_json "$T/info"
}

# inside PROG OPTIONS...: what COMMAND sees, through the probe.
inside() {
	local prog=$1
	shift
	run_prog "$prog" "$@" sh -c "$PROBE" >/dev/null
	section mountinfo normal_mountinfo <"$T/out"
	section status grep -E "$STATUS_LINES" "$T/out"
}

# aspects PROG: every aspect of the row in OPTS and CMD.
aspects() {
	run_aspects "$1" "${OPTS[@]}" "${CMD[@]}"
	[ ${#CMD[@]} -eq 0 ] || inside "$1" "${OPTS[@]}"
}

# same OPTIONS... [@ COMMAND...]: both give the same aspects; a
# difference is counted in DIFFS and shown, and the table goes on.
DIFFS=0
same() {
	local want got
	OPTS=() CMD=()
	while [ $# -gt 0 ] && [ "$1" != @ ]; do OPTS+=("$1"); shift; done
	[ $# -gt 0 ] && shift && CMD=("$@")
	want=$(aspects "$REAL")
	got=$(aspects "$T/bwrap")
	[ "$want" = "$got" ] && return 0
	# Where bwrap itself cannot run (as root without CAP_SYS_ADMIN, in a
	# container; unregistered where a security module leaves its user
	# namespace powerless and hutch's binary has a profile, the Ubuntu
	# stand-in) there is nothing to compare with, unless both fail alike.
	if grep -Eq "^stderr| $REAL_REFUSED" <<<"$want"; then
		skip_part "row: bwrap ${OPTS[*]} ${CMD[*]}: $REAL cannot run here" \
			"($(grep -Em1 "^stderr| $REAL_REFUSED" <<<"$want" | sed 's/^stderr| //'))"
		return 0
	fi
	# The host's mounts may change between the two runs (containers of
	# other users of the machine come and go): once more, both.
	want=$(aspects "$REAL")
	got=$(aspects "$T/bwrap")
	[ "$want" = "$got" ] && return 0
	words_differ_only && return 0
	DIFFS=$((DIFFS + 1))
	echo "    DIFF ($AS) bwrap ${OPTS[*]} ${CMD[*]}" >&2
	diff <(echo "$want") <(echo "$got") | sed -n 's/^[<>]/      &/p' >&2
}

# The bwrap whose words hutch speaks: 0.11.1's, and 0.8.0's where they
# are the same.  A later bwrap (trixie's 0.12.0) says some failures in
# other words ("Can't remount readonly on /tmp/d", where 0.11.1 says "on
# /newroot/tmp/d"): its stderr is no reference for hutch's.
REAL_VERSION=
real_words_are_ours() {
	[ -n "$REAL_VERSION" ] || REAL_VERSION=$("$REAL" --version 2>/dev/null | awk '{ print $2 }')
	case $REAL_VERSION in 0.8.* | 0.9.* | 0.10.* | 0.11.*) return 0 ;; esac
	return 1
}

# words_differ_only: with a bwrap whose words are not hutch's, a row whose
# aspects other than stderr are the same is a part skipped (its stderr
# shown and not compared); every other aspect still has to match.
words_differ_only() {
	real_words_are_ours && return 1
	[ "$(SKIP="${SKIP:-} stderr" aspects "$REAL")" = "$(SKIP="${SKIP:-} stderr" aspects "$T/bwrap")" ] || return 1
	skip_part "row: bwrap ${OPTS[*]} ${CMD[*]}: stderr not compared: $REAL is bubblewrap" \
		"${REAL_VERSION:-of no known version}, whose words are not 0.11.1's that hutch speaks:" \
		"$(diff <(echo "$want") <(echo "$got") | sed -n 's/^[<>] stderr| //p' | paste -sd '|' -)"
	return 0
}

# known_for CALLER ASPECTS: ASPECTS when the row runs as CALLER (as_root
# or as_user), else nothing: for a KNOWN difference of one caller only.
known_for() { if [ "$AS" = "$1" ]; then echo "$2"; fi; }

# table FUNC: FUNC's rows as both callers; fails if any row differed.
table() {
	[ -x "$REAL" ] || skip "no $REAL to compare with"
	fixtures
	for_each_caller "$1"
	[ "$DIFFS" = 0 ] || fail "$DIFFS invocations differ from $REAL"
}

rows_exit_statuses() {
	same $R @ true
	same $R @ false
	same $R @ sh -c 'exit 42'
	same $R @ sh -c 'kill -SEGV $$'
	same $R @ /no/such/command
	same $R --unshare-pid @ /no/such/command
	same $R --unshare-pid @ sh -c 'exit 42'
	same $R --unshare-pid @ sh -c 'kill -SEGV $$'
	same $R --unshare-pid --as-pid-1 @ sh -c 'echo $$; exit 7'
	same $R --die-with-parent @ sh -c 'echo alive'
	same $R --unshare-pid --die-with-parent @ true
}
test_bwrap_exit_statuses() { table rows_exit_statuses; }

# Set-up errors: no sandbox, so no probe.
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
	# An fd that is not open is refused while parsing (issue 16); bwrap
	# finds out in its child, after writing child-pid.
	SKIP=json same $R --tmpfs /tmp --file 99 /tmp/x true
	same $R --cap-add CAP_BOGUS true
	same $R --args 99 true
	# bwrap's init takes the locks after forking COMMAND (see the top of
	# this file), so bwrap reports COMMAND's exit code, hutch none.
	SKIP=json same $R --lock-file /no/such/file true
	SKIP=json same $R --bind-fd 99 /mnt true
	same $R --disable-userns true
	same $R --unshare-user-try --disable-userns true
	same $R --assert-userns-disabled true
	same $R --unshare-user --assert-userns-disabled true
	same $R --userns-block-fd 3 true
	same $R --unshare-user --userns-block-fd 3 true
	same $R --userns 3 true
	SKIP=stderr same $R --pidns 3 true
	SKIP=json same $R --seccomp 17 true
	SKIP=json same $R --seccomp 3 true
	same $R --add-seccomp-fd 17 true
	same $R --seccomp 8 --add-seccomp-fd 18 true
	same $R --add-seccomp-fd 18 --seccomp 8 true
	same $R --exec-label system_u:system_r:bin_t:s0 true
	same $R --file-label system_u:object_r:tmp_t:s0 true
	# --perms and --size: once each, taken by the next option.
	same $R --perms 0640 --perms 0640 --tmpfs /tmp true
	same $R --size 1048576 --size 1048576 --tmpfs /tmp true
	same $R --perms 0700 --ro-bind /usr /mnt true
	same $R --size 18446744073709551615 --tmpfs /tmp true
	same $R --size 123bogus --tmpfs /tmp true
	same $R --size ' 1' --tmpfs /tmp true
}
test_bwrap_errors() { table rows_errors; }

# Issue 26: --remount-ro of a directory that is no mount point (bwrap
# does not find it in the mount table; the link said "Unable to remount
# destination"), and an --args fd used again (bwrap closes it once read;
# the link read it again, empty, and ran).  Another option naming it
# fails while parsing, before bwrap's child-pid (SKIP=json, see the top).
rows_issue_26() {
	same $R --tmpfs /tmp --dir /tmp/d --remount-ro /tmp/d true
	same $R --args 7 --args 7 true
	SKIP=json same $R --tmpfs /tmp --file 7 /tmp/x --args 7 true
}
test_bwrap_args_fd_closed_and_remount_not_a_mount() { table rows_issue_26; }

# hutch mode likewise, in its own words.
check_hutch_args_fd_closed() {
	local rc
	rc=$(run_prog "$H" --args 7 --args 7 true)
	assert_eq "125 hutch: parse: --args 7: Bad file descriptor (--args read it; once read it counts as closed, as in bwrap)" \
		"$rc $(cat "$T/err")" "--args 7 twice"
	rc=$(run_prog "$H" --tmpfs /tmp --dir /tmp/d --remount-ro /tmp/d true)
	assert_eq "125 hutch: mounts: --remount-ro /tmp/d: not a mount point" \
		"$rc $(cat "$T/err")" "--remount-ro of a directory"
}
test_hutch_args_fd_closed_and_remount_not_a_mount() { fixtures; for_each_caller check_hutch_args_fd_closed; }

# bwrap's words for the failures a caller can hit (sandbox/messages/bwrap_text.c),
# where bwrap 0.8.0 and 0.11.1 say the same.
LONG_NAME=$(printf 'x%.0s' $(seq 70))
rows_messages() {
	same $R --ro-bind /etc/hostname /usr/newfile true
	same $R --tmpfs /usr/newdir true
	same $R --dir /usr/a/b true
	same $R --dir /etc/hostname true
	same $R --bind /etc /etc/hostname true
	same $R --bind /etc/hostname /usr true
	same $R --chmod 0755 /no/such true
	same $R --remount-ro /no/such true
	same $R --tmpfs /tmp --remount-ro /tmp/a/b true
	same $R --file 3 /usr/newfile true
	same $R --bind-data 3 /usr/x true
	same $R --mqueue /dev/mqueue true
	same $R --tmpfs /tmp --mqueue /tmp/mq true
	same $R --dev /usr/dev true
	same $R --proc /usr/proc true
	same $R --unshare-uts --hostname "$LONG_NAME" true
	same $R --seccomp 19 true
	same $R --add-seccomp-fd 18 --add-seccomp-fd 18 true
	# The id maps, over the read-only /proc of an outer sandbox.
	same $R @ /proc/self/exe --ro-bind / / --clearenv env
	# No new procfs where /proc is not wholly visible (callers retry
	# without --proc on this message).
	same $R --unshare-pid --proc /proc --ro-bind /proc/sys /proc/sys \
		@ /proc/self/exe --ro-bind / / --unshare-pid --proc /proc true
}
test_bwrap_messages() { table rows_messages; }

# The texts of bwrap 0.11.1 where 0.8.0 says something else.
check_texts_of_0_11() {
	local rc
	rc=$(run_prog "$T/bwrap" $R --tmpfs /tmp --symlink a /tmp/l --symlink b /tmp/l true)
	assert_eq "1 bwrap: Can't make symlink at /tmp/l: existing destination is a" \
		"$rc $(cat "$T/err")" "conflicting --symlink"
	rc=$(run_prog "$T/bwrap" $R --symlink a /etc/hostname true)
	assert_eq "1 bwrap: Can't make symlink at /etc/hostname: destination exists and is not a symlink" \
		"$rc $(cat "$T/err")" "--symlink over a file"
	rc=$(run_prog "$T/bwrap" $R --level-prefix --chdir / --chdir / true)
	assert_eq "0 <4>bwrap: Only the last --chdir option will take effect" \
		"$rc $(cat "$T/err")" "a warning under --level-prefix"
	# bwrap reads options in order: the ones before a bad word still warn
	rc=$(run_prog "$T/bwrap" $R --uid 1 --uid 2 --bogus true)
	assert_eq "1 bwrap: Only the last --uid option will take effect
bwrap: Unknown option --bogus" "$rc $(cat "$T/err")" "a warning, then an unknown option"
	rc=$(run_prog "$T/bwrap" $R --uid x --bogus true)
	assert_eq "1 bwrap: Invalid uid: x" "$rc $(cat "$T/err")" \
		"a bad value before an unknown option fails first"
	# 0.8.0 joins fd 0 (not a namespace) as root and runs; 0.11.1 fails.
	rc=$(run_prog "$T/bwrap" $R --userns 0 true </dev/null)
	assert_eq "1 bwrap: Joining the specified user namespace failed, it might not be a descendant of the current user namespace." \
		"$rc $(cat "$T/err")" "--userns 0, not a namespace"
	rc=$(run_prog "$T/bwrap" $R --argv0 a --argv0 b true)
	assert_eq "1 bwrap: --argv0 used multiple times" "$rc $(cat "$T/err")" "--argv0 twice"
	rc=$(run_prog "$T/bwrap" $R --overlay-src /usr --tmpfs /tmp --tmp-overlay /mnt true)
	assert_eq "1 bwrap: --overlay-src must be followed by another --overlay-src or one of --overlay, --tmp-overlay, or --ro-overlay" \
		"$rc $(cat "$T/err")" "--overlay-src, then another option"
	rc=$(run_prog "$T/bwrap" $R --tmpfs /tmp --overlay-src /no/lower --tmp-overlay /tmp/o true)
	assert_eq "1 bwrap: Can't find source path /no/lower: No such file or directory" \
		"$rc $(cat "$T/err")" "missing overlay layer"
	rc=$(run_prog "$T/bwrap" $R --tmpfs /tmp --overlay-src /usr --overlay-src /usr --tmp-overlay /tmp/o true)
	# The reason is the kernel's (6.1 says EOPNOTSUPP, later ones name
	# the overlap); bwrap's text up to it is the interface.
	assert_match "^1 bwrap: Can't make overlay mount on /newroot/tmp/o with options upperdir=/tmp-overlay-upper-0,workdir=/tmp-overlay-work-0,lowerdir=/oldroot/usr:/oldroot/usr,userxattr: [A-Z][a-z ]+$" \
		"$rc $(cat "$T/err")" "overlay failure"
}
test_bwrap_texts_of_0_11() { fixtures; for_each_bwrap_caller check_texts_of_0_11; }

# With a terminal on stdout, --dev binds it on /dev/console, so that tty
# works inside: both run under script(1), which gives them a terminal.
CONSOLE_PROBE='tty; ls -l /dev/console | cut -c1-10; grep " /dev/console " /proc/self/mountinfo | cut -d" " -f5-'
on_terminal() {
	$AS script -qec "$1 --ro-bind / / --dev /dev sh -c '$CONSOLE_PROBE'" /dev/null </dev/null |
		tr -d '\r'
}
check_console() {
	have_debian_bwrap || { skip_part "$WHY"; return 0; }
	assert_eq "$(on_terminal "$REAL")" "$(on_terminal "$T/bwrap")" "/dev/console"
	assert_match "^/dev/console" "$(on_terminal "$T/bwrap")" "tty inside"
}
test_bwrap_console() {
	[ -x "$REAL" ] || skip "no $REAL"
	command -v script >/dev/null || skip "no script(1)"
	for_each_bwrap_caller check_console
}

# A failure just before execve (here the 39th prctl of a process, as in
# bwrap's own test): bwrap's message, status 1, and no exit-code in the
# status (the numbers differ from bwrap's by the prctl calls before).
check_pre_exec_failure() {
	local rc=0
	$AS strace -o /dev/null -f -e trace=prctl -e fault=prctl:when=39 "$T/bwrap" $R \
		--tmpfs /tmp --die-with-parent --json-status-fd 9 true 9>"$T/json" 2>"$T/err" || rc=$?
	assert_eq 1 "$rc" "status"
	assert_match "^bwrap: (Adding ambient capability|Dropping capability) [0-9]+( from bounds)?: Function not implemented$" \
		"$(cat "$T/err")" "message"
	assert_no_match '"exit-code"' "$(cat "$T/json")" "json status"
}
test_bwrap_pre_exec_failure() {
	command -v strace >/dev/null || skip "no strace"
	# The count of prctl calls is the binary's: a sanitizer's runtime
	# makes its own, and the 39th is then another one.
	[ -z "${ASAN_OPTIONS:-}" ] || skip "under a sanitizer the 39th prctl is the runtime's"
	for_each_bwrap_caller check_pre_exec_failure
}

# The usage line and status, and the options bwrap 0.8.0 lists (see the
# top of this file).
usage_line() { run_aspects "$@" | sed -n '1,2p'; }
help_options() { $AS "$1" --help | grep -Eo '^    --[a-z0-9-]+( [A-Z]+\b)*' | sort; }
# The options bwrap gained after 0.8.0, up to 0.11.1.
LATER_OPTIONS='    --argv0 VALUE
    --level-prefix
    --overlay RWSRC WORKDIR DEST
    --overlay-src SRC
    --ro-overlay DEST
    --tmp-overlay DEST'
rows_usage() {
	assert_eq "$(usage_line "$REAL" --help)" "$(usage_line "$T/bwrap" --help)" "--help"
	assert_eq "$(usage_line "$REAL" $R)" "$(usage_line "$T/bwrap" $R)" "no command"
	if real_words_are_ours; then
		assert_eq "" "$(comm -23 <(help_options "$REAL") <(help_options "$T/bwrap"))" \
			"options of bwrap 0.8.0 missing from --help"
		assert_eq "$LATER_OPTIONS" "$(comm -13 <(help_options "$REAL") <(help_options "$T/bwrap"))" \
			"options in --help beyond bwrap 0.8.0's"
	else
		# A later bwrap (0.12.0) has options 0.11.1 has not, and has
		# those hutch lists beyond 0.8.0's: hutch's own must still be
		# the real one's or LATER_OPTIONS.
		assert_eq "" "$(comm -23 <(comm -13 <(help_options "$REAL") <(help_options "$T/bwrap")) \
			<(sort <<<"$LATER_OPTIONS"))" "options in --help beyond bwrap $REAL_VERSION's and 0.11.1's"
		skip_part "$REAL is bubblewrap $REAL_VERSION, not 0.11.1 as hutch: its options hutch has not:" \
			"$(comm -23 <(help_options "$REAL") <(help_options "$T/bwrap") | paste -sd ' ' -)"
	fi
	# bwrap names itself as invoked (bwrap's own tests check it).
	assert_eq "usage: $T/bwrap [OPTIONS...] [--] COMMAND [ARGS...]" \
		"$($AS "$T/bwrap" --help | head -n 1)" "usage line"
}
test_bwrap_usage() { [ -x "$REAL" ] || skip "no $REAL"; fixtures; for_each_caller rows_usage; }

# Every option of bwrap 0.8.0 has a row in this file.
test_bwrap_table_covers_every_option() {
	[ -x "$REAL" ] || skip "no $REAL"
	local opt missing=""
	local later=""
	for opt in $("$REAL" --help | grep -Eo '^    --[a-z0-9-]+'); do
		grep -Ev '^[[:space:]]*#' "${BASH_SOURCE[0]}" | grep -Eq -- "$opt([^a-z0-9-]|$)" && continue
		# an option of a bwrap later than hutch's 0.11.1, which hutch
		# does not have either (trixie's 0.12.0: --not-a-security-boundary)
		if ! real_words_are_ours && ! "$T/bwrap" --help | grep -Eq -- "^    $opt([^a-z0-9-]|$)"; then
			later="$later $opt"
		else
			missing="$missing $opt"
		fi
	done
	assert_eq "" "$missing" "options without a row"
	[ -z "$later" ] || skip_part "$REAL is bubblewrap $REAL_VERSION, not 0.11.1 as hutch: options neither hutch nor this file has:$later"
}

LIST='cd /tmp && stat -c "%n %A %s %N" * && cat f g b r
(echo x >>r) 2>&1 | grep -o Read-only; findmnt -n -o OPTIONS /tmp/s | sed "s/relatime,//"'
rows_fs() {
	same $R --tmpfs /tmp --perms 0750 --size 65536 --tmpfs /tmp/s --dir /tmp/d --perms 0700 \
		--dir /tmp/p --symlink /x /tmp/l --file 3 /tmp/f --perms 0640 --file 4 /tmp/g \
		--bind-data 5 /tmp/b --ro-bind-data 6 /tmp/r --chmod 0711 /tmp/d @ sh -c "$LIST"
	same $R --tmpfs /tmp --bind-try /no/such /tmp/a --ro-bind-try /usr/bin /tmp/u \
		--dev-bind-try /no/such /tmp/c --dev-bind /dev/null /tmp/n \
		@ sh -c 'ls /tmp; test -x /tmp/u/sh && echo >/tmp/n && echo ok'
	same $R --tmpfs /tmp --bind /dev/null /tmp/n @ sh -c 'echo >/tmp/n'
	same $R --tmpfs /tmp --dir /tmp/d --remount-ro /tmp @ sh -c 'touch /tmp/x; ls /tmp'
	same $R --tmpfs /tmp --ro-bind /etc/hostname /tmp/h @ sh -c 'cat /tmp/h; echo >>/tmp/h'
	same $R --tmpfs /tmp @ sh -c 'touch /tmp/x /dev/shm/x; ls /tmp'
	same $R --unshare-pid --proc /proc --dev /dev @ sh -c \
		'echo /proc/[0-9]* $(ls -A /dev); readlink /dev/ptmx'
	same $R --proc /proc @ sh -c 'test -r /proc/self/status && echo ok'
	same $R --unshare-pid --proc /proc @ sh -c "grep ' /proc ' /proc/self/mountinfo | sed 's/.* - //'"
	# /proc's read-only covers only where bwrap makes them (none for a
	# caller that is not root), so that a nested procfs can be mounted.
	same $R --dev /dev --unshare-user --unshare-pid --proc /proc \
		@ unshare --user --map-root-user --pid --fork --mount-proc true
	same $R --dev /dev --unshare-ipc --mqueue /dev/mqueue @ findmnt -n -o FSTYPE /dev/mqueue
	same $R --tmpfs /tmp --bind "$T/fix/dir" /tmp/b @ sh -c 'cat /tmp/b/f; echo x >/tmp/b/g; cat /tmp/b/g'
	same $R --bind-fd 10 /mnt @ cat /mnt/f
	same $R --ro-bind-fd 10 /mnt @ sh -c 'cat /mnt/f; touch /mnt/g'
	same --tmpfs / --ro-bind /usr /usr --symlink usr/bin /bin --symlink usr/lib /lib \
		--symlink usr/lib64 /lib64 --proc /proc --dev /dev @ sh -c 'ls /; ls /dev'
	same $R --dev-bind / / --tmpfs /tmp @ sh -c 'echo ok >/dev/null && echo ok'
	# The modes of the parents each operation creates, with the umask
	# out of play (bwrap builds with umask 0).
	same $R --tmpfs /tmp --ro-bind /usr /tmp/a/b --symlink x /tmp/s/l --dev /tmp/d/e \
		--tmpfs /tmp/m/n --dir /tmp/r/s --file 3 /tmp/f/g --bind-data 4 /tmp/h/i \
		--perms 0750 --dir /tmp/x/y --perms 0604 --dir /tmp/z/w --perms 0777 --dir /tmp/u \
		@ stat -c '%a %n' /tmp/a /tmp/s /tmp/d /tmp/m /tmp/r /tmp/f /tmp/h /tmp/x /tmp/z /tmp/u
}
test_bwrap_fs_results() { table rows_fs; }

rows_ids_env() {
	same $R @ $STATUS
	same $R --unshare-user --uid 0 --gid 0 @ $STATUS
	same $R --unshare-user --uid 1234 --gid 567 @ $STATUS
	same $R --unshare-uts --hostname box @ hostname
	# Options holding one value, given twice: bwrap's warning.  (Where
	# sethostname is refused, bwrap 0.8.0, which sets each name in turn,
	# fails at the first, hutch at the last: the row needs sethostname.)
	if have_hostname_in_userns; then
		same $R --unshare-uts --hostname a --hostname box @ hostname
	else
		skip_part "row: bwrap $R --unshare-uts --hostname a --hostname box hostname: $WHY"
	fi
	same $R --unshare-user --uid 0 --uid 5 --gid 0 --gid 6 @ id
	same $R --chdir / --chdir /usr @ pwd
	same $R --info-fd 14 --info-fd 14 --sync-fd 3 --sync-fd 3 --block-fd 5 --block-fd 5 @ true
	same $R --tmpfs /tmp --size 0x100000 --perms 01777 --tmpfs /tmp/t \
		@ sh -c 'stat -c %a /tmp/t; df --output=size --block-size=1K /tmp/t | tail -n 1'
	same $R --unshare-net @ sh -c 'cut -d: -f1 /proc/net/dev | tail -n +3'
	same $R --clearenv --setenv A 1 --setenv B 2 --unsetenv A @ env
	same $R --setenv A 1 --clearenv @ env
	same $R --setenv A 1 --unsetenv HOME @ env
	same $R --chdir /usr/share @ pwd
	# Without --chdir, outside the sandbox's tree: $HOME, else /; PWD
	# names the directory as it was entered.
	local usr_only="--tmpfs / --ro-bind /usr /usr --symlink usr/lib /lib --symlink usr/lib64 /lib64 --symlink usr/bin /bin"
	same $usr_only @ sh -c 'pwd; echo $PWD'
	same $usr_only --setenv HOME /usr/share @ sh -c 'pwd; echo $PWD'
	same $usr_only --setenv HOME /usr/share/../lib @ sh -c 'pwd; echo $PWD'
	same $usr_only --setenv HOME /no/such @ sh -c 'pwd; echo $PWD'
	same $R --chdir /usr/share/../lib @ sh -c 'echo $PWD'
	same $R --unshare-pid @ sh -c 'echo $$'
	same $R --new-session @ sh -c 'read -r p c s pp pg sid rest </proc/self/stat; [ $sid = $p ] && echo leader'
	same $R --cap-drop ALL @ $STATUS
	same $R --cap-drop CAP_CHOWN --cap-drop CAP_KILL @ $STATUS
	same $R --unshare-user --cap-add CAP_NET_ADMIN @ $STATUS
	same $R --cap-drop ALL --cap-add CAP_SYS_ADMIN @ $STATUS
	same $R --unshare-user --uid 5 --cap-add ALL @ $STATUS
	# A root caller's sandbox starts from the caller's capabilities.
	same $R --unshare-user --uid 5 --cap-add CAP_KILL @ $STATUS
	same $R --unshare-user --uid 0 --cap-drop CAP_KILL @ $STATUS
	same $R --cap-drop CAP_KILL @ sh -c "$STATUS; grep -E '^Cap(Inh|Amb)' /proc/self/status"
	same $R --unshare-pid @ sh -c "grep -E '^Cap(Inh|Amb)' /proc/self/status"
	same $R --cap-add CAP_SYS_RESOURCE @ $STATUS
}
test_bwrap_ids_and_env() { table rows_ids_env; }

rows_namespaces() {
	same $R --unshare-all @ sh -c 'hostname; echo $$; cut -d: -f1 /proc/net/dev | tail -n +3'
	same $R --unshare-all --share-net @ sh -c 'cut -d: -f1 /proc/net/dev | tail -n +3 | sort'
	same $R --unshare-user-try @ $STATUS
	same $R --unshare-cgroup @ sh -c 'cat /proc/self/cgroup | head -3'
	same $R --unshare-cgroup-try --unshare-ipc --unshare-uts @ true
	same $R --unshare-user --disable-userns @ sh -c 'cat /proc/sys/user/max_user_namespaces; unshare -U true; echo $?'
	same $R --unshare-user --disable-userns --assert-userns-disabled @ true
	same $R --unshare-pid --unshare-user --disable-userns @ sh -c 'unshare -U true 2>&1'
	# Run again inside its own sandbox, as bwrap's tests do: bwrap mode.
	same $R --unshare-user --uid 0 --gid 0 --cap-add ALL --bind / / --bind /proc /proc \
		@ /proc/self/exe --unshare-all --bind / / --bind /proc /proc echo hello
}
test_bwrap_namespaces() { table rows_namespaces; }

# ns_helper_start: tool_proto_ns as $AS (a user and pid namespace, and a
# user namespace inside); NS_USER, NS_PID and NS_USER2 name them until
# ns_helper_stop.
ns_helper_start() {
	coproc NSH { $AS "$T/nshelper"; }
	read -r NS_USER NS_PID NS_USER2 <&"${NSH[0]}" || fail "tool_proto_ns did not start"
	assert_match "^user:\[[0-9]+\]$" "$($AS readlink "$NS_USER")" "the helper's user namespace"
}
ns_helper_stop() {
	local w=${NSH[1]}
	exec {w}>&-
	wait "$NSH_PID"
	unset NS_USER NS_PID NS_USER2
}

rows_join() {
	have_powerful_userns || { skip_part "$WHY"; return 0; }
	ns_helper_start
	same $R --userns 12 @ $STATUS
	same $R --userns 12 --unshare-user true
	same $R --userns 12 --unshare-all true
	same $R --userns 12 --pidns 13 @ readlink /proc/self/ns/pid
	same $R --userns 12 --pidns 13 --unshare-pid @ sh -c 'echo $$'
	# Inside --userns2 the bounding set stays full and a root caller's
	# COMMAND holds every capability, as with bwrap.
	same $R --userns 12 --userns2 16 @ sh -c 'cat /proc/self/uid_map'
	same $R --userns 12 --uid 7 @ id -u
	same $R --userns 12 --uid 0 --gid 0 @ $STATUS
	ns_helper_stop
}
test_bwrap_join_namespaces() { table rows_join; }

LOCKTEST='import fcntl
f = open("/tmp/lock", "r+")
try:
    fcntl.lockf(f, fcntl.LOCK_EX | fcntl.LOCK_NB)
    print("not locked")
except OSError as e:
    print("locked", e.errno)'
FDS='ls /proc/self/fd | sort -n | tr "\n" " "'
rows_protocol() {
	same $R --args 7 @ sh -c 'echo $FROM_ARGS; pwd'
	same $R --args 7 -- @ sh -c 'echo $FROM_ARGS'
	same $R --info-fd 14 @ true
	same $R --unshare-pid --unshare-net --info-fd 14 @ true
	same $R --sync-fd 3 @ true
	same $R --block-fd 3 @ sh -c 'echo released'
	same $R --lock-file /etc/hostname @ true
	same $R --tmpfs /tmp --file 3 /tmp/lock --lock-file /tmp/lock @ /usr/bin/python3 -c "$LOCKTEST"
	same $R --seccomp 8 @ sh -c 'uname; echo $?'
	same $R --add-seccomp-fd 8 @ sh -c 'uname; echo $?'
	same $R --seccomp 8 --seccomp 8 @ true
	# Programs load through prctl, in order: one that refuses seccomp(2)
	# does not keep the next from loading.
	same $R --add-seccomp-fd 20 --add-seccomp-fd 8 @ sh -c 'uname; echo $?'
	same $R @ sh -c "$FDS"
	same $R --info-fd 14 --sync-fd 4 --block-fd 5 --args 7 --seccomp 8 --tmpfs /tmp \
		--ro-bind-data 6 /tmp/x --file 3 /tmp/y @ sh -c "$FDS"
	same $R --unshare-pid --sync-fd 4 --lock-file /etc/hostname @ sh -c "$FDS"
	same $R --bind-fd 10 /mnt --sync-fd 4 @ sh -c "$FDS"
}
test_bwrap_protocol() { table rows_protocol; }

# Where bwrap 0.8.0 hangs or differs on purpose (see the top of this
# file), hutch's own result is checked.
check_hutch_only() {
	local rc
	rc=$(run_prog "$T/bwrap" $R --info-fd 99 true)
	assert_eq "1 bwrap: Write to info_fd: Bad file descriptor" "$rc $(cat "$T/err")" "--info-fd 99"
	rc=$(run_prog "$T/bwrap" $R --json-status-fd 99 true)
	assert_eq "1 bwrap: Write to info_fd: Bad file descriptor" "$rc $(cat "$T/err")" "--json-status-fd 99"
	rc=$(run_prog "$T/bwrap" $R --userns2 3 true)
	assert_eq "1 bwrap: --userns2 requires --userns" "$rc $(cat "$T/err")" "--userns2 alone"
	rc=$(run_prog "$T/bwrap" --version)
	assert_eq "0 bubblewrap 0.11.1" "$rc $(cat "$T/out")" "--version"
	bwrap_as_caller || return 0
	rc=$(run_prog "$T/bwrap" $R --args 11 sh -c 'echo $FROM_ARGS $NESTED')
	assert_eq "0 yes yes" "$rc $(cat "$T/out")" "nested --args"
	rc=$(run_prog "$T/bwrap" --args 15)
	assert_eq "0 [a b] [c	d]" "$rc $(cat "$T/out")" "COMMAND in --args data"
}
test_bwrap_hutch_only() { fixtures; for_each_caller check_hutch_only; }

# Under systemd /dev/mqueue is an mqueue mount already: bwrap's mount(2)
# of the same file system on it is EBUSY without --unshare-ipc.  Made
# here in a mount namespace of its own, compared with the real bwrap.
test_bwrap_mqueue_over_mqueue() {
	local want="bwrap: Can't mount mqueue on /newroot/dev/mqueue: Device or resource busy
status 1
status 0" real ours
	as_root unshare -m true 2>/dev/null || skip "root cannot make a mount namespace here"
	real=$(mqueue_over_mqueue "$REAL")
	ours=$(mqueue_over_mqueue "$T/bwrap")
	assert_eq "$want" "$ours" "hutch's bwrap mode"
	if real_words_are_ours; then
		assert_eq "$want" "$real" "the real bwrap"
	else
		assert_eq "$(grep '^status' <<<"$want")" "$(grep '^status' <<<"$real")" "the real bwrap's exit statuses"
		skip_part "the real bwrap's words not compared: $REAL is bubblewrap $REAL_VERSION, not 0.11.1 as hutch:" \
			"$(grep -v '^status' <<<"$real")"
	fi
}

# mqueue_over_mqueue BWRAP: its --mqueue on an mqueue mount, without and
# with --unshare-ipc, in a mount namespace of its own.
mqueue_over_mqueue() {
	as_root unshare -m --propagation private sh -c '
		mkdir -p /dev/mqueue
		mountpoint -q /dev/mqueue || mount -t mqueue mqueue /dev/mqueue || exit 99
		"$0" --ro-bind / / --mqueue /dev/mqueue true 2>&1; echo "status $?"
		"$0" --ro-bind / / --unshare-ipc --mqueue /dev/mqueue true 2>&1; echo "status $?"' "$1"
}
