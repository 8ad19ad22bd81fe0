#!/usr/bin/env python3
"""The per-day counts of a study.mk receipt that docs/headline-studies.md tabulates.

usage: tests/bench/study-days.py EVIDENCE.json [BASELINE]

EVIDENCE.json is a study's `evidence.json` (pipelines/study-evidence.sh: holdout or adaptive);
BASELINE the FIFO arm (default: each window's `baseline_action_id`). For each partition, in
the order the receipt lists them, one Markdown row: windows; days on which the arms'
allocation differs (any two `allocation_rate_mean` apart by more than 1e-12); days with a Spot
eviction in any arm (`spot_eviction_rate_per_run` > 0); days on which the baseline fails the
HP p95 queue limit (`hp-p95-queue-seconds` among its failed constraints); days on which the
baseline passes every hard SLO; days without any arm passing every hard SLO (infeasible).
The script reads the receipt only.
"""
import json
import sys

QUEUE = "hp-p95-queue-seconds"


def main(argv):
    if not 1 <= len(argv) <= 2:
        sys.exit("usage: study-days.py EVIDENCE.json [BASELINE]")
    try:
        with open(argv[0], encoding="utf-8") as f:
            ev = json.load(f)
    except (OSError, json.JSONDecodeError) as e:
        sys.exit(f"study-days: {argv[0]}: {e}")
    parts = {}
    for w in ev.get("windows", []):
        parts.setdefault(w["partition"], []).append(w)
    if not parts:
        sys.exit(f"study-days: {argv[0]}: no windows")
    rows = []
    for name, ws in parts.items():
        differ = evict = queue = fifo_ok = infeasible = 0
        for w in ws:
            base = argv[1] if len(argv) == 2 else w["baseline_action_id"]
            pol = w["policies"]
            alloc = [p["allocation_rate_mean"] for p in pol if p.get("allocation_rate_mean") is not None]
            differ += bool(alloc) and max(alloc) - min(alloc) > 1e-12
            evict += any((p.get("spot_eviction_rate_per_run") or 0) > 0 for p in pol)
            b = [p for p in pol if p["action_id"] == base]
            if not b:
                sys.exit(f"study-days: {argv[0]}: window {w['window_id']} has no arm {base}")
            queue += QUEUE in b[0]["failed_constraint_ids"]
            fifo_ok += b[0]["hard_slo_passed"]
            infeasible += not any(p["hard_slo_passed"] for p in pol)
        rows.append(f"| {name} | {len(ws)} | {differ} | {evict} | {queue} | {fifo_ok} | {infeasible} |")
    print("| partition | days | arms allocate differently | Spot eviction in any arm | FIFO breaks the HP p95 queue limit"
          " | FIFO passes every hard SLO | infeasible (no arm passes) |")
    print("|---|---:|---:|---:|---:|---:|---:|")
    print("\n".join(rows))


if __name__ == "__main__":
    main(sys.argv[1:])
