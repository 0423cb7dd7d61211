#!/usr/bin/env bash
# clarity synth: every built-in scenario generates, parses with an empty integrity report and
# keeps Spark's invariants; scaling behaves (cores, disks); faults show in the truth; same
# seed, same bytes.
source "$(dirname "$0")/../lib.sh"
T=$(mktemp -d); trap 'rm -rf "$T"' EXIT
command -v jq >/dev/null || { skip "jq missing: synth suite not run"; summary; exit; }

gen() { # gen DIR ARGS...: generate (ASan build), fail on sanitizer reports
  local d="$1"; shift
  if "$CLARITY_ASAN" synth "$@" -q -o "$d" 2>"$T/err"; then return 0; fi
  head -5 "$T/err"; return 1
}
log_of() { ls "$1"/eventlogs/* | head -1; }
events() { "$ROOT/build/clarity" api "$1" /applications >/dev/null 2>&1; decode "$1"; }
decode() { case "$1" in *.zstd) zstd -dc "$1";; *) cat "$1";; esac; }

# invariants over the TaskEnds of a plain or zstd log: prints the number of violations
invariants() {
  decode "$1" | jq -s -r '
    (map(select(.Event=="SparkListenerStageSubmitted") | {key: (.["Stage Info"]["Stage ID"]|tostring), value: .["Stage Info"]["Submission Time"]}) | from_entries) as $sub
    | (map(select(.Event=="SparkListenerStageCompleted") | {key: (.["Stage Info"]["Stage ID"]|tostring), value: .["Stage Info"]["Completion Time"]}) | from_entries) as $done
    | (map(select(.Event=="SparkListenerExecutorAdded") | {key: .["Executor ID"], value: .Timestamp}) | from_entries) as $ex
    | [ .[] | select(.Event=="SparkListenerTaskEnd") | .["Task Metrics"] as $m | .["Task Info"] as $i
        | select( ($m["Executor CPU Time"] > $m["Executor Run Time"] * 1000000)
              or ($m["Shuffle Read Metrics"]["Fetch Wait Time"] + ($m["Shuffle Write Metrics"]["Shuffle Write Time"] / 1000000 | floor) > $m["Executor Run Time"])
              or ($m["Executor Run Time"] + $m["Executor Deserialize Time"] > $i["Finish Time"] - $i["Launch Time"])
              or ($i["Launch Time"] < $sub[(.["Stage ID"]|tostring)]) or ($i["Finish Time"] > $done[(.["Stage ID"]|tostring)])
              or ($ex[$i["Executor ID"]] == null) or ($ex[$i["Executor ID"]] > $i["Launch Time"]) ) ] | length'
}

for sc in wordcount sort kmeans pagerank tpcds-mix; do
  d="$T/$sc"
  extra=(--data 2Gi); [ "$sc" = tpcds-mix ] && extra=(--data 4Gi --queries 4 --pool fair --arrival 2s)
  if gen "$d" "$sc" "${extra[@]}" --speculation --failure-rate 0.02 --seed 3; then ok "$sc generates"; else bad "$sc generates"; continue; fi
  L=$(log_of "$d")
  flags=$("$CLARITY_ASAN" summary --json "$L" | jq -r '.applications[0].integrity.flags')
  [ "$flags" = ok ] && ok "$sc parses with an empty integrity report" || bad "$sc integrity: $flags"
  v=$(invariants "$L"); [ "$v" = 0 ] && ok "$sc Spark invariants hold" || bad "$sc: $v tasks break Spark's invariants"
  n=$(jq '.application.task_attempts' "$d/truth.json"); m=$(wc -l <"$d/truth-tasks.jsonl")
  [ "$n" = "$m" ] && [ "$n" -gt 0 ] && ok "$sc truth has every attempt ($n)" || bad "$sc truth attempts $n vs $m lines"
  f=$(grep -c 'TaskSetManager: Finished task .* in [0-9]* ms on host' "$d/driver.log")
  s=$(cat "$d"/executor-logs/*/*/stderr | grep -c 'Executor: Running task')
  [ "$f" -gt 0 ] && [ "$s" = "$n" ] && ok "$sc driver and executor logs ($f finished, $s running)" || bad "$sc logs: $f finished, $s running lines vs $n"
  g=$(cat "$d"/gc/*.log | grep -cE '^[0-9T:.+-]+: [0-9.]+: \[(GC \(Allocation Failure\)|Full GC \(Ergonomics\)) \[PSYoungGen: [0-9]+K->[0-9]+K\([0-9]+K\)\].* secs\] \[Times: user=[0-9.]+ sys=[0-9.]+, real=[0-9.]+ secs\]')
  [ "$g" -gt 0 ] && ok "$sc GC log ($g collections)" || bad "$sc GC log has no collections"
done

# truth.json against the schema documented in docs/synth.md
jq -e '.schema == "clarity.synth.truth/1" and (.application | (.app_id|type)=="string" and (.runtime_ms|type)=="number" and .runtime_ms > 0)
  and (.cluster.hosts|length) > 0 and (.cluster.executors|all(has("id") and has("host") and has("added_ms") and has("removed_ms")))
  and (.faults|type)=="array" and (.queries|all(has("name") and has("pool") and has("start_ms") and has("end_ms") and has("runtime_ms")))
  and (.contention.pairs|all((.victim|type)=="string" and (.culprit|type)=="string" and (.resource|IN("cpu","disk","network")) and (.delay_ms|type)=="number" and (.series|all(length==2))))
  and (.contention.usage|all(has("query") and has("resource") and has("series")))' "$T/tpcds-mix/truth.json" >/dev/null \
  && ok "truth.json follows its schema" || bad "truth.json follows its schema"
head -1 "$T/sort/truth-tasks.jsonl" | jq -e 'has("task_id") and has("stage_id") and has("duration_ms") and has("ideal_ms") and (.wait_ms|has("cpu") and has("disk") and has("network") and has("gc") and has("memory")) and (.wait_by_cause_ms|has("fault") and has("other_queries") and has("same_query")) and (.abnormal|type)=="boolean" and (.why|type)=="array"' >/dev/null \
  && ok "truth-tasks.jsonl follows its schema" || bad "truth-tasks.jsonl follows its schema"
jq -e '[.contention.pairs[] | select(.victim != .culprit)] | length > 0' "$T/tpcds-mix/truth.json" >/dev/null \
  && ok "concurrent queries slow each other in the truth" || bad "no cross-query contention in tpcds-mix truth"

# same seed: byte-identical output; another seed: a different log
gen "$T/det1" tpcds-mix --queries 3 --data 2Gi --seed 9 --fault cpu-hog@host2:5s-60s:0.8 && gen "$T/det2" tpcds-mix --queries 3 --data 2Gi --seed 9 --fault cpu-hog@host2:5s-60s:0.8
diff -r "$T/det1" "$T/det2" >/dev/null && ok "same seed, byte-identical output" || bad "same seed, byte-identical output"
gen "$T/det3" tpcds-mix --queries 3 --data 2Gi --seed 10
cmp -s "$(log_of "$T/det1")" "$(log_of "$T/det3")" && bad "another seed gives another log" || ok "another seed gives another log"

# a fault shows in the truth, on its host and window
gen "$T/fault" sort --data 4Gi --fault cpu-hog@host2:5s-300s:0.8 --cpu-scale 4
jq -e '.faults[0].affected_tasks > 0 and .faults[0].delay_ms > 0 and .faults[0].host == "host2"' "$T/fault/truth.json" >/dev/null \
  && ok "cpu-hog: affected tasks and delay in truth" || bad "cpu-hog truth"
wrong=$(jq -r 'select(.fault == 0 and .host != "host2") | .task_id' "$T/fault/truth-tasks.jsonl" | wc -l)
[ "$wrong" = 0 ] && ok "cpu-hog delays only tasks on its host" || bad "cpu-hog delays $wrong tasks elsewhere"
jq -e 'select(.abnormal and (.why|any(startswith("fault:0")))) ' "$T/fault/truth-tasks.jsonl" >/dev/null \
  && ok "cpu-hog makes abnormal tasks with the fault as cause" || bad "no abnormal task blamed on the cpu-hog"
for f in memory-hog disk-hog network; do
  gen "$T/f-$f" sort --data 4Gi --fault "$f@host1:0.7" && jq -e '.faults[0].delay_ms > 0' "$T/f-$f/truth.json" >/dev/null \
    && ok "$f delays tasks" || bad "$f delays tasks"
done

# scaling: a CPU-bound job halves with twice the cores; a disk-bound stage with twice the disks
stage_ms() { # stage_ms LOG NAME-PREFIX: summed stage durations
  decode "$1" | jq -s --arg p "$2" '[.[] | select(.Event=="SparkListenerStageCompleted") | .["Stage Info"] | select(.["Stage Name"]|startswith($p)) | .["Completion Time"] - .["Submission Time"]] | add'
}
ratio_ok() { awk -v a="$1" -v b="$2" 'BEGIN { r = b / a; printf "%.2f", r; exit !(r > 0.40 && r < 0.65) }'; }
gen "$T/c4" kmeans --data 8Gi --cores 4 --skew 0 && gen "$T/c8" kmeans --data 8Gi --cores 8 --skew 0
a=$(stage_ms "$(log_of "$T/c4")" mapPartitions); b=$(stage_ms "$(log_of "$T/c8")" mapPartitions)
r=$(ratio_ok "$a" "$b") && ok "CPU-bound kmeans iterations: 2x cores -> x$r time" || bad "2x cores -> x$r time ($a -> $b ms)"
gen "$T/d1" sort --data 8Gi --disks 1 --skew 0 && gen "$T/d2" sort --data 8Gi --disks 2 --skew 0
a=$(stage_ms "$(log_of "$T/d1")" sortByKey); b=$(stage_ms "$(log_of "$T/d2")" sortByKey)
r=$(ratio_ok "$a" "$b") && ok "disk-bound sort map stage: 2x disks -> x$r time" || bad "2x disks -> x$r time ($a -> $b ms)"

# codecs, dynamic allocation, GC log formats, INI scenarios, CLI errors
for c in zstd lz4; do
  gen "$T/$c" wordcount --data 2Gi --codec "$c" --no-logs
  flags=$("$CLARITY_ASAN" summary --json "$(log_of "$T/$c")" | jq -r '.applications[0].integrity.flags')
  [ "$flags" = ok ] && ok "$c event log reads clean" || bad "$c event log: $flags"
done
gen "$T/dyn" tpcds-mix --queries 6 --data 8Gi --dynamic-allocation --min-executors 1 --arrival 40s
n=$(jq '.cluster.executors|length' "$T/dyn/truth.json"); rm=$(jq '[.cluster.executors[]|select(.removed_ms != null)]|length' "$T/dyn/truth.json")
flags=$("$CLARITY_ASAN" summary --json "$(log_of "$T/dyn")" | jq -r '.applications[0].integrity.flags')
[ "$n" -gt 1 ] && [ "$flags" = ok ] && ok "dynamic allocation adds executors ($n, $rm removed when idle)" || bad "dynamic allocation: $n executors, $flags"
gen "$T/g1" pagerank --data 1Gi --gc-log unified
grep -qE '^\[[0-9T:.+-]+\]\[[0-9.]+s\]\[info\]\[gc +\] GC\([0-9]+\) Pause (Young|Full)' "$T"/g1/gc/*.log && ok "unified GC log" || bad "unified GC log"
printf '# test\n[workload]\nscenario = wordcount\ndata = 1Gi\n[cluster]\nhosts = 3\nfault = network@host3:0.5\n' >"$T/s.ini"
gen "$T/ini" --scenario "$T/s.ini" && jq -e '(.cluster.hosts|length)==3 and .faults[0].kind=="network"' "$T/ini/truth.json" >/dev/null \
  && ok "INI scenario" || bad "INI scenario"
"$CLARITY" synth --list | grep -q '^tpcds-mix' && ok "--list" || bad "--list"
"$CLARITY" synth --help | grep -q 'cpu-hog@host3' && ok "--help" || bad "--help"
for args in "nosuch -o $T/x" "sort" "sort --hosts 0 -o $T/x" "sort --fault cpu-hog@host9 -o $T/x" "sort --fault bogus -o $T/x"; do
  # shellcheck disable=SC2086
  "$CLARITY" synth $args >/dev/null 2>&1; rc=$?
  [ "$rc" = 2 ] && ok "usage error: $args" || bad "usage error: $args (exit $rc)"
done
# regression: a locality wait that had already run out was re-armed at a past time and fired
# forever (kmeans, seed 11, 4 hosts hung)
if timeout 60 "$CLARITY" synth kmeans --seed 11 --hosts 4 -q -o "$(mktemp -d)/k11"; then ok "kmeans seed 11 on 4 hosts finishes"; else bad "kmeans seed 11 on 4 hosts hangs"; fi
# regression: the locality wait's end was tested as now - start >= wait, which rounds below the
# wait at the very instant its timer fires (2.9999999999999982 s): the level stayed, the timer
# was not re-armed, and a stage whose pending tasks needed the next level stalled the run ("no
# executor can run the pending tasks"; the findings evaluation's lost-executor runs)
for k in "23 7 3" "21 5 1"; do
  set -- $k
  if timeout 60 "$CLARITY" synth kmeans --data 2Gi --iterations 3 --seed "$1" --hosts "$2" --kill-executor "$3@7.1s" \
       --no-logs -q -o "$T/kill$1" 2>"$T/kill.err" && [ "$(jq -r '[.findings[] | select(.secondary | not) | .kind] | join(",")' "$T/kill$1/truth.json")" = lost_executors ]
  then ok "kmeans seed $1 with executor $3 killed at 7.1 s finishes"; else bad "kmeans seed $1 --kill-executor $3@7.1s: $(head -1 "$T/kill.err")"; fi
done

# a run too big to simulate is refused up front (100T in 1M splits asked for 100 M tasks and
# grew past 2 GB), with one line that says what to change
"$CLARITY" synth wordcount --data 100T --split 1M -o "$T/big" >/dev/null 2>"$T/big.err"; rc=$?
if [ "$rc" = 2 ] && grep -q 'tasks in one stage, over the 10000000' "$T/big.err" && [ "$(wc -l <"$T/big.err")" = 1 ]
then ok "synth refuses 100 M tasks in one stage"; else bad "synth 100T/1M: exit $rc: $(head -2 "$T/big.err")"; fi

# the knobs that inject the problems `clarity findings` looks for
source "$(dirname "$0")/knobs.sh"

summary
