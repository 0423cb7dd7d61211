#!/usr/bin/env bash
# The demo: summarize a bundled Spark 3.1 log, the same log zstd-compressed (as Spark 3.2+
# writes it), a whole directory as a fleet table, and one History Server REST answer.
set -euo pipefail
cd "$(dirname "$0")/.."
C=build/clarity
D=tests/data
out=$(mktemp -d); trap 'rm -rf "$out"' EXIT
say() { printf '\n\033[1m$ %s\033[0m\n' "$*"; }
say clarity summary $D/spark-3.1-app-20200706201101-0003.json
$C summary $D/spark-3.1-app-20200706201101-0003.json
if command -v zstd >/dev/null; then
  zstd -q -1 $D/spark-3.1-app-20200706201101-0003.json -o "$out/app-20200706201101-0003.zstd"
  say clarity summary --json app-20200706201101-0003.zstd '| jq .applications[0].totals'
  $C summary --json "$out/app-20200706201101-0003.zstd" | (command -v jq >/dev/null && jq '.applications[0].totals' || cat)
fi
say clarity summary $D '  # a directory of applications: one row each'
$C summary $D
say clarity api $D/spark-1.2-local-1422981780767.json /applications/local-1422981780767/jobs/0
$C api $D/spark-1.2-local-1422981780767.json /applications/local-1422981780767/jobs/0 || true
