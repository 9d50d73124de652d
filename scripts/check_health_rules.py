#!/usr/bin/env python3
"""Checks that every health flag rule the service can raise is documented in docs/health.md.

The rules are the ids of `ruleOf("...")` in inventory/src/health/rules.cpp (the policy table)
and of `DraftSpec ...{"..."` in workflows/src/health_sweep/sweep_decisions.cpp (the out-of-band
sweep's findings). Each must start a row of a table in docs/health.md ("| `id` |"), so an
operator reading a flag finds its signal, threshold, source and action. Rows naming an id the
code no longer raises are reported too. Exit status 0 when all is well."""
import pathlib
import re
import sys

ROOT = pathlib.Path(__file__).resolve().parent.parent
SOURCES = {
    ROOT / "inventory/src/health/rules.cpp": re.compile(r'ruleOf\(\s*"([a-z0-9_.]+)"'),
    ROOT / "workflows/src/health_sweep/sweep_decisions.cpp":
        re.compile(r'DraftSpec\s+\w*\s*\{\s*"([a-z0-9_.]+)"'),
}
DOC = ROOT / "docs/health.md"
# A table row documenting a rule: | `nvidia.remap_pending` | ...
ROW = re.compile(r"^\|\s*`([a-z0-9_]+\.[a-z0-9_.]+)`\s*\|", re.M)
# Rule families: a documented row id is a rule only when its prefix is one of these (tables of
# other things, e.g. API fields, do not count).
FAMILIES = ("nvidia.", "trend.", "peer.", "learned.", "xid.", "repeat.", "bmc.", "silent.")


def main() -> int:
    code = set()
    for path, pattern in SOURCES.items():
        code.update(pattern.findall(path.read_text()))
    documented = {r for r in ROW.findall(DOC.read_text()) if r.startswith(FAMILIES)}
    problems = [f"rule {r} is raised by the code but has no row in docs/health.md"
                for r in sorted(code - documented)]
    problems += [f"docs/health.md documents {r}, which the code does not raise"
                 for r in sorted(documented - code)]
    for p in problems:
        print(p)
    print(f"{len(code)} rules in the code, {len(documented)} documented; {len(problems)} problems")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
