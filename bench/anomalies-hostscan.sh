#!/usr/bin/env bash
# The cross-stage host scan's and the fetch-wait scan's threshold sweep (docs/anomalies.md,
# "Hosts slowed across stages", "Slow networks"): over the synth runs bench/anomalies-eval.sh made (WORKDIR/runs, its model
# WORKDIR/model trained on seeds 1-5), each run analysed once per mode with every host's
# strongest stretch in JSON (host_scan), then per rule (z bound, share of the run's task time;
# 5+ tasks, slowdown x1.1, excess 1 s; the fetch-wait scan's slowdown and share, or none: its
# 5+ readers on 2+ hosts and 1 s are fixed) and per seed set: detection TPR/FPR, stretch precision
# (on the faulty host, overlapping the fault's window) and the verdict's precision/recall per
# cause (the model's verdict when a period or a stretch matters), as the eval script counts
# them. Also the shared real logs: applications with a stretch that matters.
# Usage: bench/anomalies-hostscan.sh WORKDIR [SHARED_DATA]   (CLARITY=path to the binary)
set -uo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
bin=${CLARITY:-$here/build/clarity}
work=$1 data=${2:-$here/../shared/data}
out=$work/hostscan.jsonl real=$work/hostscan-real.jsonl
one() {
  local d=$1 bin=$2 model=$3 n; n=$(basename "$d")
  for mode in logs eventlog; do
    local extra=(); [ $mode = logs ] && extra=(--executor-logs "$d/executor-logs" --gc-logs "$d/gc")
    "$bin" anomalies --json --compact -q --model "$model" "${extra[@]}" "$d"/eventlogs/* | jq -c --arg n "$n" --arg mode $mode --slurpfile t "$d/truth.json" '
      .applications[0] | {n: $n, mode: $mode, inj: (($t[0].faults|length)>0), fh: ($t[0].faults[0].host // "-"),
        lab: ($t[0] | if (.faults|length)>0 and .faults[0].affected_tasks>0 then (.faults[0].kind|sub("-hog";"")) else "normal" end),
        fs: ($t[0].faults[0].start_ms // 0), fe: ($t[0].faults[0].end_ms // 0), nm: (.periods|length), mc: .run.model_class,
        tot: ([.hosts[].task_ms]|add), hs: .host_scan, net: .fetch_scan}'
  done > "$(dirname "$0")/$n.tmp" && mv "$(dirname "$0")/$n.tmp" "$(dirname "$0")/$n.jsonl"
}
export -f one
# SCORE_ONLY=1: score the JSON lines of an earlier call again
# one file per run (two processes appending long lines to one file can interleave them)
if [ -z "${SCORE_ONLY:-}" ]; then
  rm -rf "$work/hsjson"; mkdir -p "$work/hsjson"
  ls -d "$work"/runs/* | xargs -P "${JOBS:-2}" -I{} bash -c 'one "$@"' "$work/hsjson/x" {} "$bin" "$work/model"
  cat "$work"/hsjson/*.jsonl > "$out"
fi
[ -n "${SCORE_ONLY:-}" ] || for f in "$data"/spark-events/* "$data"/external/nvidia-qualification/* "$data"/external/nvidia-qualification/multiple_attempts/*; do
  case $(basename "$f") in MANIFEST.tsv|multiple_attempts) continue;; esac
  "$bin" anomalies --json --compact -q "$f" 2>/dev/null | jq -c '.applications[]? | {tot: ([.hosts[].task_ms]|add), hs: .host_scan, net: .fetch_scan}'
done > "$real"
score() {   # seeds z share fetch-slowdown fetch-share (fetch-slowdown 0: no fetch-wait scan)
  jq -r --argjson z "$2" --argjson sh "$3" --argjson fx "$4" --argjson fsh "$5" '.tot as $tot | ([.hs[] | select(.z >= $z and .tasks >= 5 and .excess_ms >= 1000
      and .excess_ms >= $sh * $tot and .slowdown >= 1.1)]) as $m
    | (if $fx > 0 and .net != null then (.net.tasks >= 5 and .net.hosts >= 2 and .net.slowdown >= $fx and .net.excess_ms >= 1000
         and .net.excess_ms >= $fsh * .net.run_task_ms) else false end) as $net
    | [.n, .mode, .lab, .inj, .fh, (.nm + (if $net then 1 else 0 end)), .mc, ($m|length), ([$m[] | .host] | join(",")), .fs, .fe,
       ([$m[] | "\(.start_ms):\(.end_ms)"] | join(","))] | @tsv' "$out" |
  awk -F'\t' -v seeds=" $1 " '
    { k = split($1, a, "-"); if (index(seeds, " " a[k] " ") == 0) next
      det = ($6 > 0 || $8 > 0); cls = det ? $7 : "normal"; lab = $3; mode = $2
      n[mode, lab]++; if (cls == lab) tp[mode, cls]++; else if (cls != "normal") fp[mode, cls]++
      if (mode == "eventlog") {
        if (lab != "normal") { P++; if (det) dtp++ } else if ($4 == "false") { N++; if (det) dfp++ }
        m = split($9, hs, ","); split($12, ws, ",")
        for (i = 1; i <= m; i++) { split(ws[i], se, ":"); hp++; if (hs[i] == $5 && se[2] > $10 && se[1] < $11) htp++ } } }
    function r(a, b) { return b ? sprintf("%.2f", a / b) : "-" }
    END { printf "| %s / %s | %s (%d) |", r(dtp, P), r(dfp, N), r(htp, hp), hp
          split("cpu memory network disk", cl, " ")
          for (md = 1; md <= 2; md++) { mode = md == 1 ? "logs" : "eventlog"
            for (c = 1; c <= 4; c++) printf " %s / %s |", r(tp[mode, cl[c]], tp[mode, cl[c]] + fp[mode, cl[c]]), r(tp[mode, cl[c]], n[mode, cl[c]]) } }'
  jq -r --argjson z "$2" --argjson sh "$3" --argjson fx "$4" --argjson fsh "$5" '.tot as $tot | ([.hs[] | select(.z >= $z and .tasks >= 5 and .excess_ms >= 1000
      and .excess_ms >= $sh * $tot and .slowdown >= 1.1)] | length)
      + (if $fx > 0 and .net != null and .net.tasks >= 5 and .net.hosts >= 2 and .net.slowdown >= $fx and .net.excess_ms >= 1000
           and .net.excess_ms >= $fsh * .net.run_task_ms then 1 else 0 end)' "$real" | awk '{ a += ($1 > 0) } END { printf " %d |\n", a }'
}
for set in "tuning:1 2 3 4 5" "test:11 12 13 14 15 16"; do
  echo; echo "seeds ${set#*:} (${set%%:*})"; echo
  echo "| rule | TPR / FPR | stretch precision (n) | logs: cpu | memory | network | disk | event log: cpu | memory | network | disk | real apps with a stretch |"
  echo "|---|---|---|---|---|---|---|---|---|---|---|---|"
  for r in "999 0 0 0" "4 0.02 0 0" "4.5 0.02 0 0" "5 0 0 0" "5 0.02 0 0" "5.5 0.02 0 0" "6 0.02 0 0" \
           "5 0.02 1.5 0.01" "5 0.02 1.5 0.02" "5 0.02 2 0.02" "5 0.02 3 0.02" "5.5 0.02 1.5 0.02" "5.5 0.02 2 0.01" \
           "5.5 0.02 2 0.02" "5.5 0.02 2 0.04" "5.5 0.02 3 0.02"; do
    set -- $r; printf '| z >= %s, %s; fetch %s |' "$1" "$2" "$( [ "$3" = 0 ] && echo none || echo "x$3, $4")"
    score "${set#*:}" "$1" "$2" "$3" "$4" | sed 's/^|//'
  done
done
