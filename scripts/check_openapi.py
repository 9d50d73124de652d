#!/usr/bin/env python3
"""Checks docs/openapi.yaml against docs/api.md: it parses, every endpoint in the prose is
described with its method, and every operation names its roles (x-required-role).
Validates against the OpenAPI 3.0 schema too when openapi-spec-validator is installed.
Needs PyYAML (Debian: python3-yaml). Exit status 0 when all is well."""
import pathlib
import re
import sys

import yaml

ROOT = pathlib.Path(__file__).resolve().parent.parent
METHODS = ("get", "post", "put", "patch", "delete")


def documented_endpoints(api_md: str):
    # "`GET /api/v1/nodes?state=...`", "`DELETE /api/v1/tokens/{id}`": method and path, no query.
    found = set()
    for method, path in re.findall(r"\b(GET|POST|PUT|PATCH|DELETE) (/[^\s`?]*)", api_md):
        found.add((method.lower(), path.rstrip(".,")))
    return found


def main() -> int:
    spec = yaml.safe_load((ROOT / "docs/openapi.yaml").read_text())
    api_md = (ROOT / "docs/api.md").read_text()
    problems = []
    if not str(spec.get("openapi", "")).startswith("3.0"):
        problems.append("openapi version is not 3.0.x")
    paths = spec.get("paths", {})
    for method, path in sorted(documented_endpoints(api_md)):
        if path not in paths:
            problems.append(f"{method.upper()} {path}: path missing from openapi.yaml")
        elif method not in paths[path]:
            problems.append(f"{method.upper()} {path}: method missing from openapi.yaml")
    for path, item in paths.items():
        for method in METHODS:
            op = item.get(method)
            if op is not None and "x-required-role" not in op:
                problems.append(f"{method.upper()} {path}: no x-required-role")
    try:
        from openapi_spec_validator import validate
    except ImportError:
        print("note: openapi-spec-validator not installed; schema validation skipped")
    else:
        try:
            validate(spec)
        except Exception as error:  # the validator's error types vary between versions
            problems.append(f"OpenAPI schema: {error}")
    for problem in problems:
        print(problem, file=sys.stderr)
    count = sum(1 for item in paths.values() for m in METHODS if m in item)
    print(f"{len(paths)} paths, {count} operations, "
          f"{len(documented_endpoints(api_md))} endpoints in api.md; {len(problems)} problems")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
