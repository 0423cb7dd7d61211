#!/usr/bin/env bash
# Rebuilds models/ladra-default.model, the GRNN's training set (one sample per
# run and mode; training a GRNN is storing its samples), from
# synth runs with injected faults. Every sample holds the paper's seven factors and clarity's
# six event-log features (clarity.ladra-model/2); sigma 0.5 for the paper's raw factors,
# xsigma for the z-scored extended set (chosen with `clarity anomalies cv` on these runs). Reproducible: the scenarios, faults, intensities, hosts,
# windows and seeds below are all there is; the same binary gives the same file.
#   scripts/train-ladra-model.sh [OUT]     (CLARITY=path to the binary; SYNTH_ARGS=extra synth
#   options for every run, e.g. "--nic-bw 125M" to learn a 1 GbE cluster's fetch waits;
#   TRAIN_WORK=a directory to keep the synth runs in and reuse them, else a temporary one;
#   GRID=wide: the grid of issue 19's retraining, see below)
# The default grid is the shipped model's: wordcount, sort, kmeans, pagerank on 4 hosts, seeds
# 1-5, fault windows from 20% to 80% of the fault-free runtime.
# GRID=wide (issue 19, measured and NOT shipped: docs/anomalies.md, "Retrained over host counts
# and workloads"): every synth workload (tpcds-mix too) on 4, 8 and 16 hosts with the fault
# windows of bench/anomalies-wide.sh (odd seeds 20%-80%, even seeds 50%-75%), on TUNING seeds
# 1-5 only (the wide grid reports on seeds 21-22, issue 15's evaluation on 11-16). Samples are
# written per workload and seed, 27 runs in a row (3 host counts x (fault-free + 4 faults x 2
# intensities)): give bench/anomalies-domain.py --group 27 for its domain bound.
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
bin=${CLARITY:-$here/build/clarity}
out=${1:-$here/models/ladra-default.model}
seeds="1 2 3 4 5"
synth_args=${SYNTH_ARGS:-}
if [ "${GRID:-}" = wide ]; then scenarios="wordcount sort kmeans pagerank tpcds-mix" host_counts="4 8 16" alt_windows=1
else scenarios="wordcount sort kmeans pagerank" host_counts=4 alt_windows=; fi
if [ -n "${TRAIN_WORK:-}" ]; then work=$TRAIN_WORK; mkdir -p "$work"
else work=$(mktemp -d); trap 'rm -rf "$work"' EXIT; fi
synth() {   # dir, synth arguments: a run is made once (its truth.json is written last)
    local d=$1; shift
    [ -f "$d/truth.json" ] || "$bin" synth "$@" $synth_args -q -o "$d"
}
dirs=()
for sc in $scenarios; do
    for seed in $seeds; do
        for n in $host_counts; do
            base="$work/$sc-h$n-none-$seed"
            synth "$base" "$sc" --seed "$seed" --hosts "$n"
            dirs+=("$base")
            rt=$(jq '.application.runtime_ms' "$base/truth.json")
            if [ -z "$alt_windows" ] || (( seed % 2 )); then a=$(( rt / 5000 )) b=$(( rt * 4 / 5000 ))
            else a=$(( rt / 2000 )) b=$(( rt * 3 / 4000 )); fi
            h=$(( seed % n + 1 ))
            for f in cpu-hog memory-hog disk-hog network; do
                xs="0.5 0.8"; [ $f = network ] && xs="0.9 0.98"   # tc at 1 Gbps and 250 Mbps of 10 GbE
                for x in $xs; do
                    d="$work/$sc-h$n-$f-$x-$seed"
                    synth "$d" "$sc" --seed "$seed" --hosts "$n" --fault "$f@host$h:${a}s-${b}s:$x"
                    dirs+=("$d")
                done
            done
        done
    done
done
[ -n "${TRAIN_SYNTH_ONLY:-}" ] && exit 0
if [ "${GRID:-}" = wide ]; then
    note="synth $scenarios, hosts $host_counts${synth_args:+, synth $synth_args}, seeds $seeds, faults cpu-hog memory-hog disk-hog at 0.5 and 0.8 and network at 0.9 and 0.98 on host (seed mod hosts)+1, odd seeds from 20% to 80% and even seeds from 50% to 75% of the fault-free runtime, plus fault-free runs"
else
    note="synth wordcount sort kmeans pagerank, 4 hosts${synth_args:+, synth $synth_args}, seeds $seeds, faults cpu-hog memory-hog disk-hog at 0.5 and 0.8 and network at 0.9 and 0.98 on host (seed mod 4)+1 from 20% to 80% of the fault-free runtime, plus fault-free runs"
fi
"$bin" anomalies train -o "$out" --sigma 0.5 --xsigma 1 \
    --note "scripts/train-ladra-model.sh ($(git -C "$here" log -1 --format=%h -- src/synth 2>/dev/null || echo '?') synth): $note" \
    "${dirs[@]}"
