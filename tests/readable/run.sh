#!/usr/bin/env bash
# What a person reads: one-line errors with one prefix, applications told apart and their
# capacity right (local mode, attempts, ends), what went wrong in the summary, and tables
# that fit the terminal. Real shared logs where they exist (skipped, saying so, when absent).
# CLARITY=build-asan/clarity runs it on the ASan+UBSan build.
source "$(dirname "$0")/../lib.sh"
WIDTH_COMMANDS="${WIDTH_COMMANDS:-summary blocked stragglers whatif contention anomalies}"
T=$(mktemp -d); trap 'rm -rf "$T"' EXIT
NQ="$SHARED_DATA/external/nvidia-qualification"
SE="$SHARED_DATA/spark-events"
MINI="$ROOT/tests/data/mini-3x.json"

# ---- errors: one line, one prefix "clarity CMD: ..." ----
one_line() { # one_line NAME REGEX CMD...: exactly one stderr line, matching REGEX
  local name="$1" re="$2"; shift 2
  "$@" >"$T/out" 2>"$T/err"
  if [ "$(wc -l <"$T/err")" = 1 ] && grep -qE "$re" "$T/err"; then ok "$name"; else bad "$name: $(head -3 "$T/err")"; fi
}
for c in summary blocked stragglers whatif anomalies contention; do
  one_line "$c: missing file is one line" "^clarity $c: $T/nope: cannot read: " "$CLARITY" $c "$T/nope"
  one_line "$c: unknown option" "^clarity $c: unknown option '--bogus'; see clarity $c --help\$" "$CLARITY" $c --bogus "$MINI"
done
one_line "diff: missing file is one line" "^clarity diff: $T/nope: cannot read: " "$CLARITY" diff "$T/nope" "$MINI"
one_line "diff: unknown option" "^clarity diff: unknown option '--bogus'; see clarity diff --help\$" "$CLARITY" diff --bogus "$MINI" "$MINI"
one_line "diff: one run only" "^clarity diff: give two runs" "$CLARITY" diff "$MINI"
one_line "predict: unknown option" "^clarity predict: unknown option '--bogus'; see clarity predict --help\$" "$CLARITY" predict --bogus
one_line "api: unknown option" "^clarity api: unknown option '--bogus'; see clarity api --help\$" "$CLARITY" api --bogus "$MINI" /applications
one_line "serve: unknown option" "^clarity serve: unknown option '--bogus'; see clarity serve --help\$" "$CLARITY" serve --bogus "$T"
one_line "serve: missing directory is one line" "^clarity serve: $T/nope: not a readable directory\$" "$CLARITY" serve "$T/nope"
one_line "serve: bad port" "^clarity serve: --port needs a whole number from 0 to 65535, not '99999'\$" "$CLARITY" serve --port 99999 "$T"
one_line "synth: unknown option" "^clarity synth: unknown option '--bogus'; see clarity synth --help\$" "$CLARITY" synth --bogus
one_line "a value missing" "^clarity blocked: option '--group' needs a value; see clarity blocked --help\$" "$CLARITY" blocked "$MINI" --group
one_line "short option unknown" "^clarity summary: unknown option '-x'; see" "$CLARITY" summary -x "$MINI"
one_line "unknown command" "^clarity: unknown command 'frob'; see clarity --help\$" "$CLARITY" frob
one_line "-o into a missing directory" "^clarity summary: $T/no/dir/x: cannot write: " "$CLARITY" summary -o "$T/no/dir/x" "$MINI"
# a problem inside a log: "FILE: line N: byte B: problem"
{ head -3 "$MINI"; echo '{"Event":"SparkListenerJobStart",'; tail -n +4 "$MINI"; } >"$T/bad.json"
"$CLARITY" summary --json "$T/bad.json" >"$T/out" 2>&1
jq -e '.applications[0].integrity.lines_malformed == 1' "$T/out" >/dev/null && ok "malformed line counted" || bad "malformed line counted"
"$CLARITY" summary "$T/bad.json" >"$T/out" 2>&1
grep -qE "problem +$T/bad.json: line 4: byte [0-9]+: " "$T/out" && ok "malformed line located" || bad "malformed line located: $(grep problem "$T/out")"

# ---- identity and capacity ----
# two ApplicationStart events in one log (two runs appended): flagged, not read without a word
cat "$MINI" "$MINI" >"$T/twice.json"
"$CLARITY" summary "$T/twice.json" >"$T/out" 2>/dev/null
grep -q 'two-app-starts' "$T/out" && grep -q '2 SparkListenerApplicationStart events' "$T/out" \
  && ok "two ApplicationStart events flagged" || bad "two ApplicationStart events flagged: $(grep -A2 integrity "$T/out")"
"$CLARITY" summary --json "$T/twice.json" >"$T/out" 2>/dev/null
jq -e '.applications[0].integrity.app_starts == 2' "$T/out" >/dev/null && ok "app_starts in JSON" || bad "app_starts in JSON"
"$CLARITY" summary --json "$MINI" >"$T/out" 2>/dev/null
jq -e '.applications[0].integrity | has("app_starts") | not' "$T/out" >/dev/null && ok "app_starts absent for one start" || bad "app_starts present for one start"

if have_shared; then
  # four attempts of one application id in a directory: each row names its attempt and file
  "$CLARITY" summary "$NQ/multiple_attempts" >"$T/out" 2>/dev/null
  for n in 1 2 3 4; do
    grep -qE "^application_1724877841851_0016/$n .*attempt_${n}_eventlog.zstd" "$T/out" \
      && ok "attempt $n told apart" || bad "attempt $n told apart"
  done
  # local mode: the driver runs the tasks; its cores are the capacity (local[*]: 8 logged)
  "$CLARITY" summary "$SE/local-1642039451826" >"$T/out" 2>/dev/null
  grep -q 'executors    none: local mode, the driver runs the tasks on 8 cores' "$T/out" \
    && ok "local mode: 8 driver cores" || bad "local mode: $(grep executors "$T/out" | head -1)"
  "$CLARITY" summary --csv "$SE/local-1642039451826" "$MINI" >"$T/out" 2>/dev/null
  # 86.0 s x 8 cores = 0.191 core-hours of capacity; 4.7 s of task time used
  awk -F, '$2=="\"local-1642039451826\"" {c=$8; idle=$12} END {exit !(c==8 && idle>0.18 && idle<0.20)}' "$T/out" \
    && ok "local mode: 8 cores, idle core-hours 0.19" || bad "local mode csv: $(grep local-1642 "$T/out")"
  # the empty Spark 3.1 log: no task ran, which is not "Spark < 2.1"
  "$CLARITY" summary "$NQ/empty_eventlog" >"$T/out" 2>/dev/null
  grep -q 'CPU - (no task ran)' "$T/out" && ! grep -q 'Spark < 2.1' "$T/out" \
    && ok "empty 3.1 log: no task ran" || bad "empty 3.1 log: $(grep CPU "$T/out")"
  # Spark 1.2 did not log CPU time: still said so
  "$CLARITY" summary "$SE/local-1422981759269" >"$T/out" 2>/dev/null
  grep -q 'not logged (Spark < 2.1)' "$T/out" && ok "Spark 1.2: CPU not logged" || bad "Spark 1.2 CPU: $(grep CPU "$T/out")"
else
  skip "identity and capacity on shared logs: $SHARED_DATA not present"
fi
# no ApplicationEnd: the application ends at its last event, a SQL end or executor removal
# logged after the last task included (a fixture made from the mini log: its end removed and a
# late SQLExecutionEnd added 60 s after everything else)
grep -v 'SparkListenerApplicationEnd' "$MINI" >"$T/noend.json"
last=$("$CLARITY" summary --json "$T/noend.json" 2>/dev/null | jq '.applications[0].start_ms + .applications[0].duration_ms')
echo "{\"Event\":\"org.apache.spark.sql.execution.ui.SparkListenerSQLExecutionEnd\",\"executionId\":7,\"time\":$((last + 60000))}" >>"$T/noend.json"
"$CLARITY" summary --json "$T/noend.json" >"$T/out" 2>/dev/null
jq -e --argjson l "$last" '.applications[0].start_ms + .applications[0].duration_ms == $l + 60000' "$T/out" >/dev/null \
  && ok "no ApplicationEnd: ends at the late SQLExecutionEnd" || bad "no ApplicationEnd: $(jq '.applications[0].duration_ms' "$T/out")"

# ---- what went wrong ----
if have_shared; then
  "$CLARITY" summary "$SE/application_1538416563558_0014" >"$T/out" 2>/dev/null
  grep -qE '^failed tasks  8 attempt\(s\) failed, 1 distinct reason' "$T/out" \
    && grep -qE '^ +8  ExecutorLostFailure: Container marked as failed: \* on host: \*\. Exit status: 56' "$T/out" \
    && ok "failed tasks grouped: 8 x exit status 56" || bad "failed tasks: $(grep -A2 '^failed' "$T/out")"
  grep -qE '^lost executors  8 executor\(s\) removed' "$T/out" && grep -qE '^ +8  Container marked as failed: .*Exit status: 56' "$T/out" \
    && ok "lost executors grouped" || bad "lost executors: $(grep -A2 '^lost' "$T/out")"
  "$CLARITY" summary "$SE/app-20161115172038-0000" >"$T/out" 2>/dev/null
  grep -qE '^ +10  java.lang.RuntimeException: bad exec$' "$T/out" && ok "exception class and first line, counted" || bad "exception reasons: $(grep -A2 '^failed' "$T/out")"
  "$CLARITY" summary --json "$SE/app-20161115172038-0000" >"$T/out" 2>/dev/null
  jq -e '.applications[0].task_failure_reasons == [{"reason":"java.lang.RuntimeException: bad exec","count":10}]' "$T/out" >/dev/null \
    && ok "failure reasons in JSON" || bad "failure reasons in JSON"
  # peak JVM heap of executor 8 on the Dataproc run, from Task Executor Metrics (Spark 3.5)
  "$CLARITY" summary --wide "$NQ/nds_q72_dataproc_2_2.zstd" >"$T/out" 2>/dev/null
  grep -qE '^  8 .* 14\.8 GB +160\.7 MB ' "$T/out" && ok "peak heap and off-heap per executor" || bad "peak heap: $(grep -E '^  8 ' "$T/out")"
else
  skip "what went wrong on shared logs: $SHARED_DATA not present"
fi
if have_shared; then
  "$CLARITY" summary "$SE/local-1642039451826" >"$T/out" 2>/dev/null
  ! grep -q '^failed tasks\|^lost executors' "$T/out" && ok "no failure section when nothing failed" || bad "failure section on a clean log"
fi

# ---- width: every text table fits 100 columns when not on a terminal; --wide loses nothing ----
LOGS=("$ROOT"/tests/data/*.json)
if have_shared; then
  LOGS+=("$SE"/* "$NQ"/*.zstd "$NQ"/*_eventlog* "$NQ"/eventlog_* "$NQ"/join_missing_sql_end "$NQ"/cluster_information/*
         "$NQ"/cluster_information/platform/* "$SHARED_DATA"/runtimes/*/*.json)
  LOGS+=("$SE" "$NQ")   # directories: one row per application
else
  skip "width on shared logs: $SHARED_DATA not present (own fixtures only)"
fi
widest() { awk '{ if (length($0) > m) m = length($0) } END { print m + 0 }' "$1"; }
# The log files of one application each (the globs above list some files twice: each is run
# once) meet a command in one run over all of them when its text over several logs is each
# log's own report, one after another (the commands with --detail, given it, and anomalies,
# which reports each application alone): the widest line of that run is the widest of the runs
# one log at a time (the same lines, blank separators apart: checked on the 105 such files
# for the five commands, 2026-11-27), and its --limit 0 form runs when any report in it left
# rows out. That run must end with exit 0, nothing on stderr and no line over 100 columns;
# otherwise, and always for contention (its several logs are one analysis), for directories
# and files of several applications (one row per application) and files of none (an error),
# the command runs log by log as before, so a log too wide is named. READABLE_EACH=1: every
# log alone.
FILES=(); EACH=(); declare -A seen
for log in "${LOGS[@]}"; do
  [ -e "$log" ] && [ -z "${seen[$log]:-}" ] || continue; seen[$log]=1
  if [ -f "$log" ] && [ -z "${READABLE_EACH:-}" ]; then FILES+=("$log"); else EACH+=("$log"); fi
done
# which files hold exactly one application: the summary's JSON names each one's source
if [ "${#FILES[@]}" -gt 1 ]; then
  "$CLARITY" summary -q --json "${FILES[@]}" 2>/dev/null | jq -r '.applications[].source' | sort | uniq -c >"$T/apps"
  ONE=()
  for log in "${FILES[@]}"; do
    if awk -v f="$log" '$1 == 1 && substr($0, index($0, $2)) == f { found = 1 } END { exit !found }' "$T/apps"
    then ONE+=("$log"); else EACH+=("$log"); fi
  done
  FILES=("${ONE[@]}")
fi
limits_skipped=0; batched=0
for cmd in $WIDTH_COMMANDS; do
  over=""; each=("${EACH[@]}" "${FILES[@]}")
  if [ -z "${READABLE_EACH:-}" ] && [ "${#FILES[@]}" -gt 1 ] && [ "$cmd" != contention ]; then
    detail=(--detail); [ "$cmd" = anomalies ] && detail=()
    batch_ok=1
    for lim in "" "--limit 0"; do
      if [ -n "$lim" ] && [ -z "${READABLE_ALL_LIMITS:-}" ] && ! grep -q -- '--limit 0' "$T/out"; then
        limits_skipped=$((limits_skipped + ${#FILES[@]})); break
      fi
      COLUMNS= "$CLARITY" $cmd -q "${detail[@]}" $lim "${FILES[@]}" >"$T/out" 2>"$T/err"; rc=$?
      if [ $rc != 0 ] || [ -s "$T/err" ] || [ "$(widest "$T/out")" -gt 100 ]; then batch_ok=""; break; fi
    done
    if [ -n "$batch_ok" ]; then each=("${EACH[@]}"); batched=$((batched + 1))
    else note "readable: width: $cmd over the ${#FILES[@]} log files of one application failed (exit $rc, $(widest "$T/out") columns): log by log"; fi
  fi
  for log in "${each[@]}"; do
    [ -e "$log" ] || continue
    # contention's --limit is its --top (0 is not a k); the others: every row. The others'
    # --limit 0 run is made only when the default one says rows were left out ("--limit 0
    # shows all", which every cut list prints): otherwise its output is the same bytes
    # (checked on the fixtures and spark-events: 160 of 160 runs), so its width is too.
    # READABLE_ALL_LIMITS=1 makes it on every log.
    if [ "$cmd" = contention ]; then lims=("" "--limit 20"); else lims=("" "--limit 0"); fi
    for lim in "${lims[@]}"; do
      if [ "$lim" = "--limit 0" ] && [ -z "${READABLE_ALL_LIMITS:-}" ] && ! grep -q -- '--limit 0' "$T/out"; then
        limits_skipped=$((limits_skipped + 1)); continue
      fi
      COLUMNS= "$CLARITY" $cmd -q $lim "$log" >"$T/out" 2>"$T/err"; rc=$?
      # a crash or a sanitizer finding leaves no output, which would "fit"
      if [ $rc -gt 4 ] || [ $rc = 2 ] || grep -qE 'Sanitizer|runtime error:' "$T/err"; then over="$over ${log#$SHARED_DATA/}(exit $rc)"; continue; fi
      w=$(widest "$T/out"); [ "$w" -le 100 ] || over="$over ${log#$SHARED_DATA/}($w)"
    done
  done
  [ -z "$over" ] && ok "$cmd: every log's text fits 100 columns" || bad "$cmd wider than 100:$over"
done
[ "$limits_skipped" -gt 0 ] && note "readable: width: $limits_skipped --limit 0 run(s) not made, their default run having left no row out (READABLE_ALL_LIMITS=1: every one)"
[ "$batched" -gt 0 ] && note "readable: width: $batched command(s) met the ${#FILES[@]} log files of one application in one run each, not one a log (READABLE_EACH=1: one a log)"
# predict, ernest and synth take no log list: the invocations of tests/predict (own fixtures and
# the shared logs), each at the default width and with --wide, which must keep every figure
figures() { grep -oE '[0-9]+(\.[0-9]+)?( ?(GB|MB|kB|s|min|ms|h|%))?' "$1" | sort; }
fits_and_keeps() { # NAME CMD...: text <= 100 columns by default, the same figures as --wide
  local name="$1"; shift
  COLUMNS= "$@" >"$T/out" 2>"$T/err"; local rc=$?
  if [ $rc != 0 ] || grep -qE 'Sanitizer|runtime error:' "$T/err"; then bad "$name: exit $rc $(head -2 "$T/err")"; return; fi
  "$@" --wide >"$T/wide" 2>/dev/null
  local w; w=$(widest "$T/out")
  # a name cut in the middle may lose digits of its own (a path, a call site): compare the
  # figures of lines without "..."
  grep -v '\.\.\.' "$T/out" >"$T/a0"; figures "$T/a0" >"$T/a"; figures "$T/wide" >"$T/b"
  if [ "$w" -le 100 ] && [ -z "$(comm -23 "$T/a" "$T/b")" ] && [ "$(widest "$T/wide")" -ge "$w" ]; then ok "$name: fits 100 columns ($w), --wide keeps the figures"
  else bad "$name: widest $w, figures only in the default view: $(comm -23 "$T/a" "$T/b" | head -3 | tr '\n' ' ')"; fi
}
D="$ROOT/tests/data"
fits_and_keeps "predict (fixtures)" "$CLARITY" predict --ref "$D/peridot-ref-1.json" --ref "$D/peridot-ref-2.json" --data-size 10M --cores 20
fits_and_keeps "predict grid --detail" "$CLARITY" predict --detail --ref "$D/peridot-ref-1.json" --ref "$D/peridot-ref-2.json" \
  --data-size 10M,100M,50M --cores 20,40,15
"$CLARITY" ernest fit "$D/ernest-rcv1-parsed.csv" --json -o "$T/model.json" >/dev/null 2>&1
fits_and_keeps "ernest fit" "$CLARITY" ernest fit "$D/ernest-rcv1-parsed.csv"
fits_and_keeps "ernest fit extra terms" "$CLARITY" ernest fit "$D/ernest-rcv1-parsed.csv" --terms 'sqrt(m)'
fits_and_keeps "ernest predict" "$CLARITY" ernest predict "$T/model.json" --machines 16,32,48,64 --scale 1
fits_and_keeps "ernest choose" "$CLARITY" ernest choose "$T/model.json" --scale 1 --deadline 12s
fits_and_keeps "ernest choose unreachable" "$CLARITY" ernest choose "$T/model.json" --scale 100 --deadline 1s
fits_and_keeps "ernest design" "$CLARITY" ernest design --parts 4-32 --total-parts 256 --machines 1-8 --cores-per-machine 4
fits_and_keeps "ernest design paper grid" "$CLARITY" ernest design --scale 0.01-0.1 --points 10 --machines 1-5
# --limit on ernest: the fit uses every point, the text lists some and says how to see all
"$CLARITY" ernest fit "$D/ernest-rcv1-parsed.csv" --limit 3 >"$T/out" 2>/dev/null
[ "$(grep -cE '^ +[0-9]+ +[0-9]+ +0\.[0-9]+ ' "$T/out")" = 3 ] && grep -q '^  (4 more point(s), all in the fit; --limit 0 shows all)' "$T/out" \
  && ok "ernest --limit 3: 3 of 7 points listed" || bad "ernest --limit 3: $(grep -c '' "$T/out") lines"
for s in wordcount sort kmeans pagerank tpcds-mix; do
  "$CLARITY" synth $s --data 64M -o "$T/syn-$s" >"$T/out" 2>"$T/err" || { bad "synth $s: $(head -1 "$T/err")"; continue; }
  [ "$(widest "$T/out")" -le 100 ] || bad "synth $s: $(widest "$T/out") columns"
done
"$CLARITY" synth --list >"$T/out"; "$CLARITY" synth --help >>"$T/out"
[ "$(widest "$T/out")" -le 100 ] && ok "synth --list and --help fit 100 columns" || bad "synth --list/--help: $(widest "$T/out") columns"
for c in anomalies predict ernest; do
  "$CLARITY" $c --help >"$T/out" 2>&1
  [ "$(widest "$T/out")" -le 100 ] && grep -q -- '--limit N' "$T/out" && grep -q -- '--wide' "$T/out" \
    && ok "$c --help: fits, offers --limit and --wide" || bad "$c --help: $(widest "$T/out") columns"
done
if have_shared; then
  P="$SHARED_DATA/runtimes/pagerank-5-hosts"; M="$NQ/multiple_attempts"
  # 40 stage groups: 20 listed by default, the rest counted; --limit 0 and --wide list them all
  fits_and_keeps "predict pagerank stage-only" "$CLARITY" predict --limit 0 --ref "$P/app-20150830114306-0030.json" \
    --ref "$P/app-20150830121009-0033.json" --ref-size 2.2893760297447443G,4.836597545072436G --ref-cores 40 \
    --actual "$P/app-20150830214638-0051.json" --data-size 20.106586860492826G
  "$CLARITY" predict --ref "$P/app-20150830114306-0030.json" --ref "$P/app-20150830121009-0033.json" \
    --ref-size 2.2893760297447443G,4.836597545072436G --ref-cores 40 >"$T/out" 2>/dev/null
  [ "$(sed -n '/^breakdown at/,$p' "$T/out" | grep -cE '^ +[0-9]+  [0-9]')" = 20 ] && grep -q '^    (20 more group(s); --limit 0 shows all)' "$T/out" \
    && ok "predict --limit 20 by default (40 groups)" || bad "predict default limit: $(grep 'more group' "$T/out")"
  fits_and_keeps "predict YARN attempts" "$CLARITY" predict --ref "$M/attempt_1_eventlog.zstd" --ref "$M/attempt_3_eventlog.zstd"
  # the reference's path cut in the middle keeps its file name; --wide has it whole
  "$CLARITY" predict --ref "$M/attempt_1_eventlog.zstd" --ref "$M/attempt_3_eventlog.zstd" >"$T/out" 2>/dev/null
  grep -qE '^ +1  .*\.\.\..*/attempt_1_eventlog\.zstd ' "$T/out" && ok "predict: reference path keeps its end" \
    || bad "predict reference: $(grep -E '^ +1 ' "$T/out")"
  "$CLARITY" predict --wide --ref "$M/attempt_1_eventlog.zstd" --ref "$M/attempt_3_eventlog.zstd" >"$T/out" 2>/dev/null
  grep -qF "$M/attempt_1_eventlog.zstd" "$T/out" && ok "predict --wide: whole path" || bad "predict --wide path"
  # anomalies on the Dataproc run with every period: the periods table splits in two at 100
  # columns (where and when, then causes, numbered alike); --wide keeps one table
  "$CLARITY" anomalies -q --all-periods --limit 0 "$NQ/nds_q72_dataproc_2_2.zstd" >"$T/out" 2>/dev/null
  [ "$(widest "$T/out")" -le 100 ] && [ "$(sed -n '/^abnormal periods/,/^$/p' "$T/out" | grep -cE '^ *[0-9]+  ')" = 134 ] \
    && [ "$(sed -n '/^likely causes of each period/,/^$/p' "$T/out" | grep -cE '^ *[0-9]+ ')" = 134 ] \
    && ok "anomalies: 134 periods in two tables within 100 columns" || bad "anomalies periods: widest $(widest "$T/out")"
  "$CLARITY" anomalies -q --all-periods --limit 0 --wide "$NQ/nds_q72_dataproc_2_2.zstd" >"$T/wide" 2>/dev/null
  ! grep -q '^likely causes' "$T/wide" && grep -q 'psarthi-nds-cpu-test-w-1.c.rapids-spark.internal' "$T/wide" \
    && [ "$(sed -n '/^abnormal periods/,/^$/p' "$T/wide" | grep -c '%')" = 134 ] \
    && ok "anomalies --wide: one table, whole host names" || bad "anomalies --wide"
  # every cause percentage of the default view is in the --wide one
  grep -oE '[0-9]+\.[0-9]%' "$T/out" | sort >"$T/a"; grep -oE '[0-9]+\.[0-9]%' "$T/wide" | sort >"$T/b"
  cmp -s "$T/a" "$T/b" && ok "anomalies: no cause figure lost against --wide ($(wc -l <"$T/a"))" || bad "anomalies figures differ against --wide"
fi
if have_shared; then
  # COLUMNS sets the width: the stage table (whose names are long) follows it
  for c in 80 160; do
    COLUMNS=$c "$CLARITY" summary "$NQ/nds_q72_dataproc_2_2.zstd" | sed -n '/^stages, most/,/^$/p' >"$T/w$c"
  done
  [ "$(widest "$T/w80")" -le 80 ] && [ "$(widest "$T/w160")" -gt 100 ] && ok "COLUMNS sets the width (80, 160)" \
    || bad "COLUMNS: $(widest "$T/w80") at 80, $(widest "$T/w160") at 160"
  # host names: the shared domain dropped and the distinguishing end kept; --wide has them whole
  "$CLARITY" summary "$NQ/nds_q72_dataproc_2_2.zstd" >"$T/out" 2>/dev/null
  grep -qE '^  8 +\S*-w-3 ' "$T/out" && ! grep -q 'rapids-spark.internal' "$T/out" && ok "hosts shortened to their distinguishing end" \
    || bad "hosts: $(grep -E '^  8 ' "$T/out" | head -1)"
  "$CLARITY" summary --wide "$NQ/nds_q72_dataproc_2_2.zstd" >"$T/out" 2>/dev/null
  [ "$(grep -c 'psarthi-nds-cpu-test-w-3.c.rapids-spark.internal' "$T/out")" -ge 2 ] && ok "--wide: full host names" || bad "--wide lost host names"
  # names cut in the middle keep their end (the call site's file and line)
  "$CLARITY" summary "$NQ/nds_q72_dataproc_2_2.zstd" >"$T/out" 2>/dev/null
  grep -qE '^ +50\.0  COMPLETE .*collect .*\.\.\..*nds_power\.py:191$' "$T/out" && ok "stage name cut in the middle, end kept" \
    || bad "stage name: $(grep -E '^ +50\.0' "$T/out" | head -1)"
  # every value of the default view is in the --wide one: numbers are never cut
  "$CLARITY" summary --limit 0 "$NQ/nds_q72_dataproc_2_2.zstd" | grep -oE '[0-9]+(\.[0-9]+)? (GB|MB|kB|s|min|ms)' | sort >"$T/a"
  "$CLARITY" summary --limit 0 --wide "$NQ/nds_q72_dataproc_2_2.zstd" | grep -oE '[0-9]+(\.[0-9]+)? (GB|MB|kB|s|min|ms)' | sort >"$T/b"
  cmp -s "$T/a" "$T/b" && ok "no figure lost against --wide" || bad "figures differ against --wide"
  # ---- priority: the stage table starts with the stage that took the most task time ----
  first=$("$CLARITY" summary "$NQ/nds_q72_dataproc_2_2.zstd" | sed -n '/^stages, most task run time first/{n;n;p;q}')
  [[ "$first" =~ ^\ +50\.0\ .*62\.7\ min ]] && ok "stages ordered by task run time (50.0: 62.7 min first)" || bad "first stage: $first"
  # SQL executions that ran no job are counted, not listed
  grep -q '24 SQL execution(s) ran no job and are not listed' "$T/out" 2>/dev/null || "$CLARITY" summary "$NQ/nds_q72_dataproc_2_2.zstd" >"$T/out"
  grep -q '24 SQL execution(s) ran no job and are not listed' "$T/out" && ok "SQL rows without jobs hidden, counted" || bad "SQL rows without jobs"
fi

# ---- priority: blocked, stragglers, whatif ----
if have_shared; then
  Q72="$NQ/nds_q72_dataproc_2_2.zstd"
  "$CLARITY" blocked "$Q72" >"$T/out" 2>/dev/null
  # the largest saving first: job 43, stragglers 27.3%
  first=$(sed -n '/^largest saving first/{n;n;p;q}' "$T/out")
  [[ "$first" =~ ^\ \ job\ 43\ .*27\.3% ]] && ok "blocked: largest saving first (job 43, stragglers 27.3%)" || bad "blocked first row: $first"
  # one line for the groups where nothing can be saved (the 24 SQL executions without a job among them)
  grep -qE '^  nothing to save in 35 group\(s\) \(no resource 1% or more\): job ' "$T/out" \
    && ok "blocked: one line for 35 groups with nothing to save" || bad "blocked nothing line: $(grep 'nothing to save' "$T/out")"
  [ "$(sed -n '/^largest saving first/,/^$/p' "$T/out" | grep -cE '^  (job|sql|app)( |$)')" = 20 ] \
    && ok "blocked: --limit 20 by default" || bad "blocked rows: $(sed -n '/^largest saving first/,/^$/p' "$T/out" | grep -cE '^  (job|sql|app)( |$)')"
  "$CLARITY" blocked --limit 3 "$Q72" >"$T/out" 2>/dev/null
  grep -q '^  ... 37 more group(s) with a saving (--limit 0 shows all)' "$T/out" && ok "blocked --limit 3" || bad "blocked --limit 3"
  # a directory: one row per application, not one report each
  "$CLARITY" blocked "$NQ/multiple_attempts" >"$T/out" 2>/dev/null
  [ "$(grep -c '^application_1724877841851_0016/[1-4] ' "$T/out")" = 4 ] && ! grep -q '^replay' "$T/out" \
    && ok "blocked on a directory: one row per application" || bad "blocked directory: $(head -5 "$T/out")"
  "$CLARITY" blocked --detail "$NQ/multiple_attempts" >"$T/out" 2>/dev/null
  [ "$(grep -c '^replay  ' "$T/out")" = 4 ] && ok "blocked --detail: a report each" || bad "blocked --detail"
  for cmd in stragglers whatif; do
    "$CLARITY" $cmd "$NQ/multiple_attempts" >"$T/out" 2>/dev/null
    [ "$(grep -c '^application_1724877841851_0016/[1-4] ' "$T/out")" = 4 ] && ! grep -q '^source ' "$T/out" \
      && ok "$cmd on a directory: one row per application" || bad "$cmd directory: $(head -4 "$T/out")"
  done
  # stragglers: stages of fewer than 10 rated tasks are not examined, and the rule is said;
  # stages 31.0 and 36.0 of q72 (2 tasks each) had one "straggler" each before
  "$CLARITY" stragglers "$Q72" >"$T/out" 2>/dev/null
  grep -q '^stages with stragglers (2 of 49 stage attempts)' "$T/out" && ! grep -qE '^ +(31|36)\.0 ' "$T/out" \
    && ok "stragglers: 2-task stages not examined" || bad "stragglers stages: $(grep -A4 '^stages with' "$T/out")"
  grep -q '12 stage attempt(s) with fewer than 10 rated tasks not examined' "$T/out" && ok "stragglers: the rule is said" || bad "stragglers rule not said"
  grep -q '^  71 group(s) without stragglers, not listed' "$T/out" && ! grep -qE '^  job 0 ' "$T/out" \
    && ok "stragglers: rows of '-' hidden" || bad "stragglers groups: $(grep 'without stragglers' "$T/out")"
  "$CLARITY" stragglers --json "$Q72" >"$T/out" 2>/dev/null
  jq -e '[.applications[0].stages[] | select(.not_rated != null and (.not_rated | startswith("fewer than 10 rated tasks")))] | length == 12' "$T/out" >/dev/null \
    && ok "stragglers JSON: 12 stages not_rated for size" || bad "stragglers JSON not_rated"
  # --wide keeps what the default view shortens
  "$CLARITY" stragglers --wide "$Q72" >"$T/out" 2>/dev/null
  grep -q 'psarthi-nds-cpu-test-w-1.c.rapids-spark.internal' "$T/out" && ok "stragglers --wide: full host names" || bad "stragglers --wide"
else
  skip "priority on shared logs: $SHARED_DATA not present"
fi

summary
