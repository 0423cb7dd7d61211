#!/usr/bin/env bash
# What `clarity findings` costs next to `clarity blocked` on the same log, in one run: best of
# 3 wall times of each, and their ratio (the acceptance bound is 1.5x). Logs: the NDS q72
# Dataproc log of the shared data (13.5K tasks) when present, and a synth wordcount of
# SCALE_GB uncompressed GB (default 1; zstd, the framing most clusters write), generated once
# into bench/out/findings-cost/.
set -euo pipefail
cd "$(cd "${0%/*}" && pwd)/.."
C=build/clarity
[ -x "$C" ] || { echo "bench/findings-cost.sh: $C missing: make build/clarity" >&2; exit 2; }
OUT=${FINDINGS_COST_DIR:-bench/out/findings-cost}
mkdir -p "$OUT"
gb=${SCALE_GB:-1}

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
  # the same cluster and split as bench/scale.sh: about 100K map tasks per GB of log
  $C synth wordcount --hosts 20 --cores 16 --data "$((gb * 16))Gi" --split 160Ki --partitions "$((gb * 100000))" \
    --no-logs --no-truth-tasks --seed 7 --codec zstd -q -o "$dir"
fi
logs+=("$(ls "$dir"/eventlogs/* | head -1)")

echo "$(date -u +%FT%TZ), commit $(git rev-parse --short HEAD 2>/dev/null || echo ?), $(nproc) cores"
printf '%-40s %10s %10s %10s %7s\n' log bytes blocked_s findings_s ratio
for log in "${logs[@]}"; do
  b=$(best_of 3 "$C" blocked "$log")
  f=$(best_of 3 "$C" findings "$log")
  printf '%-40s %10s %10s %10s %7s\n' "$(basename "$log")" "$(stat -c %s "$log")" "$b" "$f" \
    "$(awk -v f="$f" -v b="$b" 'BEGIN{printf "%.2f", f/b}')"
done
