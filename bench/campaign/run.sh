#!/usr/bin/env bash
# Builds the server and the campaign tool, starts the server (one or two
# processes) on a fresh PostgreSQL database and its own Redis, with
# PROVIDER_BASE_URL at the Graph API fake the tool serves, and runs one
# campaign scenario.
#
#   bench/campaign/run.sh unlimited|tier1k|tier1k-two|kill9|ingest-campaign [campaign flags...]
#
#   unlimited        RECIPIENTS (10,000) at TIER_UNLIMITED until every one is
#                    final: sustained sends/s at the fake, the server's peak RSS
#   tier1k           TIER_1K, sends counted over WINDOW (60s) after 5 s: 10/s
#   tier1k-two       the same with two server processes (ports BENCH_PORT and
#                    BENCH_PORT+1, same database and Redis), two campaigns of
#                    the same phone number, one started on each process while
#                    the other is stopped (SIGSTOP) until its first send
#   kill9            RECIPIENTS (5,000) at TIER_UNLIMITED with the platform's
#                    status webhooks echoed; kill -9 of the server at 30% of the
#                    sends and again at 30% of the rest, each time restarted
#                    DOWNTIME (1) s later; wait until nothing is pending:
#                    recipients sent twice, rows left sending
#   ingest-campaign  a campaign at TIER_100K (80/s) while bench/ingest loads the
#                    server for DURATION (40s) at RATE (2400) POST/s: the
#                    ingest's stored/s and the campaign's sends/s meanwhile
#
# Environment: RECIPIENTS, WINDOW, DURATION, RATE, DOWNTIME, BENCH_DIR
# (default /tmp/switchboard-campaign-bench), BENCH_PORT (18180),
# BENCH_REDIS_PORT (6391), BENCH_FAKE_PORT (18191), BENCH_DB
# (switchboard_campaign_bench), PGURL (postgres://postgres@127.0.0.1:5432),
# SERVER_SRC (the source tree the server is built from, default this
# repository), SERVER_ENV (extra NAME=value settings for the servers).
# Extra arguments go to the tool (for example -json, -recipients 2000).
#
# The exit status is the tool's: 0, 1 (the run could not be made), 2 (bad
# flags) or 3 (it found a defect: a recipient sent twice, a recipient the
# platform accepted left sending, recipients left pending).
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
export BENCH_DIR=${BENCH_DIR:-/tmp/switchboard-campaign-bench}
export BENCH_PORT=${BENCH_PORT:-18180}
export BENCH_REDIS_PORT=${BENCH_REDIS_PORT:-6391}
export BENCH_FAKE_PORT=${BENCH_FAKE_PORT:-18191}
export BENCH_DB=${BENCH_DB:-switchboard_campaign_bench}
export PGURL=${PGURL:-postgres://postgres@127.0.0.1:5432}
export DOWNTIME=${DOWNTIME:-1}
export DATABASE_URL="$PGURL/$BENCH_DB?sslmode=disable"
export REDIS_URL="redis://127.0.0.1:$BENCH_REDIS_PORT/0"
export ADMIN_EMAIL=bench@example.com
export ADMIN_PASSWORD=bench-password-not-secret
server_bin=$BENCH_DIR/switchboard

log() { echo "run.sh: $(date -u +%H:%M:%S) $*" >&2; }

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

# start_server N: server N (1 or 2) on BENCH_PORT+N-1, PID in serverN.pid.
start_server() {
  local n=$1 port=$((BENCH_PORT + $1 - 1))
  (
    cd "$BENCH_DIR"
    LISTEN_ADDR=127.0.0.1:$port DATA_DIR=$BENCH_DIR/data LOG_LEVEL=${LOG_LEVEL:-warn} COOKIE_SECURE=false HTTP_MAX_CONNS_PER_ADDRESS=${HTTP_MAX_CONNS_PER_ADDRESS:-4096} \
      PUBLIC_URL=http://127.0.0.1:$port PROVIDER_BASE_URL=http://127.0.0.1:$BENCH_FAKE_PORT \
      ${SERVER_ENV:+env $SERVER_ENV} nohup "$server_bin" >>"$BENCH_DIR/server$n.log" 2>&1 &
    echo $! >"$BENCH_DIR/server$n.pid"
  )
  for _ in $(seq 1 300); do
    curl -fs "http://127.0.0.1:$port/healthz" >/dev/null 2>&1 && return 0
    kill -0 "$(cat "$BENCH_DIR/server$n.pid")" 2>/dev/null || { log "server $n exited; see $BENCH_DIR/server$n.log"; return 1; }
    sleep 0.1
  done
  log "server $n not healthy after 30 s"; return 1
}

stop_server() {
  local f=$BENCH_DIR/server$1.pid
  [ -f "$f" ] || return 0
  local pid; pid=$(cat "$f")
  rm -f "$f"
  kill -CONT "$pid" 2>/dev/null || true # -spread may have stopped it
  kill -TERM "$pid" 2>/dev/null || return 0
  for _ in $(seq 1 100); do kill -0 "$pid" 2>/dev/null || return 0; sleep 0.1; done
  kill -9 "$pid" 2>/dev/null || true
}

# Fault action, run by the tool's -kill-cmd through this script.
if [ "${1:-}" = _kill9 ]; then
  pid=$(cat "$BENCH_DIR/server1.pid")
  kill -9 "$pid"
  while kill -0 "$pid" 2>/dev/null; do sleep 0.05; done
  log "server $pid killed with SIGKILL; restarting in $DOWNTIME s"
  sleep "$DOWNTIME"
  start_server 1
  log "server restarted as $(cat "$BENCH_DIR/server1.pid")"
  exit 0
fi

scenario=${1:-}
shift || true
url="http://127.0.0.1:$BENCH_PORT"
servers=1
args=(-url "$url" -db "$DATABASE_URL" -fake-addr "127.0.0.1:$BENCH_FAKE_PORT")
case "$scenario" in
  unlimited) args+=(-tier TIER_UNLIMITED -recipients "${RECIPIENTS:-10000}") ;;
  tier1k) args+=(-tier TIER_1K -recipients "${RECIPIENTS:-1000}" -window "${WINDOW:-60s}") ;;
  tier1k-two) servers=2
    args+=(-tier TIER_1K -recipients "${RECIPIENTS:-1000}" -campaigns 2 -window "${WINDOW:-60s}"
      -spread -urls "$url,http://127.0.0.1:$((BENCH_PORT + 1))") ;;
  kill9) args+=(-tier TIER_UNLIMITED -recipients "${RECIPIENTS:-5000}" -echo -kill-at 0.3,0.3 -kill-cmd "$here/run.sh _kill9") ;;
  ingest-campaign) args+=(-tier TIER_100K -recipients "${RECIPIENTS:-8000}"
    -during-cmd "$BENCH_DIR/ingest -url $url -db '$DATABASE_URL' -duration ${DURATION:-40s} -rate ${RATE:-2400} -pid-file $BENCH_DIR/server1.pid") ;;
  *) echo "usage: $0 unlimited|tier1k|tier1k-two|kill9|ingest-campaign [campaign flags...]" >&2; exit 2 ;;
esac
pid_files=$BENCH_DIR/server1.pid
[ "$servers" = 2 ] && pid_files+=",$BENCH_DIR/server2.pid"

mkdir -p "$BENCH_DIR"
log "building the server and the tools"
(cd "${SERVER_SRC:-$root}" && go build -o "$server_bin" .)
(cd "$root" && go build -o "$BENCH_DIR/campaign" ./bench/campaign && go build -o "$BENCH_DIR/ingest" ./bench/ingest)

cleanup() { stop_server 1; stop_server 2; stop_redis; }
trap cleanup EXIT
trap 'exit 130' INT TERM
cleanup
rm -rf "$BENCH_DIR/data" "$BENCH_DIR"/server*.log
log "fresh database $BENCH_DB"
psql -q "$PGURL/postgres" -c "DROP DATABASE IF EXISTS $BENCH_DB WITH (FORCE)"
createdb --maintenance-db="$PGURL/postgres" "$BENCH_DB"
start_redis
for n in $(seq 1 "$servers"); do
  start_server "$n"
  log "server $n ($(cat "$BENCH_DIR/server$n.pid")) listening on 127.0.0.1:$((BENCH_PORT + n - 1))"
done
log "load average: $(cut -d' ' -f1-3 /proc/loadavg)"

status=0
"$BENCH_DIR/campaign" "${args[@]}" -pid-files "$pid_files" "$@" || status=$?
log "server logs in $BENCH_DIR/server*.log"
exit $status
