#!/usr/bin/env bash
# clarity serve's memory over one very large application: the 10 M-task log that
# bench/scale-axes.sh builds (NDS q72 renumbered, zstd; SERVE_BIG_LOG names it).
#
# For each --max-memory in SERVE_BIG_BOUNDS (default "512M 1G default"): a server over a
# directory holding only that log (no store, so the first scan reads the log before the port
# is printed), then two task-list requests for two different stages. Peaks are the kernel's
# high-water mark of the server process (VmHWM), reset between phases (clear_refs 5), so
# each row's peak is that phase's alone; RSS after is VmRSS once the answer came. One run
# per cell (each load reads the whole log: minutes); the bounds run at once (nice 10), so
# wall times include each other's load: compare memory, not seconds.
set -euo pipefail
cd "$(cd "${0%/*}" && pwd)/.."
C=${CLARITY:-build/clarity}
LOG=${SERVE_BIG_LOG:-bench/out/scale/logs/tasks-10000000.zstd}
[ -x "$C" ] || { echo "bench/serve-big.sh: $C missing (make build/clarity)" >&2; exit 2; }
[ -r "$LOG" ] || { echo "bench/serve-big.sh: $LOG missing (TASKS=10000000 bench/scale-axes.sh builds it)" >&2; exit 2; }
OUT=${SERVE_BIG_OUT:-bench/out/serve-big}
mkdir -p "$OUT"
# two copies of q72's largest stage (2,185 tasks each), then the first again (a cache hit)
STAGES=${SERVE_BIG_STAGES:-"23/0 301/0 23/0"}
QUERY=${SERVE_BIG_QUERY:-"length=20"}
# or any routes under the application, in order (e.g. "environment stages/579/0/taskList jobs"):
# each a phase of its own
PATHS=${SERVE_BIG_PATHS:-}
# SERVE_BIG_HASH=1: answers are not kept (the unfiltered stages?details=true of the 10 M-task
# log is ~25 GB), only their size and sha256 (answer-BOUND-K.sha256), to compare with another
# server's or clarity api's
HASH=${SERVE_BIG_HASH:-0}
if [ -z "$PATHS" ]; then
  for st in $STAGES; do PATHS="$PATHS stages/$st/taskList?$QUERY"; done
fi

kib() { awk -v k="$2:" '$1 == k {print $2}' "/proc/$1/status"; }
mib() { awk -v k="$1" 'BEGIN {printf "%d", k / 1024}'; }
# the process's CPU seconds so far (user + system, from /proc/PID/stat): each phase's CPU is
# the difference, which the machine's load does not inflate as it does the wall time
cpu() { awk -v t="$(getconf CLK_TCK)" '{sub(/^.*\) /, ""); printf "%.1f", ($12 + $13) / t}' "/proc/$1/stat"; }

one() { # one BOUND: a table row per phase in $OUT/rows-BOUND
  local bound=$1 dir="$OUT/dir-$1" rows="$OUT/rows-$1" opt=()
  rm -rf "$dir"; mkdir -p "$dir"
  ln "$LOG" "$dir/" 2>/dev/null || ln -s "$(readlink -f "$LOG")" "$dir/"
  [ "$bound" = default ] || opt=(--max-memory "$bound")
  : >"$rows"
  local t0 t1 pid port app
  t0=$(date +%s.%N)
  nice -n 10 "$C" serve --port 0 --no-store "${opt[@]}" "$dir" >"$OUT/port-$bound" 2>"$OUT/log-$bound" &
  pid=$!
  until port=$(head -1 "$OUT/port-$bound" 2>/dev/null) && [ -n "$port" ]; do
    kill -0 "$pid" 2>/dev/null || { echo "server ($bound) died: $(tail -2 "$OUT/log-$bound")" >&2; return 1; }
    sleep 1
  done
  t1=$(date +%s.%N)
  local c0 c1
  c1=$(cpu "$pid")
  echo "first scan|$(awk -v a="$t0" -v b="$t1" 'BEGIN {printf "%.0f", b - a}')|$c1|$(mib "$(kib "$pid" VmHWM)")|$(mib "$(kib "$pid" VmRSS)")" >>"$rows"
  app=$(curl -s "http://127.0.0.1:$port/api/v1/applications" | python3 -c 'import json,sys; print(json.load(sys.stdin)[0]["id"])')
  local k=0
  for path in $PATHS; do
    k=$((k + 1))
    echo 5 >"/proc/$pid/clear_refs"
    c0=$(cpu "$pid")
    t0=$(date +%s.%N)
    if [ "$HASH" = 1 ]; then
      code=$({ curl -s -w '%{stderr}%{http_code} %{size_download}' "http://127.0.0.1:$port/api/v1/applications/$app/$path" |
               sha256sum >"$OUT/answer-$bound-$k.sha256"; } 2>&1)
    else
      code=$(curl -s -o "$OUT/answer-$bound-$k.json" -w '%{http_code}' "http://127.0.0.1:$port/api/v1/applications/$app/$path")
    fi
    t1=$(date +%s.%N)
    c1=$(cpu "$pid")
    echo "request $k ($path): $code|$(awk -v a="$t0" -v b="$t1" 'BEGIN {printf "%.0f", b - a}')|$(awk -v a="$c0" -v b="$c1" 'BEGIN {printf "%.0f", b - a}')|$(mib "$(kib "$pid" VmHWM)")|$(mib "$(kib "$pid" VmRSS)")" >>"$rows"
  done
  kill -TERM "$pid"; wait "$pid" || true
}

BOUNDS=${SERVE_BIG_BOUNDS:-"512M 1G default"}
for b in $BOUNDS; do one "$b" & done
wait
RES="$OUT/results.md"
{
  echo "clarity serve over $(basename "$LOG") ($(du -m "$LOG" | cut -f1) MB), $(date -u +%FT%TZ), commit $(git rev-parse --short HEAD), load $(cut -d' ' -f1-3 /proc/loadavg)"
  echo
  echo "| --max-memory | phase | wall s | CPU s | peak RSS MiB | RSS after MiB |"
  echo "|---|---|---:|---:|---:|---:|"
  for b in $BOUNDS; do
    while IFS='|' read -r phase w c p r; do echo "| $b | $phase | $w | $c | $p | $r |"; done <"$OUT/rows-$b"
  done
  echo
  for b in $BOUNDS; do echo "log ($b):"; grep -E 'load:|malloc_trim|scan' "$OUT/log-$b" | sed 's/^/    /'; done
} >"$RES"
cat "$RES"
