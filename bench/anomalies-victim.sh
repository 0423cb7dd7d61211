#!/usr/bin/env bash
# LADRA's victim host against synth truth (issue 19): over the runs whose injected fault slowed
# tasks (truth.json affected_tasks > 0), how often `clarity anomalies` (event-log-only mode; the
# victim does not depend on the model or the logs) names the faulty host as run.victim_host,
# per host count and per workload. Run directories are named as scripts/train-ladra-model.sh
# writes them (SCENARIO-hN-FAULT-X-SEED), e.g. its GRID=wide runs kept with TRAIN_WORK: those
# are tuning seeds, so this is where a victim rule may be chosen.
# Usage: bench/anomalies-victim.sh RUNS_DIR [GLOB]   (GLOB default '*-1': seed 1; CLARITY=binary, JOBS)
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
bin=${CLARITY:-$here/build/clarity}
runs=${1:?usage: bench/anomalies-victim.sh RUNS_DIR [GLOB]}
glob=${2:-*-1}
out=$(mktemp); trap 'rm -f "$out"' EXIT
one() {   # one run: name, faulty host, victim host (nothing when its fault slowed no task)
    local d=$1 bin=$2 n fh v; n=$(basename "$d")
    jq -e '(.faults|length)>0 and .faults[0].affected_tasks>0' "$d/truth.json" >/dev/null || return 0
    fh=$(jq -r '.faults[0].host' "$d/truth.json")
    v=$("$bin" anomalies --json --compact -q "$d"/eventlogs/* | jq -r '.applications[0].run.victim_host')
    printf '%s\t%s\t%s\n' "$n" "$fh" "$v"
}
export -f one
ls -d "$runs"/$glob | xargs -P "${JOBS:-2}" -I{} bash -c 'one "$@"' _ {} "$bin" > "$out"
echo "| setting | runs slowed | victim = faulty host |"
echo "|---|---:|---:|"
for key in h4 h8 h16 wordcount sort kmeans pagerank tpcds-mix all; do
    awk -F'\t' -v key="$key" '{ split($1, p, "-h"); split(p[2], q, "-"); hn = "h" q[1]
            if (!(key == "all" || key == p[1] || key == hn)) next
            n++; if ($2 == $3) ok++ }
        END { if (n) printf "| %s | %d | %d (%.2f) |\n", key, n, ok, ok / n }' "$out"
done
