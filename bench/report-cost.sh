#!/usr/bin/env bash
# What `clarity report` costs next to `clarity summary` on the same log, in one run: best of 3
# wall times of each, their ratio (the acceptance bound is 2x) and the page's size (bound
# 5 MB). Logs: a synth wordcount of SCALE_GB uncompressed GB (default 10: about 1 M task
# attempts asked for; its settings give 2 M; zstd, the framing most clusters write), generated
# once into bench/out/report-cost/,
# and the NDS q72 Dataproc log of the shared data (13.5K tasks) when present.
set -euo pipefail
cd "$(cd "${0%/*}" && pwd)/.."
C=${CLARITY:-build/clarity}
[ -x "$C" ] || { echo "bench/report-cost.sh: $C missing: make build/clarity" >&2; exit 2; }
OUT=${REPORT_COST_DIR:-bench/out/report-cost}
mkdir -p "$OUT"
gb=${SCALE_GB:-10}
runs=${RUNS:-3}

best_of() { # best_of N CMD...: seconds of the fastest of N runs
  local n="$1" best=""; shift
  for _ in $(seq "$n"); do
    local t0 t1 s
    t0=$(date +%s.%N); "$@" >/dev/null 2>&1; t1=$(date +%s.%N)
    s=$(awk -v a="$t0" -v b="$t1" 'BEGIN{printf "%.3f", b-a}')
    if [ -z "$best" ] || awk -v x="$s" -v y="$best" 'BEGIN{exit !(x<y)}'; then best=$s; fi
  done
  echo "$best"
}

logs=()
Q72="${SHARED_DATA:-/work/shared/data}/external/nvidia-qualification/nds_q72_dataproc_2_2.zstd"
[ -f "$Q72" ] && logs+=("$Q72") || echo "SKIP NDS q72: $Q72 absent"
dir="$OUT/wc-${gb}g-zstd"
if [ ! -d "$dir/eventlogs" ]; then
  # the cluster and split of bench/scale.sh: about 100K map tasks per GB of log
  $C synth wordcount --hosts 20 --cores 16 --data "$((gb * 16))Gi" --split 160Ki --partitions "$((gb * 100000))" \
    --no-logs --no-truth-tasks --seed 7 --codec zstd -q -o "$dir"
fi
logs+=("$(ls "$dir"/eventlogs/* | head -1)")

echo "$(date -u +%FT%TZ), commit $(git rev-parse --short HEAD 2>/dev/null || echo ?), $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg)"
printf '%-32s %10s %9s %10s %9s %7s %11s %8s\n' log log_bytes tasks summary_s report_s ratio page_bytes timeline
for log in "${logs[@]}"; do
  tasks=$($C summary --json "$log" 2>/dev/null | python3 -c 'import json,sys; print(json.load(sys.stdin)["applications"][0]["totals"]["tasks"])')
  s=$(best_of "$runs" "$C" summary "$log")
  r=$(best_of "$runs" "$C" report "$log" -o "$OUT/page.html")
  mode=$(grep -o '"timeline":"[a-z]*"' "$OUT/page.html" | cut -d'"' -f4)
  printf '%-32s %10s %9s %10s %9s %7s %11s %8s\n' "$(basename "$log")" "$(stat -c %s "$log")" "$tasks" "$s" "$r" \
    "$(awk -v r="$r" -v s="$s" 'BEGIN{printf "%.2f", r/s}')" "$(stat -c %s "$OUT/page.html")" "$mode"
done
