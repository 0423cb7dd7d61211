#!/usr/bin/env bash
# Replay accuracy of `clarity blocked` on real logs: for every job with at least MIN_TASKS
# successful tasks in every log under ../shared/data, the replay error |t_s - actual| / actual
# (median, p95, max) and the distribution of each resource's improvement, next to the thesis'
# figures (median within 4%, p95 within 7% on its benchmarks). Lists every job over 20% with
# the facts that explain it (idle time inside the job's span, slots, pooled stages).
# Usage: bench/replay-accuracy.sh [DATA_DIR] [--slots observed|configured]
set -euo pipefail
cd "$(cd "${0%/*}" && pwd)/.."
DATA=${1:-${SHARED_DATA:-../shared/data}}
SLOTS=${2:-observed}; SLOTS=${SLOTS#--slots=}
MIN_TASKS=${MIN_TASKS:-10}
CLARITY=${CLARITY:-build/clarity}
OUT=bench/out; mkdir -p "$OUT"
[ -x "$CLARITY" ] || make --no-print-directory build/clarity >/dev/null
[ -d "$DATA" ] || { echo "bench/replay-accuracy.sh: no data directory $DATA" >&2; exit 2; }
command -v jq >/dev/null || { echo "bench/replay-accuracy.sh: needs jq" >&2; exit 2; }

"$CLARITY" blocked --group job --slots "$SLOTS" --json --compact -q "$DATA" 2>/dev/null >"$OUT/replay.json" || true
jq -r --argjson min "$MIN_TASKS" '.applications[] | .source as $s | .groups[] | select(.tasks >= $min)
  | [$s, .id, .tasks, .stages, .slots_min, .slots_max, .pooled_stages, .actual_ms, .idle_ms,
     (.simulated_ms|round), .replay_error,
     (.without | [.network, .disk, .shuffle_read, .shuffle_write, .gc, .scheduler_delay, .stragglers, .non_cpu]
      | map(if .available then .improvement else "NA" end) | .[])] | @tsv' "$OUT/replay.json" >"$OUT/replay-jobs.tsv"

apps=$(jq -r --argjson min "$MIN_TASKS" '[.applications[] | select(any(.groups[]; .tasks >= $min))] | length' "$OUT/replay.json")
# quantile q of column c over the rows (nearest rank), skipping NA
q() { awk -F'\t' -v c="$1" '$c != "NA" {print $c}' "$OUT/replay-jobs.tsv" | sort -g |
      awk -v q="$2" '{v[NR]=$1} END {if (!NR) {print "-"; exit} k=int(q*NR+0.999999); if (k<1) k=1; if (k>NR) k=NR; printf "%.1f%%", 100*v[k]}'; }
cnt() { awk -F'\t' -v c="$1" '$c != "NA"' "$OUT/replay-jobs.tsv" | wc -l; }
n=$(wc -l <"$OUT/replay-jobs.tsv")
{
  echo "## Replay accuracy ($SLOTS slots): $n jobs with >= $MIN_TASKS tasks in $apps logs under $(basename "$DATA")"
  echo
  echo "| replay error per job | median | p95 | max |"
  echo "|---|---|---|---|"
  echo "| clarity | $(q 11 0.5) | $(q 11 0.95) | $(q 11 1) |"
  echo "| thesis (3.3.2, its benchmarks) | within 4% | within 7% (27% on production) | - |"
  echo
  echo "| improvement if never blocked on | jobs | p25 | median | p75 | p95 | max |"
  echo "|---|---|---|---|---|---|---|"
  col=12
  for r in network "disk (shuffle only)" "shuffle read" "shuffle write" GC "scheduler delay" "stragglers (Dolly)" "all non-CPU"; do
    echo "| $r | $(cnt $col) | $(q $col 0.25) | $(q $col 0.5) | $(q $col 0.75) | $(q $col 0.95) | $(q $col 1) |"
    col=$((col+1))
  done
  echo
  echo "Jobs over 20% replay error (idle = time inside the job's span when none of its tasks ran):"
  echo
  awk -F'\t' '$11 > 0.2 {printf "- %s job %s: %d tasks, %d stage(s), slots %d-%d, actual %d ms, simulated %d ms, idle %d ms, error %.1f%%\n",
      $1, $2, $3, $4, $5, $6, $8, $10, $9, 100*$11; k++} END {if (!k) print "- none"}' "$OUT/replay-jobs.tsv"
} | tee "$OUT/replay-accuracy.md"
