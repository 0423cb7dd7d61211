#!/usr/bin/env bash
# What `clarity findings` costs next to `clarity blocked` on the same log, in one run: best of
# 3 wall times of each, and their ratio (the acceptance bound is 1.5x). Logs: the NDS q72
# Dataproc log of the shared data (13.5K tasks) when present, a synth wordcount of about
# SCALE_GB uncompressed GB (default 1: 1.0 GB; zstd, the framing most clusters write; 256K
# tasks) and a synth TPC-DS mix of 300 overlapping queries (385 MB, 81K tasks), generated once
# into bench/out/findings-cost/.
set -euo pipefail
cd "$(cd "${0%/*}" && pwd)/.."
C=build/clarity
[ -x "$C" ] || { echo "bench/findings-cost.sh: $C missing: make build/clarity" >&2; exit 2; }
OUT=${FINDINGS_COST_DIR:-bench/out/findings-cost}
mkdir -p "$OUT"
gb=${SCALE_GB:-1}

best_of() { # best_of N CMD...: "wall cpu" seconds of the fastest of N runs (cpu: user + system)
  local n="$1" best="" cpu=""; shift
  for _ in $(seq "$n"); do
    local t0 t1 s c
    t0=$(date +%s.%N); /usr/bin/time -f '%U %S' -o "$OUT/.cpu" "$@" >/dev/null 2>&1; t1=$(date +%s.%N)
    s=$(awk -v a="$t0" -v b="$t1" 'BEGIN{printf "%.3f", b-a}')
    c=$(awk '{printf "%.2f", $1 + $2}' "$OUT/.cpu")
    if [ -z "$best" ] || awk -v x="$s" -v y="$best" 'BEGIN{exit !(x<y)}'; then best=$s; fi
    if [ -z "$cpu" ] || awk -v x="$c" -v y="$cpu" 'BEGIN{exit !(x<y)}'; then cpu=$c; fi
  done
  echo "$best $cpu"
}

logs=()
Q72="${SHARED_DATA:-/work/shared/data}/external/nvidia-qualification/nds_q72_dataproc_2_2.zstd"
[ -f "$Q72" ] && logs+=("$Q72") || echo "SKIP NDS q72: $Q72 absent"
dir="$OUT/wc-${gb}gb-zstd"
if [ ! -d "$dir/eventlogs" ]; then
  # the same cluster and split as bench/scale.sh: 20 GiB in 160 KiB splits (131K map tasks)
  # and 125K reduce partitions write 1.0 GB of event log per SCALE_GB
  $C synth wordcount --hosts 20 --cores 16 --data "$((gb * 20))Gi" --split 160Ki --partitions "$((gb * 125000))" \
    --no-logs --no-truth-tasks --seed 7 --codec zstd -q -o "$dir"
fi
logs+=("$(ls "$dir"/eventlogs/* | head -1)")
# many overlapping stages: every stage rule's replay is of one big pooled component (this log
# cost 1.55x blocked before rules skipped replays whose bound is under the minimum saving)
tdir="$OUT/tpcds-300q"
[ -d "$tdir/eventlogs" ] || $C synth tpcds-mix --seed 11 --queries 300 --arrival 1s --no-logs --no-truth-tasks -q -o "$tdir"
logs+=("$(ls "$tdir"/eventlogs/* | head -1)")

echo "$(date -u +%FT%TZ), commit $(git rev-parse --short HEAD 2>/dev/null || echo ?), $(nproc) cores, load $(cut -d' ' -f1 /proc/loadavg)"
echo "(best of 3 each; wall and CPU (user + system) seconds; ratio = findings / blocked. On a loaded"
echo " machine the wall times wait for the CPU, and the CPU ratio is the steadier one.)"
raw_bytes() { case "$1" in *.zstd|*.zst) zstd -dc "$1" | wc -c ;; *) stat -c %s "$1" ;; esac; }
printf '%-32s %10s %10s %8s %8s %8s %8s %6s %6s\n' log bytes raw_bytes blk_wall fnd_wall blk_cpu fnd_cpu wall_x cpu_x
for log in "${logs[@]}"; do
  read -r bw bc < <(best_of 3 "$C" blocked "$log")
  read -r fw fc < <(best_of 3 "$C" findings "$log")
  printf '%-32s %10s %10s %8s %8s %8s %8s %6s %6s\n' "$(basename "$log")" "$(stat -c %s "$log")" "$(raw_bytes "$log")" "$bw" "$fw" "$bc" "$fc" \
    "$(awk -v f="$fw" -v b="$bw" 'BEGIN{printf "%.2f", f/b}')" "$(awk -v f="$fc" -v b="$bc" 'BEGIN{printf "%.2f", (b > 0 ? f/b : 0)}')"
done
