#!/usr/bin/env bash
# The demo: simulate a small shared Spark cluster (TPC-DS-like queries arriving over time,
# several at once, a CPU hog on one host), then run clarity's analyses on what it wrote, and
# finally read a real Spark 3.1 log bundled with the tests.
set -euo pipefail
cd "$(dirname "$0")/.."
C=build/clarity
out=$(mktemp -d); trap 'rm -rf "$out"' EXIT
say() { printf '\n\033[1m$ %s\033[0m\n' "$*"; }
has() { $C --help | grep -q "^  $1 "; }

say clarity synth tpcds-mix --queries 6 --fault cpu-hog@host3:20s-80s:0.8 --seed 7 --codec zstd -o demo/
$C synth tpcds-mix --queries 6 --fault cpu-hog@host3:20s-80s:0.8 --seed 7 --codec zstd -o "$out/demo"
log=$(ls "$out"/demo/eventlogs/* | head -1)
say clarity summary demo/eventlogs/$(basename "$log")
$C summary "$log"
say clarity blocked --group sql,app demo/eventlogs/$(basename "$log")
$C blocked --group sql,app "$log"
say clarity stragglers --top 5 demo/eventlogs/$(basename "$log")
$C stragglers --top 5 "$log"
if has whatif; then
  say clarity whatif --executors 0.5x,1x,2x,4x demo/eventlogs/$(basename "$log")
  $C whatif --executors 0.5x,1x,2x,4x "$log"
fi
if has anomalies; then
  say clarity anomalies --executor-logs demo/executor-logs --gc-logs demo/gc demo/eventlogs/$(basename "$log")
  $C anomalies --executor-logs "$out/demo/executor-logs" --gc-logs "$out/demo/gc" "$log"
fi
if has contention; then
  say clarity contention --top 3 demo/eventlogs/$(basename "$log")
  $C contention --top 3 "$log"
fi
say clarity api tests/data/spark-1.2-local-1422981780767.json /applications/local-1422981780767/jobs/0
$C api tests/data/spark-1.2-local-1422981780767.json /applications/local-1422981780767/jobs/0
