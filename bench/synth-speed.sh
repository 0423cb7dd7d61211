#!/usr/bin/env bash
# clarity synth generation speed: a 10-million-task wordcount (zstd event log, truth summary,
# no text logs) and a 1-million-task run with every output on. Not part of `make check`.
# Acceptance: 10M tasks within 10 minutes on one core.
set -euo pipefail
cd "$(cd "${0%/*}" && pwd)/.."
[[ -x build/clarity ]] || { echo "bench/synth-speed.sh: build/clarity missing: make build/clarity" >&2; exit 2; }
OUT=${SYNTH_BENCH_DIR:-$(mktemp -d)}
trap 'rm -rf "$OUT"' EXIT
run() { # run LABEL TASKS ARGS...
  local label="$1" tasks="$2"; shift 2
  local t0 t1; t0=$(date +%s.%N)
  /usr/bin/time -f "%M" -o "$OUT/rss" build/clarity synth "$@" -q -o "$OUT/$label"
  t1=$(date +%s.%N)
  awk -v l="$label" -v n="$tasks" -v a="$t0" -v b="$t1" -v rss="$(cat "$OUT/rss")" -v sz="$(du -sb "$OUT/$label" | cut -f1)" \
    'BEGIN { s = b - a; printf "%-22s %10d tasks %8.1f s %12.0f tasks/min  peak RSS %6.0f MB  output %8.1f MB\n", l, n, s, n / s * 60, rss / 1024, sz / 1e6 }'
  rm -rf "${OUT:?}/$label"
}
# 1M tasks, every output: 512k map + 512k reduce
run "1M-all-outputs" 1048576 wordcount --hosts 64 --cores 16 --data 64Gi --split 128Ki --partitions 524288 --codec zstd
# 10M tasks: 5M map + 5M reduce, zstd event log, truth.json only
run "10M-eventlog-zstd" 10485760 wordcount --hosts 100 --cores 32 --data 640Gi --split 128Ki --partitions 5242880 --codec zstd --no-logs --no-truth-tasks
