#!/usr/bin/env bash
# clarity diff end to end. Synth pairs (same seed, one change each) where the diff must name
# the injected cause first: more data (input_size), fewer hosts (the spark.executor.instances
# setting, then executors), a CPU hog on host2 (slow_host host2), another shuffle partition
# count (the setting, then task_count), less executor memory (the setting, then GC; spill and
# GC findings appear). Seeds 7 and 23: the thresholds were chosen on seeds 3 and 5. Then an
# identical pair (no change), a real log diffed with itself, the EMR multi-attempt pair,
# directories paired by application name, -A/-B, --fail-if-slower and the exit codes.
source "$(dirname "$0")/../lib.sh"
T=$(mktemp -d); trap 'rm -rf "$T"' EXIT
command -v jq >/dev/null || { skip "jq missing: diff suite not run"; summary; exit; }
C="$CLARITY"
[ -x "$CLARITY_ASAN" ] && C="$CLARITY_ASAN"

gen() { # gen DIR ARGS...
  local d="$1"; shift
  "$CLARITY" synth "$@" --no-logs --codec none -q -o "$d" 2>"$T/err" || { head -3 "$T/err"; return 1; }
}
log_of() { ls "$1"/eventlogs/* | head -1; }
# dj A B [opts]: the diff's JSON (ASan build when there is one); fails on a sanitizer report
dj() {
  local a="$1" b="$2"; shift 2
  "$C" diff --json "$@" "$a" "$b" 2>"$T/err"
  local rc=$?
  if grep -qE 'Sanitizer|runtime error:' "$T/err"; then echo "sanitizer finding" >&2; head -20 "$T/err" >&2; return 99; fi
  return $rc
}
# first_cause JSON: "kind:what" of the first cause
first_cause() { jq -r '.pairs[0].causes[0] | .kind + ":" + (.what // "")' "$1"; }
has_cause() { jq -e --arg k "$2" --arg w "$3" '[.pairs[0].causes[] | select(.kind == $k and ((.what // "") == $w))] | length > 0' "$1" >/dev/null; }

for seed in 7 23; do
  B=(tpcds-mix --seed $seed --data 8G --queries 6)
  gen "$T/base" "${B[@]}" && gen "$T/data" "${B[@]}" --data 16G && gen "$T/hosts" "${B[@]}" --hosts 2 &&
    gen "$T/fault" "${B[@]}" --fault cpu-hog@host2 && gen "$T/part" "${B[@]}" --partitions 50 ||
    { bad "seed $seed: synth failed"; continue; }
  P=(pagerank --seed $seed --data 2G)
  gen "$T/pbase" "${P[@]}" && gen "$T/pmem" "${P[@]}" --executor-memory 2G || { bad "seed $seed: synth pagerank failed"; continue; }
  base=$(log_of "$T/base")

  dj "$base" "$(log_of "$T/data")" >"$T/j" || bad "seed $seed data: exit $?"
  [ "$(first_cause "$T/j")" = "input_size:" ] && ok "seed $seed more data: input_size first" || bad "seed $seed more data: first cause $(first_cause "$T/j")"
  jq -e '.pairs[0].causes[0] | .b > 1.8 * .a' "$T/j" >/dev/null && ok "seed $seed more data: input about doubled" || bad "seed $seed more data: input figures"
  jq -e '.pairs[0].config.changes | length == 0' "$T/j" >/dev/null && ok "seed $seed more data: no setting changed" || bad "seed $seed more data: settings changed"

  dj "$base" "$(log_of "$T/hosts")" >"$T/j" || bad "seed $seed hosts: exit $?"
  [ "$(first_cause "$T/j")" = "config:spark.executor.instances" ] && ok "seed $seed fewer hosts: spark.executor.instances first" || bad "seed $seed fewer hosts: first cause $(first_cause "$T/j")"
  has_cause "$T/j" executors "" && ok "seed $seed fewer hosts: executors named" || bad "seed $seed fewer hosts: executors not named"
  jq -e '.pairs[0].application.cores == {"a": 32, "b": 16} and .pairs[0].change_pct > 5' "$T/j" >/dev/null &&
    ok "seed $seed fewer hosts: 32 -> 16 cores, slower" || bad "seed $seed fewer hosts: cores or change"

  dj "$base" "$(log_of "$T/fault")" >"$T/j" || bad "seed $seed fault: exit $?"
  [ "$(first_cause "$T/j")" = "slow_host:host2" ] && ok "seed $seed cpu-hog@host2: slow host host2 first" || bad "seed $seed cpu-hog: first cause $(first_cause "$T/j")"

  dj "$base" "$(log_of "$T/part")" >"$T/j" || bad "seed $seed partitions: exit $?"
  [ "$(first_cause "$T/j")" = "config:spark.sql.shuffle.partitions" ] && ok "seed $seed --partitions: the setting first" || bad "seed $seed --partitions: first cause $(first_cause "$T/j")"
  jq -e '.pairs[0].config.changes == [{"key": "spark.sql.shuffle.partitions", "change": "changed", "a": "200", "b": "50"}]' "$T/j" >/dev/null &&
    ok "seed $seed --partitions: 200 -> 50, the only setting" || bad "seed $seed --partitions: config changes"
  has_cause "$T/j" task_count "" && ok "seed $seed --partitions: task count named" || bad "seed $seed --partitions: task count not named"

  dj "$(log_of "$T/pbase")" "$(log_of "$T/pmem")" >"$T/j" || bad "seed $seed memory: exit $?"
  [ "$(first_cause "$T/j")" = "config:spark.executor.memory" ] && ok "seed $seed --executor-memory: the setting first" || bad "seed $seed memory: first cause $(first_cause "$T/j")"
  has_cause "$T/j" component gc_ms && ok "seed $seed --executor-memory: GC named" || bad "seed $seed memory: GC not named"
  has_cause "$T/j" spill "" && ok "seed $seed --executor-memory: spill named" || bad "seed $seed memory: spill not named"
  jq -e '[.pairs[0].findings.changes[] | select(.change == "appeared" and (.kind == "gc_pressure" or .kind == "spill"))] | length > 0' "$T/j" >/dev/null &&
    ok "seed $seed --executor-memory: a GC or spill finding appeared" || bad "seed $seed memory: no GC/spill finding appeared"

  # identical pair: no change, exit 0 even with --fail-if-slower 0
  dj "$base" "$base" --fail-if-slower 0 >"$T/j"; rc=$?
  [ "$rc" = 0 ] && jq -e '.pairs[0] | .no_change and (.causes | length == 0) and .change_pct == 0 and .top_stage == null
      and ([.stages[], .sql[], .jobs[] | select(.a_id == null or .b_id == null)] | length == 0)' "$T/j" >/dev/null &&
    ok "seed $seed identical pair: no change" || bad "seed $seed identical pair (rc $rc)"
  "$CLARITY" diff "$base" "$base" | grep -q '^no change: ' && ok "seed $seed identical pair: text says no change" || bad "seed $seed identical: text"

  # --fail-if-slower: the fewer-hosts run is slower than the base by more than 5%
  h=$(log_of "$T/hosts")
  "$CLARITY" diff --fail-if-slower 5 "$base" "$h" >/dev/null; [ $? = 1 ] && ok "seed $seed --fail-if-slower 5: exit 1" || bad "seed $seed --fail-if-slower 5"
  "$CLARITY" diff --fail-if-slower 500% "$base" "$h" >/dev/null; [ $? = 0 ] && ok "seed $seed --fail-if-slower 500%: exit 0" || bad "seed $seed --fail-if-slower 500%"
  "$CLARITY" diff --fail-if-slower 5 "$h" "$base" >/dev/null; [ $? = 0 ] && ok "seed $seed faster B: exit 0" || bad "seed $seed faster B with --fail-if-slower"
  # text fits 100 columns
  w=$("$CLARITY" diff "$base" "$h" | awk '{ if (length > m) m = length } END { print m + 0 }')
  [ "$w" -le 100 ] && ok "seed $seed text fits 100 columns ($w)" || bad "seed $seed text is $w columns wide"
  w=$("$CLARITY" diff --wide "$base" "$h" | awk '{ if (length > m) m = length } END { print m + 0 }')
  [ "$w" -gt 100 ] && ok "seed $seed --wide is wider" || bad "seed $seed --wide: $w columns"

  # directories: two applications a side, paired by name (TPC-DS mix, PageRank)
  mkdir -p "$T/da" "$T/db"; cp "$base" "$T/da/"; cp "$(log_of "$T/pbase")" "$T/da/pr"; cp "$h" "$T/db/"; cp "$(log_of "$T/pmem")" "$T/db/pr"
  dj "$T/da" "$T/db" >"$T/j" || bad "seed $seed directories: exit $?"
  jq -e '(.pairs | length == 2) and (.unmatched | length == 0) and ([.pairs[] | .a.name == .b.name] | all)' "$T/j" >/dev/null &&
    ok "seed $seed directories: 2 pairs by name" || bad "seed $seed directories: pairing"
  "$CLARITY" diff --json --no-findings -A "$base" -A "$(log_of "$T/pbase")" -B "$(log_of "$T/pmem")" >"$T/j"; rc=$?
  [ "$rc" = 4 ] && jq -e '(.pairs | length == 1) and (.unmatched | length == 1) and .unmatched[0].side == "a" and (.pairs[0].findings.compared | not)' "$T/j" >/dev/null &&
    ok "seed $seed -A x2 -B x1: one pair, one unmatched, exit 4" || bad "seed $seed -A/-B pairing (rc $rc)"
  rm -rf "$T"/base "$T"/data "$T"/hosts "$T"/fault "$T"/part "$T"/pbase "$T"/pmem "$T"/da "$T"/db
done

# usage and input errors
"$CLARITY" diff >/dev/null 2>&1; [ $? = 2 ] && ok "no operands: 2" || bad "no operands"
"$CLARITY" diff "$ROOT/tests/data/mini-3x.json" >/dev/null 2>&1; [ $? = 2 ] && ok "one operand: 2" || bad "one operand"
"$CLARITY" diff --fail-if-slower x a b >/dev/null 2>&1; [ $? = 2 ] && ok "bad --fail-if-slower: 2" || bad "bad --fail-if-slower"
"$CLARITY" diff "$T/missing" "$ROOT/tests/data/mini-3x.json" >/dev/null 2>&1; [ $? = 3 ] && ok "missing A: 3" || bad "missing A"
"$CLARITY" diff --help | grep -q 'fail-if-slower' && ok "--help" || bad "--help"
dj "$ROOT/tests/data/mini-3x.json" "$ROOT/tests/data/mini-3x.json" >"$T/j" && jq -e '.schema == "clarity.diff/1" and .pairs[0].no_change' "$T/j" >/dev/null &&
  ok "fixture with itself: clarity.diff/1, no change" || bad "fixture with itself"

# real logs
if have_shared; then
  Q72="$SHARED_DATA/external/nvidia-qualification/nds_q72_dataproc_2_2.zstd"
  if [ -f "$Q72" ]; then
    dj "$Q72" "$Q72" >"$T/j"; rc=$?
    [ "$rc" = 0 ] && jq -e '.pairs[0] | .no_change and (.sql | length > 0) and ([.sql[] | select(.plan_changed or .a_id != .b_id)] | length == 0)
        and ([.stages[] | select(.a_id != .b_id)] | length == 0) and (.findings.changes | all(.change == "both"))' "$T/j" >/dev/null &&
      ok "NDS q72 with itself: no change, every stage and query matched to itself" || bad "NDS q72 with itself (rc $rc)"
  else skip "NDS q72 log absent"; fi
  M="$SHARED_DATA/external/nvidia-qualification/multiple_attempts"
  if [ -f "$M/attempt_1_eventlog.zstd" ] && [ -f "$M/attempt_4_eventlog.zstd" ]; then
    dj "$M/attempt_1_eventlog.zstd" "$M/attempt_4_eventlog.zstd" >"$T/j"; rc=$?
    # attempts 1 and 4 of one EMR application: same work (107 tasks, 263.1 MB input), 42.7 s
    # and 43.7 s; the history server address (another host) is ignored
    [ "$rc" = 0 ] && jq -e '.pairs[0] | .no_change and (.config.changes | length == 0) and .config.ignored > 0
        and .application.a.tasks == 107 and .application.b.tasks == 107
        and .application.a.data.input_bytes == .application.b.data.input_bytes
        and ([.stages[], .sql[], .jobs[] | select(.a_id == null or .b_id == null)] | length == 0)
        and (.stages | length == 5)' "$T/j" >/dev/null &&
      ok "EMR attempts 1 and 4: every stage, query and job matched, no change" || bad "EMR attempts 1 vs 4 (rc $rc)"
  else skip "multiple_attempts logs absent"; fi
else
  skip "real-log diffs: no $SHARED_DATA/spark-events"
fi
summary
