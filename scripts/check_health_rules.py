#!/usr/bin/env python3
"""Checks that every health flag rule the service can raise is documented in docs/health.md.

The rules are the string literals that are whole rule ids ("family.name") in
inventory/src/health/rules.cpp (the policy table), in
workflows/src/health_sweep/sweep_decisions.cpp (the out-of-band sweep's findings) and in
workflows/include/workflows/health_actions.hpp (a failed burn-in rerun). Each must start a row of a table in docs/health.md ("| `id` |"), so an
operator reading a flag finds its signal, threshold, source and action. Rows naming an id the
code no longer raises are reported too. Exit status 0 when all is well."""
import pathlib
import re
import sys

ROOT = pathlib.Path(__file__).resolve().parent.parent
# Rule families: an id is a rule only when its prefix is one of these (tables of other things,
# e.g. API fields, do not count).
FAMILIES = ("nvidia", "trend", "peer", "learned", "node", "xid", "repeat", "bmc", "silent",
            "burn_in")
# A string literal that is a whole rule id ("learned.ecc_rate"; not one inside a longer text).
ID_LITERAL = re.compile(r'"((?:%s)\.[a-z0-9_.]+)"' % "|".join(FAMILIES))
SOURCES = [ROOT / "inventory/src/health/rules.cpp",
           ROOT / "workflows/src/health_sweep/sweep_decisions.cpp",
           ROOT / "workflows/include/workflows/health_actions.hpp"]
DOC = ROOT / "docs/health.md"
# A table row documenting a rule: | `nvidia.remap_pending` | ...
ROW = re.compile(r"^\|\s*`([a-z0-9_]+\.[a-z0-9_.]+)`\s*\|", re.M)


def main() -> int:
    code = set()
    for path in SOURCES:
        code.update(ID_LITERAL.findall(path.read_text()))
    documented = {r for r in ROW.findall(DOC.read_text()) if r.split(".")[0] in FAMILIES}
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
