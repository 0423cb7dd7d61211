#!/usr/bin/env bash
# Evaluation of `clarity predict` (PERIDOT, and its combination with a per-group affine fit) and
# `clarity ernest` on multi-scale run tables: for each table the k = 2, 3, 4 smallest runs are
# the references (Ernest's training points) and every other run is predicted. Reports MAPE =
# mean |pred - actual| / actual over the predicted runs, and how often the prediction's
# interval holds the actual run time (coverage) with its mean half-width.
#
# Tables:
#   real   ../shared/data/runtimes/{linearregression,pagerank-5-hosts}: stage-only logs, sizes
#          from runs.csv, every run on one cluster (cores set equal: they only decide rounding)
#   synth  `clarity synth` wordcount, sort, kmeans, pagerank, tpcds-mix with --no-logs:
#          tuning  = 4 hosts, seed 1, 8 12 16 24 32 48 64 GB   (rules and margins chosen here)
#          report  = 8 hosts, seed 2, 16 24 32 48 64 96 128 GB (figures only)
#          sizes start at several waves per stage: PERIDOT models waves, and runs under one
#          wave are dominated by per-stage latency (documented in docs/predict.md)
# Prints a markdown table. Usage: bench/predict-eval.sh [CLARITY]
set -euo pipefail
cd "$(dirname "$0")/.."
CLARITY="${1:-${CLARITY:-build/clarity}}"
DATA="${SHARED_DATA:-../shared/data}/runtimes"
T=$(mktemp -d); trap 'rm -rf "$T"' EXIT

apptime() { # LOG -> ms from ApplicationStart to ApplicationEnd
  grep -E '"SparkListenerApplication(Start|End)"' "$1" | jq -s '(map(select(.Event == "SparkListenerApplicationEnd"))[0].Timestamp)
    - (map(select(.Event == "SparkListenerApplicationStart"))[0].Timestamp)'
}

# tables: $T/tab/<name>/runs = "size_gb duration_ms log" sorted by size; $T/tab/<name>/cores
mkdir -p "$T/tab"
if [ -d "$DATA" ]; then
  for app in linearregression pagerank-5-hosts; do
    d="$T/tab/real-$app"; mkdir -p "$d"
    tail -n +2 "$DATA/$app/runs.csv" | awk -F, -v dir="$DATA/$app" '{ print $3, $4, dir "/" $5 }' | sort -g >"$d/runs"
    echo 40 >"$d/cores"; echo real >"$d/split"
  done
else
  echo "SKIP real run tables: $DATA absent" >&2
fi
for w in wordcount sort kmeans pagerank tpcds-mix; do
  for split in tuning report; do
    if [ $split = tuning ]; then h=4; seed=1; m=1; else h=8; seed=2; m=2; fi
    d="$T/tab/synth-$w-h$h"; mkdir -p "$d"; echo $split >"$d/split"; : >"$d/runs"
    for gb in 8 12 16 24 32 48 64; do
      s=$((gb * m))
      nice "$CLARITY" synth "$w" --data "${s}G" --hosts $h --seed $seed --no-logs --no-truth-tasks -q -o "$d/$s"
      log=$(ls "$d/$s/eventlogs/"* | head -1)
      echo "$s $(apptime "$log") $log" >>"$d/runs"
    done
    sort -g -o "$d/runs" "$d/runs"
    echo "" >"$d/cores"
  done
done

echo "| table | split | refs | predicted runs | PERIDOT alone | answer (combined) | interval coverage | mean half-width | Ernest | Ernest coverage |"
echo "|---|---|---|---|---|---|---|---|---|---|"
: >"$T/pooled"
for d in "$T"/tab/*; do
  name=$(basename "$d"); split=$(cat "$d/split"); cores=$(cat "$d/cores"); n=$(wc -l <"$d/runs")
  for k in 2 3 4; do
    [ "$n" -gt "$k" ] || continue
    refs=(); sizes=""; targets=""
    while read -r s t l; do refs+=(--ref "$l"); sizes="$sizes${sizes:+,}${s}G"; done < <(head -n "$k" "$d/runs")
    targets=$(tail -n +"$((k + 1))" "$d/runs" | awk '{ printf "%s%sG", sep, $1; sep = "," }')
    cflags=(); [ -n "$cores" ] && cflags=(--ref-cores "$cores" --cores "$cores")
    if ! "$CLARITY" predict --json --compact "${refs[@]}" --ref-size "$sizes" "${cflags[@]}" --data-size "$targets" >"$T/p.json" 2>"$T/p.err"; then
      echo "| $name | $split | $k | - | refused: $(head -c 80 "$T/p.err" | tr '|\n' '  ') | | | | | |"; continue
    fi
    jq -r '.predictions[] | "\(.predicted_ms) \(.peridot_ms) \(.interval.low_ms) \(.interval.high_ms)"' "$T/p.json" \
      | paste -d' ' - <(tail -n +"$((k + 1))" "$d/runs" | awk '{ print $2 }') >"$T/pk"
    # Ernest: one machine count, the scale is the size in GB
    head -n "$k" "$d/runs" | awk '{ printf "1,%s,%.3f\n", $1, $2 / 1000 }' >"$T/train.csv"
    "$CLARITY" ernest fit "$T/train.csv" --json -o "$T/model.json"
    "$CLARITY" ernest predict "$T/model.json" --machines 1 --scale "$(tail -n +"$((k + 1))" "$d/runs" | awk '{ printf "%s%s", sep, $1; sep = "," }')" \
      --json --compact | jq -r '.predictions[] | "\(.predicted_s * 1000) \(.interval.low_s * 1000) \(.interval.high_s * 1000)"' \
      | paste -d' ' - <(tail -n +"$((k + 1))" "$d/runs" | awk '{ print $2 }') >"$T/ek"
    paste -d' ' "$T/pk" "$T/ek" | awk -v name="$name" -v sp_="$split" -v k="$k" '
      function ab(x) { return x < 0 ? -x : x }
      { a = $5; sp += ab($2 - a) / a; sc += ab($1 - a) / a; cov += ($3 <= a && a <= $4); hw += ($4 - $3) / 2 / $1
        se += ab($6 - a) / a; ecov += ($7 <= a && a <= $8); n++
        print sp_, k, ab($1 - a) / a, ($3 <= a && a <= $4), ab($6 - a) / a, ($7 <= a && a <= $8) >> "'"$T/pooled"'" }
      END { printf "| %s | %s | %d | %d | %.1f%% | %.1f%% | %d/%d (%.0f%%) | %.0f%% | %.1f%% | %d/%d |\n",
            name, sp_, k, n, 100 * sp / n, 100 * sc / n, cov, n, 100 * cov / n, 100 * hw / n, 100 * se / n, ecov, n }'
  done
done
echo
echo "| split | refs | predicted runs | answer MAPE (pooled over runs) | interval coverage | Ernest MAPE | Ernest coverage |"
echo "|---|---|---|---|---|---|---|"
sort -k1,1 -k2,2n "$T/pooled" | awk '
  { key = $1 " " $2; n[key]++; e[key] += $3; c[key] += $4; ee[key] += $5; ec[key] += $6; if (!(key in seen)) { seen[key] = 1; order[++m] = key } }
  END { for (i = 1; i <= m; i++) { k = order[i]; split(k, p, " ")
        printf "| %s | %s | %d | %.1f%% | %.0f%% | %.1f%% | %.0f%% |\n", p[1], p[2], n[k], 100 * e[k] / n[k], 100 * c[k] / n[k], 100 * ee[k] / n[k], 100 * ec[k] / n[k] } }'
