#!/usr/bin/env bash
# clarity diff stays linear in stages, SQL queries and jobs (sort-and-merge matching, no loop
# over all pairs): on tpcds-mix runs of 1x, 4x and 16x the queries (each query adds its stages
# and jobs), the time of `clarity diff --no-findings X Y` (two runs, other seeds) is printed as
# a ratio to `clarity summary X` + `clarity summary Y` measured in the same run: the ratio
# stays flat when diff grows as loading and summing do. CPU time (user + system), median of 3
# runs each: the machine is shared, and wall time waits for the CPU.
# Usage: bench/diff-scale.sh [WORKDIR]   (CLARITY=path to binary; QUERIES="20 80 320")
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
bin=${CLARITY:-$here/build/clarity}
work=${1:-$here/bench/out/diff-scale}
queries=${QUERIES:-"20 80 320"}
mkdir -p "$work"
med3() { sort -n | sed -n 2p; }
t() { /usr/bin/time -f "%U + %S" -o "$work/time" "$@" >/dev/null; bc -l <"$work/time"; }
printf '| queries | stages | diff CPU s | 2x summary CPU s | ratio |\n|---:|---:|---:|---:|---:|\n'
for q in $queries; do
  for seed in 1 2; do
    [ -d "$work/q$q-s$seed" ] || "$bin" synth tpcds-mix --queries "$q" --data 2G --arrival 500ms --seed "$seed" \
      --no-logs --no-truth-tasks --codec none -q -o "$work/q$q-s$seed"
  done
  x=$(ls "$work/q$q-s1"/eventlogs/* | head -1); y=$(ls "$work/q$q-s2"/eventlogs/* | head -1)
  d=$(for i in 1 2 3; do t "$bin" diff --no-findings "$x" "$y"; done | med3)
  s=$(for i in 1 2 3; do echo "$(t "$bin" summary "$x") + $(t "$bin" summary "$y")" | bc -l; done | med3)
  n=$("$bin" diff --json --no-findings "$x" "$y" | jq '.pairs[0].stages | length')
  printf '| %s | %s | %.3f | %.3f | %.2f |\n' "$q" "$n" "$d" "$s" "$(echo "$d / $s" | bc -l)"
done
