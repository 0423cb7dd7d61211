#!/usr/bin/env bash
# iQCAR against ground truth on synth tpcds-mix workloads (the paper's sections 7.2 and 7.4;
# issue 9 item 6). For each seed, scheduler mode (FIFO, FAIR) and set of aggressive queries (data x4)
# the BASE workload is simulated once, then once more without each of its queries (synth
# `omit`): the victims' runtimes in those re-runs are the paper's own validation (source
# elimination, 7.2.1) for every victim at once. Scoring (bench/contention-eval.py) against three
# truths, each a ranking of the culprits of every victim:
#  R  resource delay: synth's per-pair delay (cpu + disk + network), others only;
#  RS R + slot delay: each task's wait for a slot (stage submission -> launch) split over the
#     queries by the share of the cluster's busy slots they held during that wait;
#  CF counterfactual: the victim's speed-up when the culprit is removed and re-simulated
#     (culprits = speed-up above 2% of the victim's runtime: smaller changes are simulation
#     noise from the shifted schedule).
# Plus the paper's Section 7.4 comparison as a separate table: 3-query workloads, the
# target, a source started with it and a heavy source started later and later; truth =
# counterfactual. Methods: iQCAR (DOR; --ie-normalize=median; --slot-blame=wait, the
# source's own slot wait / slots offered as its RATP) and the simple-overlap baseline.
# Usage: bench/contention-eval.sh [SEEDS]   (default 5 seeds); prints Markdown tables.
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
CLARITY="${CLARITY:-$ROOT/build/clarity}"
SEEDS="${1:-5}"
if [ -n "${EVAL_DIR:-}" ]; then W=$EVAL_DIR; mkdir -p "$W"   # kept, to re-score or inspect
else W=$(mktemp -d); trap 'rm -rf "$W"' EXIT; fi

run_synth() { # dir seed pool aggressive omit queries arrival [tasks]; $EXTRA: more INI lines
  { echo "scenario = tpcds-mix"; echo "seed = $2"; echo "pool = $3"; echo "queries = $6"; echo "arrival = $7"
    [ -n "$4" ] && echo "aggressive = $4"; [ -n "$5" ] && echo "omit = $5"; printf '%b' "${EXTRA:-}"; } >"$W/s.ini"
  local tt=--no-truth-tasks; [ "${8:-}" = tasks ] && tt=
  "$CLARITY" synth --scenario "$W/s.ini" --no-logs $tt -q -o "$1"
}

# dir seed pool aggressive queries arrival [omitted]: BASE run, iQCAR on it, one re-run per
# query left out
base_and_omits() {
  local d=$1 om=${7:-}
  run_synth "$d" "$2" "$3" "$4" "$om" "$5" "$6" tasks
  local log; log=$(ls "$d"/eventlogs/*)
  "$CLARITY" contention --json --all --top 100 "$log" >"$d/iq.json"
  "$CLARITY" contention --json --all --top 100 --ie-normalize=median "$log" >"$d/iqn.json"
  "$CLARITY" contention --json --all --top 100 --slot-blame=wait "$log" >"$d/iqw.json"
  grep '"Event":"SparkListenerStageSubmitted"' "$log" >"$d/submitted.jsonl" || true
  rm -rf "$d/eventlogs"
  for q in $(python3 -c "import json;print(' '.join(q['name'] for q in json.load(open('$d/truth.json'))['queries']))"); do
    run_synth "$d/wo-$q" "$2" "$3" "$4" "${om:+$om,}$q" "$5" "$6"
  done
}

for seed in $(seq 1 "$SEEDS"); do
  for pool in fifo fair; do
    for agg in q67 q42,q98; do
      base_and_omits "$W/mix/$seed-$pool-${agg/,/_}" "$seed" "$pool" "$agg" 10 6s
    done
  done
done
# Section 7.4: target q3; q17 starts with it (mean gap 1 s); one heavy query (4x
# data, alone in a FAIR pool with share 0.4 so that it gets slots as soon as it arrives)
# starts 1, 2 or 3 mean gaps later still (q67, q98 or q89, every other query left out): the
# later it starts, the less it overlaps q3.
ALLQ="q3 q17 q42 q67 q7 q25 q52 q98 q19 q29 q55 q89"
for seed in $(seq 1 "$SEEDS"); do
  for heavy in q67 q98 q89; do
    om=$(for q in $ALLQ; do case $q in q3|q17|"$heavy") ;; *) printf '%s,' "$q" ;; esac; done)
    EXTRA="query-pool = $heavy:0.4\n" base_and_omits "$W/s74/$seed-$heavy" "$seed" fair "$heavy" 12 1s "${om%,}"
  done
done

python3 "$ROOT/bench/contention-eval.py" "$W" "$SEEDS"
