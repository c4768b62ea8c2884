#!/bin/bash
# Worker scaling and network faults against none at n = 10⁶, the figures of bench/RESULTS.md
# ("Multicore scaling and network faults"). Needs two static builds beside this script's working
# folder: ./bench-new (this tree: CGO_ENABLED=0 go build -o bench-new ./cmd/bench) and ./bench-old
# (the build to compare with, e.g. the commit before the engine's reshape, 2703d94). Writes one JSON
# line per run to $OUT/results.jsonl (OUT defaults to ./out). Sizes: N, IT, EV, REPS, IT3, REPS3.
# On 16 cores it takes about 8 minutes.
OUT=${OUT:-./out}; mkdir -p "$OUT"
N=${N:-1000000}; IT=${IT:-20000}; EV=${EV:-20000000}; REPS=${REPS:-5}
R=$OUT/results.jsonl
nproc > $OUT/nproc.txt; lscpu > $OUT/lscpu.txt 2>&1
run() { # label, command...
  local l=$1; shift
  local s=$(date +%s%N)
  local j=$(timeout 150 "$@" --json 2>$OUT/last.err | tr -d "\n")
  echo "{\"label\":\"$l\",\"ms\":$(( ($(date +%s%N) - s) / 1000000 )),\"out\":${j:-null}}" >> $R
}
CH="geometric:up=4500,down=500"
ACH="geometric:up=9000000,down=1000000"
# 1. sync faults vs none at 16 and 2 workers, interleaved, 5 reps (the 1.3x criterion)
for r in $(seq $REPS); do
  for w in 16 2; do
    run "sync-none-w$w" ./bench-new sync --n $N --iters $IT --workers $w --triad-n 1000000
    run "sync-faults-w$w" ./bench-new sync --n $N --iters $IT --workers $w --triad-n 1000000 --loss 0.3 --churn $CH
  done
done
# 2. async faults vs none (bench async times both side by side), 16 and 4 workers, 5 reps
for r in $(seq $REPS); do
  for w in 16 4; do
    run "async-faults-w$w" ./bench-new async --n $N --events $EV --workers $w --ceiling=false --loss 0.3 --churn $ACH
  done
done
# 3. reshape before/after, faultless, interleaved; scaling 1..16
for r in $(seq ${REPS3:-2}); do
  for w in 1 2 4 8 16; do
    for v in old new; do
      run "sync-$v-w$w" ./bench-$v sync --n $N --iters ${IT3:-10000} --workers $w --triad-n 1000000
    done
  done
  for w in 2 4 8 16; do
    for v in old new; do
      run "async-$v-w$w" ./bench-$v async --n $N --events $EV --workers $w --ceiling=false
    done
  done
done
echo done >> $OUT/done.txt
