#!/usr/bin/env bash
# LADRA evaluation on synth runs with known faults (the paper's Tables 4 and 5).
# wordcount, sort, kmeans, pagerank x {cpu-hog, memory-hog, disk-hog, network} x intensities
# {0.5, 0.8} x seeds, plus fault-free runs. Training seeds and test seeds are disjoint: the
# GRNN is trained (clarity anomalies train) on the training runs only and scored on the test
# runs, in the log-based mode (--executor-logs --gc-logs) and the event-log-only mode.
# Usage: bench/anomalies-eval.sh [WORKDIR]   (prints markdown tables; CLARITY=path to binary)
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
bin=${CLARITY:-$here/build/clarity}
work=${1:-$here/bench/out/anomalies-eval}
scenarios=${SCENARIOS:-"wordcount sort kmeans pagerank"}
faults=${FAULTS:-"cpu-hog memory-hog disk-hog network"}
intensities=${INTENSITIES:-"0.5 0.8"}
train_seeds=${TRAIN_SEEDS:-"1 2 3"}
test_seeds=${TEST_SEEDS:-"11 12 13"}
hosts=4
mkdir -p "$work/runs"

# One run: scenario, fault (or none), intensity, seed. The victim host and the window (from
# 20% to 80% of the fault-free runtime) follow from the seed, so runs are reproducible.
run() {
    local sc=$1 fault=$2 x=$3 seed=$4 dir="$work/runs/$1-$2-$3-$4"
    [ -f "$dir/truth.json" ] && { echo "$dir"; return; }
    local args=()
    if [ "$fault" != none ]; then
        local rt; rt=$(jq '.application.runtime_ms' "$work/runs/$sc-none-0-$seed/truth.json")
        local h=$(( seed % hosts + 1 )) a=$(( rt / 5000 )) b=$(( rt * 4 / 5000 ))
        args=(--fault "$fault@host$h:${a}s-${b}s:$x")
    fi
    "$bin" synth "$sc" --seed "$seed" --hosts $hosts "${args[@]}" -q -o "$dir"
    echo "$dir"
}

train_dirs=() test_dirs=()
for sc in $scenarios; do
    for seed in $train_seeds $test_seeds; do
        d=$(run "$sc" none 0 "$seed")
        case " $train_seeds " in *" $seed "*) train_dirs+=("$d");; *) test_dirs+=("$d");; esac
        for f in $faults; do for x in $intensities; do
            d=$(run "$sc" "$f" "$x" "$seed")
            case " $train_seeds " in *" $seed "*) train_dirs+=("$d");; *) test_dirs+=("$d");; esac
        done; done
    done
done
"$bin" anomalies train -q -o "$work/model" --note "bench/anomalies-eval.sh training seeds $train_seeds" "${train_dirs[@]}"

# Per test run and mode: truth label, LADRA detected, speculation detected, GRNN class, rules class.
label_of() {
    jq -r 'if (.faults|length)>0 and .faults[0].affected_tasks>0 then (.faults[0].kind|sub("-hog";"")) else "normal" end' "$1/truth.json"
}
: > "$work/results.tsv"
for d in "${test_dirs[@]}"; do
    sc=$(basename "$d" | cut -d- -f1)
    lab=$(label_of "$d")
    injected=$(jq '(.faults|length)>0' "$d/truth.json")
    for mode in logs eventlog; do
        extra=()
        [ $mode = logs ] && extra=(--executor-logs "$d/executor-logs" --gc-logs "$d/gc")
        g=$("$bin" anomalies --json --compact -q --model "$work/model" "${extra[@]}" "$d"/eventlogs/*)
        r=$("$bin" anomalies --json --compact -q --rules "${extra[@]}" "$d"/eventlogs/*)
        printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$sc" "$mode" "$lab" "$injected" \
            "$(jq -r '.applications[0].detected' <<<"$g")" "$(jq -r '.applications[0].speculation.detected' <<<"$g")" \
            "$(jq -r '.applications[0] | if .detected then .run.class else "normal" end' <<<"$g")" \
            "$(jq -r '.applications[0] | if .detected then .run.class else "normal" end' <<<"$r")" >> "$work/results.tsv"
    done
done

echo "setup: scenarios [$scenarios] x faults [$faults] x intensities [$intensities] on $hosts hosts;"
echo "training seeds [$train_seeds], test seeds [$test_seeds]; fault on host (seed mod $hosts)+1 from 20% to 80% of the fault-free runtime"
echo "test runs: $(( ${#test_dirs[@]} )); a run with a fault that delayed no task is labelled normal for root cause and left out of detection"
echo
echo "### Detection (per run; standard FPR = FP/(FP+TN))"
echo
echo "| benchmark | mode | runs | LADRA TPR | LADRA FPR | speculation TPR | speculation FPR |"
echo "|---|---|---:|---:|---:|---:|---:|"
for mode in logs eventlog; do for sc in $scenarios all; do
    awk -F'\t' -v sc=$sc -v mode=$mode '
        ($1==sc || sc=="all") && $2==mode {
            pos = ($3!="normal"); neg = ($4=="false");
            if (!pos && !neg) next;
            n++;
            if (pos) { P++; if ($5=="true") tp++; if ($6=="true") stp++ }
            else { N++; if ($5=="true") fp++; if ($6=="true") sfp++ }
        }
        function r(a,b) { return b ? sprintf("%.2f", a/b) : "-" }
        END { printf "| %s | %s | %d | %s | %s | %s | %s |\n", sc, mode, n, r(tp,P), r(fp,N), r(stp,P), r(sfp,N) }' "$work/results.tsv"
done; done
echo
for method in grnn rules; do
    col=7; [ $method = rules ] && col=8
    echo "### Root cause, $method (precision P = TP/(TP+FP), recall = TPR)"
    echo
    echo "| mode | class | runs | P | recall |"
    echo "|---|---|---:|---:|---:|"
    for mode in logs eventlog; do for cl in cpu memory network disk normal; do
        awk -F'\t' -v cl=$cl -v mode=$mode -v c=$col '
            $2==mode { if ($3==cl) n++; if ($c==cl && $3==cl) tp++; else if ($c==cl) fp++; else if ($3==cl) fn++ }
            function r(a,b) { return b ? sprintf("%.2f", a/b) : "-" }
            END { printf "| %s | %s | %d | %s | %s |\n", mode, cl, n, r(tp,tp+fp), r(tp,tp+fn) }' "$work/results.tsv"
    done; done
    echo
done
