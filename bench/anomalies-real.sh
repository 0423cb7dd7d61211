#!/usr/bin/env bash
# LADRA's false alarms on the shared real logs (healthy runs as far as anyone knows): per log
# and application, the abnormal periods reported and the verdict line, as a markdown table.
# Run it with two builds to compare (CLARITY=path to the binary).
# Usage: bench/anomalies-real.sh [SHARED_DATA]
set -uo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
bin=${CLARITY:-$here/build/clarity}
data=${1:-$here/../shared/data}
echo "| log | application | LADRA periods | periods that matter | verdict |"
echo "|---|---|---:|---:|---|"
for f in "$data"/spark-events/* "$data"/external/nvidia-qualification/* "$data"/external/nvidia-qualification/multiple_attempts/*; do
    case $(basename "$f") in MANIFEST.tsv|multiple_attempts) continue;; esac
    out=$("$bin" anomalies -q "$f" 2>&1)
    if ! grep -q '^application ' <<<"$out"; then
        printf '| %s | - | - | - | %s |\n' "${f#$data/}" "$(head -1 <<<"$out" | cut -c1-100)"; continue
    fi
    awk -v lg="${f#$data/}" '
        /^application / { app = $2 }
        /^detection / { n = $0; sub(/.*; /, "", n); m = n; sub(/ period.*/, "", n)
                        if (m ~ /that matter/) { sub(/.*, /, "", m); sub(/ that.*/, "", m) } else m = "-" }
        /^verdict / { v = $0; sub(/^verdict +/, "", v); gsub(/\|/, "/", v); printf "| %s | %s | %s | %s | %s |\n", lg, app, n, m, v }' <<<"$out"
done
