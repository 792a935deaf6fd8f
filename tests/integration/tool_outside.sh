# Helpers shared by t_seal.sh and t_neverhang.sh (sourced by both, after
# lib.sh): the test tools, sandboxes watched from outside, tags.

PY=/usr/bin/python3
[ -x "$PY" ] || PY=python3

# A root of its own (a fresh tmpfs) with just enough to run a shell.
BASE="--profile none --ro-bind /usr /usr --symlink usr/bin /bin --symlink usr/lib /lib
 --symlink usr/lib64 /lib64 --symlink usr/sbin /sbin --proc /proc --dev /dev"

# start_box ARGS...: hutch (or $BIN) as $AS with ARGS, in the background,
# stderr to $T/err.  BG is the job; $T/s/pid names the hutch process.
start_box() {
	$AS sh -c 'echo $$ >"$0"; exec "$@"' "$T/s/pid" "${BIN:-$H}" "$@" 2>"$T/err" &
	BG=$!
}

# wait_ready: read the line COMMAND writes to the fifo $T/s/ready once it
# is where the test wants it (bounded: a sandbox that never gets there
# fails the test instead of hanging it).
wait_ready() {
	local line
	line=$(timeout 20 cat "$T/s/ready") || true
	[ "$line" = up ] && return
	kill -KILL "$(cat "$T/s/pid")" 2>/dev/null
	fail "COMMAND did not start: $(cat "$T/err")"
}

# children PID: the children of PID, on one line.
children() { echo $(cat /proc/"$1"/task/*/children); }

# in_mountns PROPAGATION FUNC [ARGS...]: FUNC, from the test file that
# calls this, run in a new mount namespace (unshare -m --propagation
# PROPAGATION) with this $T, $H and $AS.  Returns FUNC's status.
in_mountns() {
	local prop=$1 file=${BASH_SOURCE[1]}
	shift
	unshare -m --propagation "$prop" env T="$T" AS="${AS:-}" HUTCH="$HUTCH" \
		HUTCH_FAULT_BIN="$HUTCH_FAULT_BIN" bash -c \
		'set -eu; . "$0"; . "$1"; H=$T/hutch; shift; "$@"' "$INTEGRATION_DIR/lib.sh" "$file" "$@"
}
