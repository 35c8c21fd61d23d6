#!/usr/bin/env bash
# Load test of dtb serve on the loopback interface: builds (Release), generates the 2-4 piece
# databases with distances to win into DB_DIR if it lacks them, starts `dtb serve` on a free port of
# 127.0.0.1, and runs wrk against GET /api/probe (value, distance and every move with its value and
# distance) on a rotation of positions. Prints wrk's throughput and latency percentiles (p50, p99).
# Bounded in time (DURATION) and in requests (REQUESTS per wrk thread); the server is stopped by its
# PID at the end.
#
#   usage: scripts/bench-serve.sh [DB_DIR]     (default ./db4dtw)
#   BUILD_DIR   build directory (default build-native)
#   DTB_NATIVE  ON (default): built with -march=native, as the quoted figures; OFF: the portable build
#   SERVER_THREADS  request threads of the server (default: dtb serve's, 8 a core, at least 16)
#   WRK_THREADS     wrk threads (default 2)
#   CONNECTIONS     open connections (default 32)
#   DURATION        seconds (default 10)
#   REQUESTS        most requests per wrk thread (default 200000)
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

DB_DIR=${1:-db4dtw}
BUILD_DIR=${BUILD_DIR:-build-native}
SERVER_THREADS=${SERVER_THREADS:-}
WRK_THREADS=${WRK_THREADS:-2}
CONNECTIONS=${CONNECTIONS:-32}
DURATION=${DURATION:-10}
REQUESTS=${REQUESTS:-200000}

command -v wrk >/dev/null || { echo "bench-serve: wrk is missing (apt-get install wrk, or scripts/install-deps.sh)" >&2; exit 1; }
BUILD_DIR="$BUILD_DIR" bash scripts/build.sh -DDTB_NATIVE="${DTB_NATIVE:-ON}" >/dev/null
DTB="$BUILD_DIR/tools/dtb"

# shellcheck source=lib/ensure-databases.sh
source scripts/lib/ensure-databases.sh
ensure_databases "$DTB" "$DB_DIR" 4 .dtw bench-serve --dtw

work=$(mktemp -d)
"$DTB" serve --db "$DB_DIR" --port 0 ${SERVER_THREADS:+--threads "$SERVER_THREADS"} >"$work/serve.log" 2>&1 &
pid=$!
trap 'kill "$pid" 2>/dev/null; wait "$pid" 2>/dev/null; rm -rf "$work"' EXIT
url=
for _ in $(seq 100); do
  url=$(grep -o 'http://127\.0\.0\.1:[0-9]*/' "$work/serve.log" || true)
  [ -n "$url" ] && break
  sleep 0.1
done
[ -n "$url" ] || { echo "bench-serve: dtb serve did not start: $(cat "$work/serve.log")" >&2; exit 1; }

# Positions of 2-4 pieces: men and kings, quiet and capture positions, wins, draws and losses.
cat >"$work/probe.lua" <<LUA
local fens = {"W:W33:B2", "W:W33,K46:BK5,16", "W:W28,K46:BK5,12", "W:W32,K47:BK3,19", "W:WK46:BK5",
              "B:W18,24,K10:B12", "W:WK5:B14,24,29,43", "W:W28:B23", "W:W21:B3,4", "W:WK2,6:BK50"}
local sent = 0
request = function()
  sent = sent + 1
  return wrk.format("GET", "/api/probe?fen=" .. fens[(sent % #fens) + 1])
end
response = function(status, headers, body)
  if status ~= 200 then error("status " .. status) end
  if sent >= $REQUESTS then wrk.thread:stop() end
end
LUA

echo "command: wrk -t$WRK_THREADS -c$CONNECTIONS -d${DURATION}s --latency -s probe.lua ${url}api/probe (server: --threads ${SERVER_THREADS:-default})"
wrk -t"$WRK_THREADS" -c"$CONNECTIONS" -d"${DURATION}s" --timeout 5s --latency -s "$work/probe.lua" "${url}api/probe"
