#!/usr/bin/env bash
# Builds the server and the calls tool, starts a Redis of its own, and runs
# CALLS (50) concurrent calls through the server process over loopback with
# audio both ways for DURATION (60s). The tool creates a fresh PostgreSQL
# database on PGURL and drops it at the end.
#
#   bench/calls/run.sh [extra flags...]          e.g. DURATION=10s bench/calls/run.sh -json
#
# Environment: CALLS, DURATION, WARMUP (1s), BENCH_DIR
# (/tmp/switchboard-calls-bench), BENCH_REDIS_PORT (6393), PGURL
# (postgres://postgres@127.0.0.1:5432/postgres?sslmode=disable).
# Exit status: the tool's: 0 targets met, 1 the run could not be made,
# 2 bad flags, 3 a target missed.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
dir=${BENCH_DIR:-/tmp/switchboard-calls-bench}
port=${BENCH_REDIS_PORT:-6393}
mkdir -p "$dir/redis"

log() { echo "run.sh: $(date -u +%H:%M:%S) $*" >&2; }

log "building the server and the tool"
(cd "$root" && go build -o "$dir/switchboard" . && go build -o "$dir/calls-bench" ./bench/calls)

redis-server --daemonize yes --bind 127.0.0.1 --port "$port" --save "" --appendonly no \
  --dir "$dir/redis" --logfile "$dir/redis.log" --pidfile "$dir/redis.pid"
trap 'redis-cli -p "$port" shutdown nosave >/dev/null 2>&1 || true' EXIT
for _ in $(seq 1 50); do
  [ "$(redis-cli -p "$port" ping 2>/dev/null)" = PONG ] && break
  sleep 0.1
done

log "load average before the run: $(cut -d' ' -f1-3 /proc/loadavg)"
set +e
"$dir/calls-bench" -bin "$dir/switchboard" -dir "$dir" -redis "redis://127.0.0.1:$port/0" \
  -pg "${PGURL:-postgres://postgres@127.0.0.1:5432/postgres?sslmode=disable}" \
  -calls "${CALLS:-50}" -duration "${DURATION:-60s}" -warmup "${WARMUP:-1s}" "$@"
status=$?
set -e
log "load average after the run: $(cut -d' ' -f1-3 /proc/loadavg)"
exit $status
