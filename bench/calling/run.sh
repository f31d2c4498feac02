#!/usr/bin/env bash
# Builds and runs the calling media benchmark: CALLS bridged calls (default
# 50, i.e. 100 legs) for DURATION (default 20s), after a BASELINE (default
# 5s) of the same peers connected directly; latency figures leave out the
# first WARMUP (default 1s) of each phase and show it apart.
#
#   bench/calling/run.sh [extra flags...]      e.g. DURATION=5s bench/calling/run.sh
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
bin=${BENCH_DIR:-/tmp/switchboard-bench}/calling-bench
mkdir -p "$(dirname "$bin")"
(cd "$root" && go build -o "$bin" ./bench/calling)
exec "$bin" -calls "${CALLS:-50}" -duration "${DURATION:-20s}" -baseline "${BASELINE:-5s}" -warmup "${WARMUP:-1s}" "$@"
