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

# --grid tune|report: the aggregate ("aggressive queries") and per-victim answers on a grid of
# settings, scored by bench/contention-eval.py --grid. The two grids share no setting:
#   tune    the settings iQCAR's rules and the victim-time aggregate were chosen on: 4 hosts,
#           10 queries, arrival 6 s, aggressive {q67} or {q42,q98}, seeds 1-5, FIFO/FAIR (20 runs);
#   report  the settings the figures in docs/contention.md come from: other aggressive queries
#           ({q17}, {q7}, {q3}, {q25,q52}), 4, 8 and 16 hosts (data 6 GiB per host), 8, 12 and 16
#           queries, arrival 4, 6 or 9 s, seeds 101-103, FIFO/FAIR (72 runs).
# Each BASE run keeps its event log (zstd) and truth; one re-run without each query gives the
# counterfactual. GRID_SEEDS overrides the seeds (e.g. "101" for a quick look).
if [ "${1:-}" = --grid ]; then
  G=${2:?--grid tune or --grid report}
  grid_run() { # dir seed pool aggressive queries arrival hosts; a finished run (with EVAL_DIR) is kept
    local d=$1
    # RESCORE_FROM=DIR: the runs kept in DIR (another EVAL_DIR's grid) re-read by this build,
    # their synth outputs linked, not simulated again (a run missing there is simulated)
    local src="${RESCORE_FROM:-/nonexistent}/${d##*/}"
    if [ -n "${RESCORE_FROM:-}" ] && [ -e "$src/truth.json" ] && [ -d "$src/eventlogs" ] && [ ! -e "$d/done" ]; then
      rm -rf "$d"
      mkdir -p "$d"
      for f in "$src"/*; do case ${f##*/} in iq*.json|done) ;; *) ln -sfn "$f" "$d/${f##*/}" ;; esac; done
      "$CLARITY" contention --json --all --top 100 "$(ls "$d"/eventlogs/*)" >"$d/iq.json"
      return 0
    fi
    if [ -e "$d/done" ]; then   # kept: with RESCORE_FROM, re-read by this build
      [ -z "${RESCORE_FROM:-}" ] || "$CLARITY" contention --json --all --top 100 "$(ls "$d"/eventlogs/*)" >"$d/iq.json"
      return 0
    fi
    rm -rf "$d"
    EXTRA="hosts = $7\ndata = $((6 * $7))Gi\ncodec = zstd\n" run_synth "$d" "$2" "$3" "$4" "" "$5" "$6" tasks
    local log; log=$(ls "$d"/eventlogs/*)
    "$CLARITY" contention --json --all --top 100 "$log" >"$d/iq.json"
    for q in $(python3 -c "import json;print(' '.join(q['name'] for q in json.load(open('$d/truth.json'))['queries']))"); do
      EXTRA="hosts = $7\ndata = $((6 * $7))Gi\n" run_synth "$d/wo-$q" "$2" "$3" "$4" "$q" "$5" "$6"
    done
    touch "$d/done"
  }
  case $G in
  tune)
    for seed in ${GRID_SEEDS:-1 2 3 4 5}; do for pool in fifo fair; do for agg in q67 q42,q98; do
      grid_run "$W/grid/$seed-$pool-h4-n10-a6-${agg/,/_}" "$seed" "$pool" "$agg" 10 6s 4
    done; done; done ;;
  report)
    for seed in ${GRID_SEEDS:-101 102 103}; do for pool in fifo fair; do for h in 4 8 16; do
      i=0
      for agg in q17 q7 q3 q25,q52; do
        n=$(( (8 + 4 * ((seed + h / 4 + i) % 3)) )); a=$(( (4 + 2 * ((seed + i) % 3)) + ((seed + i) % 3 == 2) ))
        grid_run "$W/grid/$seed-$pool-h$h-n$n-a$a-${agg/,/_}" "$seed" "$pool" "$agg" "$n" "${a}s" "$h"
        i=$((i + 1))
      done
    done; done; done ;;
  *) echo "--grid tune or --grid report" >&2; exit 2 ;;
  esac
  python3 "$ROOT/bench/contention-eval.py" --grid "$W/grid" "$G"
  exit 0
fi

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
