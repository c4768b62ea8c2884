#!/bin/bash
# Network faults against none at n = 10⁶ on many cores (issue #34's speed criterion; bench/RESULTS.md
# "Network faults on 16 cores, deciding late"): loss 0.3 (two-way) and churn keeping 10 % of the nodes
# offline (geometric sessions: synchronous 4500/500 rounds, asynchronous 9·10⁶/10⁶ events).
#   A. asynchronous, the parallel executor alone (bench async --serial=false, which times it under the
#      model and without faults side by side in one process) on WS workers (default "4 8 16"), with the
#      model's events decided by the workers that run them (--decide-from 2) and by the serial window
#      builder (--decide-from 1000), interleaved, REPS runs each (default 3);
#   B. synchronous, the reduced schedule: bench sync over rounds 2..IT+1 (default 20 000) and whole runs
#      of the HORIZONS rounds (default "200000"), none and faults interleaved in separate processes, on
#      1 and W workers (default 16; the whole runs on W only), REPS runs each.
# BENCH=path: a static build of cmd/bench (default: build this tree's into $OUT). Writes one JSON line a
# run to $OUT/results.jsonl (OUT defaults to ./out-scaling-faults), and prints the medians with python3
# when there is one (bench/summarize_faults.py RESULTS). About 4 minutes on 16 cores.
set -uo pipefail
OUT=${OUT:-./out-scaling-faults}; mkdir -p "$OUT"
N=${N:-1000000}; IT=${IT:-20000}; EV=${EV:-20000000}; REPS=${REPS:-3}; W=${W:-16}; WS=${WS:-"4 8 16"}
HORIZONS=${HORIZONS:-200000}
BIN=${BENCH:-$OUT/bench}
if [ -z "${BENCH:-}" ]; then CGO_ENABLED=0 go build -o "$BIN" ./cmd/bench || exit 1; fi
R=$OUT/results.jsonl; : > "$R"
nproc > "$OUT/nproc.txt"; lscpu > "$OUT/lscpu.txt" 2>&1 || true
run() { # label, command...
  local l=$1; shift
  local j; j=$(timeout 120 "$@" --json 2>>"$OUT/stderr.txt" | tr -d "\n")
  echo "{\"label\":\"$l\",\"out\":${j:-null}}" >> "$R"
}
SCH="geometric:up=4500,down=500"
ACH="geometric:up=9000000,down=1000000"
for r in $(seq "$REPS"); do
  for w in $WS; do
    for from in 2 1000; do
      run "async-w$w-from$from" "$BIN" async --n "$N" --events "$EV" --workers "$w" --serial=false \
        --decide-from "$from" --loss 0.3 --churn "$ACH"
    done
  done
done
for r in $(seq "$REPS"); do
  for w in 1 "$W"; do
    run "sync-none-w$w" "$BIN" sync --n "$N" --iters "$IT" --workers "$w" --triad-n 100000
    run "sync-faults-w$w" "$BIN" sync --n "$N" --iters "$IT" --workers "$w" --triad-n 100000 --loss 0.3 --churn "$SCH"
  done
  for h in $HORIZONS; do
    run "run-none-$h-w$W" "$BIN" sync --n "$N" --iters "$h" --workers "$W" --triad-n 100000
    run "run-faults-$h-w$W" "$BIN" sync --n "$N" --iters "$h" --workers "$W" --triad-n 100000 --loss 0.3 --churn "$SCH"
  done
done
echo done > "$OUT/done.txt"
if command -v python3 >/dev/null; then python3 "$(dirname "$0")/summarize_faults.py" "$R"; fi
