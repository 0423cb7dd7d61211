#!/usr/bin/env bash
# What a person reads: one-line errors with one prefix, applications told apart and their
# capacity right (local mode, attempts, ends), what went wrong in the summary, and tables
# that fit the terminal. Real shared logs where they exist (skipped, saying so, when absent).
source "$(dirname "$0")/../lib.sh"
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
one_line "predict: unknown option" "^clarity predict: unknown option '--bogus'; see clarity predict --help\$" "$CLARITY" predict --bogus
one_line "api: unknown option" "^clarity api: unknown option '--bogus'; see clarity api --help\$" "$CLARITY" api --bogus "$MINI" /applications
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

summary
