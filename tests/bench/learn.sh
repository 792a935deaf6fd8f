#!/bin/bash
# The cost of --learn: hutch's own sandbox/ objects compiled (make -j2,
# gcc) under --profile ci, with --learn and without; and one launch of
# `true` with neither, so that the launch's cost without --learn is seen
# unchanged (make bench's first table measures it at length).
#
#   tests/bench/learn.sh [HUTCH] [RUNS] [FILES]
#
# The source is this checkout's HEAD (git archive), the objects the first
# FILES (all) of sandbox/*/*.c.  Runs alternate, the best of RUNS (1)
# counts.  The target is a ratio within 2.
set -eu
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

hutch=$(readlink -f "${1:-${HUTCH:-./hutch}}")
runs=${2:-1}
files=${3:-0}
top=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
dir=$(mktemp -d /tmp/hutch-bench-learn.XXXXXX)
trap 'rm -rf "$dir"' EXIT
chmod 0755 "$dir"
git -C "$top" archive HEAD | tar -x -C "$dir"
cd "$dir"
objs=$(ls sandbox/*/*.c | sed 's|^sandbox/\(.*\)\.c$|build/\1.o|')
[ "$files" -gt 0 ] && objs=$(printf '%s\n' $objs | head -n "$files")

build() { rm -rf build; "$hutch" --profile ci "$@" -- make -s -j2 $objs; }

best_a=999999 best_b=999999
for ((i = 0; i < runs; i++)); do
	a=$(seconds_of build)
	b=$(seconds_of build --learn "$dir/learned.profile")
	best_a=$(awk -v x="$a" -v y="$best_a" 'BEGIN { print (x < y) ? x : y }')
	best_b=$(awk -v x="$b" -v y="$best_b" 'BEGIN { print (x < y) ? x : y }')
done
[ -s "$dir/learned.profile" ] || { echo "learn.sh: --learn wrote no profile" >&2; exit 1; }
ratio=$(awk -v a="$best_a" -v b="$best_b" 'BEGIN { printf "%.2f", b / a }')
printf 'compiling %d files of sandbox/, best of %d:  without %.3fs   --learn %.3fs   ratio %s\n' \
	"$(printf '%s\n' $objs | wc -l)" "$runs" "$best_a" "$best_b" "$ratio"
# A benchmark reports; it never fails on timing.
if awk -v r="$ratio" 'BEGIN { exit !(r <= 2) }'; then
	echo "  --learn within 2x of without ($ratio)                                     met"
else
	echo "  --learn within 2x of without ($ratio)                                     NOT MET"
fi
