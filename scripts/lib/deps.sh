# Installs the Debian 12 packages the build, tests and demo need, when any is missing.
# Sourced by scripts/test and scripts/demo.
PROVISIONER_PACKAGES=(
  g++ cmake ninja-build pkg-config git ca-certificates
  libcurl4-openssl-dev nlohmann-json3-dev libssl-dev libpqxx-dev libcpp-httplib-dev
  libspdlog-dev libevent-dev catch2 lld ccache postgresql-15 postgresql-client-15 wrk curl jq
  libhowardhinnant-date-dev libyaml-cpp-dev openssl
  prometheus dpkg-dev python3 python3-yaml
)
# python3: the chaos harness's forwarder and its in-flight count (tests: chaos_small).
# python3-yaml: scripts/check_openapi.py (tests: openapi_matches_routes).
# prometheus: its promtool lints /metrics (tests: install_layout). dpkg-dev: dpkg-shlibdeps, which
# CPack uses for the .deb's Depends (scripts/package). Debian 12 has no OpenAPI validator package
# (apt-cache knows no python3-openapi-spec-validator): the openapi_spec_valid test runs where
# the Python module is installed (pip install openapi-spec-validator) and is skipped elsewhere.

ensure_packages() {
  local missing=()
  for p in "${PROVISIONER_PACKAGES[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
  done
  [ ${#missing[@]} -eq 0 ] && return 0
  echo "Installing missing packages: ${missing[*]}"
  local sudo=""
  [ "$(id -u)" -eq 0 ] || sudo="sudo"
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}"
}
