#!/usr/bin/env bash
# Every command on every log, under the ASan+UBSan build (the text forms of logs over 1 MB on
# the normal build): the project's fixtures and, when
# present, every log of ../shared/data (files, rolling and legacy directories, whole
# directories). Each run must end without a crash, hang or sanitizer report, with exit 0 and
# output (valid JSON with --json), or a clean error: exit 2-4 and one stderr line.
# The commands come from `clarity --help`, so a new command joins by itself; commands that need
# more than logs run with the flags they need (predict: the log as both references, sizes and
# cores given), or in their own suites (ernest, synth).
source "$(dirname "$0")/../lib.sh"
T=$(mktemp -d); trap 'rm -rf "$T"' EXIT
NEEDS_MORE=" predict ernest synth api diff serve fleet "

mapfile -t CMDS < <("$CLARITY" --help | sed -n '/^commands:/,/^$/p' | awk 'NF && $1 != "commands:" {print $1}')
[ "${#CMDS[@]}" -ge 6 ] && ok "${#CMDS[@]} commands listed by clarity --help" || bad "clarity --help lists ${#CMDS[@]} commands"

# the fixtures, plus logs at the edges: no task attempt at all, ids and times at INT64_MIN/MAX
LOGS=("$ROOT"/tests/data/*.json "$ROOT"/tests/everylog/*.json)
if have_shared; then
  for f in "$SHARED_DATA"/spark-events/* "$SHARED_DATA"/external/*/* "$SHARED_DATA"/external/*/cluster_information/*; do
    case "$f" in *.tsv|*.md|*/cluster_information) continue ;; esac
    LOGS+=("$f")
  done
  LOGS+=("$SHARED_DATA/spark-events" "$SHARED_DATA/runtimes/pagerank-5-hosts")
else
  skip "shared data absent ($SHARED_DATA): every command on the project's fixtures only"
fi

# one_run NAME ARGS...: the ASan build on ARGS (the normal build when BIN is set), judged as
# the header says
one_run() {
  local name="$1"; shift
  timeout 120 "${BIN:-$CLARITY_ASAN}" "$@" >"$T/out" 2>"$T/err"; local rc=$?
  if grep -qE 'Sanitizer|runtime error:' "$T/err"; then bad "$name: sanitizer report: $(grep -m1 -E 'Sanitizer|runtime error:' "$T/err")"; return; fi
  if [ "$rc" -ge 124 ]; then bad "$name: crashed or hung (exit $rc)"; return; fi
  if [ "$rc" = 0 ]; then
    if [ ! -s "$T/out" ]; then bad "$name: exit 0 without output"; return; fi
    case " $* " in *" --json "*) jq -e . "$T/out" >/dev/null 2>&1 || { bad "$name: invalid JSON"; return; } ;; esac
    ok "$name"
  elif [ "$rc" -le 4 ] && [ "$(grep -c . "$T/err")" -le 1 ]; then ok "$name (clean error, exit $rc)"
  else bad "$name: exit $rc with $(grep -c . "$T/err") stderr lines: $(head -2 "$T/err" | tr '\n' ' ')"; fi
}

for log in "${LOGS[@]}"; do
  short=${log#"$ROOT/"}; short=${short#"$SHARED_DATA/"}
  # A log over 1 MB on disk (NDS q72 and q88, the whole spark-events directory, ...) costs
  # seconds a run under ASan: there the text forms run on the normal build (same analyses;
  # the JSON forms and REST routes stay under the sanitizers), which halves the suite's time.
  text_bin=""
  [ "$(du -sk "$log" | cut -f1)" -gt 1024 ] && text_bin="$CLARITY"
  for c in "${CMDS[@]}"; do
    case "$NEEDS_MORE" in *" $c "*) continue ;; esac
    BIN=$text_bin one_run "$c $short" "$c" -q "$log"
    one_run "$c --json $short" "$c" -q --json "$log"
  done
  pargs=(--ref "$log" --ref "$log" --ref-size 1,2 --ref-cores 4 --data-size 8 --cores 16)
  BIN=$text_bin one_run "predict $short" predict -q "${pargs[@]}"
  one_run "predict --json $short" predict -q --json "${pargs[@]}"
  # diff needs two runs: the log with itself (a directory: its applications paired by name)
  BIN=$text_bin one_run "diff $short" diff -q "$log" "$log"
  one_run "diff --json $short" diff -q --json "$log" "$log"
  # fleet indexes a directory: the log linked into one, indexed twice (the second reads nothing), queried
  rm -rf "$T/fleet" "$T/fleet.db"*; mkdir "$T/fleet"; ln -s "$log" "$T/fleet/"
  one_run "fleet index $short" fleet index "$T/fleet" --store "$T/fleet.db" -q
  one_run "fleet index again $short" fleet index "$T/fleet" --store "$T/fleet.db" -q --json
  one_run "fleet query --json $short" fleet query "$T/fleet.db" --json --limit 0
  one_run "fleet query --recurring $short" fleet query "$T/fleet.db" --recurring --min-runs 2
  one_run "api /applications $short" api "$log" /applications
  # the routes of the first application (the History Server layer on every real log); the
  # listing's date window is opened wide (SHS's default starts in 2010), and a log whose
  # times are out of every window (int64 extremes) is asked by the id it logged
  one_run "api /applications (any date) $short" api "$log" \
    "/applications?minDate=0001-01-01&maxDate=99999-12-31&minEndDate=0001-01-01&maxEndDate=99999-12-31"
  app=$(jq -r '.[0] | .id + (if (.attempts[0].attemptId // "") != "" then "/" + .attempts[0].attemptId else "" end)' "$T/out" 2>/dev/null)
  if { [ -z "$app" ] || [ "$app" = null ]; } && [ -f "$log" ] && [ "$(jq length "$T/out" 2>/dev/null)" = 0 ]; then
    app=$(jq -r 'select(.Event == "SparkListenerApplicationStart") | ."App ID" + (if (."App Attempt ID" // "") != "" then "/" + ."App Attempt ID" else "" end)' "$log" 2>/dev/null | head -1)
    [ -n "$app" ] && echo '[0]' >"$T/out"
  fi
  # (one application's logs only: a directory of many also prints a note per skipped file)
  [ -n "$app" ] && [ "$app" != null ] && [ "$(jq length "$T/out")" = 1 ] || continue
  for r in "" /jobs "/stages?details=true&withSummaries=true" /executors /environment \
           /stages/0/0/taskSummary "/stages/0/0/taskList?sortBy=-runtime" /storage/rdd \
           /allmiscellaneousprocess /logs "/sql?length=100000"; do
    one_run "api $r $short" api "$log" "/applications/$app$r"
  done
done

# Numeric fields at int64 extremes (extremes.py: seeded copies of a fixture, seeds 1-30; seeds
# 6, 24 and 29 overflowed stragglers' output bytes, LADRA's first-wave bound and the summary's
# SQL durations before those sums saturated): every analysis, and the REST routes that do
# arithmetic on task times, under the sanitizers.
python3 "$ROOT/tests/everylog/extremes.py" "$ROOT/tests/data/mini-3x.json" "$T" 30
for s in $(seq 1 30); do
  log="$T/extremes-$s.json"
  for c in "${CMDS[@]}"; do
    case "$NEEDS_MORE" in *" $c "*) continue ;; esac
    one_run "$c --json extremes-$s" "$c" -q --json "$log"
  done
  one_run "diff --json extremes-$s" diff -q --json "$ROOT/tests/data/mini-3x.json" "$log"
  for r in "/stages?details=true&withSummaries=true" /stages/1/0/taskSummary "/stages/1/0/taskList?sortBy=-runtime" /sql; do
    one_run "api $r extremes-$s" api "$log" "/applications/app-20240101000000-0001$r"
  done
done
summary
