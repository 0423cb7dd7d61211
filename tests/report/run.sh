#!/usr/bin/env bash
# `clarity report` in a real browser: Debian's chromium, headless, renders the page of a synth
# run with a known fault (a CPU hog on host3), of real logs under $SHARED_DATA (every one with
# task events) and of the shared directory (the fleet page). Each page must load without a
# console error, its script's self-check must agree, and counted here from the DOM the stage
# bars, executor rows, findings and critical-path bars must equal the JSON island's; on
# single-application pages the critical path drawn is `clarity whatif`'s (same length, its
# stages' longest tasks summing to it). Screenshots stay in build/report/ for a person to look
# at (build/report/synth-cpu-hog.png tells the fault's story). Two negative controls show the
# checks can fail: a page with a script error, a page with a stage bar removed.
source "$(dirname "$0")/../lib.sh"
T=$(mktemp -d); trap 'rm -rf "$T"' EXIT
OUT="$ROOT/build/report"; mkdir -p "$OUT"
CHROMIUM=$(command -v chromium || command -v chromium-browser || true)

# usage and the help
"$CLARITY" report >/dev/null 2>"$T/err"; [ $? = 2 ] && ok "no log: exit 2" || bad "no log: not exit 2"
"$CLARITY" report --help | grep -q -- '--max-bars' && ok "--help lists --max-bars" || bad "--help lacks --max-bars"
"$CLARITY" report --bogus x 2>"$T/err"; [ $? = 2 ] && [ "$(wc -l <"$T/err")" = 1 ] && ok "bad option: one line, exit 2" \
  || bad "bad option"
# stdout when no -o (tests/everylog runs it so)
"$CLARITY" report -q "$ROOT/tests/data/mini-3x.json" >"$T/stdout.html" && grep -q '</html>' "$T/stdout.html" \
  && ok "page on standard output" || bad "no page on standard output"

# a golden page on the project's fixture (byte for byte: the page is deterministic), and its
# island's figures worked by hand: stage 0 alone (4 attempts, one failed; the longest success
# 1300 ms, the critical path), executors 1 and 2 (2 removed at 4000 ms of the run)
golden() { # golden NAME LOG
  (cd "$ROOT" && "$CLARITY" report -q "$2") >"$T/golden.html" 2>"$T/err" || { bad "golden $1: exit $?"; return; }
  if [ -n "${UPDATE:-}" ]; then cp "$T/golden.html" "$ROOT/tests/report/expected/$1"; ok "golden $1 (updated)"; return; fi
  if cmp -s "$ROOT/tests/report/expected/$1" "$T/golden.html"; then ok "golden $1"
  else bad "golden $1 differs"; diff "$ROOT/tests/report/expected/$1" "$T/golden.html" | head -10; fi
}
golden mini-3x.html tests/data/mini-3x.json
island() { sed -n 's|.*<script type="application/json" id="clarity-data">\(.*\)</script>.*|\1|p' "$1"; }
island "$ROOT/tests/report/expected/mini-3x.html" >"$T/mini.json"
"$CLARITY" whatif -q --json "$ROOT/tests/data/mini-3x.json" >"$T/mini-whatif.json"
jq -e --slurpfile w "$T/mini-whatif.json" '.schema == "clarity.report/1" and (.stages | length) == 1
    and .stages[0].failed == 1 and .stages[0].longest_task_ms == 1300 and .critical_path.length_ms == 1300
    and ([.executors[].id] == ["1", "2"]) and .executors[1].remove_ms == 4000 and .task_attempts == 4
    and .timeline == "tasks"
    and .critical_path.length_ms == $w[0].applications[0].curve.critical_path_ms
    and ([.critical_path.stages[].longest_task_ms] | add) == .critical_path.length_ms' "$T/mini.json" >/dev/null \
  && ok "mini-3x island: 1 stage, 2 executors, 4 attempts, whatif's critical path (1300 ms)" || bad "mini-3x island figures"

if [ -z "$CHROMIUM" ]; then
  skip "chromium not installed (apt-get install chromium; scripts/bootstrap.sh installs it): no browser checks"
  summary; exit
fi

# render NAME HTML [WHATIF_JSON] [SCREENSHOT]: the browser checks on one page
render() {
  local name="$1" page="$2" whatif="${3:-}" shot="${4:-}"
  timeout 120 "$CHROMIUM" --headless --disable-gpu --no-sandbox --enable-logging=stderr --v=0 \
    --virtual-time-budget=3000 --dump-dom "file://$page" >"$T/dom.html" 2>"$T/chrome.err"
  local rc=$?
  if [ "$rc" != 0 ] || [ ! -s "$T/dom.html" ]; then bad "$name: chromium exit $rc"; tail -3 "$T/chrome.err"; return 1; fi
  # chromium logs every console message (whatever its level) and every uncaught exception as
  # "INFO:CONSOLE:LINE] ..."; the page writes none, so any one fails it
  if grep -q 'CONSOLE' "$T/chrome.err"; then
    bad "$name: console error: $(grep -m1 CONSOLE "$T/chrome.err")"; return 1
  fi
  local args=("$T/dom.html"); [ -n "$whatif" ] && args+=(--whatif "$whatif")
  if ! python3 "$ROOT/tests/report/check_page.py" "${args[@]}" >"$T/check.out"; then
    bad "$name: $(head -3 "$T/check.out" | tr '\n' ';')"; return 1
  fi
  ok "$name"
  if [ -n "$shot" ]; then
    timeout 120 "$CHROMIUM" --headless --disable-gpu --no-sandbox --hide-scrollbars --virtual-time-budget=3000 \
      --screenshot="$shot" --window-size=1400,2000 "file://$page" >/dev/null 2>&1
    [ -s "$shot" ] && ok "$name: screenshot $shot" || bad "$name: no screenshot"
  fi
  return 0
}

# one_log NAME LOG [SCREENSHOT] [report args...]: report + whatif, then the browser checks
one_log() {
  local name="$1" log="$2" shot="${3:-}"; shift 3
  local page="$OUT/$name.html"
  if ! "$CLARITY" report -q "$@" "$log" -o "$page" 2>"$T/err"; then bad "$name: report failed: $(head -1 "$T/err")"; return; fi
  local size; size=$(stat -c %s "$page")
  "$CLARITY" whatif -q --json "$log" >"$T/whatif.json" 2>/dev/null
  if jq -e '.applications | length == 1' "$T/whatif.json" >/dev/null 2>&1; then
    render "$name ($size bytes)" "$page" "$T/whatif.json" "$shot"
  else
    render "$name ($size bytes)" "$page" "" "$shot"
  fi
}

# the synth run with a known fault: host3's CPU taken 80% from 20 s to 100 s
if "$CLARITY" synth wordcount --hosts 4 --data 40G --fault cpu-hog@host3:20s-100s:0.8 --seed 7 -o "$T/synth" >/dev/null 2>&1; then
  one_log synth-cpu-hog "$T/synth/eventlogs" "$OUT/synth-cpu-hog.png"
  # the story: the slow host is named by a finding and marked on its executor row
  d=$(island "$OUT/synth-cpu-hog.html")
  jq -e '[.findings[] | select(.kind == "slow_host" and .host == "host3")] | length == 1' <<<"$d" >/dev/null \
    && ok "synth: the slow_host finding names host3" || bad "synth: no slow_host finding for host3"
  jq -e '[.executors[] | select(.slow_host) | .host] == ["host3"]' <<<"$d" >/dev/null \
    && ok "synth: host3's executor row is marked" || bad "synth: host3's row not marked"
  grep -q 'class="t [^"]*slowt' "$OUT/synth-cpu-hog.html" && ok "synth: slowed tasks marked" || bad "synth: no slowed task marked"
  # the aggregated timeline of the same run (as a large application gets it)
  one_log synth-cpu-hog-heat "$T/synth/eventlogs" "$OUT/synth-cpu-hog-heat.png" --max-bars 100
  grep -q '"timeline":"heat"' "$OUT/synth-cpu-hog-heat.html" && ok "heat strip above --max-bars" || bad "no heat strip"

  # negative controls: the checks fail on a broken page
  sed 's|(function(){|(function(){console.error("planted");|' "$OUT/synth-cpu-hog.html" >"$T/broken.html"
  if render "control: console error" "$T/broken.html" >/dev/null; then
    T_PASS=$((T_PASS-1)); bad "a page with a console error passed"
  else T_FAIL=$((T_FAIL-1)); ok "a page with a console error fails"; fi
  python3 - "$OUT/synth-cpu-hog.html" "$T/missing.html" <<'PY'
import re, sys
s = open(sys.argv[1]).read()
s = re.sub(r'<rect class="stage-bar[^>]*>.*?</rect>', '', s, count=1, flags=re.S)
open(sys.argv[2], "w").write(s)
PY
  if render "control: stage bar missing" "$T/missing.html" >/dev/null; then
    T_PASS=$((T_PASS-1)); bad "a page missing a stage bar passed"
  else T_FAIL=$((T_FAIL-1)); ok "a page missing a stage bar fails"; fi
else
  bad "clarity synth failed"
fi

# Real logs: a browser start costs seconds, so `make check` renders the logs that differ in
# shape (the largest, Photon, rolling, Databricks, YARN attempts, truncated, RDD-only, Spark
# 1.x, local mode, a missing SQL end); REPORT_ALL=1 renders every shared log with tasks (47
# when last run in full).
REPORT_SET=" nds_q72_dataproc_2_2.zstd nds_q88_photon_db_13_3.zstd join_missing_sql_end eventlog_v2_local-1623876083964
  db_sim_eventlog multiple_attempts truncated_eventlog rdd_only_eventlog dsAndDf_eventlog.zstd app-20200706201101-0003
  application_1538416563558_0014 local-1642039451826 local-1422981759269 "
if have_shared; then
  n=0
  for f in "$SHARED_DATA"/spark-events/* "$SHARED_DATA"/external/*/*; do
    case "$f" in *.tsv|*.md|*/cluster_information) continue ;; esac
    [ -n "${REPORT_ALL:-}" ] || case "$REPORT_SET" in *" $(basename "$f") "*) ;; *) continue ;; esac
    # logs with task events only
    "$CLARITY" summary -q --json "$f" 2>/dev/null | jq -e "[.applications[] | .totals.tasks // 0] | add > 0" \
      >/dev/null 2>&1 || continue
    base=$(basename "$f"); shot=""
    # a screenshot is a second browser start and is only checked to exist: `make check` takes
    # the synth run's two (its fault's story); REPORT_SHOTS=1 (or REPORT_ALL=1) these three too
    if [ -n "${REPORT_SHOTS:-}${REPORT_ALL:-}" ]; then
      case "$base" in app-20200706201101-0003|application_1538416563558_0014|join_missing_sql_end) shot="$OUT/$base.png" ;; esac
    fi
    one_log "$base" "$f" "$shot"
    n=$((n+1))
  done
  [ "$n" -ge 10 ] && ok "$n real logs rendered" || bad "only $n real logs with tasks found"
  if [ -n "${REPORT_SHOTS:-}${REPORT_ALL:-}" ]; then one_log fleet-spark-events "$SHARED_DATA/spark-events" "$OUT/fleet-spark-events.png"
  else
    one_log fleet-spark-events "$SHARED_DATA/spark-events" ""
    note "report: screenshots of the synth run only; the real logs' and the fleet page's (4 browser starts) with REPORT_SHOTS=1"
  fi
else
  skip "shared data absent ($SHARED_DATA): real logs not rendered"
fi
summary
