#!/bin/bash
# The rootless part of make check-container, run inside the container as
# an unprivileged user (tests/container/inside.sh does; it also works on
# any machine): hutch sh -c 'echo in-sandbox', then each shipped profile
# of profiles/ with `true`.  One line per case with its exit status and
# hutch's stderr, then "N passed, N failed"; exits non-zero if any failed.
# Usage: tests/container/rootless.sh [HUTCH]   (default: ./hutch of the checkout)
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
H=${1:-$top/hutch}
[ "$(id -u)" != 0 ] || echo "note: running as root, not as an unprivileged user" >&2
[ -x "$H" ] || { echo "no hutch binary at $H (make first)" >&2; echo "0 passed, 1 failed"; exit 1; }

# From a directory of the user's own: the default profile binds the
# current directory and refuses the home directory.
work=$(mktemp -d /tmp/hutch-rootless.XXXXXX)
trap 'rm -rf "$work"' EXIT
cd "$work" || exit 1

passed=0 failed=0
# try WANT_STDOUT DESCRIPTION CMD...: CMD must exit 0 and print WANT_STDOUT.
try() {
	local want=$1 what=$2 out rc err
	shift 2
	out=$(timeout -k 5 60 "$@" 2>"$work/.err")
	rc=$?
	err=$(cat "$work/.err")
	if [ "$rc" = 0 ] && [ "$out" = "$want" ]; then
		passed=$((passed + 1))
		echo "ok      $what (exit 0)"
	else
		failed=$((failed + 1))
		echo "FAILED  $what (exit $rc${want:+, stdout [$out], want [$want]})"
	fi
	[ -z "$err" ] || printf '%s\n' "$err" | sed 's/^/    stderr: /'
}

echo "# as $(id -un 2>/dev/null || id -u) (uid $(id -u)), $H"
try in-sandbox "hutch sh -c 'echo in-sandbox'" "$H" sh -c 'echo in-sandbox'
for p in "$top"/profiles/*; do
	[ -f "$p" ] || continue
	name=${p##*/}
	case $name in *~) continue ;; esac
	try "" "hutch --profile $name true" "$H" --profile "$name" true
done
echo "$passed passed, $failed failed"
[ "$failed" = 0 ]
