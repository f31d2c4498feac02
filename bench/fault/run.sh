#!/usr/bin/env bash
# Builds the server and the fault tool, starts a PostgreSQL instance and a
# Redis of its own, two server processes (node A and node B) on them, and
# runs the tool: signed webhook load round-robin over both nodes, an
# outbound webhook subscription to the tool's receiver, a campaign against
# the tool's Graph API fake, /ws clients on both nodes.
#
#   bench/fault/run.sh [fault|soak] [tool flags...]
#
#   fault  (default) DURATION (60s) at RATE (2000) POST/s; KILL_AT (15s):
#          kill -9 node A, restart it DOWNTIME (2) s later; REDIS_AT (30s):
#          restart Redis (empty); PG_AT (45s): pg_ctl restart -m fast.
#          Reports lost/duplicated messages, outbound deliveries, campaign
#          sends, /ws coverage; exit status 3 on any defect.
#   soak   SOAK_DURATION (10m) at RATE, no faults: per-node RSS first vs
#          last minute, goroutines before/after, ack p99 per minute; exit
#          status 3 on a defect (RSS growth > 10%, goroutines > +20, lost...).
#
# Environment: DURATION, SOAK_DURATION, RATE, KILL_AT, REDIS_AT, PG_AT,
# DOWNTIME, RECIPIENTS (5000; soak 40000), TIER (TIER_100K: 80/s), WARMUP
# (soak: 30s before the first minute of RSS), FAULT_DIR (default
# /tmp/switchboard-fault), FAULT_PG_PORT (5440), FAULT_REDIS_PORT (6392),
# FAULT_PORT (18280: node A; node B is +1), FAULT_FAKE_PORT (18290),
# FAULT_RECEIVER_PORT (18291), SERVER_SRC (the source tree the servers are
# built from, default this repository), SERVER_ENV (extra NAME=value
# settings for the servers), LOG_LEVEL (warn), PG_STATS (1: record
# pg_stat_statements and write the top statements to FAULT_DIR/pg-top.txt),
# PG_MAX_WAL_SIZE (PostgreSQL's max_wal_size, for example 8GB; default
# PostgreSQL's 1GB),
# PPROF (1: each node serves /debug/pprof/ on its port + 1000).
# Extra arguments go to the tool (for example -json).
#
# PostgreSQL and Redis are instances of their own on side ports (data in
# FAULT_DIR), so that restarting them disturbs nothing else on the machine.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
export FAULT_DIR=${FAULT_DIR:-/tmp/switchboard-fault}
export FAULT_PG_PORT=${FAULT_PG_PORT:-5440}
export FAULT_REDIS_PORT=${FAULT_REDIS_PORT:-6392}
export FAULT_PORT=${FAULT_PORT:-18280}
export FAULT_FAKE_PORT=${FAULT_FAKE_PORT:-18290}
export FAULT_RECEIVER_PORT=${FAULT_RECEIVER_PORT:-18291}
export DOWNTIME=${DOWNTIME:-2}
export DATABASE_URL="postgres://postgres@127.0.0.1:$FAULT_PG_PORT/switchboard?sslmode=disable"
export REDIS_URL="redis://127.0.0.1:$FAULT_REDIS_PORT/0"
export ADMIN_EMAIL=bench@example.com
export ADMIN_PASSWORD=bench-password-not-secret
pg_bin=${PG_BIN:-/usr/lib/postgresql/15/bin}
pg_root=$FAULT_DIR/pg # owned by postgres when run as root: the data and the log
pg_data=$pg_root/data
pg_log=$pg_root/pg.log
server_bin=$FAULT_DIR/switchboard

log() { echo "run.sh: $(date -u +%H:%M:%S.%3N) $*" >&2; }

# as_postgres runs a PostgreSQL tool as the postgres user when this script
# runs as root (initdb and postgres refuse root).
as_postgres() {
  if [ "$(id -u)" = 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi
}

pg_ctl() { as_postgres "$pg_bin/pg_ctl" -D "$pg_data" -w -t 60 "$@"; }

init_pg() {
  pg_stop
  rm -rf "$pg_root"
  mkdir -p "$pg_data"
  if [ "$(id -u)" = 0 ]; then chown -R postgres:postgres "$pg_root"; fi
  as_postgres "$pg_bin/initdb" -D "$pg_data" -U postgres --auth=trust -E UTF8 --locale=C >/dev/null
  cat >>"$pg_data/postgresql.conf" <<CONF
port = $FAULT_PG_PORT
listen_addresses = '127.0.0.1'
unix_socket_directories = '$pg_data'
max_connections = 200
fsync = on
CONF
  if [ -n "${PG_STATS:-}" ]; then
    echo "shared_preload_libraries = 'pg_stat_statements'" >>"$pg_data/postgresql.conf"
  fi
  if [ -n "${PG_MAX_WAL_SIZE:-}" ]; then
    echo "max_wal_size = '$PG_MAX_WAL_SIZE'" >>"$pg_data/postgresql.conf"
  fi
  pg_ctl -l "$pg_log" start >/dev/null
  "$pg_bin/createdb" -h 127.0.0.1 -p "$FAULT_PG_PORT" -U postgres switchboard
  if [ -n "${PG_STATS:-}" ]; then
    "$pg_bin/psql" -q -h 127.0.0.1 -p "$FAULT_PG_PORT" -U postgres -d switchboard -c 'CREATE EXTENSION pg_stat_statements'
  fi
}

# pg_top writes the statements that took PostgreSQL the most time to
# FAULT_DIR/pg-top.txt (PG_STATS=1 only).
pg_top() {
  [ -n "${PG_STATS:-}" ] || return 0
  "$pg_bin/psql" -h 127.0.0.1 -p "$FAULT_PG_PORT" -U postgres -d switchboard -X -c "
    SELECT round(total_exec_time) AS total_ms, calls, round(mean_exec_time::numeric, 3) AS mean_ms, rows,
           shared_blks_hit + shared_blks_read AS blocks,
           left(regexp_replace(query, '\\s+', ' ', 'g'), 160) AS query
    FROM pg_stat_statements ORDER BY total_exec_time DESC LIMIT 25" >"$FAULT_DIR/pg-top.txt" 2>&1 || true
  log "PostgreSQL's top statements: $FAULT_DIR/pg-top.txt"
}

pg_stop() {
  [ -f "$pg_data/postmaster.pid" ] && pg_ctl stop -m fast >/dev/null 2>&1 || true
}

start_redis() {
  mkdir -p "$FAULT_DIR/redis"
  redis-server --daemonize yes --bind 127.0.0.1 --port "$FAULT_REDIS_PORT" --save "" --appendonly no \
    --dir "$FAULT_DIR/redis" --logfile "$FAULT_DIR/redis.log" --pidfile "$FAULT_DIR/redis.pid"
  for _ in $(seq 1 50); do
    [ "$(redis-cli -p "$FAULT_REDIS_PORT" ping 2>/dev/null)" = PONG ] && return 0
    sleep 0.1
  done
  log "Redis did not start on port $FAULT_REDIS_PORT"; return 1
}

stop_redis() {
  redis-cli -p "$FAULT_REDIS_PORT" shutdown nosave >/dev/null 2>&1 || true
  for _ in $(seq 1 50); do
    redis-cli -p "$FAULT_REDIS_PORT" ping >/dev/null 2>&1 || return 0
    sleep 0.1
  done
}

node_port() { if [ "$1" = a ]; then echo "$FAULT_PORT"; else echo $((FAULT_PORT + 1)); fi; }

# start_node a|b: node A on FAULT_PORT, node B on FAULT_PORT+1; same
# database, Redis, data directory and secrets.
start_node() {
  local n=$1 port; port=$(node_port "$1")
  (
    cd "$FAULT_DIR"
    LISTEN_ADDR=127.0.0.1:$port DATA_DIR=$FAULT_DIR/data LOG_LEVEL=${LOG_LEVEL:-warn} COOKIE_SECURE=false HTTP_MAX_CONNS_PER_ADDRESS=${HTTP_MAX_CONNS_PER_ADDRESS:-4096} \
      PUBLIC_URL=http://127.0.0.1:$port PROVIDER_BASE_URL=http://127.0.0.1:$FAULT_FAKE_PORT \
      JWT_SECRET=fault-bench-jwt-secret-not-secret ENCRYPTION_KEY=fault-bench-encryption-key-not-secret \
      OUTBOUND_ALLOW_PRIVATE=true PPROF_ADDR=${PPROF:+127.0.0.1:$((port + 1000))} \
      ${SERVER_ENV:+env $SERVER_ENV} nohup "$server_bin" >>"$FAULT_DIR/node-$n.log" 2>&1 &
    echo $! >"$FAULT_DIR/node-$n.pid"
  )
  for _ in $(seq 1 600); do
    curl -fs "http://127.0.0.1:$port/healthz" >/dev/null 2>&1 && return 0
    kill -0 "$(cat "$FAULT_DIR/node-$n.pid")" 2>/dev/null || { log "node $n exited; see $FAULT_DIR/node-$n.log"; return 1; }
    sleep 0.1
  done
  log "node $n not healthy after 60 s"; return 1
}

stop_node() {
  local f=$FAULT_DIR/node-$1.pid
  [ -f "$f" ] || return 0
  local pid; pid=$(cat "$f")
  rm -f "$f"
  kill -CONT "$pid" 2>/dev/null || true # the campaign's start may have stopped it
  kill -TERM "$pid" 2>/dev/null || return 0
  for _ in $(seq 1 100); do kill -0 "$pid" 2>/dev/null || return 0; sleep 0.1; done
  kill -9 "$pid" 2>/dev/null || true
}

# Fault actions, run by the tool (-fault) through this script.
case "${1:-}" in
  _kill_a)
    pid=$(cat "$FAULT_DIR/node-a.pid")
    kill -9 "$pid"
    # A killed node stays a zombie until its parent (init) reaps it.
    while kill -0 "$pid" 2>/dev/null && [ "$(cut -d' ' -f3 "/proc/$pid/stat" 2>/dev/null)" != Z ]; do sleep 0.05; done
    log "node A ($pid) killed with SIGKILL; restarting it in $DOWNTIME s"
    sleep "$DOWNTIME"
    start_node a
    log "node A restarted as $(cat "$FAULT_DIR/node-a.pid")"
    exit 0 ;;
  _redis_restart)
    stop_redis
    log "Redis on port $FAULT_REDIS_PORT stopped; starting it again (empty)"
    start_redis
    log "Redis up again"
    exit 0 ;;
  _pg_restart)
    log "restarting PostgreSQL (pg_ctl restart -m fast)"
    pg_ctl -l "$pg_log" restart -m fast >/dev/null
    log "PostgreSQL up again"
    exit 0 ;;
esac

mode=${1:-fault}
shift || true
case "$mode" in
  fault|soak) ;;
  *) echo "usage: $0 [fault|soak] [tool flags...]" >&2; exit 2 ;;
esac

mkdir -p "$FAULT_DIR"
log "building the server and the tool"
(cd "${SERVER_SRC:-$root}" && go build -o "$server_bin" .)
(cd "$root" && go build -o "$FAULT_DIR/fault" ./bench/fault)

cleanup() { stop_node a; stop_node b; stop_redis; pg_stop; }
trap cleanup EXIT
cleanup
rm -rf "$FAULT_DIR/data" "$FAULT_DIR"/node-*.log
log "fresh PostgreSQL in $pg_data on port $FAULT_PG_PORT"
init_pg
start_redis
# Node A first: it migrates the fresh database alone.
start_node a
start_node b
log "node A $(cat "$FAULT_DIR/node-a.pid") on $(node_port a), node B $(cat "$FAULT_DIR/node-b.pid") on $(node_port b)"

mode_args=()
case "$mode" in
  fault)
    recipients=${RECIPIENTS:-5000}
    mode_args=(-duration "${DURATION:-60s}"
      -fault "${KILL_AT:-15s}=kill -9 node A=$here/run.sh _kill_a"
      -fault "${REDIS_AT:-30s}=restart Redis=$here/run.sh _redis_restart"
      -fault "${PG_AT:-45s}=restart PostgreSQL=$here/run.sh _pg_restart") ;;
  soak)
    # 40,000 recipients at 80/s keep the campaign sending for most of 10
    # minutes; it is cancelled at the load's end.
    recipients=${RECIPIENTS:-40000}
    mode_args=(-soak -duration "${SOAK_DURATION:-10m}" -warmup "${WARMUP:-30s}") ;;
esac

status=0
"$FAULT_DIR/fault" -nodes "http://127.0.0.1:$(node_port a),http://127.0.0.1:$(node_port b)" \
  -pid-files "$FAULT_DIR/node-a.pid,$FAULT_DIR/node-b.pid" -db "$DATABASE_URL" \
  -rate "${RATE:-2000}" -recipients "$recipients" -tier "${TIER:-TIER_100K}" \
  -fake-addr "127.0.0.1:$FAULT_FAKE_PORT" -receiver-addr "127.0.0.1:$FAULT_RECEIVER_PORT" \
  "${mode_args[@]}" "$@" || status=$?
pg_top
exit $status
