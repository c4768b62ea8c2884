#!/usr/bin/env python3
"""Medians of bench/run_scaling_faults.sh's results.jsonl (argument): faults against none."""
import json, statistics, sys

rows = [json.loads(l) for l in open(sys.argv[1]) if l.strip()]
rows = [r for r in rows if r["out"] is not None]
labels = sorted({r["label"] for r in rows})


def vals(label, key):
    return [r["out"][key] for r in rows if r["label"] == label]


for l in [l for l in labels if l.startswith("async-")]:
    fast, slow = vals(l, "faultless_events_per_s"), vals(l, "events_per_s")
    rat = [a / b for a, b in zip(fast, slow)]
    print(f"{l}: events/s none {statistics.median(fast):.3g}, faults {statistics.median(slow):.3g}: "
          f"{statistics.median(rat):.2f}x (median of {len(rat)} side-by-side ratios)")
for l in [l for l in labels if "-none-" in l]:
    f = l.replace("-none-", "-faults-")
    a, b = vals(l, "ns_per_node_update"), vals(f, "ns_per_node_update")
    if a and b:
        print(f"{l.replace('-none', '')}: ns/node update none {statistics.median(a):.4g}, faults "
              f"{statistics.median(b):.4g}: {statistics.median(b) / statistics.median(a):.2f}x (medians of {len(a)}, {len(b)})")
