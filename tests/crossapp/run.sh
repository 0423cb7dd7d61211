#!/usr/bin/env bash
# `clarity findings --deep` across applications (docs/findings.md, "Across applications"): a
# shared cluster made from one synth tpcds-mix run split into one application per query
# (split-apps.py: the queries really shared the simulated hosts). With an aggressive query
# (q67 reading 4x its data) its application is named, with the saving of the finding against
# synth's re-run without it; without the knob (a close call), with q67 moved an hour later, or
# with q67 on another cluster (its hosts renamed), nothing fires. Seed 3: one of the seeds the
# rule was reported on, not tuned on (the per-application rule was tuned on seeds 1-2).
source "$(dirname "$0")/../lib.sh"
T=$(mktemp -d); trap 'rm -rf "$T"' EXIT
command -v jq >/dev/null || { skip "jq missing: crossapp suite not run"; summary; exit; }
command -v python3 >/dev/null || { skip "python3 missing: crossapp suite not run"; summary; exit; }
[ -x "$CLARITY" ] || { skip "no $CLARITY: crossapp suite not run"; summary; exit; }
F="$CLARITY"; [ -x "$CLARITY_ASAN" ] && F="$CLARITY_ASAN"   # the analysis under ASan when built
SPLIT="$ROOT/tests/crossapp/split-apps.py"

synth() { # synth DIR INI-LINES...: a 10-query tpcds-mix, seed 3, arrival 6 s
  local d="$1"; shift
  printf 'scenario = tpcds-mix\nseed = 3\nqueries = 10\narrival = 6s\n' >"$d.ini"
  for l in "$@"; do echo "$l" >>"$d.ini"; done
  "$CLARITY" synth --scenario "$d.ini" --no-logs --no-truth-tasks -q -o "$d"
}
findings() { # findings OUT ARGS...: exit code checked, sanitizer reports fail
  local out="$1"; shift
  if ! "$F" findings "$@" >"$out" 2>"$T/err" || grep -qE 'Sanitizer|runtime error:' "$T/err"; then
    bad "findings $*: $(head -3 "$T/err")"; return 1
  fi
}

synth "$T/agg" "aggressive = q67" && synth "$T/clean" && synth "$T/omit" "aggressive = q67" "omit = q67" \
  || { bad "synth runs"; summary; exit; }
python3 "$SPLIT" "$T"/agg/eventlogs/* "$T/a"
python3 "$SPLIT" "$T"/clean/eventlogs/* "$T/c"
python3 "$SPLIT" "$T"/agg/eventlogs/* "$T/s" --shift q67=3600000
python3 "$SPLIT" "$T"/agg/eventlogs/* "$T/o" --other-cluster q67
[ "$(ls "$T/a" | wc -l)" = 10 ] && ok "split into 10 applications" || bad "split: $(ls "$T/a" | wc -l) applications"

# the aggressive application is named, in the words of `clarity contention --unit app`
if findings "$T/a.json" --deep --json "$T/a"; then
  n=$(jq '.across_applications | length' "$T/a.json")
  [ "$n" = 1 ] && ok "one finding across applications" || bad "across_applications has $n findings"
  jq -e '.across_applications_windows == {"groups": 1, "windows": 1, "max_applications": 16, "max_models_held": 10,
         "unconfirmed": 0}' "$T/a.json" >/dev/null && ok "10 applications: one window (unchanged)" \
    || bad "windows: $(jq -c .across_applications_windows "$T/a.json")"
  jq -e '.across_applications[0] | .kind == "contention" and (.where.app_id | endswith("-0003"))
         and .where.name == "TPC-DS q67" and .method == "estimate" and (.victims | length) == 8
         and .evidence.applications == 10' "$T/a.json" >/dev/null \
    && ok "q67's application is the culprit (8 victims of 10 applications)" || bad "culprit: $(jq -c '.across_applications[0].where' "$T/a.json")"
  # worked: 295.2 s of victim runtime attributed over a mean of 4.80 applications at once
  s=$(jq '.across_applications[0].saving_ms' "$T/a.json")
  [ "$s" = 61493 ] && ok "saving 61.5 s [estimate]" || bad "saving $s ms, expected 61493"
  line=$("$CLARITY" contention --unit app --wide "$T/a" | sed -n '/^aggressive queries/{n;p;q}' | sed 's/^  1\. *//; s/  */ /g')
  title=$(jq -r '.across_applications[0].title' "$T/a.json" | sed 's/  */ /g; s/, \.\.\.$//')
  want=$(sed 's/^\([^ ]*\) \([0-9.]*\) s | DOR \([0-9.]*\) \(.*\)$/aggressive application \1: \2 s of victim runtime attributed | total DOR \3; victims \4/' <<<"$line")
  [ "$title" = "Contention across applications (iQCAR): $want" ] && ok "title is clarity contention's line" \
    || bad "title '$title' vs contention's '$want'"
  # against the re-run without q67: the other nine applications' span shrinks by 74.2 s
  re=$(jq '[.queries[] | select(.name != "TPC-DS q67")] as $q | ([$q[].end_ms] | max) - ([$q[].start_ms] | min)' "$T/agg/truth.json")
  ro=$(jq '[.queries[]] as $q | ([$q[].end_ms] | max) - ([$q[].start_ms] | min)' "$T/omit/truth.json")
  awk -v s="$s" -v d="$((re - ro))" 'BEGIN { e = (s - d) / d; exit !(d > 60000 && e > -0.25 && e < 0.25) }' \
    && ok "saving within 25% of the re-run without it ($s ms vs $((re - ro)) ms)" || bad "saving $s ms vs re-run $((re - ro)) ms"
fi
if findings "$T/a.txt" --deep "$T/a"; then
  grep -q '^Across applications: 10 application(s), 1 group(s)' "$T/a.txt" && grep -q '^1\. Contention across applications (iQCAR): aggressive application app-[0-9]*-0003:' "$T/a.txt" \
    && ok "text section 'Across applications' after the table" || bad "text section: $(sed -n '/^Across/,$p' "$T/a.txt" | head -3)"
  awk 'length > 100 { n++ } END { exit n > 0 }' "$T/a.txt" && ok "text fits 100 columns" || bad "text wider than 100 columns"
fi

# a never-idle cluster: three copies of the split, each starting 5 s before the previous one
# ends, chain into one group of 30 applications. It is analysed in windows (default 16
# applications: blocks of 8 in start order, each window two neighbouring blocks), never with
# more than 16 models loaded at once, and each copy's q67 is named with the single copy's
# attributed runtime (its window held every application that overlapped it and its victims).
# With windows of 4 no window holds a culprit's whole neighbourhood (every application of the
# split overlaps 4-9 others): nothing is named rather than a share measured over part of it.
span=$(jq '[.queries[]] as $q | ([$q[].end_ms] | max) - ([$q[].start_ms] | min)' "$T/agg/truth.json")
for k in 0 1 2; do python3 "$SPLIT" "$T"/agg/eventlogs/* "$T/ch" --shift-all $((k * (span - 5000))); done
if findings "$T/ch.json" --deep --json "$T/ch"; then
  jq -e '.across_applications_windows == {"groups": 1, "windows": 3, "max_applications": 16, "max_models_held": 16,
         "unconfirmed": 0}' "$T/ch.json" >/dev/null && ok "30 chained applications: 3 windows, at most 16 models held" \
    || bad "windows: $(jq -c .across_applications_windows "$T/ch.json")"
  jq -e '[.across_applications[] | select(.where.name == "TPC-DS q67" and (.where.app_id | endswith("-0003"))
         and (.evidence.victim_runtime_attributed_ms | floor) == 295210)] | length == 3 and (.[0].rank == 1)' "$T/ch.json" >/dev/null \
    && [ "$(jq '.across_applications | length' "$T/ch.json")" = 3 ] \
    && ok "each copy's q67 named, 295.2 s attributed as in the single copy" \
    || bad "chain findings: $(jq -c '[.across_applications[] | [.where.name, .evidence.victim_runtime_attributed_ms]]' "$T/ch.json")"
fi
if findings "$T/ch4.json" --deep --json --window 4 "$T/ch"; then
  jq -e '.across_applications_windows | .windows == 14 and .max_models_held <= 4' "$T/ch4.json" >/dev/null \
    && [ "$(jq '.across_applications | length' "$T/ch4.json")" = 0 ] \
    && ok "--window 4: 14 windows, at most 4 models held, no finding from a partial neighbourhood" \
    || bad "--window 4: $(jq -c '[.across_applications_windows, [.across_applications[].where.name]]' "$T/ch4.json")"
fi
if findings "$T/ch.txt" --deep "$T/ch"; then
  grep -q '^Across applications: 30 application(s), 1 group(s) that ran at the same time, in 3 windows of at$' "$T/ch.txt" \
    && awk 'length > 100 { n++ } END { exit n > 0 }' "$T/ch.txt" \
    && ok "text names the windows, within 100 columns" || bad "text: $(grep -A1 '^Across' "$T/ch.txt")"
fi

# nothing fires: no knob (a close call), q67 an hour later, q67 on another cluster
for c in c s o; do
  case $c in c) what="without the knob";; s) what="q67 an hour later";; o) what="q67 on another cluster";; esac
  findings "$T/$c.json" --deep --json "$T/$c" || continue
  n=$(jq '.across_applications | length' "$T/$c.json")
  [ "$n" = 0 ] && ok "no finding across applications $what" || bad "$what: $(jq -c '.across_applications[0].title' "$T/$c.json")"
done

# only with --deep and several applications: no key, no section otherwise
findings "$T/n.json" --json "$T/a" && { jq -e 'has("across_applications") | not' "$T/n.json" >/dev/null \
  && ok "no across_applications without --deep" || bad "across_applications without --deep"; }
one=$(ls "$T"/a/* | head -1)
findings "$T/1.json" --deep --json "$one" && { jq -e 'has("across_applications") | not' "$T/1.json" >/dev/null \
  && ok "no across_applications for one application" || bad "across_applications for one application"; }

# the shared real logs: copies of one run (legacy directory and file) are one application;
# no directory gets a finding across applications (docs/findings.md lists the groups)
if have_shared; then
  for d in spark-events external/nvidia-qualification runtimes/linearregression runtimes/pagerank-5-hosts; do
    # the normal build: the ASan one adds tens of seconds here (43 logs), and the runs above
    # already went through ASan
    F="$CLARITY" findings "$T/r.json" --deep --json -q "$SHARED_DATA/$d" || continue
    n=$(jq '.across_applications | length' "$T/r.json")
    [ "$n" = 0 ] && ok "$d: no finding across applications" || bad "$d: $(jq -c '.across_applications[].title' "$T/r.json")"
  done
else
  skip "SHARED_DATA ($SHARED_DATA) absent: real directories not checked"
fi
summary
