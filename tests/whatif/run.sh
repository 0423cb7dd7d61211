#!/usr/bin/env bash
# `clarity whatif`: golden text and JSON on the project's fixtures and two real logs, the
# clarity.whatif/1 keys, usage errors, and on every log under $SHARED_DATA with tasks the
# core-count curve's properties: non-increasing with more slots, never below the critical
# path nor above the serial sum, and at the observed slots equal to blocked-time's t_s.
# UPDATE=1 rewrites the expected files.
source "$(dirname "$0")/../lib.sh"
T=$(mktemp -d); trap 'rm -rf "$T"' EXIT
EXP="$ROOT/tests/whatif/expected"

golden() { # golden NAME LOG ARGS...: the ASan build, run from ROOT so paths stay relative
  local name="$1" log="$2"; shift 2
  (cd "$ROOT" && "$CLARITY_ASAN" whatif "$@" "$log") 2>"$T/err" | sed "s|$SHARED_DATA|\$SHARED_DATA|g" >"$T/out"
  local rc=${PIPESTATUS[0]}
  if grep -qE 'Sanitizer|runtime error:' "$T/err"; then bad "$name: sanitizer finding"; head -20 "$T/err"; return; fi
  if [ "$rc" != 0 ]; then bad "$name: exit $rc"; head -5 "$T/err"; return; fi
  if [ -n "${UPDATE:-}" ]; then cp "$T/out" "$EXP/$name"; ok "$name (updated)"; return; fi
  if [ ! -f "$EXP/$name" ]; then bad "$name: no expected file (UPDATE=1 writes it)"; return; fi
  if diff -u "$EXP/$name" "$T/out" >"$T/diff"; then ok "$name"; else bad "$name differs"; head -30 "$T/diff"; fi
}

S31=tests/data/spark-3.1-app-20200706201101-0003.json
golden whatif-spark31.txt $S31
golden whatif-spark31.json $S31 --json
golden whatif-mini-hw.txt tests/data/mini-3x.json --disks x2 --network 10Gbps
golden whatif-mini-ini.txt tests/data/mini-3x.json --hw tests/whatif/cluster.ini
golden whatif-spark12-cores.txt tests/data/spark-1.2-local-1422981780767.json --cores 1,2,4,8

# the keys the issue names, and no negative number but the signed replay error
(cd "$ROOT" && "$CLARITY" whatif --json --disks x2 $S31) >"$T/w.json"
if jq -e '.schema == "clarity.whatif/1" and (.applications[0].resource_model.stages | length == 3)
     and (.applications[0].resource_model.stages | all(.ideal_ms | has("cpu") and has("disk") and has("network")))
     and (.applications[0].resource_model.stages | all(has("bottleneck")))
     and (.applications[0].resource_model.scenarios | map(.name) == ["observed","whatif","cpu_infinite","disk_infinite","network_infinite"])
     and (.applications[0].resource_model.scenarios | all(has("predicted_ms")))' "$T/w.json" >/dev/null
then ok "whatif json: resource-model keys"; else bad "whatif json: resource-model keys"; fi
(cd "$ROOT" && "$CLARITY" whatif --json --executors 0.5x,1x,2x $S31) >"$T/c.json"
if jq -e '(.applications[0] | has("resource_model") | not) and (.applications[0].curve | has("critical_path_ms")
     and (.points | length == 3) and (.points | all(has("slots") and has("predicted_ms") and has("core_hours"))))' "$T/c.json" >/dev/null
then ok "whatif json: curve keys, --executors alone gives only the curve"; else bad "whatif json: curve keys"; fi
for f in "$T/w.json" "$T/c.json"; do
  # replay_error is signed (the replay can run shorter than the log); nothing else may be negative
  if jq -e '[.. | objects | del(.replay_error) | .[] | numbers] | all(. >= 0)' "$f" >/dev/null
  then ok "whatif json: no negative number"; else bad "whatif json: negative number in $f"; fi
done

"$CLARITY" whatif --help >/dev/null && ok "whatif --help" || bad "whatif --help"
"$CLARITY" whatif >/dev/null 2>&1; [ $? = 2 ] && ok "whatif without logs: usage" || bad "whatif without logs: usage"
"$CLARITY" whatif "$T/missing" >/dev/null 2>&1; [ $? = 3 ] && ok "whatif missing file: 3" || bad "whatif missing file: 3"
"$CLARITY" whatif --network fast $ROOT/$S31 >/dev/null 2>&1; [ $? = 2 ] && ok "bad --network" || bad "bad --network"
"$CLARITY" whatif --executors 2x,16 $ROOT/$S31 >/dev/null 2>&1; [ $? = 2 ] && ok "mixed --executors" || bad "mixed --executors"
printf '[cluster]\nhosts = x2\n' >"$T/bad.ini"
"$CLARITY" whatif --hw "$T/bad.ini" $ROOT/$S31 2>"$T/err" >/dev/null; rc=$?
[ $rc = 2 ] && grep -q 'bad.ini: line 2: ' "$T/err" && ok "bad INI: usage, file: line N" || bad "bad INI (rc $rc): $(cat "$T/err")"

if have_shared; then
  golden whatif-local-1430917381534.txt "$SHARED_DATA/spark-events/local-1430917381534"
  Q72="$SHARED_DATA/external/nvidia-qualification/nds_q72_dataproc_2_2.zstd"
  if [ -f "$Q72" ]; then
    golden whatif-nds-q72-hosts.txt "$Q72" --hosts 40 --cores-per-host 16 --limit 5
    golden whatif-nds-q72-curve.txt "$Q72" --executors 0.25x,0.5x,1x,2x,4x
  else skip "NDS q72 log absent"; fi

  # curve properties and t_s on every log with tasks, both slot modes
  for mode in observed configured; do
    "$CLARITY" whatif -q --slots $mode --json --compact --executors 0.125x,0.25x,0.5x,1x,2x,4x,8x,1000x \
      "$SHARED_DATA" 2>/dev/null >"$T/all.json"
    "$CLARITY" blocked -q --slots $mode --group app --json --compact "$SHARED_DATA" 2>/dev/null >"$T/bl.json"
    jq -r --slurpfile b "$T/bl.json" '($b[0].applications | map({key: .source, value: .groups[0].simulated_ms}) | from_entries) as $ts
      | .applications[] | select(.curve.tasks > 0) | .curve as $c | ($c.points | map(.replay_ms)) as $r
      | [.source,
         ([range(1; $r | length)] | all($r[.] <= $r[. - 1] + 1e-6)),
         ($r | all(. >= $c.critical_path_ms - 1e-6 and . <= $c.serial_ms + 1e-6)),
         ($c.dependencies_in_groups > 0 or (($c.observed_replay_ms - $ts[.source]) | fabs) < 1e-6),
         ($c.points[3].replay_ms == $c.observed_replay_ms)] | @tsv' "$T/all.json" >"$T/props.tsv"
    n=$(wc -l <"$T/props.tsv")
    [ "$n" -gt 0 ] || bad "$mode: no log with tasks under $SHARED_DATA"
    while IFS=$'\t' read -r src mono bounded ts onex; do
      name="${src#$SHARED_DATA/} ($mode)"
      [ "$mono" = true ] && ok "$name: monotonic" || bad "$name: curve increases with more slots"
      [ "$bounded" = true ] && ok "$name: bounded" || bad "$name: outside [critical path, serial sum]"
      [ "$ts" = true ] && ok "$name: 1x = blocked t_s" || bad "$name: 1x differs from blocked's t_s"
      [ "$onex" = true ] && ok "$name: 1x point = observed replay" || bad "$name: 1x point differs"
    done <"$T/props.tsv"
    echo "curve properties ($mode slots): $n logs with tasks checked"
  done
else
  skip "real-log goldens and curve properties: no $SHARED_DATA/spark-events"
fi
summary
