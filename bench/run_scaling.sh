#!/usr/bin/env bash
# Multicore scaling of the worker pool (issue #18): the synchronous round
# (reduced, blocked, plain) at n = 10⁶, d = 16, the asynchronous parallel
# executor at n = 10⁴ and 10⁶, and the whole job of `pairgossip run` at
# n = 10⁷ (bench e2e), for each worker count given, REPS runs each,
# the runs interleaved (one of every configuration, then again) so that a
# noisy minute spreads over all of them. Writes bench/results/scaling.md
# through bench/scaling_table.py.
#
# Usage: bench/run_scaling.sh [REPS] [WORKERS...]   (default: 5 1 2 4 8 16,
#        worker counts above the machine's cores skipped)
# Environment: BENCH, a bench binary to use instead of building one (for a
#   machine without Go: CGO_ENABLED=0 go build -o bench-bin/bench ./cmd/bench
#   and carry it); RAW, a folder to keep the raw JSON lines in (default: a
#   temporary one); TABLE=0 to collect only (format later with
#   python3 bench/scaling_table.py RAW > bench/results/scaling.md); PARTS,
#   some of "sync async e2e" (the default, all three), to run a part in an
#   invocation of its own with the same RAW (each part of 5 runs of 5 worker
#   counts takes 3 to 4 minutes on a 16-core machine).
# The raw lines of the committed table are in bench/results/scaling-raw.
set -euo pipefail
cd "$(dirname "$0")/.."
reps=${1:-5}
shift || true
workers=${*:-1 2 4 8 16}
cores=$(nproc)
ws=""
for w in $workers; do [ "$w" -le "$cores" ] && ws="$ws $w"; done
raw=${RAW:-$(mktemp -d)}
mkdir -p "$raw"
B=${BENCH:-}
if [ -z "$B" ]; then
	B=$raw/bench
	go build -o "$B" ./cmd/bench
fi
{
	echo "date: $(date -u +%Y-%m-%d)"
	echo "cores: $cores"
	echo "workers:$ws"
	echo "reps: $reps"
	grep -m1 'model name' /proc/cpuinfo || true
	echo "uname: $(uname -sr)"
} >"$raw/machine.txt"
one() { # one FILE CMD...: one run of CMD, its JSON object on one line of FILE
	local f=$1; shift
	"$@" | tr -d '\n' >>"$raw/$f"
	echo >>"$raw/$f"
}
parts=${PARTS:-sync async e2e}
case " $parts " in *" sync "*) sync=1 ;; *) sync=0 ;; esac
case " $parts " in *" async "*) async=1 ;; *) async=0 ;; esac
[ $sync = 1 ] && for f in sync-reduced sync-blocked sync-plain; do : >"$raw/$f.jsonl"; done
case " $parts " in *" e2e "*) e2e=1 ;; *) e2e=0 ;; esac
[ $async = 1 ] && for f in async-1e4 async-1e6; do : >"$raw/$f.jsonl"; done
[ $e2e = 1 ] && : >"$raw/e2e.jsonl"
# Reduced rounds are timed over whole blocks (B = 4000 at n = 10⁶): 16 blocks.
for r in $(seq "$reps"); do
	echo "rep $r/$reps ..." >&2
	for w in $ws; do
		if [ $sync = 1 ]; then
			one sync-reduced.jsonl "$B" sync --n 1000000 --d 16 --iters 64000 --workers "$w" --json
			one sync-blocked.jsonl "$B" sync --n 1000000 --d 16 --iters 40 --workers "$w" --schedule blocked --json
			one sync-plain.jsonl "$B" sync --n 1000000 --d 16 --iters 20 --workers "$w" --schedule plain --json
		fi
		if [ $async = 1 ]; then
			one async-1e4.jsonl "$B" async --n 10000 --d 16 --events 5000000 --workers "$w" --json
			one async-1e6.jsonl "$B" async --n 1000000 --d 16 --events 4000000 --workers "$w" --json
		fi
		if [ $e2e = 1 ]; then
			one e2e.jsonl "$B" e2e --n 10000000 --d 16 --iters 20000 --workers "$w" --json
		fi
	done
done
if [ "${TABLE:-1}" != 0 ]; then
	mkdir -p bench/results
	python3 bench/scaling_table.py "$raw" >bench/results/scaling.md
	echo "wrote bench/results/scaling.md" >&2
fi
