#!/usr/bin/env bash
# Does every command's cost grow linearly, along the task axis and along the job axis?
#
# Tasks: a real NDS q72 log (13,504 tasks, 49 jobs, 139 stages, 25 SQL queries per copy)
#   renumbered into 1 M, 3 M and 10 M tasks (TASKS="1000000 3000000 10000000"), zstd always,
#   plain up to PLAIN_MAX tasks (default 3 M: the 10 M plain log is 36 GB of disk).
# Jobs: a one-job application (tests/data/mini-3x.json: 1 job, 2 stages, 4 tasks, 1 SQL query)
#   repeated 10^4, 10^5 and 10^6 times (JOBS="10000 100000 1000000"), plain: the
#   many-small-queries shape of notebooks, streaming and schedulers.
# Copies get fresh ids and shifted times (build/tools/renumber), so they run one after another
# as in one long application.
#
# Each row: wall seconds, CPU seconds (user + sys: steadier than wall on a shared machine),
# peak RSS, RSS beyond `summary` per task, and wall and CPU as a multiple of `summary`'s in the
# same run. For the job axis a raw simdjson pass over the same file is the floor `summary
# --threads 1` is held to (within 2x). One run per cell (the big logs take minutes); machines
# are shared, so compare ratios within a table, not seconds across runs.
# SCALE_APP and SCALE_STAGE (STAGE/ATTEMPT, for the taskList row) skip the two lookups, a whole
# read each (about ten minutes at 10 M tasks on a busy machine), when one log is measured.
set -euo pipefail
cd "$(cd "${0%/*}" && pwd)/.."
C=${CLARITY:-build/clarity}
for t in "$C" build/tools/renumber build/tools/simdjson_pass; do
  [ -x "$t" ] || { echo "bench/scale-axes.sh: $t missing: make build/clarity build/tools/renumber build/tools/simdjson_pass" >&2; exit 2; }
done
command -v zstd >/dev/null || { echo "bench/scale-axes.sh: zstd missing (apt-get install zstd)" >&2; exit 2; }
OUT=${SCALE_DIR:-bench/out/scale}
LOGS=${SCALE_LOGS:-$OUT/logs}
mkdir -p "$OUT" "$LOGS"
RES="$OUT/axes.md"
: >"$RES"
say() { echo "$*" | tee -a "$RES"; }
CMDS=${CMDS:-"summary stragglers blocked whatif anomalies contention findings report diff api-jobs api-stages api-executors api-tasklist"}

REAL=/work/shared/data/external/nvidia-qualification/nds_q72_dataproc_2_2.zstd
SRC=$LOGS/source-tasks.json
if [ -n "${TASKS-x}" ] && [ ! -s "$SRC" ]; then
  if [ -r "$REAL" ]; then zstd -q -dc "$REAL" >"$SRC"
  else cp tests/data/spark-3.1-app-20200706201101-0003.json "$SRC"; fi
fi
JSRC=tests/data/mini-3x.json
per_copy() { $C summary --json --threads 1 "$1" | python3 -c 'import json,sys; print(json.load(sys.stdin)["applications"][0]["totals"]["tasks"])'; }

# measure LABEL CMD...: "wall cpu rss_kib rc"
measure() {
  local t0 t1
  t0=$(date +%s.%N)
  set +e
  /usr/bin/time -f '%U %S %M' -o "$OUT/.time" "$@" >/dev/null 2>"$OUT/.err"
  local rc=$?
  set -e
  t1=$(date +%s.%N)
  read -r u s m < <(tail -1 "$OUT/.time")
  awk -v a="$t0" -v b="$t1" -v u="$u" -v s="$s" -v m="$m" -v rc="$rc" 'BEGIN{printf "%.2f %.2f %d %d\n", b-a, u+s, m, rc}'
}

app_of() { $C summary --json --threads 1 "$1" | python3 -c 'import json,sys; print(json.load(sys.stdin)["applications"][0]["app_id"])'; }
big_stage() { $C api --compact "$1" "/applications/$2/stages" | python3 -c '
import json,sys; s=max(json.load(sys.stdin), key=lambda s: s["numTasks"]); print("%d/%d" % (s["stageId"], s["attemptId"]))'; }

run_cmd() { # run_cmd CMD LOG APP STAGE
  local cmd=$1 log=$2 app=$3 stage=$4
  case $cmd in
    api-jobs) measure $C api --compact "$log" "/applications/$app/jobs" ;;
    api-stages) measure $C api --compact "$log" "/applications/$app/stages" ;;
    api-executors) measure $C api --compact "$log" "/applications/$app/executors" ;;
    api-tasklist) measure $C api --compact "$log" "/applications/$app/stages/$stage/taskList?length=100000" ;;
    summary-t1) measure $C summary --json --threads 1 "$log" ;;
    report) measure $C report "$log" -o "$OUT/page.html" ;;
    diff) measure $C diff --json "$log" "$log" ;;
    *) measure $C "$cmd" --json "$log" ;;
  esac
}

table() { # table TITLE LOG TASKS [JOBS_AXIS]
  local title=$1 log=$2 tasks=$3 jobs_axis=${4:-}
  local app stage
  app=${SCALE_APP:-$(app_of "$log")}
  stage=${SCALE_STAGE:-$(big_stage "$log" "$app")}
  say "#### $title"
  say ""
  say "| command | wall s | CPU s | peak RSS MiB | RSS beyond summary, B/task | wall vs summary | CPU vs summary | exit |"
  say "|---|---:|---:|---:|---:|---:|---:|---:|"
  read -r sw sc sr _ < <(run_cmd summary "$log" "$app" "$stage")
  for cmd in $CMDS; do
    if [ "$cmd" = summary ]; then w=$sw c=$sc r=$sr rc=0
    else read -r w c r rc < <(run_cmd "$cmd" "$log" "$app" "$stage"); fi
    awk -v l="$cmd" -v w="$w" -v c="$c" -v r="$r" -v sr="$sr" -v sw="$sw" -v sc="$sc" -v t="$tasks" -v rc="$rc" 'BEGIN{
      printf "| %s | %.1f | %.1f | %.0f | %.0f | %.2fx | %.2fx | %d |\n", l, w, c, r/1024, (r-sr)*1024/t, w/sw, c/sc, rc }' | tee -a "$RES"
  done
  if [ -n "$jobs_axis" ]; then
    read -r jw jc jr _ < <(measure build/tools/simdjson_pass "$log")
    read -r tw tc tr _ < <(run_cmd summary-t1 "$log" "$app" "$stage")
    awk -v jw="$jw" -v jc="$jc" -v tw="$tw" -v tc="$tc" 'BEGIN{
      printf "\nsummary --threads 1: %.1f s wall, %.1f s CPU; raw simdjson pass %.1f s wall, %.1f s CPU: %.2fx wall, %.2fx CPU (target 2x)\n", tw, tc, jw, jc, tw/jw, tc/jc }' | tee -a "$RES"
  fi
  say ""
}

say "## clarity cost along the task and job axes"
say ""
say "$(date -u +%FT%TZ), commit $(git rev-parse --short HEAD 2>/dev/null || echo ?), $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg)"
say ""
# TASKS= (set and empty) skips the task axis, source log included, for a job-axis-only run.
TASKS=${TASKS-1000000 3000000 10000000}
[ -n "$TASKS" ] && src_tasks=$(per_copy "$SRC") && say "### tasks axis: $(basename "$REAL") renumbered ($src_tasks tasks per copy)" && say ""
for n in $TASKS; do
  copies=$(( (n + src_tasks - 1) / src_tasks ))
  z="$LOGS/tasks-$n.zstd"
  [ -s "$z" ] || { build/tools/renumber "$SRC" "$copies" 2>/dev/null | zstd -q -T0 -3 -o "$z.tmp" && mv "$z.tmp" "$z"; }
  table "$n tasks ($copies copies), zstd $(du -m "$z" | cut -f1) MB" "$z" "$n"
  if [ "$n" -le "${PLAIN_MAX:-3000000}" ]; then
    p="$LOGS/tasks-$n.json"
    [ -s "$p" ] || { zstd -q -dc "$z" >"$p.tmp" && mv "$p.tmp" "$p"; }
    table "$n tasks, plain $(du -m "$p" | cut -f1) MB" "$p" "$n"
  fi
done

jtasks=$(per_copy "$JSRC")
say "### job axis: $(basename "$JSRC") renumbered (1 job, 1 SQL query, $jtasks tasks per copy)"
say ""
for n in ${JOBS:-10000 100000 1000000}; do
  p="$LOGS/jobs-$n.json"
  [ -s "$p" ] || { build/tools/renumber "$JSRC" "$n" 2>/dev/null >"$p.tmp" && mv "$p.tmp" "$p"; }
  table "$n jobs, plain $(du -mL "$p" | cut -f1) MB" "$p" "$((n * jtasks))" jobs
done
echo "(written to $RES)"
