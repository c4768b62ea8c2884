#!/bin/bash
# Network faults against none at n = 10⁶ on this machine (issue #34's speed criterion), the figures
# of bench/RESULTS.md ("Network faults after the mending"). Loss 0.3 (two-way) and churn keeping
# 10 % of the nodes offline (geometric sessions: synchronous 4500/500 rounds, asynchronous 9·10⁶/10⁶
# events) against the same run without faults, interleaved, REPS runs each (default 5), medians:
#   - synchronous, the reduced schedule: bench sync over IT rounds (default 20 000) after WARM (default 1:
#     the cheap start), 1 and W workers (default 2), separate processes;
#   - asynchronous: bench async --loss 0.3 --churn … (the serial loop and the parallel executor on W
#     workers, each beside its run without faults in the same process).
# The converged horizon of the synchronous schedule (blocks after n rounds) is BenchmarkReducedNetwork:
#   PAIRGOSSIP_BENCH_N=1000000 PAIRGOSSIP_BENCH_HORIZON=1000000 go test ./engine -run X \
#     -bench 'BenchmarkReducedNetwork/n=/workers=1/(none|loss=0.3.churn)' -benchtime 5x -count 5
# HORIZONS="20000 40000 80000 200000" adds runs of those many rounds from the start (synchronous, 1
# worker, none and faults interleaved, REPS each): what the faults cost a whole run of that length.
# Run from the repository root; writes $OUT/results.jsonl (OUT defaults to ./out-faults) and prints
# the medians. About 3 minutes on 2 cores. BENCH=path times another build of cmd/bench instead of this
# tree's (e.g. an older commit's, for a before/after; it needs --warm only when WARM is not 1).
set -euo pipefail
OUT=${OUT:-./out-faults}; mkdir -p "$OUT"
N=${N:-1000000}; IT=${IT:-20000}; WARM=${WARM:-1}; EV=${EV:-20000000}; REPS=${REPS:-5}; W=${W:-2}
BIN=${BENCH:-$OUT/bench}
if [ -z "${BENCH:-}" ]; then CGO_ENABLED=0 go build -o "$BIN" ./cmd/bench; fi
WARMF=(); if [ "$WARM" != 1 ]; then WARMF=(--warm "$WARM"); fi
R=$OUT/results.jsonl; : > "$R"
nproc > "$OUT/nproc.txt"; lscpu > "$OUT/lscpu.txt" 2>&1 || true
run() { # label, command...
  local l=$1; shift
  local j; j=$("$@" --json | tr -d "\n")
  echo "{\"label\":\"$l\",\"out\":$j}" >> "$R"
}
SCH="geometric:up=4500,down=500"
ACH="geometric:up=9000000,down=1000000"
for r in $(seq "$REPS"); do
  for w in 1 "$W"; do
    run "sync-none-w$w" "$BIN" sync --n "$N" --iters "$IT" "${WARMF[@]}" --workers "$w" --triad-n 100000
    run "sync-faults-w$w" "$BIN" sync --n "$N" --iters "$IT" "${WARMF[@]}" --workers "$w" --triad-n 100000 --loss 0.3 --churn "$SCH"
  done
  run "async-w$W" "$BIN" async --n "$N" --events "$EV" --workers "$W" --ceiling=false --loss 0.3 --churn "$ACH"
  for h in ${HORIZONS:-}; do
    run "run-none-$h" "$BIN" sync --n "$N" --iters "$h" --workers 1 --triad-n 100000
    run "run-faults-$h" "$BIN" sync --n "$N" --iters "$h" --workers 1 --triad-n 100000 --loss 0.3 --churn "$SCH"
  done
done
python3 - "$R" <<'EOF'
import json, statistics, sys
rows = [json.loads(l) for l in open(sys.argv[1])]
def med(label, key):
    v = [r["out"][key] for r in rows if r["label"] == label]
    return statistics.median(v), len(v)
for w in sorted({r["label"].split("-w")[1] for r in rows if r["label"].startswith("sync")}):
    a, n = med(f"sync-none-w{w}", "ns_per_node_update")
    b, _ = med(f"sync-faults-w{w}", "ns_per_node_update")
    print(f"sync reduced, {w} worker(s): ns/node update none {a:.4g}, faults {b:.4g}: {b/a:.2f}x (medians of {n})")
for h in sorted({int(r["label"].split("-")[2]) for r in rows if r["label"].startswith("run-")}):
    a, n = med(f"run-none-{h}", "ns_per_node_update")
    b, _ = med(f"run-faults-{h}", "ns_per_node_update")
    print(f"sync run of {h} rounds from the start, 1 worker: ns/node update none {a:.4g}, faults {b:.4g}: "
          f"{b/a:.2f}x (medians of {n})")
for l in sorted({r["label"] for r in rows if r["label"].startswith("async")}):
    for what, fast, slow in (("serial loop", "faultless_serial_events_per_s", "serial_events_per_s"),
                             ("parallel executor", "faultless_events_per_s", "events_per_s")):
        a, n = med(l, fast)
        b, _ = med(l, slow)
        rat = [r["out"][fast] / r["out"][slow] for r in rows if r["label"] == l]
        print(f"async {what} ({l}): events/s none {a:.3g}, faults {b:.3g}: {statistics.median(rat):.2f}x "
              f"(median of {n} side-by-side ratios)")
EOF
