#!/usr/bin/env bash
# Real-data evaluation of `clarity predict` (PERIDOT) and `clarity ernest` on the shared runtime
# logs (../shared/data/runtimes): for each application, the two smallest runs are the
# references and every other run is predicted; MAPE = mean |pred - actual| / actual over the
# runs that are not training points. Ernest is trained on the same two runs and on the
# smallest k = 3, 4, 5 runs. Data sizes come from runs.csv (the logs have no task events, so no
# input bytes); all runs of an application used the same cluster, so cores are set equal
# for references and targets (their value then only decides the wave rounding).
# Prints a markdown table. Usage: bench/predict-eval.sh [CLARITY]
set -euo pipefail
cd "$(dirname "$0")/.."
CLARITY="${1:-${CLARITY:-build/clarity}}"
DATA="${SHARED_DATA:-../shared/data}/runtimes"
[ -d "$DATA" ] || { echo "no shared data at $DATA" >&2; exit 2; }
T=$(mktemp -d); trap 'rm -rf "$T"' EXIT
CORES=40

mape() { # file of "pred actual" lines -> percent
  awk '{ s += ($1 - $2 < 0 ? $2 - $1 : $1 - $2) / $2; n++ } END { if (n) printf "%.1f", 100 * s / n; else print "-" }' "$1"
}

echo "| application | runs | data sizes (GB) | PERIDOT, 2 smallest | PERIDOT as the paper (fixed groups constant) | Ernest, 2 smallest | Ernest, 3 smallest | Ernest, 4 smallest | Ernest, 5 smallest |"
echo "|---|---|---|---|---|---|---|---|---|"
for app in linearregression pagerank-5-hosts; do
  dir="$DATA/$app"
  # runs sorted by data size: size_gb duration_ms log
  tail -n +2 "$dir/runs.csv" | awk -F, -v d="$dir" '{ print $3, $4, d "/" $5 }' | sort -g >"$T/runs"
  n=$(wc -l <"$T/runs")
  read -r d1 t1 l1 < <(sed -n 1p "$T/runs")
  read -r d2 t2 l2 < <(sed -n 2p "$T/runs")
  sizes=$(tail -n +3 "$T/runs" | awk '{ printf "%s%sG", sep, $1; sep = "," }')
  "$CLARITY" predict --json --compact --ref "$l1" --ref "$l2" --ref-size "${d1}G,${d2}G" --ref-cores $CORES \
    --data-size "$sizes" --cores $CORES >"$T/p.json"
  jq -r '.predictions[].predicted_ms' "$T/p.json" | paste -d' ' - <(tail -n +3 "$T/runs" | awk '{ print $2 }') >"$T/peridot"
  "$CLARITY" predict --json --compact --ref "$l1" --ref "$l2" --ref-size "${d1}G,${d2}G" --ref-cores $CORES \
    --data-size "$sizes" --cores $CORES --fixed-groups constant >"$T/pc.json"
  jq -r '.predictions[].predicted_ms' "$T/pc.json" | paste -d' ' - <(tail -n +3 "$T/runs" | awk '{ print $2 }') >"$T/paper"
  row="| $app | $n | $(printf '%.1f' "$d1") - $(awk 'END { printf "%.1f", $1 }' "$T/runs") | $(mape "$T/peridot")% | $(mape "$T/paper")% |"
  for k in 2 3 4 5; do
    # machines are constant across runs: the scale is the data size in GB
    head -n "$k" "$T/runs" | awk '{ printf "1,%s,%.3f\n", $1, $2 / 1000 }' >"$T/train.csv"
    "$CLARITY" ernest fit "$T/train.csv" --json -o "$T/model.json"
    : >"$T/ernest"
    tail -n +"$((k + 1))" "$T/runs" | while read -r d t l; do
      p=$("$CLARITY" ernest predict "$T/model.json" --machines 1 --scale "$d" --json --compact | jq -r '.predictions[0].predicted_s')
      echo "$(awk -v p="$p" 'BEGIN { printf "%.3f", p * 1000 }') $t" >>"$T/ernest"
    done
    row="$row $(mape "$T/ernest")% |"
  done
  echo "$row"
done
