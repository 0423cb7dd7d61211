# Sourced by tests/synth/run.sh (uses its gen, log_of, decode, invariants, $T): each knob that
# injects a problem for `clarity findings` really leaves it in the event log, and truth.json's
# "findings" records it in the contract's kind names (docs/synth.md "Injected problems").

# jq over the TaskEnds of a log
taskends() { decode "$1" | jq -s "[.[] | select(.Event==\"SparkListenerTaskEnd\")] | $2"; }
kinds() { jq -r '[.findings[] | select(.secondary | not) | .kind] | unique | join(",")' "$1/truth.json"; }

base=(--seed 2 --data 4Gi --no-logs)
gen "$T/k-clean" sort "${base[@]}"
[ "$(jq -c .findings "$T/k-clean/truth.json")" = "[]" ] && ok "a run without knobs records no findings" \
  || bad "clean run records findings: $(jq -c .findings "$T/k-clean/truth.json")"

# skew on a key: the hot partition's task reads >= 8x the stage's median shuffle read
gen "$T/k-skew" sort "${base[@]}" --skew-key 0.4
st=$(jq '.findings[] | select(.kind=="data_skew") | .stage' "$T/k-skew/truth.json")
r=$(taskends "$(log_of "$T/k-skew")" "map(select(.[\"Stage ID\"]==${st:-0} and .[\"Task End Reason\"].Reason==\"Success\")
   | .[\"Task Metrics\"][\"Shuffle Read Metrics\"] | .[\"Remote Bytes Read\"] + .[\"Local Bytes Read\"]) | sort
   | (.[-1] / .[length/2|floor]) | floor")
[ "$(kinds "$T/k-skew")" = data_skew ] && [ "${r:-0}" -ge 8 ] && ok "--skew-key 0.4: largest shuffle read ${r}x the median, truth data_skew stage $st" \
  || bad "--skew-key: ratio ${r:-?}, truth $(kinds "$T/k-skew")"
# the stage's total is kept: the same shuffle bytes read, redistributed (within rounding)
rd='map(select(.["Task End Reason"].Reason=="Success") | .["Task Metrics"]["Shuffle Read Metrics"] | .["Remote Bytes Read"] + .["Local Bytes Read"]) | add'
a=$(taskends "$(log_of "$T/k-clean")" "$rd"); b=$(taskends "$(log_of "$T/k-skew")" "$rd")
awk -v a="$a" -v b="$b" 'BEGIN { exit !(b > 0.999 * a && b < 1.001 * a) }' && ok "--skew-key keeps the stage's shuffle read ($a -> $b bytes)" \
  || bad "--skew-key changed the shuffle read: $a -> $b"

# spill: executor memory too small for the sort's buffers
gen "$T/k-spill" sort "${base[@]}" --executor-memory 1Gi
m=$(taskends "$(log_of "$T/k-spill")" 'map(.["Task Metrics"]["Memory Bytes Spilled"]) | add')
d=$(taskends "$(log_of "$T/k-spill")" 'map(.["Task Metrics"]["Disk Bytes Spilled"]) | add')
t=$(jq '[.findings[] | select(.kind=="spill") | .disk_bytes_spilled] | add' "$T/k-spill/truth.json")
c=$(taskends "$(log_of "$T/k-clean")" 'map(.["Task Metrics"]["Disk Bytes Spilled"]) | add')
[ "$m" -gt 0 ] && [ "$d" -gt 0 ] && [ "$t" = "$d" ] && [ "$c" = 0 ] && [ "$(kinds "$T/k-spill")" = spill ] \
  && ok "--executor-memory 1Gi: $m bytes spilled from memory, $d to disk, as truth says (none without)" \
  || bad "spill: memory $m disk $d truth $t clean $c"

# too few partitions: 8 tasks on 32 slots
gen "$T/k-few" sort "${base[@]}" --partitions 8
n=$(jq '.findings[] | select(.kind=="too_few_partitions") | .tasks' "$T/k-few/truth.json")
c=$(decode "$(log_of "$T/k-few")" | jq -s '[.[] | select(.Event=="SparkListenerStageCompleted") | .["Stage Info"]["Number of Tasks"]] | min')
[ "$n" = 8 ] && [ "$c" = 8 ] && ok "--partitions 8: a stage of 8 tasks on 32 slots, truth too_few_partitions" || bad "too few partitions: truth $n, log $c"

# tiny tasks: 4000 partitions, median task under 200 ms
gen "$T/k-tiny" wordcount "${base[@]}" --partitions 4000
st=$(jq '[.findings[] | select(.kind=="tiny_tasks" and (.secondary|not)) | .stage][0]' "$T/k-tiny/truth.json")
med=$(taskends "$(log_of "$T/k-tiny")" "map(select(.[\"Stage ID\"]==${st:-0}) | .[\"Task Info\"] | .[\"Finish Time\"] - .[\"Launch Time\"]) | sort | .[length/2|floor]")
[ "$st" != null ] && [ "${med:-999}" -lt 200 ] && ok "--partitions 4000: median task ${med} ms, truth tiny_tasks stage $st" || bad "tiny tasks: stage $st median $med"

# idle executors: 4 more hosts than a 1 GiB job needs
gen "$T/k-idle" wordcount --seed 2 --data 1Gi --no-logs --idle-executors 4
n=$(decode "$(log_of "$T/k-idle")" | jq -s '[.[] | select(.Event=="SparkListenerExecutorAdded")] | length')
share=$(jq '.findings[] | select(.kind=="idle_executors") | .idle_share' "$T/k-idle/truth.json")
[ "$n" = 8 ] && awk -v x="$share" 'BEGIN { exit !(x > 0.5) }' && ok "--idle-executors 4: 8 executors, $share of their core time idle" \
  || bad "idle executors: $n executors, idle share $share"

# task failures: every ExceptionFailure in the log is counted by the truth
gen "$T/k-fail" sort "${base[@]}" --failure-rate 0.1
n=$(taskends "$(log_of "$T/k-fail")" 'map(select(.["Task End Reason"].Reason=="ExceptionFailure")) | length')
t=$(jq '.findings[] | select(.kind=="task_failures") | .failed_attempts' "$T/k-fail/truth.json")
[ "$n" -gt 0 ] && [ "$n" = "$t" ] && ok "--failure-rate 0.1: $n failed attempts in log and truth" || bad "failures: log $n truth $t"

# a lost executor: ExecutorRemoved, its running attempts fail with ExecutorLostFailure, a
# replacement registers, the job still succeeds and the log keeps Spark's invariants
gen "$T/k-kill" sort "${base[@]}" --kill-executor 2@6s
L=$(log_of "$T/k-kill")
rm=$(decode "$L" | jq -s -r '[.[] | select(.Event=="SparkListenerExecutorRemoved" and .["Executor ID"]=="2") | .["Removed Reason"]][0]')
n=$(taskends "$L" 'map(select(.["Task End Reason"].Reason=="ExecutorLostFailure" and .["Task End Reason"]["Executor ID"]=="2")) | length')
t=$(jq '.findings[] | select(.kind=="task_failures" and .secondary) | .failed_attempts' "$T/k-kill/truth.json")
ex=$(decode "$L" | jq -s '[.[] | select(.Event=="SparkListenerExecutorAdded")] | length')
jr=$(decode "$L" | jq -s -r '[.[] | select(.Event=="SparkListenerJobEnd") | .["Job Result"].Result] | unique | join(",")')
v=$(invariants "$L")
[ "$rm" = "Command exited with code 137" ] && [ "$n" -gt 0 ] && [ "$n" = "$t" ] && [ "$ex" = 5 ] && [ "$jr" = JobSucceeded ] && [ "$v" = 0 ] \
  && [ "$(kinds "$T/k-kill")" = lost_executors ] && ok "--kill-executor 2@6s: removed, $n attempts lost, replacement added, job succeeds" \
  || bad "kill: reason '$rm', lost $n (truth $t), $ex executors, jobs $jr, $v invariant violations, truth $(kinds "$T/k-kill")"
flags=$("$CLARITY_ASAN" summary --json "$L" | jq -r '.applications[0].integrity.flags')
[ "$flags" = ok ] && ok "a lost executor's log reads with an empty integrity report" || bad "kill integrity: $flags"

# GC pressure: JVM GC Time over a fifth of the tasks' run time (under a tenth without)
gcshare() { taskends "$1" 'map(.["Task Metrics"]) | (map(.["JVM GC Time"]) | add) * 100 / (map(.["Executor Run Time"]) | add) | floor'; }
gen "$T/k-gc" wordcount "${base[@]}" --gc-pressure 30
g=$(gcshare "$(log_of "$T/k-gc")"); c=$(gcshare "$(log_of "$T/k-clean")")
[ "$g" -ge 20 ] && [ "$c" -lt 10 ] && [ "$(kinds "$T/k-gc")" = gc_pressure ] && ok "--gc-pressure 30: GC $g% of run time ($c% without)" \
  || bad "gc pressure: $g% vs $c%, truth $(kinds "$T/k-gc")"

# driver gaps: the first job starts 10 s after the application, no task before it
gen "$T/k-drv" wordcount "${base[@]}" --driver-gap 10s
gap=$(decode "$(log_of "$T/k-drv")" | jq -s '([.[] | select(.Event=="SparkListenerJobStart") | .["Submission Time"]] | min) - ([.[] | select(.Event=="SparkListenerApplicationStart") | .Timestamp] | min)')
t=$(jq '.findings[] | select(.kind=="driver_bound") | .driver_gap_ms' "$T/k-drv/truth.json")
[ "$gap" -ge 10000 ] && [ "$t" = 10000 ] && ok "--driver-gap 10s: first job $gap ms after the start, truth driver_bound" || bad "driver gap: $gap ms, truth $t"

# a slow host: the cpu-hog fault is a slow_host finding on its host
gen "$T/k-slow" sort "${base[@]}" --fault cpu-hog@host3:0.8
[ "$(jq -r '.findings[] | select(.kind=="slow_host") | .host' "$T/k-slow/truth.json")" = host3 ] && ok "cpu-hog: truth slow_host host3" || bad "slow host truth"

# bad values are usage errors
for args in "--skew-key 0.99" "--kill-executor x@5s" "--gc-pressure 0.5" "--driver-gap -1s"; do
  # shellcheck disable=SC2086
  "$CLARITY" synth sort $args -o "$T/x" >/dev/null 2>&1; rc=$?
  [ "$rc" = 2 ] && ok "usage error: $args" || bad "usage error: $args (exit $rc)"
done
