# Overlays (bwrap 0.11's --overlay-src, --overlay, --tmp-overlay and
# --ro-overlay; Debian's bwrap 0.8.0 lacks them, so hutch alone, against
# bwrap 0.11's manual and test suite), as root and as the unprivileged uid
# (overlayfs in a user namespace: Linux >= 5.11).
#
# bwrap(1) 0.11 on the order of the layers: "The sources are overlaid in
# the order given, with the first source on the command line at the
# bottom of the stack: if a given path to be read exists in more than one
# source, the file is read from the last such source specified.  (...
# this is the reverse of the order used by the kernel's lowerdir mount
# option.)"

R="--ro-bind / / --tmpfs /tmp"

# layers: in $S (owned by $AS), lower layers A and B (b in both, a only
# in A, c only in B), and two empty pairs of upper and work directories.
layers() {
	S=$(mktemp -d "$T/o.XXXXXX")
	mkdir "$S/A" "$S/B" "$S/up" "$S/work" "$S/up2" "$S/work2"
	echo A >"$S/A/a"
	echo A >"$S/A/b"
	echo B >"$S/B/b"
	echo B >"$S/B/c"
	chmod -R a+rX "$S"
	if [ "$AS" = as_user ]; then chown -R $NOBODY:$NOBODY "$S"; fi
	find "$S" -printf '%p %s %T@\n' | sort >"$T/before"
}

# ovl ARGS...: the bwrap link as $AS with the base tree; output and messages.
ovl() { $AS "$T/bwrap" $R "$@" 2>&1; }

# The host's layers are as layers made them.
host_unchanged() {
	find "$S" -printf '%p %s %T@\n' | sort >"$T/after"
	diff "$T/before" "$T/after" >&2 || fail "$1: the host's layers changed"
}

check_tmp_overlay() {
	layers
	assert_eq "A
B
new
changed" "$(ovl --overlay-src "$S/A" --overlay-src "$S/B" --tmp-overlay /tmp/m \
		sh -c 'cat /tmp/m/a /tmp/m/c; echo new >/tmp/m/n; echo changed >/tmp/m/a; cat /tmp/m/n /tmp/m/a')" \
		"--tmp-overlay: the union, writable"
	host_unchanged "--tmp-overlay"
	assert_eq "overlay rw,nosuid,nodev" "$(ovl --overlay-src "$S/A" --tmp-overlay /tmp/m \
		findmnt -n -o FSTYPE,OPTIONS /tmp/m | sed -E 's/,(relatime|lowerdir|upperdir|workdir|userxattr|redirect_dir|uuid|index).*//')" \
		"--tmp-overlay: the mount"
}
test_overlay_tmp_overlay() { for_each_bwrap_caller check_tmp_overlay; }

# The last --overlay-src is the top layer, whichever overlay takes them.
check_layer_order() {
	local kind
	layers
	for kind in --ro-overlay --tmp-overlay; do
		assert_eq "B" "$(ovl --overlay-src "$S/A" --overlay-src "$S/B" $kind /tmp/m cat /tmp/m/b)" \
			"$kind, A then B: b is read from B"
		assert_eq "A" "$(ovl --overlay-src "$S/B" --overlay-src "$S/A" $kind /tmp/m cat /tmp/m/b)" \
			"$kind, B then A: b is read from A"
	done
}
test_overlay_layer_order() { for_each_bwrap_caller check_layer_order; }

check_ro_overlay() {
	layers
	assert_eq "A
Read-only file system
B" "$(ovl --overlay-src "$S/A" --overlay-src "$S/B" --ro-overlay /tmp/m sh -c \
		'cat /tmp/m/a; (echo x >/tmp/m/a) 2>&1 | grep -o "Read-only file system"; cat /tmp/m/c')" \
		"--ro-overlay: the union, read-only"
	host_unchanged "--ro-overlay"
	assert_match "^overlay ro," "$(ovl --overlay-src "$S/A" --overlay-src "$S/B" --ro-overlay /tmp/m \
		findmnt -n -o FSTYPE,OPTIONS /tmp/m)" "--ro-overlay: the mount"
}
test_overlay_ro_overlay() { for_each_bwrap_caller check_ro_overlay; }

# An overlay whose upper directory is in $T, made by $AS in user and
# mount namespaces of its own, straight from the kernel (fsopen): some
# file systems cannot hold one (the overlayfs root of a container).
OVERLAY_PROBE='import ctypes, os, sys
libc = ctypes.CDLL(None, use_errno=True)
def call(*args):
    if libc.syscall(*args) < 0:
        err = os.strerror(ctypes.get_errno())
        msg = os.read(fd, 512).decode(errors="replace").strip() if fd >= 0 else ""
        sys.exit(err + (" (" + msg + ")" if msg else ""))
fd = -1
fd = libc.syscall(430, b"overlay", 0)  # fsopen
call(431, fd, 0, b"userxattr", None, 0)  # FSCONFIG_SET_FLAG
for key in "lowerdir", "upperdir", "workdir":
    call(431, fd, 1, key.encode(), (sys.argv[1] + "/" + key).encode(), 0)
call(431, fd, 6, None, None, 0)  # FSCONFIG_CMD_CREATE'
# (Probed as root where $AS's own namespaces are powerless: see prober.)
needs_overlay_upper_here() {
	local d as
	as=$(prober "$AS")
	d=$(mktemp -d "$T/probe.XXXXXX")
	mkdir "$d/lowerdir" "$d/upperdir" "$d/workdir"
	chmod -R a+rX "$d"
	if [ "$as" = as_user ]; then chown -R $NOBODY:$NOBODY "$d"; fi
	WHY=$($as unshare -Urm python3 -c "$OVERLAY_PROBE" "$d" 2>&1) ||
		skip "an overlay's upper directory on the file system of $T ($(findmnt -no FSTYPE -T "$T")) is refused here: ${WHY:-failed}"
	rm -rf "$d"
}

# Reads come first from RWSRC, writes land there.
check_rw_overlay() {
	needs_overlay_upper_here
	layers
	echo U >"$S/up/a"
	chmod a+r "$S/up/a"
	if [ "$AS" = as_user ]; then chown $NOBODY:$NOBODY "$S/up/a"; fi
	assert_eq "U
B
5" "$(ovl --overlay-src "$S/A" --overlay-src "$S/B" --overlay "$S/up" "$S/work" /tmp/m \
		sh -c 'cat /tmp/m/a /tmp/m/c; echo 5 >/tmp/m/b; cat /tmp/m/b')" "--overlay: the union"
	assert_eq "5" "$(cat "$S/up/b")" "--overlay: the write is in RWSRC"
	assert_eq "A B" "$(cat "$S/A/b" "$S/B/b" | tr '\n' ' ' | sed 's/ $//')" "--overlay: the sources are untouched"
}
test_overlay_rw_overlay() { for_each_bwrap_caller check_rw_overlay; }

# Each overlay takes the --overlay-src just before it.
check_two_overlays() {
	needs_overlay_upper_here
	layers
	assert_eq "A
4
B" "$(ovl --overlay-src "$S/A" --overlay "$S/up" "$S/work" /tmp/x \
		--overlay-src "$S/B" --overlay "$S/up2" "$S/work2" /tmp/y \
		sh -c 'cat /tmp/x/b; echo 4 >/tmp/x/b; cat /tmp/x/b /tmp/y/b')" "two overlays"
	assert_eq "4 A B" "$(cat "$S/up/b" "$S/A/b" "$S/B/b" | tr '\n' ' ' | sed 's/ $//')" \
		"two overlays: the write is in the first RWSRC only"
}
test_overlay_two_overlays() { for_each_bwrap_caller check_two_overlays; }

# hutch mode has the same options.
check_hutch_mode() {
	layers
	assert_eq "A
B
new" "$($AS "$T/hutch" --profile none $R --overlay-src "$S/A" --overlay-src "$S/B" \
		--tmp-overlay /tmp/m sh -c 'cat /tmp/m/a /tmp/m/c; echo new >/tmp/m/n; cat /tmp/m/n' 2>&1)" \
		"hutch mode: --tmp-overlay"
	host_unchanged "hutch mode"
}
test_overlay_hutch_mode() { for_each_caller check_hutch_mode; }

# bwrap 0.11's messages (its tests/test-run.sh); every case is tried.
OVERLAY_ERRORS="--overlay @UP @WORK /tmp/m:--overlay requires at least one --overlay-src
--tmp-overlay /tmp/m:--tmp-overlay requires at least one --overlay-src
--ro-overlay /tmp/m:--ro-overlay requires at least two --overlay-src
--overlay-src @A --ro-overlay /tmp/m:--ro-overlay requires at least two --overlay-src
--overlay-src @A:--overlay-src must be followed by another --overlay-src or one of --overlay, --tmp-overlay, or --ro-overlay
--overlay-src @A --chdir /:--overlay-src must be followed by another --overlay-src or one of --overlay, --tmp-overlay, or --ro-overlay"
check_errors() {
	local rc args bad=""
	layers
	while IFS= read -r line; do
		args=${line%%:*}
		args=${args//@UP/$S/up}
		args=${args//@WORK/$S/work}
		args=${args//@A/$S/A}
		rc=0
		ovl $args true >"$T/err" || rc=$?
		[ "1 bwrap: ${line#*:}" = "$rc $(cat "$T/err")" ] ||
			bad="$bad
      ${line%%:*}: expected [1 bwrap: ${line#*:}], got [$rc $(cat "$T/err")]"
	done <<<"$OVERLAY_ERRORS"
	[ -z "$bad" ] || fail "messages:$bad"
}
test_overlay_errors() { for_each_caller check_errors; }

# Paths holding '"', ':', ',' and '\' (bwrap's tests: "--overlay path
# escaping"), relative to the current directory.
check_odd_paths() {
	local odd='x ":,\'
	needs_overlay_upper_here
	layers
	mkdir "$S/lower$odd" "$S/upper$odd" "$S/work$odd"
	printf 1 >"$S/lower$odd/a"
	if [ "$AS" = as_user ]; then chown -R $NOBODY:$NOBODY "$S"; fi
	assert_eq "12" "$($AS sh -c 'cd "$0" && exec "$@" 2>&1' "$S" "$T/bwrap" $R \
		--overlay-src "lower$odd" --overlay "upper$odd" "work$odd" \
		/tmp/x sh -c 'cat /tmp/x/a; printf 2 >/tmp/x/a; cat /tmp/x/a')" "odd paths"
	assert_eq "2" "$(cat "$S/upper$odd/a")" "the write went to the upper directory"
}
test_overlay_odd_paths() { for_each_bwrap_caller check_odd_paths; }

# An overlayfs that takes directories only by name (Linux before 6.13;
# before 6.5 one that checks nothing until create): hutch-fault, as on
# such a kernel, builds the overlay again with /proc/self/fd names, and
# the union, the writes and the odd paths work as above.
check_by_name() {
	local odd='x ":,\'
	need_fault_build
	needs_overlay_upper_here
	layers
	mkdir -p "$T/fb" "$S/lower$odd"
	printf 1 >"$S/lower$odd/a"
	if [ "$AS" = as_user ]; then chown -R $NOBODY:$NOBODY "$S"; fi
	ln -sf "$T/hutch-fault" "$T/fb/bwrap"
	assert_eq "B
U
lowerdir=/proc/self/fd/" "$($AS env HUTCH_FAULT=lacks:overlay-fd "$T/fb/bwrap" $R \
		--overlay-src "$S/A" --overlay-src "$S/B" --overlay "$S/up" "$S/work" /tmp/m \
		sh -c 'cat /tmp/m/b; echo U >/tmp/m/u; cat /tmp/m/u;
		       findmnt -n -o OPTIONS /tmp/m | grep -o "lowerdir=/proc/self/fd/"' 2>&1)" \
		"by name: --overlay"
	assert_eq "U" "$(cat "$S/up/u")" "by name: the write is in RWSRC"
	assert_eq "1new" "$($AS env HUTCH_FAULT=lacks:overlay-fd "$T/fb/bwrap" $R \
		--overlay-src "$S/lower$odd" --tmp-overlay /tmp/m \
		sh -c 'cat /tmp/m/a; echo new >/tmp/m/n; cat /tmp/m/n' 2>&1)" "by name: --tmp-overlay, odd path"
}
test_overlay_by_name() { for_each_caller check_by_name; }
