#!/usr/bin/env bash
# clarity contention on synth workloads (ASan build): text, JSON schema, rules, DOT, units,
# several applications at once, usage errors.
source "$(dirname "$0")/../lib.sh"
T=$(mktemp -d); trap 'rm -rf "$T"' EXIT
C="$CLARITY_ASAN"; [ -x "$C" ] || C="$CLARITY"
san() { if grep -qE 'Sanitizer|runtime error:' "$T/err"; then bad "$1: sanitizer finding"; head -20 "$T/err"; else ok "$1"; fi; }

"$CLARITY" synth tpcds-mix --no-logs --instrument -q -o "$T/a" || bad "synth a"
"$CLARITY" synth tpcds-mix --no-logs --seed 2 --name other -q -o "$T/b" || bad "synth b"
A=$(ls "$T"/a/eventlogs/*); B=$(ls "$T"/b/eventlogs/*)

"$C" contention "$A" >"$T/out" 2>"$T/err"; rc=$?
[ $rc = 0 ] && ok "text exit 0" || bad "text exit $rc"; san "text"
grep -q 'noisy queries' "$T/out" && ok "noisy section" || bad "noisy section"
grep -q 'simple-overlap baseline' "$T/out" && ok "baseline beside" || bad "baseline beside"
grep -q 'CPU     instrumented' "$T/out" && ok "instrumented CPU labelled" || bad "instrumented CPU labelled"

"$C" contention --json --rules "$T/rules.json" --graph "$T/g.dot" --target q52 --top 2 "$A" >"$T/j" 2>"$T/err"; san "json+rules+graph"
jq -e '.schema == "clarity.contention/1" and (.targets | length) == 1 and (.targets[0].explanations | length) > 0
       and (.targets[0].explanations[0] | has("level") and has("node") and has("dor"))
       and (.noisy? // true) and (.aggressive | type) == "array" and (.victims | type) == "array"
       and (.rules | length) > 0' "$T/j" >/dev/null && ok "json schema" || bad "json schema"
jq -e '.targets[0].noisy | length <= 2' "$T/j" >/dev/null && ok "--top 2" || bad "--top 2"
jq -e '.[0] | has("id") and has("rule-type") and has("query-id") and has("query-type") and has("rule-value") and has("rule-order")' \
  "$T/rules.json" >/dev/null && ok "rules file fields" || bad "rules file fields"
grep -q '^digraph iqcgraph' "$T/g.dot" && ok "dot graph" || bad "dot graph"

# the standard-log proxies are labelled when the log has no instrumented metrics
"$C" contention "$B" >"$T/out" 2>"$T/err"; san "standard log"
grep -q 'CPU     proxy' "$T/out" && ok "CPU proxy labelled" || bad "CPU proxy labelled"
grep -q 'MEMORY  not in standard logs' "$T/out" && ok "memory absent labelled" || bad "memory absent labelled"

for u in job group pool; do
  "$C" contention --unit $u --json "$A" >"$T/u" 2>"$T/err"; san "unit $u"
  jq -e ".unit == \"$u\"" "$T/u" >/dev/null && ok "unit $u in json" || bad "unit $u in json"
done
"$C" contention --unit app --json "$A" "$B" >"$T/u" 2>"$T/err"; san "two applications"
jq -e '.unit == "app" and (.applications | length) == 2 and .inputs.hosts == 4' "$T/u" >/dev/null \
  && ok "applications share hosts" || bad "applications share hosts"

"$C" contention --target nosuch "$A" >/dev/null 2>"$T/err"; [ $? = 2 ] && ok "unknown target: exit 2" || bad "unknown target"
"$C" contention --unit nope "$A" >/dev/null 2>&1; [ $? = 2 ] && ok "bad unit: exit 2" || bad "bad unit"
"$C" contention >/dev/null 2>&1; [ $? = 2 ] && ok "no log: exit 2" || bad "no log"
"$C" contention --help >/dev/null 2>&1 && ok "help" || bad "help"
"$C" contention "$T/missing" >/dev/null 2>&1; [ $? = 3 ] && ok "missing log: exit 3" || bad "missing log"
summary
