# Starts and stops a throwaway PostgreSQL 15 cluster under a folder, on a free loopback port.
# Sourced by scripts/test and bench/*/run; `pg_start DIR` exports PG_ADMIN_URL.
# PG_EXTRA_OPTS adds server settings (e.g. "-c shared_buffers=2GB").
PG_BIN=${PG_BIN:-/usr/lib/postgresql/15/bin}

# PostgreSQL refuses to run as root: as root, run its tools as the 'postgres' user.
pg_as_owner() {
  if [ "$(id -u)" -eq 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi
}

pg_free_port() {
  # Below the kernel's ephemeral range: a port from inside it can be taken, between this check
  # and the bind, by the local end of any outgoing connection (the suite makes thousands).
  local port low
  read -r low _ </proc/sys/net/ipv4/ip_local_port_range 2>/dev/null || low=32768
  [ "$low" -gt 12000 ] || low=32768
  for _ in $(seq 1 50); do
    port=$((10000 + RANDOM % (low - 10000)))
    (echo >"/dev/tcp/127.0.0.1/$port") 2>/dev/null || { echo "$port"; return 0; }
  done
  return 1
}

pg_start() {
  PG_DIR=$1
  mkdir -p "$PG_DIR"
  [ "$(id -u)" -eq 0 ] && chown postgres: "$PG_DIR"
  pg_as_owner "$PG_BIN/initdb" -D "$PG_DIR/data" -U postgres -A trust --no-sync -E UTF8 >"$PG_DIR/initdb.log" 2>&1 ||
    { cat "$PG_DIR/initdb.log"; return 1; }
  PG_PORT=$(pg_free_port)
  pg_as_owner "$PG_BIN/pg_ctl" -D "$PG_DIR/data" -l "$PG_DIR/server.log" -w -t 60 start \
    -o "-p $PG_PORT -k $PG_DIR -c listen_addresses=127.0.0.1 -c fsync=off -c synchronous_commit=off -c full_page_writes=off -c max_connections=300 ${PG_EXTRA_OPTS:-}" >/dev/null ||
    { cat "$PG_DIR/server.log"; return 1; }
  export PG_PORT PG_DIR
  export PG_ADMIN_URL="postgresql://postgres@127.0.0.1:$PG_PORT/postgres"
}

pg_stop() {
  [ -n "${PG_DIR:-}" ] && [ -d "$PG_DIR/data" ] || return 0
  pg_as_owner "$PG_BIN/pg_ctl" -D "$PG_DIR/data" -m immediate -w stop >/dev/null 2>&1 || true
}
