#!/usr/bin/env bash
# clarity serve's bounded answers against the whole model's, byte for byte, on a log with
# failed tasks at scale (the 10 M-task log has none). By default the log is a simulated
# WordCount (`clarity synth wordcount --data 500G --split 1M --failure-rate 0.02`, zstd:
# two stages of 500,000 tasks, about 2% of attempts failed and retried), made once in $OUT.
#
# Two servers over a directory holding only that log: one under SERVE_EXACT_BOUND (default
# 64M, below the whole load's estimate, so every route takes its bounded path: task sums,
# rows on disk read back in batches, one-stage loads; answers over 8 MiB are streamed), one
# with --max-memory 16G (whole models). Each route is asked of both; bodies are not kept
# (details=true is gigabytes), only status, size and sha256; the bounded server's peak RSS
# per route is its VmHWM (reset between routes). Also `clarity api` (a fresh whole load) for
# the routes in SERVE_EXACT_API. Results: $OUT/results.md.
set -euo pipefail
cd "$(cd "${0%/*}" && pwd)/.."
C=${CLARITY:-build/clarity}
OUT=${SERVE_EXACT_OUT:-bench/out/serve-exact}
BOUND=${SERVE_EXACT_BOUND:-64M}
[ -x "$C" ] || { echo "bench/serve-exact.sh: $C missing (make build/clarity)" >&2; exit 2; }
mkdir -p "$OUT"
LOG=${SERVE_EXACT_LOG:-}
if [ -z "$LOG" ]; then
  if [ ! -d "$OUT/synth/eventlogs" ]; then
    nice -n 10 "$C" synth wordcount --data 500G --split 1M --failure-rate 0.02 --codec zstd --no-logs \
      --no-truth-tasks -q -o "$OUT/synth"
  fi
  LOG=$(ls "$OUT"/synth/eventlogs/* | head -1)
fi
DIR="$OUT/dir"; rm -rf "$DIR"; mkdir -p "$DIR"
ln -s "$(readlink -f "$LOG")" "$DIR/"

kib() { awk -v k="$2:" '$1 == k {print $2}' "/proc/$1/status"; }
cpu() { awk -v t="$(getconf CLK_TCK)" '{sub(/^.*\) /, ""); printf "%.1f", ($12 + $13) / t}' "/proc/$1/stat"; }
start() { # NAME OPTIONS...: sets PORT_NAME and PID_NAME
  local name=$1; shift
  nice -n 10 "$C" serve --port 0 --no-store "$@" "$DIR" >"$OUT/port-$name" 2>"$OUT/log-$name" &
  eval "PID_$name=$!"
  local port=
  until port=$(head -1 "$OUT/port-$name" 2>/dev/null) && [ -n "$port" ]; do sleep 1; done
  eval "PORT_$name=$port"
}
start bounded --max-memory "$BOUND"
start whole --max-memory 16G
app=$(curl -s "http://127.0.0.1:$PORT_whole/api/v1/applications" | python3 -c 'import json,sys; print(json.load(sys.stdin)[0]["id"])')
A="/api/v1/applications/$app"
# the stage attempt with the most failed tasks, for its task list
st=$(curl -s "http://127.0.0.1:$PORT_whole$A/stages" |
     python3 -c 'import json,sys; s=max(json.load(sys.stdin), key=lambda s: s["numFailedTasks"]); print("%d/%d" % (s["stageId"], s["attemptId"]))')
PATHS=${SERVE_EXACT_PATHS:-"jobs stages executors stages?withSummaries=true stages?details=true&taskStatus=FAILED
  stages?details=true stages?details=true&withSummaries=true&taskStatus=FAILED&quantiles=0.01,0.5,0.99
  stages/$st?details=true&taskStatus=FAILED stages/$st/taskList?status=failed&length=100000
  stages/$st/taskList?sortBy=-runtime&length=1000 stages/$st/taskSummary"}
API=${SERVE_EXACT_API:-"stages?details=true&taskStatus=FAILED stages/$st/taskList?status=failed&length=100000"}

ask() { # PORT PATH -> "code size sha256"
  { curl -s -w '%{stderr}%{http_code} %{size_download}' "http://127.0.0.1:$1$A/$2" | sha256sum | cut -c1-16 >"$OUT/sum"; } 2>"$OUT/meta"
  echo "$(cat "$OUT/meta") $(cat "$OUT/sum")"
}
RES="$OUT/results.md"
{
  echo "clarity serve, bounded ($BOUND) against whole models (16G) over $(basename "$LOG") ($(du -m "$(readlink -f "$LOG")" | cut -f1) MB), $(date -u +%FT%TZ), commit $(git rev-parse --short HEAD), load $(cut -d' ' -f1-3 /proc/loadavg)"
  echo
  echo "| route | status | bytes | bounded CPU s | bounded peak MiB | equal to whole | equal to clarity api |"
  echo "|---|---|---:|---:|---:|---|---|"
} >"$RES"
nbad=0
for p in $PATHS; do
  echo 5 >"/proc/$PID_bounded/clear_refs"
  c0=$(cpu "$PID_bounded")
  read -r bc bs bh <<<"$(ask "$PORT_bounded" "$p")"
  c1=$(cpu "$PID_bounded")
  peak=$(( $(kib "$PID_bounded" VmHWM) / 1024 ))
  read -r wc_ ws wh <<<"$(ask "$PORT_whole" "$p")"
  same=no; [ "$bc $bs $bh" = "$wc_ $ws $wh" ] && same=yes
  [ "$same" = yes ] || nbad=$((nbad + 1))
  apisame=-
  for q in $API; do
    if [ "$q" = "$p" ]; then
      ah=$(nice -n 10 "$C" api "$DIR" "$A/$p" 2>/dev/null | sha256sum | cut -c1-16)
      apisame=no; [ "$ah" = "$bh" ] && apisame=yes
      [ "$apisame" = yes ] || nbad=$((nbad + 1))
    fi
  done
  echo "| \`$p\` | $bc | $bs | $(awk -v a="$c0" -v b="$c1" 'BEGIN {printf "%.0f", b - a}') | $peak | $same | $apisame |" >>"$RES"
done
{
  echo
  echo "differences: $nbad"
  echo "bounded server's log:"; grep -E 'load:|streamed' "$OUT/log-bounded" | sed 's/^/    /'
} >>"$RES"
kill -TERM "$PID_bounded" "$PID_whole"; wait "$PID_bounded" "$PID_whole" || true
cat "$RES"
