#!/bin/sh
# Tests helpers/hutch-init: builds it (static, and with sanitizers) and
# tests/unit/init_driver.c, checks argv handling, then runs the driver's
# scenarios as root and, in a user namespace, as an unprivileged uid.
# Usage: tests/unit/test_init.sh   (as root; needs gcc)
# HUTCH_INIT_CFLAGS: the flags the Makefile builds the init with (its
# libc-free build); without them the init is built against libc.
set -eu

top=$(cd "$(dirname "$0")/../.." && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
chmod 755 "$tmp"
failed=0

cc() { gcc -std=gnu11 -Wall -Wextra -Werror -Wshadow -Wformat=2 -Wmissing-prototypes -Wmissing-declarations \
	-D_FORTIFY_SOURCE=2 "$@"; }
# shellcheck disable=SC2086 # a list of flags
cc -Os -static ${HUTCH_INIT_CFLAGS:-} -o "$tmp/hutch-init" "$top/helpers/hutch-init.c"
cc -O1 -g -fsanitize=address,undefined -fno-sanitize-recover=all \
	-o "$tmp/hutch-init-san" "$top/helpers/hutch-init.c"
cc -O1 -g -o "$tmp/init_driver" "$top/tests/unit/init_driver.c"

# expect_argv WANT_MESSAGE ARG...: init refuses ARGs with exit 125.
expect_argv() {
	want=$1
	shift
	if out=$("$tmp/hutch-init" "$@" 2>&1); then rc=0; else rc=$?; fi
	if [ "$rc" = 125 ] && [ "$out" = "$want" ]; then
		echo "ok argv: $want"
	else
		echo "FAIL argv $*: exit $rc, \"$out\", want 125, \"$want\""
		failed=1
	fi
}
all="--command-pidfd 0 --command-pid 2 --go-fd 0 --control-fd 0 --proc-fd -1"
expect_argv "init: --command-pidfd: required"
expect_argv "init: argv: --bogus" --bogus 1
expect_argv "init: argv: --go-fd" --go-fd -1
expect_argv "init: argv: --go-fd" --go-fd 3x
expect_argv "init: argv: missing value" --go-fd
expect_argv "init: --proc-fd: required" --command-pidfd 0 --command-pid 2 --go-fd 0 --control-fd 0
# shellcheck disable=SC2086
expect_argv "init: pid: not pid 1 of a pid namespace" $all

# The driver makes pid 1 of new pid and mount namespaces with a procfs of
# its own; where the machine refuses that (a container's root has no
# CAP_SYS_ADMIN, and its engine's masks refuse a fresh procfs), those
# runs skip with the reason, probed as the driver needs it.
# can PREFIX...: the driver's namespaces and procfs, made under PREFIX.
can() {
	why=$("$@" unshare --pid --fork --mount --mount-proc true 2>&1) && return 0
	echo "skip: no pid namespace with a procfs of its own here (${why:-failed})"
	return 1
}
as_nobody="setpriv --reuid 65534 --regid 65534 --clear-groups"

echo "# static init, root"
! can env || "$tmp/init_driver" "$tmp/hutch-init" || failed=1
echo "# sanitized init, root"
! can env || ASAN_OPTIONS=abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1 \
	"$tmp/init_driver" "$tmp/hutch-init-san" || failed=1
echo "# static init, root in a user namespace"
! can unshare --user --map-root-user ||
	unshare --user --map-root-user "$tmp/init_driver" "$tmp/hutch-init" || failed=1
echo "# static init, uid 65534 in a user namespace (no /dev/fuse: fuse skips)"
# shellcheck disable=SC2086 # a command prefix
! can $as_nobody unshare --user --map-root-user ||
	$as_nobody unshare --user --map-root-user "$tmp/init_driver" "$tmp/hutch-init" || failed=1

[ "$failed" = 0 ] && echo "all passed"
exit "$failed"
