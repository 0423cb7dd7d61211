#!/usr/bin/env bash
# Rebuilds models/ladra-default.model, the GRNN's training set (one sample per
# run and mode; training a GRNN is storing its samples), from
# synth runs with injected faults. Every sample holds the paper's seven factors and clarity's
# six event-log features (clarity.ladra-model/2); sigma 0.5 for the paper's raw factors,
# xsigma for the z-scored extended set (chosen with `clarity anomalies cv` on these runs). Reproducible: the scenarios, faults, intensities, hosts,
# windows and seeds below are all there is; the same binary gives the same file.
#   scripts/train-ladra-model.sh [OUT]     (CLARITY=path to the binary; SYNTH_ARGS=extra synth
#   options for every run, e.g. "--nic-bw 125M" to learn a 1 GbE cluster's fetch waits)
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
bin=${CLARITY:-$here/build/clarity}
out=${1:-$here/models/ladra-default.model}
seeds="1 2 3 4 5"
synth_args=${SYNTH_ARGS:-}
work=$(mktemp -d); trap 'rm -rf "$work"' EXIT
dirs=()
for sc in wordcount sort kmeans pagerank; do
    for seed in $seeds; do
        "$bin" synth "$sc" --seed "$seed" --hosts 4 $synth_args -q -o "$work/$sc-none-$seed"
        dirs+=("$work/$sc-none-$seed")
        rt=$(jq '.application.runtime_ms' "$work/$sc-none-$seed/truth.json")
        a=$(( rt / 5000 )) b=$(( rt * 4 / 5000 )) h=$(( seed % 4 + 1 ))
        for f in cpu-hog memory-hog disk-hog network; do
            xs="0.5 0.8"; [ $f = network ] && xs="0.9 0.98"   # tc at 1 Gbps and 250 Mbps of 10 GbE
            for x in $xs; do
            d="$work/$sc-$f-$x-$seed"
            "$bin" synth "$sc" --seed "$seed" --hosts 4 $synth_args --fault "$f@host$h:${a}s-${b}s:$x" -q -o "$d"
            dirs+=("$d")
        done; done
    done
done
"$bin" anomalies train -o "$out" --sigma 0.5 --xsigma 1 \
    --note "scripts/train-ladra-model.sh ($(git -C "$here" log -1 --format=%h -- src/synth 2>/dev/null || echo '?') synth): synth wordcount sort kmeans pagerank, 4 hosts${synth_args:+, synth $synth_args}, seeds $seeds, faults cpu-hog memory-hog disk-hog at 0.5 and 0.8 and network at 0.9 and 0.98 on host (seed mod 4)+1 from 20% to 80% of the fault-free runtime, plus fault-free runs" \
    "${dirs[@]}"
