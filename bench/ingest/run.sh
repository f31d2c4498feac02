#!/usr/bin/env bash
# Builds the server and the ingest load tool, starts the server on a fresh
# PostgreSQL database and its own Redis, and loads it with signed webhooks.
#
#   bench/ingest/run.sh [normal|kill9|redis-restart] [ingest flags...]
#
#   normal         load for DURATION (default 60s) at RATE POSTs a second (default 2400)
#   kill9          kill -9 the server KILL_AFTER (default 20s) into the load and
#                  restart it; the tool re-sends every unacknowledged payload
#   redis-restart  restart the bench Redis KILL_AFTER into the load; it keeps
#                  nothing on disk (as the machine's Redis: --save "" --appendonly
#                  no), so every queued task is lost
#   bot            the normal load with the organization's chatbot on (one keyword
#                  rule, no greeting or fallback: every message goes through the
#                  bot, none is answered) and PROBES (default 10) keyword messages
#                  a second beside it, each answered; the report adds the time
#                  from a probe's ack to its reply reaching the Graph API fake the
#                  tool serves on BENCH_FAKE_PORT (18090); with BOT_ORG=separate
#                  the probes go to an organization of their own and the load's
#                  chatbot stays off
#
# Environment: DURATION, RATE, KILL_AFTER, DOWNTIME (seconds the server stays
# down in kill9, default 1), BENCH_DIR (default /tmp/switchboard-bench),
# BENCH_PORT (18080), BENCH_REDIS_PORT (6390), BENCH_DB (switchboard_bench),
# PGURL (postgres://postgres@127.0.0.1:5432), SERVER_SRC (the source tree the
# server is built from, default this repository; for example an unpacked
# `git archive` of another commit, to compare), SERVER_ENV (extra NAME=value
# settings for the server alone, space-separated, for example "GOGC=200
# PPROF_ADDR=127.0.0.1:6060"). Extra arguments go to the tool (for example
# -json, -rate 1000).
#
# The bench Redis is a separate redis-server on BENCH_REDIS_PORT, started the
# way .ci/run starts the machine's, so that restarting it disturbs nothing
# else that uses 127.0.0.1:6379.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
export BENCH_DIR=${BENCH_DIR:-/tmp/switchboard-bench}
export BENCH_PORT=${BENCH_PORT:-18080}
export BENCH_REDIS_PORT=${BENCH_REDIS_PORT:-6390}
export BENCH_DB=${BENCH_DB:-switchboard_bench}
export PGURL=${PGURL:-postgres://postgres@127.0.0.1:5432}
export BENCH_FAKE_PORT=${BENCH_FAKE_PORT:-18090}
export DOWNTIME=${DOWNTIME:-1}
export DATABASE_URL="$PGURL/$BENCH_DB?sslmode=disable"
export REDIS_URL="redis://127.0.0.1:$BENCH_REDIS_PORT/0"
export ADMIN_EMAIL=bench@example.com
export ADMIN_PASSWORD=bench-password-not-secret
server_bin=$BENCH_DIR/switchboard
pid_file=$BENCH_DIR/server.pid

log() { echo "run.sh: $*" >&2; }

start_redis() {
  mkdir -p "$BENCH_DIR/redis"
  redis-server --daemonize yes --bind 127.0.0.1 --port "$BENCH_REDIS_PORT" --save "" --appendonly no \
    --dir "$BENCH_DIR/redis" --logfile "$BENCH_DIR/redis.log" --pidfile "$BENCH_DIR/redis.pid"
  for _ in $(seq 1 50); do
    [ "$(redis-cli -p "$BENCH_REDIS_PORT" ping 2>/dev/null)" = PONG ] && return 0
    sleep 0.1
  done
  log "Redis did not start on port $BENCH_REDIS_PORT"; return 1
}

stop_redis() {
  redis-cli -p "$BENCH_REDIS_PORT" shutdown nosave >/dev/null 2>&1 || true
  for _ in $(seq 1 50); do
    redis-cli -p "$BENCH_REDIS_PORT" ping >/dev/null 2>&1 || return 0
    sleep 0.1
  done
}

start_server() {
  (
    cd "$BENCH_DIR"
    LISTEN_ADDR=127.0.0.1:$BENCH_PORT DATA_DIR=$BENCH_DIR/data LOG_LEVEL=warn COOKIE_SECURE=false HTTP_MAX_CONNS_PER_ADDRESS=${HTTP_MAX_CONNS_PER_ADDRESS:-4096} \
      PUBLIC_URL=http://127.0.0.1:$BENCH_PORT PROVIDER_BASE_URL=http://127.0.0.1:$BENCH_FAKE_PORT \
      ${SERVER_ENV:+env $SERVER_ENV} nohup "$server_bin" >>"$BENCH_DIR/server.log" 2>&1 &
    echo $! >"$pid_file"
  )
  for _ in $(seq 1 300); do
    curl -fs "http://127.0.0.1:$BENCH_PORT/healthz" >/dev/null 2>&1 && return 0
    kill -0 "$(cat "$pid_file")" 2>/dev/null || { log "server exited; see $BENCH_DIR/server.log"; return 1; }
    sleep 0.1
  done
  log "server not healthy after 30 s"; return 1
}

stop_server() {
  [ -f "$pid_file" ] || return 0
  local pid; pid=$(cat "$pid_file")
  kill -TERM "$pid" 2>/dev/null || return 0
  for _ in $(seq 1 100); do kill -0 "$pid" 2>/dev/null || return 0; sleep 0.1; done
  kill -9 "$pid" 2>/dev/null || true
}

# Fault actions, run by the tool's -kill-cmd through this script.
case "${1:-}" in
  _kill9)
    pid=$(cat "$pid_file")
    kill -9 "$pid"
    while kill -0 "$pid" 2>/dev/null; do sleep 0.05; done
    log "server $pid killed with SIGKILL; restarting in $DOWNTIME s"
    sleep "$DOWNTIME"
    start_server
    log "server restarted as $(cat "$pid_file")"
    exit 0 ;;
  _redis_restart)
    stop_redis
    log "Redis on port $BENCH_REDIS_PORT stopped; starting it again (empty)"
    start_redis
    exit 0 ;;
esac

scenario=${1:-normal}
shift || true
case "$scenario" in
  normal|kill9|redis-restart|bot) ;;
  *) echo "usage: $0 [normal|kill9|redis-restart|bot] [ingest flags...]" >&2; exit 2 ;;
esac

mkdir -p "$BENCH_DIR"
log "building the server and the tool"
(cd "${SERVER_SRC:-$root}" && go build -o "$server_bin" .)
(cd "$root" && go build -o "$BENCH_DIR/ingest" ./bench/ingest)

cleanup() { stop_server; stop_redis; }
trap cleanup EXIT
stop_server
stop_redis
rm -rf "$BENCH_DIR/data" "$BENCH_DIR/server.log"
log "fresh database $BENCH_DB"
psql -q "$PGURL/postgres" -c "DROP DATABASE IF EXISTS $BENCH_DB WITH (FORCE)"
createdb --maintenance-db="$PGURL/postgres" "$BENCH_DB"
start_redis
start_server
log "server $(cat "$pid_file") listening on 127.0.0.1:$BENCH_PORT"

mode_args=()
case "$scenario" in
  kill9) mode_args=(-kill-after "${KILL_AFTER:-20s}" -kill-cmd "$here/run.sh _kill9") ;;
  redis-restart) mode_args=(-kill-after "${KILL_AFTER:-20s}" -kill-cmd "$here/run.sh _redis_restart") ;;
  bot) mode_args=(-bot-probes "${PROBES:-10}" -fake-addr "127.0.0.1:$BENCH_FAKE_PORT" -bot-org "${BOT_ORG:-same}") ;;
esac

status=0
"$BENCH_DIR/ingest" -url "http://127.0.0.1:$BENCH_PORT" -db "$DATABASE_URL" \
  -duration "${DURATION:-60s}" -rate "${RATE:-2400}" -pid-file "$pid_file" "${mode_args[@]}" "$@" || status=$?
# The server's own view of the pipeline (group commits, drainer batches, lag).
curl -fs "http://127.0.0.1:$BENCH_PORT/metrics" | grep '^switchboard_inbound' >"$BENCH_DIR/metrics.txt" || true
log "server metrics in $BENCH_DIR/metrics.txt"
exit $status
