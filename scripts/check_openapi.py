#!/usr/bin/env python3
"""Checks docs/openapi.yaml against the code and against docs/api.md.

- The file parses and says `openapi: 3.0.x`; validated against the OpenAPI 3.0 schema too when
  openapi-spec-validator is installed.
- Every route the service registers (`{Method::kGet, "/api/v1/...", "name", Permission::kX, ...}`
  in provisioner/src/api/*.cpp, a call spanning lines included, and the `RouteSpec` helpers of
  provisioner/src/http/ such as metricsRoute) is in openapi.yaml with its method, and every
  openapi operation is a registered route.
- Every operation names its roles (`x-required-role`), and they are the roles the code grants
  the route's permission (provisioner/src/http/rbac.cpp; `[]` for public routes).
- Every endpoint in the prose of api.md is in openapi.yaml, and every registered route is in
  api.md.
Needs PyYAML (Debian: python3-yaml). Exit status 0 when all is well."""
import pathlib
import re
import sys

import yaml

ROOT = pathlib.Path(__file__).resolve().parent.parent
METHODS = ("get", "post", "put", "patch", "delete")
API_SOURCES = ROOT / "provisioner/src/api"
HTTP_SOURCES = ROOT / "provisioner/src/http"
RBAC = HTTP_SOURCES / "rbac.cpp"

# {Method::kGet, "/api/v1/x", "x.get", Permission::kReadInventory, ...}, also as
# `http::RouteSpec upload{Method::kPut, ...}` and with `http::` qualifiers, across lines. The path
# is a literal, a string constant of the file (`base`), or a constant plus a literal
# (`base + "/{po_number}"`).
ROUTE_BRACE = re.compile(
    r"\{\s*(?:http::)?Method::k(\w+)\s*,\s*"
    r"(\"[^\"]+\"|\w+(?:\s*\+\s*\"[^\"]*\")?)\s*,\s*\"([^\"]*)\"\s*,"
    r"\s*(?:http::)?Permission::k(\w+)")
# `const std::string base = "/api/v1/x";`, `constexpr const char* kPath = "/api/v1/x";`
STRING_CONSTANT = re.compile(
    r"(?:const\s+std::string|constexpr\s+(?:const\s+)?char\s*\*\s*(?:const\s+)?|"
    r"constexpr\s+std::string_view)\s*(\w+)\s*=\s*\"([^\"]*)\"\s*;")
# A RouteSpec built field by field in a helper (`RouteSpec metricsRoute(...)`).
ROUTE_HELPER = re.compile(r"RouteSpec\s+(\w+)\s*\(")
FIELD = re.compile(r"\.(method|pattern|permission)\s*=\s*(?:http::)?"
                   r"(?:Method::k(\w+)|\"([^\"]+)\"|Permission::k(\w+))\s*;")
GRANT = re.compile(r"\{\s*Permission::k(\w+)\s*,\s*Role::k(\w+)\s*\}")


def strip_comments(source: str) -> str:
    source = re.sub(r"/\*.*?\*/", "", source, flags=re.S)
    return re.sub(r"//[^\n]*", "", source)


def helper_routes():
    """RouteSpec-returning helpers in provisioner/src/http: name -> (method, path, permission)."""
    helpers = {}
    for path in sorted(HTTP_SOURCES.glob("*.cpp")):
        source = strip_comments(path.read_text())
        for match in ROUTE_HELPER.finditer(source):
            body_start = source.find("{", match.end())
            if body_start < 0:
                continue
            # The function body: up to the matching closing brace.
            depth, end = 0, body_start
            for end in range(body_start, len(source)):
                if source[end] == "{":
                    depth += 1
                elif source[end] == "}":
                    depth -= 1
                    if depth == 0:
                        break
            fields = {}
            for field, method, pattern, permission in FIELD.findall(source[body_start:end]):
                fields.setdefault(field, method or pattern or permission)
            if {"method", "pattern"} <= fields.keys():
                helpers[match.group(1)] = (fields["method"].lower(), fields["pattern"],
                                           fields.get("permission", "Public"))
    return helpers


def path_of(expression: str, constants: dict):
    """The path a route's C++ path expression stands for, or None when it cannot tell."""
    parts = [part.strip() for part in expression.split("+")]
    out = ""
    for part in parts:
        if part.startswith('"') and part.endswith('"'):
            out += part[1:-1]
        elif part in constants:
            out += constants[part]
        else:
            return None
    return out


def registered_routes():
    """(method, path) -> (permission, source file) for every route the API code registers."""
    helpers = helper_routes()
    routes = {}
    for path in sorted(API_SOURCES.glob("*.cpp")):
        source = strip_comments(path.read_text())
        constants = dict(STRING_CONSTANT.findall(source))
        for method, expression, _name, permission in ROUTE_BRACE.findall(source):
            pattern = path_of(expression, constants)
            if pattern is None:
                routes[(method.lower(), "?" + expression)] = ("unparsed", path.name)
                continue
            routes[(method.lower(), pattern)] = (permission, path.name)
        for helper in re.findall(r"addRoute\(\s*(?:http::)?(\w+)\s*\(", source):
            if helper in helpers:
                method, pattern, permission = helpers[helper]
                routes[(method, pattern)] = (permission, path.name)
    return routes


def granted_roles():
    """Permission name -> the roles rbac.cpp grants it."""
    grants = {}
    for permission, role in GRANT.findall(strip_comments(RBAC.read_text())):
        grants.setdefault(permission, set()).add(role.lower())
    grants["Public"] = set()
    return grants


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
    operations = {(m, p) for p, item in paths.items() for m in METHODS if m in item}
    documented = documented_endpoints(api_md)

    for method, path in sorted(documented):
        if path not in paths:
            problems.append(f"{method.upper()} {path}: in api.md, path missing from openapi.yaml")
        elif method not in paths[path]:
            problems.append(f"{method.upper()} {path}: in api.md, method missing from openapi.yaml")

    routes = registered_routes()
    if not routes:
        problems.append(f"no routes found in {API_SOURCES.relative_to(ROOT)}: the parser is stale")
    grants = granted_roles()
    for (method, path), (permission, source) in sorted(routes.items()):
        where = f"{method.upper()} {path} ({source})"
        if permission == "unparsed":
            problems.append(f"{where}: route path expression not understood by this script")
            continue
        if (method, path) not in operations:
            problems.append(f"{where}: registered by the code, missing from openapi.yaml")
        if (method, path) not in documented:
            problems.append(f"{where}: registered by the code, missing from api.md")
        if permission not in grants:
            problems.append(f"{where}: permission {permission} has no grants in rbac.cpp")
    for method, path in sorted(operations - routes.keys()):
        problems.append(f"{method.upper()} {path}: in openapi.yaml, not registered by the code")

    for path, item in paths.items():
        for method in METHODS:
            op = item.get(method)
            if op is None:
                continue
            roles = op.get("x-required-role")
            if roles is None:
                problems.append(f"{method.upper()} {path}: no x-required-role")
                continue
            route = routes.get((method, path))
            if route is None or route[0] not in grants:
                continue
            expected = grants[route[0]]
            if not isinstance(roles, list) or set(roles) != expected:
                problems.append(f"{method.upper()} {path}: x-required-role {roles} but the code "
                                f"grants {route[0]} to {sorted(expected)}")

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
    print(f"{len(paths)} paths, {len(operations)} operations, {len(routes)} registered routes, "
          f"{len(documented)} endpoints in api.md; {len(problems)} problems")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
