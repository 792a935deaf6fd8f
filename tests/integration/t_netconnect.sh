# --allow-net for plain connect(): a TCP connect of COMMAND to what a
# rule allows is made from the host's network namespace and the
# connected socket put in its place (connect_broker.c, netconnect.c); no
# proxy variable is needed.  The servers are the host's, on loopback only
# (tool_netserver.py on 127.0.0.1 and ::1, stopped by pid); the clients
# are curl with the default environment, a raw Python socket and a small
# C client (tool_tcpconnect.c), which reads no proxy variable.

build_client() {
	gcc -std=gnu11 -O2 -Wall -Wextra -Werror -o "$T/work/tcpconnect" \
		"$here/tool_tcpconnect.c" || fail "cannot build tool_tcpconnect.c"
}

# A raw Python client: each ADDR PORT pair, "HTTP/..." or the errno.
PY_CLIENT='
import socket, sys
args = sys.argv[1:]
for host, port in zip(args[::2], args[1::2]):
    try:
        s = socket.create_connection((host, int(port)), timeout=5)
        s.sendall(b"GET /hello HTTP/1.0\r\n\r\n")
        print(s.recv(200).split(b"\r\n")[0].decode())
    except OSError as e:
        print(type(e).__name__, e.errno)
'

check_curl_default_env() {
	local out report="$T/out/r.jsonl"
	rm -f "$report"
	out=$($AS timeout 20 "$H" --report "$report" --allow-net "localhost:$HTTP_PORT" -- sh -c '
		curl -sS -w " %{http_code}\n" "http://localhost:$1/hello"
		curl -sS -w "%{http_code}\n" "http://localhost:$2/hello" 2>/dev/null
		echo "curl $?"' sh "$HTTP_PORT" "$ECHO_PORT" 2>"$T/err")
	assert_eq "hello from port $HTTP_PORT
 200
000
curl 7" "$out" "curl, proxy variables as hutch sets them: the rule's port, not another"
	assert_eq "hutch: 2 network requests refused (see $report)" "$(cat "$T/err")" \
		"the refusals are counted (::1 and 127.0.0.1)"
	assert_match "\"kind\":\"net\",\"protocol\":\"tcp\",\"host\":\"(127\.0\.0\.1|::1)\",\"port\":$HTTP_PORT,\"verdict\":\"allowed\",\"rule\":\"localhost:$HTTP_PORT\"" \
		"$(cat "$report")" "the allowed connect's line"
	assert_match "\"protocol\":\"tcp\",\"host\":\"127\.0\.0\.1\",\"port\":$ECHO_PORT,\"verdict\":\"refused\",.*\"reason\":\"no --allow-net rule allows 127\.0\.0\.1:$ECHO_PORT\"" \
		"$(cat "$report")" "the refused connect's line"
}
test_netconnect_curl_default_env() {
	start_servers
	for_each_caller check_curl_default_env
}

check_raw_clients() {
	local out report="$T/out/r.jsonl"
	rm -f "$report"
	out=$($AS timeout 20 "$H" --report "$report" --allow-net "127.0.0.1:$HTTP_PORT" \
		--allow-net "[::1]:$HTTP_PORT" -- sh -c '
		for a in 127.0.0.1 ::1; do
			./tcpconnect $a $1; ./tcpconnect $a $1 nonblock
			./tcpconnect $a $2; ./tcpconnect $a $2 nonblock
		done
		python3 -c "$3" 127.0.0.1 $1 ::1 $1 127.0.0.1 $2 ::1 $2 192.0.2.1 80' \
		sh "$HTTP_PORT" "$ECHO_PORT" "$PY_CLIENT" 2>"$T/err")
	assert_match "^(connected: HTTP/1.[01] 200 OK~){2}(errno 111~){2}(connected: HTTP/1.[01] 200 OK~){2}(errno 111~){2}(HTTP/1.[01] 200 OK~){2}(ConnectionRefusedError 111~){3}$" \
		"$(printf '%s\n' "$out" | paste -sd '~')~" \
		"IPv4 and IPv6, blocking or not: the allowed port connects, flags kept; another is refused"
	assert_eq "hutch: 7 network requests refused (see $report)" "$(cat "$T/err")" "each refusal counted"
	assert_match "\"host\":\"::1\",\"port\":$ECHO_PORT,\"verdict\":\"refused\"" "$(cat "$report")" \
		"an IPv6 refusal's line"
	assert_match "\"host\":\"192\.0\.2\.1\",\"port\":80,\"verdict\":\"refused\"" "$(cat "$report")" \
		"a refusal off the host's loopback"
}
test_netconnect_raw_clients_ipv4_ipv6() {
	start_servers
	build_client
	for_each_caller check_raw_clients
}

# The sandbox's loopback stays its own for every port no rule forwards.
check_own_loopback() {
	local out
	out=$($AS timeout 20 "$H" --allow-net "localhost:$HTTP_PORT" -- sh -c '
		cd /tmp && echo mine > hello
		python3 -c "
import http.server, socketserver, sys
s = socketserver.TCPServer((\"127.0.0.1\", int(sys.argv[1])), http.server.SimpleHTTPRequestHandler)
print(\"up\", flush=True)
s.serve_forever()" "$2" 2>/dev/null | { read -r up
			curl -sS "http://127.0.0.1:$2/hello"
			curl -sS "http://localhost:$1/hello"; echo
			kill $(pgrep -f serve_forever) 2>/dev/null; }' sh "$HTTP_PORT" "$ECHO_PORT" 2>"$T/err") ||
		true	# (that kill ends the sh -c as well, whose command line names serve_forever)
	assert_eq "mine
hello from port $HTTP_PORT" "$out" "a server of COMMAND's on another port, beside the host's"
	assert_eq "" "$(cat "$T/err")" "nothing refused"
}
test_netconnect_own_loopback_kept() {
	start_servers
	for_each_caller check_own_loopback
}

# A socket of the host's namespace in the sandbox is connected, and
# stays so: connect(AF_UNSPEC) would disconnect it, after which
# sendto(MSG_FASTOPEN) connects without connect().
check_no_second_connect() {
	local out
	out=$($AS timeout 20 "$H" --allow-net "127.0.0.1:$HTTP_PORT" -- python3 -c '
import ctypes, socket, struct, sys
p, q = int(sys.argv[1]), int(sys.argv[2])
s = socket.create_connection(("127.0.0.1", p), timeout=5)
print("connected")
libc = ctypes.CDLL(None, use_errno=True)
unspec = struct.pack("H14x", socket.AF_UNSPEC)
print("unspec", libc.connect(s.fileno(), unspec, len(unspec)), ctypes.get_errno())
print("again", s.connect_ex(("127.0.0.1", q)))
s.sendto(b"GET /hello HTTP/1.0\r\n\r\n", 0x20000000, ("127.0.0.1", q))
answer = b""
while True:
    more = s.recv(4096)
    if not more:
        break
    answer += more
print(answer.split(b"\r\n")[-1].decode())' "$HTTP_PORT" "$ECHO_PORT" 2>"$T/err")
	assert_eq "connected
unspec -1 13
again 106
hello from port $HTTP_PORT" "$out" \
		"never disconnected, never connected again: MSG_FASTOPEN goes down the allowed connection"
	assert_match "connect AF_UNSPEC" "$(cat "$T/err")" "the refusal counted"
}
test_netconnect_stand_in_never_reconnects() {
	start_servers
	for_each_caller check_no_second_connect
}

# As through the proxy, only a rule naming the very address (or
# localhost) reaches the host's loopback: no block, however wide, and no
# name or wildcard.
check_wide_rules_never_loopback() {
	local out
	out=$($AS timeout 20 "$H" --allow-net "0.0.0.0/0:$HTTP_PORT" --allow-net "[::/0]:$HTTP_PORT" \
		--allow-net "*:$HTTP_PORT" -- python3 -c "$PY_CLIENT" 127.0.0.1 "$HTTP_PORT" \
		::1 "$HTTP_PORT" 2>"$T/err")
	assert_eq "ConnectionRefusedError 111
ConnectionRefusedError 111" "$out" "CIDR blocks and * never reach the host's loopback"
	assert_match "^hutch: 2 network requests refused" "$(cat "$T/err")" "both counted"
}
test_netconnect_wide_rules_never_loopback() {
	start_servers
	for_each_caller check_wide_rules_never_loopback
}
