#!/usr/bin/env bash
# Golden output of `clarity blocked` and `clarity stragglers`: text and JSON on the project's
# own fixture and on two real logs from ../shared/data (skipped when it is absent), compared
# byte for byte with tests/golden/expected/. UPDATE=1 rewrites the expected files.
source "$(dirname "$0")/../lib.sh"
T=$(mktemp -d); trap 'rm -rf "$T"' EXIT
EXP="$ROOT/tests/golden/expected"

# golden NAME LOG ARGS...: run the ASan build from ROOT (paths in output stay relative)
golden() {
  local name="$1" log="$2"; shift 2
  # the shared data's location varies by checkout: print it as $SHARED_DATA
  (cd "$ROOT" && "$CLARITY_ASAN" "$@" "$log") 2>"$T/err" | sed "s|$SHARED_DATA|\$SHARED_DATA|g" >"$T/out"
  local rc=${PIPESTATUS[0]}
  if grep -qE 'Sanitizer|runtime error:' "$T/err"; then bad "$name: sanitizer finding"; head -20 "$T/err"; return; fi
  if [ "$rc" != 0 ]; then bad "$name: exit $rc"; head -5 "$T/err"; return; fi
  if [ -n "${UPDATE:-}" ]; then cp "$T/out" "$EXP/$name"; ok "$name (updated)"; return; fi
  if [ ! -f "$EXP/$name" ]; then bad "$name: no expected file (UPDATE=1 writes it)"; return; fi
  if diff -u "$EXP/$name" "$T/out" >"$T/diff"; then ok "$name"; else bad "$name differs"; head -30 "$T/diff"; fi
}

golden blocked-mini.txt tests/data/mini-3x.json blocked
golden blocked-mini.json tests/data/mini-3x.json blocked --json
golden stragglers-mini.txt tests/data/mini-3x.json stragglers
golden stragglers-mini.json tests/data/mini-3x.json stragglers --json
golden blocked-spark31.txt tests/data/spark-3.1-app-20200706201101-0003.json blocked --slots configured
# diff: two different fixtures (stages, queries and jobs only on one side, settings added and
# removed, findings on both), operand A given before the golden's log operand B
golden diff-spark31-mini.txt tests/data/mini-3x.json diff tests/data/spark-3.1-app-20200706201101-0003.json
golden diff-spark31-mini.json tests/data/mini-3x.json diff --json tests/data/spark-3.1-app-20200706201101-0003.json

# the JSON keys the issue names exist, and nothing is NaN or negative
(cd "$ROOT" && "$CLARITY" blocked --json tests/data/mini-3x.json) >"$T/b.json"
if jq -e '.schema == "clarity.blocked/1" and (.applications[0].groups | length == 3) and (.applications[0].groups
     | all(has("kind") and has("id") and has("actual_ms") and has("simulated_ms") and has("replay_error")
           and (.without | has("network") and has("disk") and has("gc") and has("scheduler_delay") and has("stragglers")
                and has("shuffle_read") and has("shuffle_write") and has("non_cpu"))
           and (.without.network | has("simulated_ms") and has("improvement"))))' "$T/b.json" >/dev/null
then ok "blocked json keys"; else bad "blocked json keys"; fi
if jq -e '[.. | numbers] | all(. >= 0)' "$T/b.json" >/dev/null; then ok "blocked json: no negative number"; else bad "blocked json: negative number"; fi
(cd "$ROOT" && "$CLARITY" stragglers --json --top 2 tests/data/mini-3x.json) >"$T/s.json"
if jq -e '.schema == "clarity.stragglers/1" and (.applications[0].top | length == 2) and (.applications[0].stages[0] | has("by_cause") and has("slow_host") and has("data_skew"))' "$T/s.json" >/dev/null
then ok "stragglers json keys and --top"; else bad "stragglers json keys and --top"; fi

for cmd in blocked stragglers; do
  "$CLARITY" $cmd --help >/dev/null && ok "$cmd --help" || bad "$cmd --help"
  "$CLARITY" $cmd >/dev/null 2>&1; [ $? = 2 ] && ok "$cmd without logs: usage" || bad "$cmd without logs: usage"
  "$CLARITY" $cmd "$T/missing" >/dev/null 2>&1; [ $? = 3 ] && ok "$cmd missing file: 3" || bad "$cmd missing file: 3"
done
"$CLARITY" blocked --group nope tests/data/mini-3x.json >/dev/null 2>&1; [ $? = 2 ] && ok "bad --group" || bad "bad --group"
"$CLARITY" stragglers --top x tests/data/mini-3x.json >/dev/null 2>&1; [ $? = 2 ] && ok "bad --top" || bad "bad --top"

# two real logs: Spark 1.3 (local, 110 tasks, no CPU time) and Spark 3.x NDS q72 (Dataproc)
if have_shared; then
  golden blocked-local-1430917381534.txt "$SHARED_DATA/spark-events/local-1430917381534" blocked
  golden stragglers-local-1430917381534.txt "$SHARED_DATA/spark-events/local-1430917381534" stragglers
  Q72="$SHARED_DATA/external/nvidia-qualification/nds_q72_dataproc_2_2.zstd"
  if [ -f "$Q72" ]; then
    golden blocked-nds-q72.txt "$Q72" blocked --group sql,app
    golden stragglers-nds-q72.txt "$Q72" stragglers --top 5
  else skip "NDS q72 log absent"; fi
else
  skip "real-log goldens: no $SHARED_DATA/spark-events"
fi
summary
