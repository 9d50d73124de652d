#!/usr/bin/env python3
"""The most nodes whose firmware updates overlapped, counted from the BMCs' own records (the
simulator's per-BMC `sideEffects`, docs/simulator.md), never from the service's rows: a node is
in flight from its first `firmware_update` of the period to its last record of the period (the
update's `firmware_applied`, resets, the quick check's boot).

Usage: bmc_in_flight.py AFTER.json [BEFORE.json]
  AFTER, BEFORE  [{"id", "rack", "effects": [...]}] (the simulator's GET /bmcs/{id}); with
                 BEFORE, only the records after it count (one phase or one campaign).
Prints {"global", "per_rack", "nodes", "updates", "nodes_updated_twice"}.
"""
import json
import sys
from collections import defaultdict


def since(after, before):
    mark = {b["id"]: max((e["seq"] for e in b["effects"] or []), default=0) for b in before}
    return [dict(b, effects=[e for e in b["effects"] or [] if e["seq"] > mark.get(b["id"], 0)])
            for b in after]


def most(windows):
    """The most windows [from, to] that hold one instant (a start meets an end: both count)."""
    edges = sorted([(w[0], 0) for w in windows] + [(w[1], 1) for w in windows])
    now = best = 0
    for _, kind in edges:
        now += 1 if kind == 0 else -1
        best = max(best, now)
    return best


def main():
    if len(sys.argv) not in (2, 3):
        sys.exit(__doc__)
    bmcs = json.load(open(sys.argv[1]))
    if len(sys.argv) == 3:
        bmcs = since(bmcs, json.load(open(sys.argv[2])))
    windows, per_rack, updates, twice = [], defaultdict(list), 0, 0
    for b in bmcs:
        effects = b["effects"] or []
        starts = [e["at"] for e in effects if e["kind"] == "firmware_update"]
        if not starts:
            continue
        keys = [e["key"] for e in effects if e["kind"] == "firmware_update"]
        updates += len(keys)
        twice += len(keys) != len(set(keys))
        w = (min(starts), max(e["at"] for e in effects))
        windows.append(w)
        per_rack[b["rack"]].append(w)
    print(json.dumps({"global": most(windows),
                      "per_rack": max((most(ws) for ws in per_rack.values()), default=0),
                      "nodes": len(windows), "updates": updates, "nodes_updated_twice": twice}))


if __name__ == "__main__":
    main()
