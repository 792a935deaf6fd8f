# Helpers shared by the benchmark scripts (sourced by tests/bench/net.sh
# and tests/bench/pty.sh).

# seconds_of CMD...: the wall-clock seconds CMD takes, its input empty and
# its output discarded.
seconds_of() {
	local start end
	start=$(date +%s.%N)
	"$@" </dev/null >/dev/null 2>&1
	end=$(date +%s.%N)
	awk -v s="$start" -v e="$end" 'BEGIN { printf "%.3f\n", e - s }'
}
