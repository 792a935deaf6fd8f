# No unix socket of the host is reachable from the default sandbox,
# whatever directory it starts in (issue 25): the connect broker makes
# every connect() in the supervisor, and connects a pathname only to a
# socket on a tmpfs of the sandbox's own or one bound by name.  Real
# listeners, as root and as the unprivileged uid, in the places the issue
# found open: /tmp/tmux-UID, ~/.gnupg, a directory in $XDG_RUNTIME_DIR
# and a project subdirectory.  Each check has its control: the same
# socket bound by name, or the same run without a seccomp policy, is
# reached, so that a check that finds nothing reached can fail.

# CONNECT: "ok" or the errno name for each path (@NAME: abstract).
CONNECT='import errno, socket, sys
out = []
for path in sys.argv[1:]:
    s = socket.socket(socket.AF_UNIX)
    try:
        s.connect(path.encode().replace(b"@", b"\0", 1) if path.startswith("@") else path)
        out.append("ok")
    except OSError as e:
        out.append(errno.errorcode[e.errno])
print(" ".join(out))'

# places: for $AS, the places and their sockets.  TMUX_DIR is the real
# /tmp/tmux-UID (made if missing, then removed: by the next places, or at
# exit); the rest are scratch.
make_socket_places() {
	local uid=0 tag=hutch-sock-$$-$RANDOM
	[ -z "${TMUX_DIR:-}" ] || remove_socket_places
	[ "$AS" = as_user ] && uid=$NOBODY
	HOME_DIR=$T/home.$uid XDG_DIR=$T/xdg.$uid PROJ=$T/work/proj.$uid
	TMUX_DIR=/tmp/tmux-$uid MADE_TMUX=""
	trap 'remove_socket_places; cleanup_scratch' EXIT
	[ -d "$TMUX_DIR" ] || { mkdir -m 0700 "$TMUX_DIR" && MADE_TMUX=yes; }
	mkdir -p "$HOME_DIR/.gnupg" "$XDG_DIR/app" "$PROJ/sub"
	chmod 0700 "$HOME_DIR/.gnupg" "$XDG_DIR"
	chown -R "$uid:$uid" "$TMUX_DIR" "$HOME_DIR" "$XDG_DIR" "$PROJ"
	TMUX_SOCK=$TMUX_DIR/$tag GPG_SOCK=$HOME_DIR/.gnupg/S.gpg-agent
	XDG_SOCK=$XDG_DIR/app/sock PROJ_SOCK=$PROJ/sub/live.sock
	SOCKS="$TMUX_SOCK $GPG_SOCK $XDG_SOCK $PROJ_SOCK"
}

remove_socket_places() {
	rm -f "$TMUX_SOCK"
	[ -z "$MADE_TMUX" ] || rm -rf "$TMUX_DIR"
	TMUX_DIR="" MADE_TMUX=""
}

# run_in DIR ARGS...: hutch ARGS from DIR as $AS, with HOME and
# XDG_RUNTIME_DIR set, its output (stderr too) on one line.
run_in() {
	local dir=$1
	shift
	from "$dir" env HOME="$HOME_DIR" XDG_RUNTIME_DIR="$XDG_DIR" timeout 20 "$H" "$@" 2>&1 |
		grep -v '^hutch: limits: --pids' | paste -sd' ' -
}

# From each place, with the shipped default profile: hutch refuses to
# start there (the starting-directory guard) or COMMAND connects to no
# socket of that place, by relative or absolute name.  From the project
# directory and its subdirectory it runs, and finds the socket refused.
check_starting_places() {
	local dir out sock
	make_socket_places
	start_listeners stream $SOCKS
	for dir in "$TMUX_DIR" "$HOME_DIR/.gnupg" "$XDG_DIR/app"; do
		out=$(run_in "$dir" python3 -c "$CONNECT" ./"$(ls "$dir" | head -n 1)" $SOCKS)
		assert_match "^hutch: parse: current directory $dir: (is|is inside) .*; run from a project directory" \
			"$out" "from $dir"
	done
	for dir in "$PROJ" "$PROJ/sub"; do
		sock=${PROJ_SOCK#$dir/}
		out=$(run_in "$dir" python3 -c "$CONNECT" "$sock" $SOCKS)
		assert_eq "ECONNREFUSED ENOENT ENOENT ENOENT ECONNREFUSED hutch: 2 actions refused by the seccomp policy (first: connect, connect broker: $sock is a socket outside the sandbox (not on a tmpfs of its own, not bound by name)); use --report FILE for details" \
			"$out" "from $dir: the project's live socket"
	done
	stop_listeners
	assert_eq 0 "$TAKEN" "connections the listeners took"
	# The control: without a seccomp policy there is no broker, and the
	# same run reaches the project's socket.
	start_listeners stream $SOCKS
	out=$(run_in "$PROJ" --seccomp-policy none python3 -c "$CONNECT" sub/live.sock)
	stop_listeners
	assert_eq "ok 1" "$out $TAKEN" "control: no seccomp policy"
	remove_socket_places
}
test_sockets_no_host_socket_from_any_start() { for_each_caller check_starting_places; }

# The broker alone, with no starting-directory guard in the way: each
# place bound by hand, read-only, as a directory, COMMAND started in
# each; none of its sockets is reached, by absolute or relative name.
# The control: each socket bound by name is.
check_bound_directories() {
	local out bound="" named=""
	make_socket_places
	for sock in $SOCKS; do
		bound="$bound --ro-bind $(dirname "$sock") $(dirname "$sock")"
		named="$named --ro-bind $sock $sock"
	done
	start_listeners stream $SOCKS
	out=$(run_in "$T/work" $bound --report "$HOME_DIR/report" python3 -c "$CONNECT" $SOCKS)
	# From inside: COMMAND starts in the tmux directory; it and a child
	# started in each other place connect by relative name.
	out="$out; $(run_in "$T/work" $bound --chdir "$TMUX_DIR" sh -c 'for s; do
		(cd "${s%/*}" && python3 -c "$0" "./${s##*/}"); done' "$CONNECT" $SOCKS)"
	stop_listeners
	assert_match "^ECONNREFUSED ECONNREFUSED ECONNREFUSED ECONNREFUSED hutch: 4 actions refused.*; ECONNREFUSED ECONNREFUSED ECONNREFUSED ECONNREFUSED hutch: 4 actions refused" \
		"$out" "the places bound as directories, from outside them and from inside"
	assert_eq 0 "$TAKEN" "connections taken"
	assert_match "\"syscall\":\"connect\".*\"errno\":\"ECONNREFUSED\",\"rule\":\"connect broker: $TMUX_SOCK is a socket outside the sandbox" \
		"$(head -n 1 "$HOME_DIR/report")" "the report line"
	start_listeners stream $SOCKS
	out=$(run_in "$T/work" $named python3 -c "$CONNECT" $SOCKS)
	stop_listeners
	assert_eq "ok ok ok ok 4" "$out $TAKEN" "control: the sockets bound by name"
	remove_socket_places
}
test_sockets_bound_directory_hands_over_no_socket() { for_each_caller check_bound_directories; }

# What the sandbox binds itself on its own tmpfs (/tmp, $HOME, /run), by absolute or relative name, and its abstract
# sockets, it reaches; a socket it binds in the bound project directory
# (the host's filesystem) it does not (the documented cost).
OWN='import errno, os, socket
out = []
def attempt(bind_to, connect_to):
    s = socket.socket(socket.AF_UNIX)
    s.bind(bind_to)
    s.listen(1)
    c = socket.socket(socket.AF_UNIX)
    try:
        c.connect(connect_to)
        out.append("ok")
    except OSError as e:
        out.append(errno.errorcode[e.errno])
attempt("/tmp/own", "/tmp/own")
os.chdir(os.environ["HOME"])
attempt("rel", "rel")
os.makedirs("/run/user/d", exist_ok=True)
attempt("/run/user/d/s", "/run/user/d/s")
attempt(b"\0hutch-own", b"\0hutch-own")
os.chdir(os.environ["PROJ"])
attempt("project.sock", "project.sock")
print(" ".join(out))'

check_own_sockets() {
	local out
	make_socket_places
	# ci: the project directory is writable
	out=$(run_in "$PROJ" --profile ci env PROJ="$PROJ" python3 -c "$OWN")
	assert_match "^ok ok ok ok ECONNREFUSED hutch: 1 action refused" "$out" "the sandbox's own sockets"
}
test_sockets_own_sockets_reachable() { for_each_caller check_own_sockets; }

# A datagram reaches a pathname with sendto(), without connect(): unix
# datagram sockets cannot be made (socket, socketpair; SOCK_RAW is one
# too), and nothing reaches the host's datagram socket.  Stream and
# seqpacket pairs stay.
DGRAM='import errno, socket, sys
out = []
for make in (lambda: socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM),
             lambda: socket.socket(socket.AF_UNIX, socket.SOCK_RAW),
             lambda: socket.socketpair(socket.AF_UNIX, socket.SOCK_DGRAM),
             lambda: socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM | socket.SOCK_CLOEXEC)):
    try:
        s = make()
        if not isinstance(s, tuple):
            s.sendto(b"x", sys.argv[1])
        out.append("made")
    except OSError as e:
        out.append(errno.errorcode[e.errno])
socket.socketpair(socket.AF_UNIX, socket.SOCK_STREAM)
socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
print(" ".join(out))'

check_datagrams() {
	local out
	make_socket_places
	start_listeners dgram "$PROJ/dg.sock"
	out=$(run_in "$PROJ" python3 -c "$DGRAM" dg.sock)
	stop_listeners
	assert_match "^EACCES EACCES EACCES EACCES hutch: 4 actions refused .*unix datagram sockets" \
		"$out" "unix datagram sockets"
	assert_eq 0 "$TAKEN" "datagrams the host's socket took"
	# The control: without a policy, the datagram arrives.
	start_listeners dgram "$PROJ/dg.sock"
	out=$(run_in "$PROJ" --seccomp-policy none python3 -c "$DGRAM" dg.sock)
	stop_listeners
	assert_eq "made made made 3" "$(echo "$out" | cut -d' ' -f1,2,4) $TAKEN" "control: no seccomp policy"
}
test_sockets_no_unix_datagrams() { for_each_caller check_datagrams; }

# With --share-net the sandbox's sockets are in the host's network
# namespace: an abstract socket there is the host's, and refused, with
# EPERM as Landlock's scoping answered before the broker (the broker
# connects from the supervisor, which no Landlock domain confines).
check_abstract_share_net() {
	local out name=@hutch-test-$$-$RANDOM
	make_socket_places
	start_listeners stream "$name"
	out=$(run_in "$PROJ" --share-net python3 -c "$CONNECT" "$name")
	stop_listeners
	assert_match "^EPERM hutch: 1 action refused .*abstract unix socket of the host" "$out" "--share-net"
	assert_eq 0 "$TAKEN" "connections taken"
}
test_sockets_share_net_abstract_refused() { for_each_caller check_abstract_share_net; }

# TCP through the broker: a blocking connect that completes later is
# answered when it does, a refused one with ECONNREFUSED, a non-blocking
# one with EINPROGRESS; io_uring, which connects past connect(), is
# ENOSYS.
TCP='import ctypes, errno, socket
out = []
t = socket.socket()
t.bind(("127.0.0.1", 0))
t.listen(4)
c = socket.socket()
c.connect(t.getsockname())
out.append("ok")
c = socket.socket()
try:
    c.connect(("127.0.0.1", 1))
except OSError as e:
    out.append(errno.errorcode[e.errno])
c = socket.socket()
c.setblocking(False)
out.append(errno.errorcode.get(c.connect_ex(t.getsockname()), "ok"))
libc = ctypes.CDLL(None, use_errno=True)
params = ctypes.create_string_buffer(120)
r = libc.syscall(425, 4, params)
out.append(errno.errorcode[ctypes.get_errno()] if r < 0 else "io_uring")
print(" ".join(out))'

check_tcp() {
	local out
	make_socket_places
	out=$(run_in "$PROJ" python3 -c "$TCP")
	assert_match "^ok ECONNREFUSED EINPROGRESS ENOSYS" "$out" "TCP and io_uring"
}
test_sockets_tcp_through_the_broker() { for_each_caller check_tcp; }

# --explain says which unix sockets COMMAND reaches.
check_explain_sockets() {
	make_socket_places
	start_listeners stream "$GPG_SOCK"
	assert_match "unix sockets: +only those on the sandbox's own tmpfs, abstract ones of its own network namespace, and those bound by name: $GPG_SOCK" \
		"$(run_in "$PROJ" --ro-bind "$GPG_SOCK" "$GPG_SOCK" --explain true)" "--explain"
	assert_match "unix sockets: +not mediated: no seccomp filter" \
		"$(run_in "$PROJ" --seccomp-policy none --explain true)" "--explain without a filter"
	stop_listeners
}
test_sockets_explain() { for_each_caller check_explain_sockets; }

# The address is read once: another thread that rewrites it while the
# connect is with hutch, between a socket of the sandbox's own and the
# host's, never gets the host's connected (letting the call continue
# after a check would connect whatever the address says then).
RACE='import ctypes, errno, socket, sys, threading
libc = ctypes.CDLL(None, use_errno=True)
own = socket.socket(socket.AF_UNIX)
own.bind("/tmp/own")
own.listen(1024)
def sun(path):
    b = ctypes.create_string_buffer(110)
    b[0:2] = socket.AF_UNIX.to_bytes(2, sys.byteorder)
    b[2:2 + len(path)] = path.encode()
    return b
addr, good, bad = sun("/tmp/own"), sun("/tmp/own"), sun(sys.argv[1])
stop = False
own.setblocking(False)
def flip():
    while not stop:
        for src in (bad, good):
            ctypes.memmove(addr, src, 110)
            for _ in range(200):
                pass
t = threading.Thread(target=flip)
t.start()
results = {}
# Until both addresses were seen (a loaded machine may run many connects
# in one of the flipper'"'"'s halves), within a bound.
for i in range(20000):
    if len(results) >= 2 and i >= 200:
        break
    s = socket.socket(socket.AF_UNIX)
    r = libc.connect(s.fileno(), addr, 110)
    key = "ok" if r == 0 else errno.errorcode[ctypes.get_errno()]
    results[key] = results.get(key, 0) + 1
    s.close()
    try:
        own.accept()[0].close()
    except BlockingIOError:
        pass
stop = True
t.join()
print(" ".join(sorted(results)))'

check_address_race() {
	local out
	make_socket_places
	start_listeners stream "$PROJ_SOCK"
	out=$(run_in "$PROJ" python3 -c "$RACE" "$PROJ_SOCK")
	stop_listeners
	assert_eq 0 "$TAKEN" "connections the host's socket took"
	# Both addresses tried; a connect that read the address while it
	# was half rewritten names a path that does not exist (ENOENT).
	assert_match "^ECONNREFUSED (ENOENT )?ok " "$out" "the connects: both addresses were tried"
}
test_sockets_address_read_once() { for_each_caller check_address_race; }

# The supervisor never waits on a connect: blocking TCP connects that the
# kernel keeps in progress (a listener whose backlog is full drops their
# SYNs) stay with hutch while another thread's connect is answered at
# once; --timeout then ends the run on time.
PENDING='import socket, threading, time
t = socket.socket()
t.bind(("127.0.0.1", 0))
t.listen(0)
def hang():
    try:
        socket.create_connection(t.getsockname())
    except OSError:
        pass
for i in range(6):
    threading.Thread(target=hang, daemon=True).start()
time.sleep(0.5)
own = socket.socket(socket.AF_UNIX)
own.bind("/tmp/own")
own.listen(1)
start = time.monotonic()
c = socket.socket(socket.AF_UNIX)
c.connect("/tmp/own")
print("answered in %.1fs" % (time.monotonic() - start), flush=True)
time.sleep(60)'

check_pending() {
	local out rc=0 start end
	make_socket_places
	start=$(date +%s)
	out=$(from "$PROJ" timeout 20 "$H" --timeout 2 python3 -c "$PENDING" 2>&1) || rc=$?
	end=$(date +%s)
	assert_eq 124 "$rc" "the exit status: --timeout"
	assert_match "^answered in 0\.[0-9]s" "$out" "the connect beside the pending ones"
	[ $((end - start)) -lt 12 ] || fail "took $((end - start))s"
}
test_sockets_pending_connects_never_block() { for_each_caller check_pending; }

# The address's length is the sandbox's word: a sockaddr_un longer than
# the kernel allows (the adversarial review's 128 bytes of 'A') is
# EINVAL, as the kernel answers it, and the supervisor, which copies the
# path, lives on.  Before the bound, FORTIFY aborted the supervisor
# (exit 134) and a --protect placeholder was left behind.
LONG='import ctypes, errno, socket
libc = ctypes.CDLL(None, use_errno=True)
s = socket.socket(socket.AF_UNIX)
addr = (ctypes.c_char * 128)()
ctypes.memset(addr, 0x41, 128)
addr[0] = 1
addr[1] = 0
r = libc.connect(s.fileno(), addr, 128)
print(errno.errorcode[ctypes.get_errno()] if r < 0 else "connected")'

check_long_address() {
	local out rc=0
	make_socket_places
	out=$(run_in "$PROJ" python3 -c "$LONG") || rc=$?
	assert_eq "0 EINVAL" "$rc $out" "connect() with a 128-byte unix address"
}
test_sockets_long_address_refused() { for_each_caller check_long_address; }

# vsock is in no network namespace: a sandbox with a socket of it reaches
# the host's ports and the hypervisor's, whatever its network.  Refused
# (EAFNOSUPPORT, as where the kernel has no vsock), socket and socketpair.
VSOCK='import errno, socket
out = []
for make in (lambda: socket.socket(socket.AF_VSOCK, socket.SOCK_STREAM),
             lambda: socket.socketpair(socket.AF_VSOCK, socket.SOCK_STREAM)):
    try:
        make()
        out.append("made")
    except OSError as e:
        out.append(errno.errorcode[e.errno])
print(" ".join(out))'

check_vsock() {
	local out
	make_socket_places
	out=$(run_in "$PROJ" python3 -c "$VSOCK")
	assert_match "^EAFNOSUPPORT EAFNOSUPPORT" "$out" "vsock"
}
test_sockets_vsock_refused() {
	python3 -c 'import socket; socket.socket(socket.AF_VSOCK, socket.SOCK_STREAM)' 2>/dev/null ||
		skip "this kernel has no vsock (AF_VSOCK refused outside any sandbox)"
	for_each_caller check_vsock
}
