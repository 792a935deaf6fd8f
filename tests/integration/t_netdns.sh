# --allow-net names through the sandbox's resolver: with rules, the
# sandbox's /etc/resolv.conf names a resolver hutch serves on
# 127.0.0.1:53, which answers only names a rule allows (netproxy_dns.c,
# netdns.c), and a plain connect() to an address is allowed by a rule by
# name only while an answer for that name gave it (netconnect.c).
#
# Each test runs in a mount and network namespace of its own (unshare),
# hutch's "host": /etc/hosts there is the test's own file, which hutch's
# lookups read, and the server lives in a second network namespace behind
# a veth pair (10.9.0.2, fd09::2): an address that is neither loopback,
# link-local nor the host's own, as a name's answer must be.  A second
# server on the host's 127.0.0.1 at the same port is what a rebound
# name would reach.  Servers and namespaces are ended by pid.

# A server on ADDRESS (argument 1), port 0 or argument 2: prints its
# port, then answers each connection with one line naming ARGUMENT 3.
PY_SERVER='
import socket, sys
family = socket.AF_INET6 if ":" in sys.argv[1] else socket.AF_INET
s = socket.socket(family, socket.SOCK_STREAM)
if family == socket.AF_INET6:
    s.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_V6ONLY, 0)
s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.bind((sys.argv[1], int(sys.argv[2])))
s.listen(16)
print(s.getsockname()[1], flush=True)
while True:
    c, _ = s.accept()
    c.sendall(("hello from " + sys.argv[3] + "\n").encode())
    c.close()
'

# In the sandbox: for each step, "resolve NAME FAMILY" prints the first
# address or the error's name; "connect ADDR" connects to ADDR at the
# port and prints the server's line or the errno; "write TEXT" puts TEXT
# in /dns/hosts (the host's /etc/hosts).
PY_CLIENT='
import socket, sys
port, steps = int(sys.argv[1]), sys.argv[2:]
families = {"4": socket.AF_INET, "6": socket.AF_INET6, "any": socket.AF_UNSPEC}
for step in steps:
    verb, _, arg = step.partition(" ")
    try:
        if verb == "resolve":
            name, fam = arg.split()
            print(socket.getaddrinfo(name, port, families[fam], socket.SOCK_STREAM)[0][4][0])
        elif verb == "connect":
            s = socket.create_connection((arg, port), timeout=5)
            print(s.recv(100).decode().strip())
        elif verb == "write":
            with open("/dns/hosts", "w") as f:
                f.write(arg.replace(";", "\n") + "\n")
    except socket.gaierror as e:
        print("gaierror")
    except OSError as e:
        print(type(e).__name__, e.errno)
'

# Run FUNC (and its arguments) in a mount and network namespace of its
# own, with the test's variables.
in_test_net() {
	unshare -m -n --propagation private env T="$T" H="$H" here="$here" HUTCH="$HUTCH" \
		bash -c 'set -eu; . "$here/lib.sh"; . "$here/t_netdns.sh"; "$@"' bash "$@"
}

# The servers, the veth pair and the test's /etc/hosts (writable by the
# sandbox, through /dns, for the rebinding test).
net_setup() {
	command -v ip >/dev/null || skip "no ip(8) (iproute2)"
	ip link set lo up
	exec {NS}< <(exec unshare -n sh -c 'echo up; exec sleep 60')
	NS_PID=$!
	trap 'kill $NS_PID ${SERVER_PID:-} ${LOCAL_PID:-} 2>/dev/null; cleanup_scratch' EXIT
	read -r _ <&"$NS" || fail "no second network namespace"
	ip link add v0 type veth peer name v1 netns "$NS_PID" 2>/dev/null ||
		skip "no veth pair can be made here"
	ip addr add 10.9.0.1/24 dev v0
	ip -6 addr add fd09::1/64 dev v0 nodad
	ip link set v0 up
	nsenter -t "$NS_PID" -n sh -c 'ip link set lo up; ip addr add 10.9.0.2/24 dev v1
		ip -6 addr add fd09::2/64 dev v1 nodad; ip link set v1 up'
	exec {SRV}< <(exec nsenter -t "$NS_PID" -n python3 -c "$PY_SERVER" :: 0 the-server)
	SERVER_PID=$!
	read -r -t 10 PORT <&"$SRV" || fail "the server did not start"
	exec {LOC}< <(exec python3 -c "$PY_SERVER" :: "$PORT" the-host)
	LOCAL_PID=$!
	read -r -t 10 _ <&"$LOC" || fail "the host's loopback server did not start"
	mkdir -m 0777 "$T/dns"
	printf '10.9.0.2 allowed.test\nfd09::2 allowed.test\n10.9.0.2 other.test\n' >"$T/dns/hosts"
	chmod 0666 "$T/dns/hosts"
	mount --bind "$T/dns/hosts" /etc/hosts
}

# RULE, then the client's steps: its lines, joined by '~'.
sandbox_client() {
	local rule=$1
	shift
	$AS timeout 20 "$H" --allow-net "$rule" --bind "$T/dns" /dns -- \
		python3 -c "$PY_CLIENT" "$PORT" "$@" 2>"$T/err" | paste -sd '~'
}

check_allowed_name() {
	local out
	out=$(sandbox_client "allowed.test:$PORT" "connect 10.9.0.2" "resolve other.test any" \
		"resolve allowed.test 4" "resolve allowed.test 6" "connect 10.9.0.2" "connect fd09::2")
	assert_eq "ConnectionRefusedError 111~gaierror~10.9.0.2~fd09::2~hello from the-server~hello from the-server" \
		"$out" "no connect before the name is resolved; a name no rule allows does not resolve; IPv4 and IPv6 connect once resolved"
	out=$($AS timeout 20 "$H" --allow-net "allowed.test:$PORT" -- sh -c '
		getent hosts other.test; echo "other $?"; getent hosts allowed.test >/dev/null; echo "allowed $?"')
	assert_eq "other 2
allowed 0" "$out" "getent: the name no rule allows is not found"
}
net_allowed_name() {
	net_setup
	for_each_caller check_allowed_name
}
test_netdns_allowed_name_connects() {
	needs_root_unshare -m -n
	in_test_net net_allowed_name
}

# The answer for a name changes to loopback, then to the host's own
# address, between lookups: each later answer is empty, and neither is
# reached through the name.
check_rebinding() {
	local out rule=$1
	printf '10.9.0.2 allowed.test\nfd09::2 allowed.test\n' >"$T/dns/hosts"
	out=$(sandbox_client "$rule" "resolve allowed.test any" "connect 10.9.0.2" \
		"write 127.0.0.1 allowed.test;::1 allowed.test" "resolve allowed.test 4" \
		"resolve allowed.test 6" "connect 127.0.0.1" "connect ::1" \
		"write 10.9.0.1 allowed.test;fd09::1 allowed.test" "resolve allowed.test any" \
		"connect 10.9.0.1" "connect fd09::1")
	assert_match "^(10\.9\.0\.2|fd09::2)~hello from the-server~gaierror~gaierror~(ConnectionRefusedError 111~){2}gaierror~(ConnectionRefusedError 111~){1}ConnectionRefusedError 111$" \
		"$out" "rule $rule: a name rebound to loopback resolves no more and reaches nothing"
}
net_rebinding() {
	net_setup
	for rule in "allowed.test:$PORT" "*.test:$PORT"; do
		for_each_caller check_rebinding "$rule"
	done
}
test_netdns_rebinding_refused() {
	needs_root_unshare -m -n
	in_test_net net_rebinding
}
