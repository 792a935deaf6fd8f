# Network by allow-list (--allow-net): hutch's proxy on the sandbox's
# loopback.  The servers are the host's, on loopback only
# (tool_netserver.py on 127.0.0.1 and ::1, stopped by pid).  Inside, with
# a network namespace of its own, "localhost" is the sandbox's loopback;
# the proxy connects from the host's namespace, so a rule localhost:PORT
# reaches the host's server.  NO_PROXY names localhost, so the clients
# here are told to use the proxy for it all the same (--noproxy ''); a
# plain connect() reaches the same (t_netconnect.sh).

# The servers (lib.sh), and the client copied where the sandbox sees it
# (the bound current directory).  HTTP_PORT, ECHO_PORT.
start_servers_and_client() {
	start_servers
	cp "$here/tool_netclient.py" "$T/work/netclient.py"
	chmod 0644 "$T/work/netclient.py"
}

# in_sandbox RULE CMD...: CMD under hutch with --allow-net RULE, bounded;
# stderr in $T/err.
in_sandbox() {
	local rule=$1
	shift
	$AS timeout 120 "$H" --allow-net "$rule" -- "$@" 2>"$T/err"
}

check_allowed_curl_and_urllib() {
	local out want
	out=$(in_sandbox "localhost:$HTTP_PORT" sh -c '
		curl -sS --noproxy "" "http://localhost:$1/hello"
		curl -sS --noproxy "" -p "http://localhost:$1/hello"
		curl -sS --noproxy "" -x "http://[::1]:3128" "http://localhost:$1/hello"
		curl -sS --noproxy "" --socks5-hostname 127.0.0.1:3128 "http://localhost:$1/hello"
		python3 netclient.py get "http://localhost:$1/hello"' sh "$HTTP_PORT")
	want="hello from port $HTTP_PORT"
	assert_eq "$want
$want
$want
$want
$want" "$out" "plain HTTP, CONNECT, the ::1 listener, SOCKS5 and urllib"
	assert_eq "" "$(cat "$T/err")" "a successful run prints nothing of hutch's own"
	out=$(in_sandbox "localhost:$HTTP_PORT" python3 netclient.py get \
		"http://localhost:$HTTP_PORT/headers")
	assert_match "^GET /headers HTTP/1.1" "$out" "the request line goes out in origin form"
	assert_match "Host: localhost:$HTTP_PORT" "$out" "Host names the allowed target"
	assert_match "Connection: close" "$out" "one request per connection"
	assert_no_match "Proxy-" "$out" "the proxy's own headers are dropped"
}
test_net_allowed_curl_and_urllib() {
	start_servers_and_client
	for_each_caller check_allowed_curl_and_urllib
}

check_refused_port() {
	local out report="$T/out/r.jsonl"
	rm -f "$report"
	out=$($AS timeout 60 "$H" --report "$report" --allow-net "localhost:$HTTP_PORT" -- sh -c '
		curl -sS --noproxy "" -w "%{http_code}\n" "http://localhost:$1/hello"
		curl -sS --noproxy "" -w "%{http_code}\n" "http://localhost:$2/hello"' \
		sh "$ECHO_PORT" "$HTTP_PORT" 2>"$T/err")
	assert_eq "hutch: no --allow-net rule allows localhost:$ECHO_PORT
403
hello from port $HTTP_PORT
200" "$out" "a second port is refused with 403 and a reason"
	assert_eq "hutch: 1 network request refused (see $report)" "$(cat "$T/err")" \
		"the summary names the report"
	assert_match "^\{\"time\":\"[0-9T:.-]+Z\",\"kind\":\"net\",\"protocol\":\"http\",\"host\":\"localhost\",\"port\":$ECHO_PORT,\"verdict\":\"refused\",.*\"reason\":\"no --allow-net rule allows localhost:$ECHO_PORT\"" \
		"$(sed -n 1p "$report")" "the refusal's report line"
	assert_match "\"host\":\"localhost\",\"port\":$HTTP_PORT,\"verdict\":\"allowed\",\"rule\":\"localhost:$HTTP_PORT\",\"origin\":\"command line\",\"address\":\"(127.0.0.1|::1)\",\"reason\":null,\"bytes_out\":[1-9][0-9]*,\"bytes_in\":[1-9][0-9]*," \
		"$(sed -n 2p "$report")" "the allowed connection's line, with bytes each way"
	assert_eq 2 "$(wc -l < "$report")" "one line per connection"
	if command -v jq >/dev/null; then
		jq -e . "$report" >/dev/null || fail "report lines are not JSON: $(cat "$report")"
	fi
	out=$(in_sandbox "localhost:$HTTP_PORT" curl -sS --noproxy "" -o /dev/null \
		"http://localhost:$ECHO_PORT/" "http://example.com/")
	assert_eq "hutch: 2 network requests refused (first: localhost:$ECHO_PORT); use --report FILE for details" \
		"$(cat "$T/err")" "without a report, the first refusal is named"
}
test_net_refused_port_is_403_and_reported() {
	start_servers_and_client
	for_each_caller check_refused_port
}

# assert_lines REGEX TEXT WHAT: REGEX against TEXT's lines joined by "~"
# (grep reads a pattern with newlines as several patterns).
assert_lines() {
	assert_match "$1" "$(printf '%s' "$2" | paste -sd '~')" "$3"
}

# A status line and the reason's line, for a plain request to URL.
status_of() {
	in_sandbox "$1" python3 netclient.py status "$2"
}

check_never_localhost_by_name() {
	local out own
	out=$(status_of "*:$HTTP_PORT" "http://localhost:$HTTP_PORT/hello")
	assert_lines "^HTTP/1.1 403 Forbidden~hutch: localhost resolves to (127\.0\.0\.1|::1) \(loopback\): a name never reaches a loopback" "$out" \
		"a wildcard does not reach localhost through DNS"
	out=$(status_of "*.localhost:$HTTP_PORT" "http://x.localhost:$HTTP_PORT/hello")
	assert_match "^HTTP/1.1 (403|502) " "$out" "*.localhost reaches nothing"
	out=$(status_of "*:$HTTP_PORT" "http://127.0.0.1:$HTTP_PORT/hello")
	assert_lines "^HTTP/1.1 403 Forbidden~hutch: no --allow-net rule allows 127.0.0.1:$HTTP_PORT" "$out" "a name rule does not match an address"
	out=$(status_of "0.0.0.0/0:$HTTP_PORT" "http://127.0.0.1:$HTTP_PORT/hello")
	assert_lines "^HTTP/1.1 403 Forbidden~hutch: 127\.0\.0\.1 \(loopback\): only a rule naming this very address reaches it" "$out" "no block, however wide, reaches loopback"
	out=$(status_of "0.0.0.0/0:$HTTP_PORT" "http://169.254.169.254:$HTTP_PORT/latest/meta-data/")
	assert_lines "^HTTP/1.1 403 Forbidden~hutch: 169.254.169.254 \(cloud metadata\): only a rule naming" "$out" \
		"nor the cloud metadata address"
	own=$(hostname -I 2>/dev/null | awk '{print $1}')
	if [ -n "$own" ] && [ "${own#*:}" = "$own" ]; then
		out=$(status_of "0.0.0.0/0:$HTTP_PORT" "http://$own:$HTTP_PORT/hello")
		assert_lines "^HTTP/1.1 403 Forbidden~hutch: $own \(this host's own address\): only a rule naming" "$out" "nor this host's own address"
	fi
	out=$(status_of "127.0.0.1:$HTTP_PORT" "http://127.0.0.1:$HTTP_PORT/hello")
	assert_eq "HTTP/1.1 200 OK
hello from port $HTTP_PORT" "$out" "a rule naming the address itself reaches it"
	# .invalid never resolves (RFC 6761): the lookup's own words come back
	out=$(status_of "*.invalid:$HTTP_PORT" "http://nosuch.invalid:$HTTP_PORT/hello")
	assert_lines "^HTTP/1.1 502 Bad Gateway~hutch: resolve nosuch\.invalid: Name or service not known" "$out" \
		"a name that does not resolve"
}
test_net_wildcard_never_reaches_localhost() {
	start_servers_and_client
	for_each_caller check_never_localhost_by_name
}

check_tunnel_echo() {
	local out
	out=$(in_sandbox "localhost:$ECHO_PORT" sh -c '
		python3 netclient.py echo localhost "$1" 4194304
		python3 netclient.py socks localhost "$1" 1048576' sh "$ECHO_PORT")
	assert_eq "echo ok 4194304
echo ok 1048576" "$out" "CONNECT and SOCKS5 tunnels carry every byte back"
	assert_eq "" "$(cat "$T/err")" "quiet"
}
test_net_connect_tunnel_byte_exact() {
	start_servers_and_client
	for_each_caller check_tunnel_echo
}

# An oversized head and a slowloris client are refused while an allowed
# transfer of 64 MiB, at the same time, completes.
check_bad_clients() {
	local out n=67108864
	out=$(in_sandbox "localhost:$HTTP_PORT" sh -c '
		python3 netclient.py slowloris localhost "$1" > /tmp/slow &
		python3 netclient.py oversize localhost "$1" > /tmp/big &
		python3 netclient.py transfer "http://localhost:$1/bytes/$2" "$2" > /tmp/transfer
		wait
		cat /tmp/transfer /tmp/big /tmp/slow' sh "$HTTP_PORT" "$n")
	assert_lines "^transfer ok $n \(HTTP/1.1 200 OK\)~HTTP/1.1 431 Request Header Fields Too Large~HTTP/1.1 408 Request Timeout after [4-7]s$" "$out" "refused clients, a completed transfer"
	assert_match "^hutch: 2 network requests refused" "$(cat "$T/err")" "both refusals counted"
}
test_net_bad_clients_refused_transfer_completes() {
	start_servers_and_client
	for_each_caller check_bad_clients
}

check_flood() {
	local out
	out=$(in_sandbox "localhost:$HTTP_PORT" python3 netclient.py flood 70)
	assert_eq 6 "$(printf '%s\n' "$out" | grep -c '^HTTP/1.1 503 Service Unavailable$')" \
		"past 64 connections at once, the rest are refused at once: [$out]"
	assert_match "^hutch: 6 network requests refused \(first: more than 64 connections at once\)" \
		"$(cat "$T/err")" "and counted"
}
test_net_too_many_connections_refused() {
	start_servers_and_client
	for_each_caller check_flood
}

# The first process named NAME among PID and its descendants (through
# as_user's setpriv and env, and timeout): hutch's supervisor.
descendant_named() {
	local p=$1
	for _ in 1 2 3 4 5 6 7 8; do
		[ "$(cat "/proc/$p/comm" 2>/dev/null)" = "$2" ] && { echo "$p"; return 0; }
		p=$(pgrep -P "$p" | head -1)
		[ -n "$p" ] || return 1
	done
	return 1
}

# COMMAND ends with a tunnel open, and hutch with it; then SIGTERM to
# hutch with a tunnel open.
check_teardown_with_open_connections() {
	local start rc=0 took pid
	start=$(now)
	in_sandbox "localhost:$ECHO_PORT" sh -c '
		: > /tmp/held; python3 netclient.py hold localhost "$1" > /tmp/held &
		i=0; until grep -q held /tmp/held || [ $i -ge 200 ]; do sleep 0.05; i=$((i+1)); done
		grep -q held /tmp/held && exit 7' sh "$ECHO_PORT" || rc=$?
	took=$(seconds_since "$start" %.1f)
	assert_eq 7 "$rc" "COMMAND's status, with its tunnel up"
	less_than "$took" 5 || fail "hutch took ${took}s to end with a tunnel open"
	rm -f "$T/out/held"
	$AS timeout 60 "$H" --bind "$T/out" /out --allow-net "localhost:$ECHO_PORT" -- \
		python3 netclient.py hold localhost "$ECHO_PORT" > "$T/out/held" 2>"$T/err" &
	pid=$!
	for _ in $(seq 200); do grep -q held "$T/out/held" 2>/dev/null && break; sleep 0.05; done
	grep -q held "$T/out/held" || fail "the tunnel never came up: $(cat "$T/err")"
	start=$(now)
	kill -TERM "$(descendant_named "$pid" hutch)" || fail "no hutch under $pid"
	rc=0
	wait "$pid" || rc=$?
	took=$(seconds_since "$start" %.1f)
	assert_eq 143 "$rc" "SIGTERM ends COMMAND"
	less_than "$took" 10 || fail "hutch took ${took}s after SIGTERM with a tunnel open"
}
test_net_teardown_with_connections_open() {
	start_servers_and_client
	for_each_caller check_teardown_with_open_connections
}

check_no_way_around() {
	local out own want
	own=$(hostname -I 2>/dev/null | awk '{print $1}')
	out=$(in_sandbox "localhost:$HTTP_PORT" sh -c '
		python3 netclient.py direct 127.0.0.1 "$1"
		python3 netclient.py direct ::1 "$1"
		python3 netclient.py direct 192.0.2.1 80
		[ -z "$2" ] || python3 netclient.py direct "$2" "$1"
		python3 netclient.py direct 127.0.0.1 3128' sh "$HTTP_PORT" "$own")
	want="connected
connected
ConnectionRefusedError 111"
	[ -z "$own" ] || want="$want
ConnectionRefusedError 111"
	assert_eq "$want
connected" "$out" "without the proxy: the rule's host port (plain connect), nothing else; the proxy, yes"
}
test_net_ignoring_the_proxy_reaches_only_the_rules() {
	start_servers_and_client
	for_each_caller check_no_way_around
}

# The supervisor's fds during a run: an epoll set only with the proxy.
supervisor_fds() {
	local pid sup
	rm -f "$T/out/up"
	$AS timeout 60 "$H" --bind "$T/out" /out "$@" -- sh -c 'touch /out/up; sleep 30' &
	pid=$!
	for _ in $(seq 200); do [ -e "$T/out/up" ] && break; sleep 0.05; done
	sup=$(descendant_named "$pid" hutch) || fail "no hutch under $pid"
	ls -l "/proc/$sup/fd" 2>/dev/null | sed 's/.*-> //' | sort
	kill -TERM "$sup"
	wait "$pid" 2>/dev/null || true
}

check_nothing_without_allow_net() {
	local out
	out=$($AS timeout 60 "$H" -- sh -c 'env | grep -ci proxy; python3 netclient.py direct 127.0.0.1 3128')
	assert_eq "0
ConnectionRefusedError 111" "$out" "no proxy variable, no listener"
	have_root_ptrace || { skip_part "the supervisor's fds: $WHY"; return 0; }
	assert_no_match "eventpoll" "$(supervisor_fds)" "no proxy in the supervisor"
	assert_match "eventpoll" "$(supervisor_fds --allow-net "localhost:$HTTP_PORT")" \
		"the check sees the proxy when there is one"
}
test_net_nothing_without_allow_net() {
	start_servers_and_client
	for_each_caller check_nothing_without_allow_net
}

# The worker that reads the sandbox's bytes (hutch-proxy, a child of the
# supervisor) is confined: seccomp filter, no_new_privs, no capability,
# not root even for a root caller, and no fd but sockets and its own
# epoll set and timer (a pipe each way only while a tunnel relays), and
# nothing left of the caller's environment.  Its connections' lines
# still reach the report.
# cpu_ticks PID: its user and system time so far, in clock ticks.
cpu_ticks() {
	awk '{ print $14 + $15 }' "/proc/$1/stat"
}

check_worker_confined() {
	local pid sup worker status fds environ environ_rc before after report="$T/out/w.jsonl"
	rm -f "$T/out/up" "$report"
	$AS env HUTCH_T_SECRET=not-for-the-sandbox timeout 60 "$H" --unsetenv HUTCH_T_SECRET \
		--report "$report" --bind "$T/out" /out \
		--allow-net "localhost:$HTTP_PORT" --allow-net "localhost:$ECHO_PORT" -- sh -c '
		curl -sS --noproxy "" -o /dev/null "http://localhost:$1/hello"
		: > /tmp/held; python3 netclient.py hold localhost "$2" > /tmp/held &
		i=0; until grep -q held /tmp/held || [ $i -ge 200 ]; do sleep 0.05; i=$((i+1)); done
		touch /out/up; sleep 30' sh "$HTTP_PORT" "$ECHO_PORT" 2>"$T/err" &
	pid=$!
	for _ in $(seq 200); do [ -e "$T/out/up" ] && break; sleep 0.05; done
	sup=$(descendant_named "$pid" hutch) || fail "no hutch under $pid"
	for w in $(pgrep -P "$sup"); do
		[ "$(cat "/proc/$w/comm" 2>/dev/null)" = hutch-proxy ] && worker=$w
	done
	[ -n "${worker:-}" ] || { kill -TERM "$sup"; wait "$pid"; fail "no hutch-proxy under hutch $sup"; }
	status=$(cat "/proc/$worker/status")
	fds=$(ls -l "/proc/$worker/fd" 2>&1 | sed -n 's/.*-> //p' | sed 's/:\[[0-9]*\]$//' | sort | uniq -c)
	# Unreadable where root may not ptrace (checked below, after the gate).
	environ_rc=0
	environ=$(tr '\0' '\n' < "/proc/$worker/environ" 2>&1) || environ_rc=$?
	# With a tunnel open and idle, the supervisor sleeps: the socket it
	# handed over no longer wakes it.
	before=$(cpu_ticks "$sup")
	sleep 1
	after=$(cpu_ticks "$sup")
	# A worker that dies is named; the sandbox runs on.
	kill -KILL "$worker"
	for _ in $(seq 100); do grep -q "proxy's worker" "$T/err" && break; sleep 0.05; done
	kill -0 "$sup" 2>/dev/null || fail "hutch ended with its worker"
	kill -TERM "$sup"
	wait "$pid" 2>/dev/null || true
	[ $((after - before)) -lt 30 ] || fail "the supervisor spun: $((after - before)) ticks in 1 s with an idle tunnel"
	assert_eq "hutch: run: the --allow-net proxy's worker: killed by signal 9; no more connections" \
		"$(cat "$T/err")" "the worker's end, said once"
	assert_match $'Seccomp:\t2' "$status" "the worker is under a seccomp filter"
	assert_match $'NoNewPrivs:\t1' "$status" "with no_new_privs"
	assert_match $'CapEff:\t0000000000000000' "$status" "no effective capability"
	assert_match $'CapPrm:\t0000000000000000' "$status" "no permitted capability"
	if [ "$AS" = as_root ]; then
		assert_match $'Uid:\t65534\t65534\t65534\t65534' "$status" "not root"
		assert_match $'CapBnd:\t0000000000000000' "$status" "an empty bounding set"
	fi
	have_root_ptrace || { skip_part "the worker's fds: $WHY"; return 0; }
	assert_eq 0 "$environ_rc" "the worker's environ read ($environ)"
	assert_no_match "/" "$fds" "no file, no terminal among the worker's fds"
	assert_no_match "not-for-the-sandbox" "$environ" "the caller's environment is wiped from the worker"
	assert_match "socket" "$fds" "its sockets"
	assert_match "allowed" "$(cat "$report")" "its connection reported by the supervisor"
}
test_net_worker_confined() {
	start_servers_and_client
	for_each_caller check_worker_confined
}

# Two plain requests in one write, the second naming another Host: only
# the first (its head rewritten, its 4-byte body) reaches the server (an
# echo server here, which answers with what it got); the second never.
check_pipelined_request_dropped() {
	local out
	out=$(in_sandbox "localhost:$ECHO_PORT" python3 netclient.py pipeline localhost "$ECHO_PORT")
	assert_match "^GET /first HTTP/1.1" "$out" "the first request goes out"
	assert_match "Connection: close" "$out" "with Connection: close"
	assert_no_match "other.example|/second" "$out" "the second request never reaches the server"
	assert_eq "body" "$(printf '%s' "$out" | tail -1)" "the first request's body, and nothing after"
	out=$(in_sandbox "localhost:$HTTP_PORT" sh -c '
		curl -sS --noproxy "" -H "Transfer-Encoding: chunked" --data-binary x \
			-w "%{http_code}\n" "http://localhost:$1/hello"' sh "$HTTP_PORT")
	assert_lines "^hutch: a request body in chunks \(Transfer-Encoding\); send Content-Length~400$" \
		"$out" "a body in chunks is refused: its end would be unknown"
}
test_net_pipelined_request_never_reaches_another_host() {
	start_servers_and_client
	for_each_caller check_pipelined_request_dropped
}

test_net_explain_and_errors() {
	local out rc=0
	out=$(cd "$T/work" && "$H" --allow-net registry.npmjs.org --allow-net '*.github.com:*' \
		--explain true)
	assert_match "network: only through hutch's proxy at 127.0.0.1:3128 and \[::1\]:3128" "$out" \
		"the proxy's address"
	assert_match "  name     registry.npmjs.org    \(command line; reached by: proxy, plain connect\(\) to the addresses the sandbox's resolver gave\)" \
		"$out" "a name rule"
	assert_match "  wildcard \*.github.com:\*    \(command line; reached by: proxy, plain connect\(\) to the addresses the sandbox's resolver gave\)" \
		"$out" "a wildcard rule"
	assert_match "the sandbox resolves only the names a rule allows, each answer holding 60s" "$out" \
		"the sandbox's resolver and its TTL"
	out=$(cd "$T/work" && "$H" --allow-net localhost:8080 --allow-net 10.0.0.0/8:5432 --explain true)
	assert_match "  name     localhost:8080    \(command line; reached by: proxy, plain connect\(\) to 127.0.0.1 and ::1\)" \
		"$out" "localhost: by plain connect too"
	assert_match "  address  10.0.0.0/8:5432    \(command line; reached by: proxy, plain connect\(\)\)" \
		"$out" "an address rule: by plain connect too"
	assert_match "HTTPS_PROXY=http://127.0.0.1:3128" "$out" "the variables for COMMAND"
	assert_match "NO_PROXY=localhost,127.0.0.1,::1" "$out" "NO_PROXY"
	if command -v jq >/dev/null; then
		out=$(cd "$T/work" && "$H" --allow-net registry.npmjs.org --explain=json true)
		assert_eq '"registry.npmjs.org" 443 "http://127.0.0.1:3128"' \
			"$(printf '%s' "$out" | jq -r '"\(.["allow-net"][0].rule|tojson) \(.["allow-net"][0].port) \(.proxy.url|tojson)"')" \
			"--explain=json"
	fi
	(cd "$T/work" && "$H" --allow-net localhost:0 true) 2>"$T/err" || rc=$?
	assert_eq 125 "$rc" "a bad rule"
	assert_eq "hutch: parse: --allow-net localhost:0: the port is not a number from 1 to 65535 or *" \
		"$(cat "$T/err")" "its message names the option"
	rc=0
	(cd "$T/work" && "$H" --profile net-client --allow-net example.com true) 2>"$T/err" || rc=$?
	assert_eq 125 "$rc" "--allow-net with a shared network"
	assert_match "^hutch: parse: --allow-net example.com \(command line\): needs a network namespace of the sandbox's own" \
		"$(cat "$T/err")" "says why"
}
