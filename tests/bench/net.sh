#!/bin/bash
# The --allow-net proxy's cost: 1 GiB through it against the same
# transfer without a sandbox (target: at most 1.5x the wall time), and
# the latency one proxied request adds (target: under 1 ms).  It prints
# ratios and whether each target is met; it never fails on timing.
#
#   tests/bench/net.sh [HUTCH] [ROUNDS]
#
# The server is tests/integration/tool_netserver.py on the host's
# loopback.  The transfer is curl's, to /dev/null, a plain http://
# request (the proxy relays it like a CONNECT tunnel's bytes); the best
# of ROUNDS (3) counts.  The latency is measured inside one client
# process: N requests on fresh connections, to the server directly on
# the host and through the proxy in a sandbox; the difference per
# request is what the proxy adds (the worker's accept and parse, its ask
# and the supervisor's rule check and connect from the host, the socket
# handed back, the worker's relay, close).  Rounds alternate.
#
# Beside them, a plain connect() (no proxy, connect_broker.c): curl's own
# time for the 1 GiB with the sandbox's default environment (NO_PROXY
# names localhost: curl connects itself, the supervisor connects from the
# host and installs the socket; target: at most 1.05x, no relay), and the
# latency one such connect adds: connect() and close, N times, to the
# host's server by address, directly and in a sandbox (target: under
# 0.3 ms).
set -eu
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
cd "$(dirname "$0")/../.."
hutch=$(readlink -f "${1:-./hutch}")
rounds=${2:-3}
size=$((1 << 30))
requests=${BENCH_NET_REQUESTS:-300}
dir=$(mktemp -d /tmp/hutch-bench-net.XXXXXX)
chmod 0755 "$dir"
mkdir "$dir/work"
chmod 0755 "$dir/work"

exec {srv}< <(exec python3 tests/integration/tool_netserver.py)
server=$!
trap 'kill "$server" 2>/dev/null; rm -rf "$dir"' EXIT
read -r -t 20 port _ <&"$srv"
# For the connect latency: a listener with a long backlog that accepts
# and closes (the test server's backlog of 5 would drop SYNs).
exec {acc}< <(exec python3 -c '
import socket
s = socket.socket()
s.bind(("127.0.0.1", 0))
s.listen(4096)
print(s.getsockname()[1], flush=True)
while True:
    s.accept()[0].close()')
acceptor=$!
trap 'kill "$server" "$acceptor" 2>/dev/null; rm -rf "$dir"' EXIT
read -r -t 20 aport <&"$acc"

# The client of the latency test: N fresh connections, each one request
# and its whole answer (PATH "-": the connect alone, closed at once);
# prints the seconds per request.
cat >"$dir/work/latency.py" <<'EOF'
import socket, sys, time
host, port, path, n = sys.argv[1], int(sys.argv[2]), sys.argv[3], int(sys.argv[4])
req = b"GET %s HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n" % path.encode()
def one():
    s = socket.create_connection((host, port))
    if path == "-":
        s.close()
        return
    s.sendall(req)
    while s.recv(65536):
        pass
    s.close()
for _ in range(20):
    one()
start = time.perf_counter()
for _ in range(n):
    one()
print((time.perf_counter() - start) / n)
EOF
chmod 0644 "$dir/work/latency.py"

sandbox() {
	(cd "$dir/work" && "$hutch" --profile none --ro-bind / / --proc /proc --dev /dev \
		--allow-net "localhost:$port" --allow-net "localhost:$aport" -- "$@")
}
least() { sort -g | head -1; }

# curl's own time for the transfer, sandbox start excluded.
curl_time() { "$@" -sS -o /dev/null -w '%{time_total}\n' "http://127.0.0.1:$port/bytes/$size"; }

direct_t=() proxy_t=() direct_l=() proxy_l=() curl_d=() curl_s=() connect_l=() plain_l=()
url="http://localhost:$port/bytes/$size"
for ((i = 0; i < rounds; i++)); do
	direct_t+=("$(seconds_of curl -sS -o /dev/null "http://127.0.0.1:$port/bytes/$size")")
	proxy_t+=("$(seconds_of sandbox curl -sS --noproxy '' -o /dev/null "$url")")
	direct_l+=("$(python3 "$dir/work/latency.py" 127.0.0.1 "$port" /hello "$requests")")
	proxy_l+=("$(sandbox python3 latency.py 127.0.0.1 3128 "http://localhost:$port/hello" \
		"$requests")")
	curl_d+=("$(curl_time curl)")
	curl_s+=("$(curl_time sandbox curl)")
	connect_l+=("$(python3 "$dir/work/latency.py" 127.0.0.1 "$aport" - "$requests")")
	plain_l+=("$(sandbox python3 latency.py 127.0.0.1 "$aport" - "$requests")")
done
cd_=$(printf '%s\n' "${curl_d[@]}" | least)
cs=$(printf '%s\n' "${curl_s[@]}" | least)
cl=$(printf '%s\n' "${connect_l[@]}" | least)
ql=$(printf '%s\n' "${plain_l[@]}" | least)
dt=$(printf '%s\n' "${direct_t[@]}" | least)
pt=$(printf '%s\n' "${proxy_t[@]}" | least)
dl=$(printf '%s\n' "${direct_l[@]}" | least)
pl=$(printf '%s\n' "${proxy_l[@]}" | least)

echo "--allow-net proxy (best of $rounds; $requests requests a round for latency)"
awk -v d="$dt" -v p="$pt" -v size="$size" 'BEGIN {
	printf "  1 GiB over plain HTTP: direct %.3f s (%.0f MiB/s), through the proxy %.3f s (%.0f MiB/s, sandbox start included): %.2fx\n",
		d, size / 1048576 / d, p, size / 1048576 / p, p / d
	printf "  %-74s %s\n", "target: at most 1.5x the direct transfer", (p / d <= 1.5 ? "met" : "NOT MET") }'
awk -v d="$dl" -v p="$pl" 'BEGIN {
	printf "  one request on a fresh connection: direct %.0f us, through the proxy %.0f us: %.0f us added\n",
		d * 1e6, p * 1e6, (p - d) * 1e6
	printf "  %-74s %s\n", "target: under 1 ms added per proxied request", (p - d < 0.001 ? "met" : "NOT MET") }'
echo "--allow-net, plain connect() (no proxy: the host's socket installed in the sandbox)"
awk -v d="$cd_" -v p="$cs" -v size="$size" 'BEGIN {
	printf "  1 GiB over plain HTTP, timed by curl: direct %.3f s (%.0f MiB/s), plain connect in a sandbox %.3f s (%.0f MiB/s): %.2fx\n",
		d, size / 1048576 / d, p, size / 1048576 / p, p / d
	printf "  %-74s %s\n", "target: at most 1.05x the direct transfer (no relay)", (p / d <= 1.05 ? "met" : "NOT MET") }'
awk -v d="$cl" -v p="$ql" 'BEGIN {
	printf "  one connect() and close: direct %.0f us, plain connect in a sandbox %.0f us: %.0f us added\n",
		d * 1e6, p * 1e6, (p - d) * 1e6
	printf "  %-74s %s\n", "target: under 0.3 ms added per plain connect", (p - d < 0.0003 ? "met" : "NOT MET") }'
