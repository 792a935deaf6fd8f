#!/bin/bash
# The cost of the --pty relay: `cat` of a 100 MiB text file on a
# terminal, through --pty and without (--no-pty), in the default sandbox.
#
#   tests/bench/pty.sh [HUTCH] [RUNS]
#
# Both runs write to a terminal (a pty of script(1), whose output goes to
# /dev/null), as a user at a terminal would see them: without --pty, cat
# writes to that terminal itself; with --pty, to hutch's inner pty, which
# hutch relays to it.  Runs alternate, the best of RUNS (5) counts.  The
# target is a ratio within 2.  For reference, the same without any outer
# terminal (stdout /dev/null) is printed too: there the baseline has no
# tty at all, so that ratio measures a pty against none.
set -eu
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

hutch=$(readlink -f "${1:-${HUTCH:-./hutch}}")
runs=${2:-5}
dir=$(mktemp -d /tmp/hutch-bench-pty.XXXXXX)
trap 'rm -rf "$dir"' EXIT
chmod 0755 "$dir"
cd "$dir"

yes 'hutch pty relay benchmark: a line of text, 0123456789 abcdefghijklmnopqrstuvwxyz' |
	head -c 100M >big.txt

on_terminal() { script -qec "$(printf '%q ' "$hutch" "$@")" /dev/null; }
no_terminal() { "$hutch" "$@"; }

# best WHERE: "NO-PTY PTY", the least seconds of each over $runs rounds.
best() {
	local where=$1 i a b best_a=999999 best_b=999999
	for ((i = 0; i < runs; i++)); do
		a=$(seconds_of "$where" --no-pty cat big.txt)
		b=$(seconds_of "$where" --pty cat big.txt)
		best_a=$(awk -v x="$a" -v y="$best_a" 'BEGIN { print (x < y) ? x : y }')
		best_b=$(awk -v x="$b" -v y="$best_b" 'BEGIN { print (x < y) ? x : y }')
	done
	echo "$best_a $best_b"
}

report() {
	awk -v label="$1" -v a="$2" -v b="$3" 'BEGIN {
		printf "%-22s --no-pty %6.3fs   --pty %6.3fs   ratio %.2f\n", label, a, b, b / a }'
}

read -r term_a term_b < <(best on_terminal)
read -r null_a null_b < <(best no_terminal)
echo "cat of 100 MiB, best of $runs:"
report "on a terminal:" "$term_a" "$term_b"
report "to /dev/null (ref.):" "$null_a" "$null_b"
ratio=$(awk -v a="$term_a" -v b="$term_b" 'BEGIN { printf "%.2f", b / a }')
# A benchmark reports; it never fails on timing.
if awk -v r="$ratio" 'BEGIN { exit !(r <= 2) }'; then
	echo "  pty relay within 2x of no pty ($ratio)                                    met"
else
	echo "  pty relay within 2x of no pty ($ratio)                                    NOT MET"
fi
