#!/usr/bin/env bash
# Time to accuracy (bench tta): writes bench/results/tta.md, a part of bench/RESULTS.md.
#
# Usage: bench/run_tta.sh [REPS]   (default 5; called by bench/run.sh REPS tta|all)
# Bounded: every row stops at its smallest target or after --max-wall (120 s at n = 2·10⁴
# sync, 420 s for the rows at 2·10⁴ async and 10⁵, 60 s at 10⁶, where the table then says how
# far the run got), set-up and optimum included. n = 2·10⁴ (sync) runs REPS times, the other
# rows once: a row that takes minutes is not repeated, and the table says so.
set -euo pipefail
cd "$(dirname "$0")/.."
reps=${1:-5}
py=/usr/bin/python3
mkdir -p bench/results
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
go build -o "$tmp/bench" ./cmd/bench
B=$tmp/bench
cmd1="bench tta --n 20000 --algo sync --runs $reps --max-wall 120s --json"
cmd2="bench tta --n 20000,100000 --algo async --max-wall 420s --json"
cmd3="bench tta --n 100000 --algo sync --max-wall 420s --json"
cmd4="bench tta --n 1000000 --algo sync,async --max-wall 60s --json"
i=0
for c in "$cmd1" "$cmd2" "$cmd3" "$cmd4"; do
	i=$((i + 1))
	echo "tta: $c" >&2
	$B ${c#bench } >"$tmp/t$i.json"
done
model=$(lscpu | sed -n 's/^Model name: *//p' | head -1)
$py bench/tta_md.py "$(date +%F)" "$model, $(nproc) cores, $(go env GOVERSION)" "$cmd1" "$cmd2" "$cmd3" "$cmd4" -- \
	"$tmp/t1.json" "$tmp/t2.json" "$tmp/t3.json" "$tmp/t4.json" >bench/results/tta.md
echo "wrote bench/results/tta.md" >&2
