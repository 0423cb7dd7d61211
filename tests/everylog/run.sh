#!/usr/bin/env bash
# Every command on every log: the project's fixtures and, when present, every log of
# ../shared/data (files, rolling and legacy directories, whole directories). Each run must end
# without a crash, hang or sanitizer report, with exit 0 and output (valid JSON with --json), or
# a clean error: exit 2-4 and one stderr line.
# Which build runs a log: see "which build runs each log" below (the fixtures, the int64
# extremes and a cover of the shared logs under ASan+UBSan, the other shared logs on the
# normal build, every command and form alike). A log byte-identical to one already run is
# skipped (the same log in other codecs is tests/codec's job). EVERYLOG_ALL=1 restores the
# full run: every log, all on the ASan build but the text forms of logs over 1 MB.
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
  # (most runs write nothing on stderr: no grep process for them)
  if [ -s "$T/err" ] && grep -qE 'Sanitizer|runtime error:' "$T/err"; then bad "$name: sanitizer report: $(grep -m1 -E 'Sanitizer|runtime error:' "$T/err")"; return; fi
  if [ "$rc" -ge 124 ]; then bad "$name: crashed or hung (exit $rc)"; return; fi
  if [ "$rc" = 0 ]; then
    if [ ! -s "$T/out" ]; then bad "$name: exit 0 without output"; return; fi
    case " $* " in *" --json "*) jq -e . "$T/out" >/dev/null 2>&1 || { bad "$name: invalid JSON"; return; } ;; esac
    ok "$name"
  elif [ "$rc" -le 4 ] && [ "$(grep -c . "$T/err")" -le 1 ]; then ok "$name (clean error, exit $rc)"
  else bad "$name: exit $rc with $(grep -c . "$T/err") stderr lines: $(head -2 "$T/err" | tr '\n' ' ')"; fi
}

# ---- which build runs each log ----
# An ASan+UBSan run costs about 0.3 s of CPU before it reads a byte (the normal build 0.05 s),
# and its analyses several times the normal build's: on about 3,000 runs this suite was half of
# `make check`. What the sanitizers check is the code a log reaches, and that is chosen by the
# events it holds, its codec and its layout, not by which of many similar logs it is. So:
# - the project's fixtures (tests/data, tests/everylog: the hostile logs) run every form under
#   ASan, as do the int64-extreme copies below;
# - of the shared logs, the ASan build runs a cover: the fewest logs that between them hold
#   every event name and field name (JSON keys without dots or slashes: not the settings'
#   and environment maps) any shared log holds (greedy: the log adding the most names first, the
#   smallest on a tie), plus the smallest log of each codec and of each directory layout (of
#   files, of directories, rolling) not yet in it, plus every log of at most EVERYLOG_ASAN_KB
#   (default 0: none by size);
# - the normal build runs the other shared logs, every command and form alike, so every log
#   still meets every command (crash, hang, exit code, error lines and JSON checked as ever);
# - a log byte-identical to one before is skipped (tests/data keeps copies of two shared logs;
#   the same log in other codecs is tests/codec's job).
# - a log over 1 MB in the cover (NDS q72 and q88) runs only the commands' JSON forms under
#   ASan (4-10 s of CPU a run there); its text forms, REST routes and fleet store run on the
#   normal build.
# EVERYLOG_ALL=1 restores the full run: every log under ASan (the text forms of logs over 1 MB
# on the normal build, as always). EVERYLOG_PLAN=1 prints the plan and stops.
# ASAN_OF[log]: "all" (every form under ASan), "json" (see above) or "none" (the normal build
# only); DUP_OF[log]: the log it is byte-identical to
declare -A ASAN_OF DUP_OF WHY_OF
ASAN_KB=${EVERYLOG_ASAN_KB:-0}
DECODE="$ROOT/build/tools/decode"
kb_of() { du -sk "$1" | cut -f1; }
kind_of() { # a file's codec (by its name, as Spark names them) or a directory's layout
  local f="$1"
  if [ -d "$f" ]; then
    if find "$f" -mindepth 1 -maxdepth 1 -type d | grep -q .; then echo "dir:of-directories"
    elif find "$f" -maxdepth 1 -name 'events_*' | grep -q .; then echo "dir:rolling"
    else echo "dir:of-files"; fi
    return
  fi
  case "$f" in *.zstd|*.zst|*.gz|*.lz4|*.lzf|*.snappy) echo "codec:${f##*.}" ;; *) echo "codec:plain" ;; esac
}
events_of() { # the event and field names a log holds, one a line (a directory: its files')
  local f
  export LC_ALL=C   # bytes, not characters: grep and awk are many times faster
  # (decoded into the pipe, not a file, and read by one grep: the two names' patterns are one
  # alternation, and awk drops repeats as they come, so only the few distinct names are
  # sorted; an "Event" match stands for the field name Event too, which the key pattern would
  # have matched at the same place. Same names as the two greps and a sort of every match,
  # at half their CPU: NDS q88 decodes to 142 MB and 6.5 million matches)
  find "$1" -type f | sort | while IFS= read -r f; do
    case "$f" in
      *.zstd|*.zst|*.gz|*.lz4|*.lzf|*.snappy)
        if [ -x "$DECODE" ]; then "$DECODE" "$f"
        else case "$f" in *.zstd|*.zst) zstd -dcq "$f" ;; *.gz) gzip -dc "$f" ;; esac; fi ;;
      *) cat "$f" ;;
    esac 2>/dev/null
  done | grep -aoE '"Event" *: *"[^"]*"|"[A-Za-z][A-Za-z0-9 _-]{0,40}" *:' \
    | awk '/^"Event" *: *"/ { v = $0; sub(/^"Event" *: *"/, "", v); sub(/"$/, "", v)
                              if (!seen["Event = " v]++) print "Event = " v
                              if (!seen["Event"]++) print "Event"; next }
           { sub(/^"/, ""); sub(/" *:$/, ""); if (!seen[$0]++) print }' | sort
}
big() { [ "$(kb_of "$1")" -gt 1024 ]; }
if [ -n "${EVERYLOG_ALL:-}" ]; then
  for log in "${LOGS[@]}"; do ASAN_OF[$log]=all; big "$log" && ASAN_OF[$log]=json; done
  note "everylog: EVERYLOG_ALL=1: all ${#LOGS[@]} logs under ASan+UBSan (the text forms of logs over 1 MB on the normal build)"
else
  declare -A first_of_hash
  for log in "${LOGS[@]}"; do
    [ -f "$log" ] || continue
    h=$(md5sum <"$log" | cut -d' ' -f1)
    if [ -n "${first_of_hash[$h]:-}" ]; then DUP_OF[$log]=${first_of_hash[$h]}; else first_of_hash[$h]=$log; fi
  done
  # rows "index kb name" for every shared log's event names, codec and layout
  : >"$T/names"; idx=0; declare -a SHARED_LOGS=()
  for log in "${LOGS[@]}"; do
    [ -n "${DUP_OF[$log]:-}" ] && continue
    case "$log" in "$ROOT"/*) ASAN_OF[$log]=all; WHY_OF[$log]="fixture"; continue ;; esac
    kb=$(kb_of "$log"); SHARED_LOGS[$idx]=$log
    # a directory whose logs are listed on their own adds only its layout
    { if [ -f "$log" ] || ! printf '%s\n' "${LOGS[@]}" | grep -qF "$log/"; then events_of "$log"; fi
      kind_of "$log"; [ "$kb" -le "$ASAN_KB" ] && echo "size:$log"; } \
      | awk -v i="$idx" -v kb="$kb" '{ print i, kb, $0 }' >>"$T/names"
    idx=$((idx+1))
  done
  # greedy cover: the log with the most names not yet covered (the smallest on a tie), again
  # until every name is covered; prints "index names-it-added"
  awk '{ n = $1; kb[n] = $2; $1 = $2 = ""; name = substr($0, 3); has[n, name] = 1; names[name] = 1; logs[n] = 1 }
       END { for (;;) { best = -1; bn = 0
               for (n in logs) { if (n in chosen) continue; c = 0
                 for (name in names) if (!(name in covered) && ((n, name) in has)) c++
                 if (c > bn || (c == bn && c > 0 && (kb[n] < kb[best] || (kb[n] == kb[best] && n + 0 < best + 0)))) { best = n; bn = c } }
               if (best < 0 || bn == 0) break
               chosen[best] = 1; for (name in names) if ((best, name) in has) covered[name] = 1
               print best, bn } }' "$T/names" >"$T/cover"
  while read -r i added; do
    log=${SHARED_LOGS[$i]}; ASAN_OF[$log]=all; big "$log" && ASAN_OF[$log]=json
    WHY_OF[$log]="adds $added name(s)"
  done <"$T/cover"
  n_all=0; n_json=0; n_normal=0
  for log in "${SHARED_LOGS[@]}"; do
    case "${ASAN_OF[$log]:-none}" in
      all) n_all=$((n_all+1)) ;; json) n_json=$((n_json+1)) ;; *) ASAN_OF[$log]=none; n_normal=$((n_normal+1)) ;;
    esac
  done
  n_names=$(awk '{ $1 = $2 = ""; print }' "$T/names" | sort -u | wc -l)
  note "everylog: sampled: of ${#SHARED_LOGS[@]} shared logs, the ASan+UBSan build runs $((n_all + n_json)) that between them hold all $n_names event and field names, codecs and layouts ($n_json over 1 MB: the commands' JSON forms only), the normal build the other $n_normal; ${#DUP_OF[@]} byte-identical duplicate(s) skipped; fixtures and int64-extreme copies all under ASan (EVERYLOG_ALL=1: every log under ASan; EVERYLOG_PLAN=1: the plan)"
  for log in "${!DUP_OF[@]}"; do ok "duplicate skipped: ${log#"$ROOT/"} = ${DUP_OF[$log]#"$SHARED_DATA/"}"; done
fi

if [ -n "${EVERYLOG_PLAN:-}" ]; then   # the plan only: which build runs each log
  for log in "${LOGS[@]}"; do
    printf '%-5s %6s KB  %-20s %s\n' "${ASAN_OF[$log]:-dup}" "$(kb_of "$log")" "${WHY_OF[$log]:-}" "${log#"$SHARED_DATA/"}"
  done
  exit 0
fi

# fleet_runs BIN SHORT LOGS...: the logs linked into one directory, indexed twice (the second
# reads nothing), queried (BIN empty: the ASan build)
fleet_runs() {
  local bin="$1" short="$2"; shift 2
  rm -rf "$T/fleet" "$T/fleet.db"*; mkdir "$T/fleet"; ln -s "$@" "$T/fleet/"
  BIN=$bin one_run "fleet index $short" fleet index "$T/fleet" --store "$T/fleet.db" -q
  BIN=$bin one_run "fleet index again $short" fleet index "$T/fleet" --store "$T/fleet.db" -q --json
  BIN=$bin one_run "fleet query --json $short" fleet query "$T/fleet.db" --json --limit 0
  BIN=$bin one_run "fleet query --recurring $short" fleet query "$T/fleet.db" --recurring --min-runs 2
}

# ---- the ASan build's logs, a command form at a time ----
# The logs every form runs under ASan (the fixtures and the cover, "all" above) meet the same
# batched forms as the normal-build logs (each command with --detail, text and JSON, and fleet
# over one directory), in one ASan+UBSan run each over all of them, for the same reason and
# judged as strictly: an ASan run costs about 0.3 s of CPU before it reads a byte, and this
# suite made about 22 of them a form, one a log. A log joins a form's run only when the normal
# build's run of that form on it alone ends strictly clean (exit 0, output, valid JSON, nothing
# on stderr): the hostile fixtures' clean errors and warnings would fail every run over all,
# so those logs run that form alone under ASan as before. When the run over the others fails,
# each runs alone under ASan (the per-log loop below), so a failure names its log; a failure
# seen only when they are read together is reported as such. A single-log run's text form
# writes the same full report as --detail does for each of several (one writer). The text and
# JSON forms of the logs over 1 MB ("json" above) and the other commands run log by log.
# EVERYLOG_EACH=1: every log alone, as before.
# AB_IN[form|log]: the log passed in the ASan run of that form over all
declare -A AB_IN
AB_LOGS=()
for log in "${LOGS[@]}"; do
  [ -z "${DUP_OF[$log]:-}" ] && [ "${ASAN_OF[$log]:-}" = all ] && AB_LOGS+=("$log")
done
AB_FORMS=()
for c in "${CMDS[@]}"; do
  case "$NEEDS_MORE" in *" $c "*) continue ;; esac
  "$CLARITY" "$c" --help 2>/dev/null | grep -q -- '--detail' && AB_FORMS+=("$c" "$c --json")
done
# asan_batch FORM: prints "IN FORM<tab>LOG" for each log of the passing run, or its FAIL line
asan_batch() {
  local form="$1" c="${1% --json}" members=() log v args
  if [ "$form" = fleet ]; then
    for log in "${AB_LOGS[@]}"; do
      v=$(VERBOSE=; fleet_runs "$CLARITY" x "$log"); [ -z "$v" ] && members+=("$log")
    done
    [ "${#members[@]}" -gt 1 ] || return 0
    [ "$(printf '%s\n' "${members[@]##*/}" | sort | uniq -d | wc -l)" = 0 ] || return 0
    v=$(VERBOSE=; fleet_runs "" "over ${#members[@]} ASan logs" "${members[@]}")
  else
    if [ "$form" = "$c" ]; then args=("$c" -q --detail); else args=("$c" -q --json); fi
    for log in "${AB_LOGS[@]}"; do
      v=$(BIN=$CLARITY VERBOSE= one_run x "${args[@]}" "$log")
      [ -z "$v" ] && [ ! -s "$T/err" ] && members+=("$log")
    done
    [ "${#members[@]}" -gt 1 ] || return 0
    v=$(VERBOSE= one_run "$form over ${#members[@]} ASan logs" "${args[@]}" "${members[@]}")
    [ -z "$v" ] && [ -s "$T/err" ] && v="FAIL $form over ${#members[@]} ASan logs: $(head -c 200 "$T/err" | tr '\n' ' ')"
  fi
  if [ -n "$v" ]; then echo "$v" | head -1; return 0; fi
  for log in "${members[@]}"; do printf 'IN %s\t%s\n' "$form" "$log"; done
}
if [ -z "${EVERYLOG_EACH:-}" ] && [ "${#AB_LOGS[@]}" -gt 1 ]; then
  JOBS=${EVERYLOG_JOBS:-$(nproc 2>/dev/null || echo 1)}
  forms=("${AB_FORMS[@]}" fleet)
  for ((k = 0; k < JOBS; k++)); do
    ( T="$T/ab$k"; mkdir -p "$T"
      for ((i = k; i < ${#forms[@]}; i += JOBS)); do asan_batch "${forms[$i]}"; done ) >"$T/ab-$k.out" 2>&1 &
  done
fi

# ---- the normal build's logs, a command at a time ----
# The shared logs the normal build runs (46 with the shared data of 2026-11-27) meet each
# command that reports one application after another (its --help offers --detail: one full
# report per application even when there are several) in one run over all of them: the text
# form with --detail, the JSON form as it is (its applications array holds each application's
# full report either way), and fleet over one directory of them all. Such a run passes only
# with exit 0, output (valid JSON with --json) and nothing on stderr; any other outcome runs
# that command form log by log as before, so a failure still names its log, and a failure
# seen only when the logs are read together is reported as such. The commands whose several
# logs are one analysis or one page (contention and findings' cross-application part read the
# logs together; report draws one row per application), predict, diff and the REST routes run
# log by log. EVERYLOG_EACH=1: every log alone, as before.
# BATCH_OK[form]: the form passed over all of them; BATCH_FAIL[form]: its failure
declare -A BATCH_OK BATCH_FAIL
batched() { [ "${ASAN_OF[$log]:-}" = none ] && [ -n "${BATCH_OK[$1]:-}" ]; }
batch_run() { # batch_run FORM ARGS...: one_run over all, judged strictly (see above)
  local form="$1" verdict; shift
  verdict=$(BIN=$CLARITY one_run "$form over ${#NONE[@]} normal-build logs" "$@")
  if [ -z "$verdict" ] && [ ! -s "$T/err" ]; then ok "$form over ${#NONE[@]} normal-build logs"; BATCH_OK[$form]=1
  else BATCH_FAIL[$form]="${verdict:-FAIL $form over ${#NONE[@]} normal-build logs: $(head -c 200 "$T/err" | tr '\n' ' ')}"; fi
}
NONE=()
for log in "${LOGS[@]}"; do
  [ -z "${DUP_OF[$log]:-}" ] && [ "${ASAN_OF[$log]:-}" = none ] && NONE+=("$log")
done
if [ -z "${EVERYLOG_EACH:-}" ] && [ "${#NONE[@]}" -gt 1 ]; then
  for c in "${CMDS[@]}"; do
    case "$NEEDS_MORE" in *" $c "*) continue ;; esac
    "$CLARITY" "$c" --help 2>/dev/null | grep -q -- '--detail' || continue
    # (VERBOSE unset: one_run prints only a failure, read as the verdict)
    VERBOSE= batch_run "$c" "$c" -q --detail "${NONE[@]}"
    VERBOSE= batch_run "$c --json" "$c" -q --json "${NONE[@]}"
  done
  if [ "$(printf '%s\n' "${NONE[@]##*/}" | sort | uniq -d | wc -l)" = 0 ]; then
    verdict=$(VERBOSE=; fleet_runs "$CLARITY" "over ${#NONE[@]} normal-build logs" "${NONE[@]}")
    if [ -z "$verdict" ]; then BATCH_OK[fleet]=1; for k in 1 2 3 4; do ok "fleet run $k over ${#NONE[@]} normal-build logs"; done
    else BATCH_FAIL[fleet]=$verdict; fi
  fi
  note "everylog: the ${#NONE[@]} normal-build logs meet ${#BATCH_OK[@]} command forms (those with --detail, and fleet) in one run each over all of them, ${#BATCH_FAIL[@]} failed there and run log by log (EVERYLOG_EACH=1: every log alone)"
fi

if [ -z "${EVERYLOG_EACH:-}" ] && [ "${#AB_LOGS[@]}" -gt 1 ]; then
  wait   # the ASan runs over all, started before the normal build's
  ab_ok=0; ab_fail=0
  while IFS= read -r line; do
    case "$line" in
      IN*) line=${line#IN }; AB_IN["${line%%$'\t'*}|${line#*$'\t'}"]=1 ;;
      FAIL*) form=${line#FAIL }; form=${form%% over *}; BATCH_FAIL["asan:$form"]=$line; ab_fail=$((ab_fail+1)) ;;
    esac
  done < <(cat "$T"/ab-*.out)
  for form in "${forms[@]}"; do
    n=0; for log in "${AB_LOGS[@]}"; do [ -n "${AB_IN[$form|$log]:-}" ] && n=$((n+1)); done
    if [ "$n" -gt 0 ]; then ok "$form under ASan over $n logs"; ab_ok=$((ab_ok+1)); fi
  done
  note "everylog: of the ${#AB_LOGS[@]} logs every form runs under ASan, those each form runs strictly clean on the normal build meet ${#forms[@]} command forms (those with --detail, and fleet) in one ASan run each: $ab_ok passed, $ab_fail failed and run log by log (EVERYLOG_EACH=1: every log alone)"
fi
abatched() { [ -n "${AB_IN[$1|$log]:-}" ]; }

# api_routes LOG NAME PATH [NAME PATH]...: the REST paths asked of LOG in one `clarity api
# --batch` run (BIN as for one_run), which loads the log once for each different set of load
# options the paths ask for (clarity_shs_load_options: the task rows, accumulables, executor
# peaks and SQL graphs a route shows decide what the loader keeps), so every load path a run a
# route exercised is exercised still, and answers each path as a run for it alone does. An ASan
# run costs about 0.25 CPU s before it reads a byte: a dozen routes a log were a dozen of them.
# A path that the batch answered with exit 0 and output passes as NAME, as its own run would
# (exit 0, output, no sanitizer report); every other path, and every path when the batch run
# itself failed (a crash, a sanitizer report, an exit other than 0), runs alone (one_run), so
# a failure names its route and log as before; a failure seen only in the batch is reported as
# such. Path k's answer is left in $T/api-k (the caller reads the application id from one).
# EVERYLOG_EACH=1: every route in a run of its own, as before.
api_routes() {
  local log="$1"; shift
  local names=() paths=() k n rc st fails_before=$T_FAIL whole=1
  while [ "$#" -ge 2 ]; do names+=("$1"); paths+=("$2"); shift 2; done
  n=${#paths[@]}
  : >"$T/api.list"
  for ((k = 0; k < n; k++)); do rm -f "$T/api-$k"; printf '%s\t%s\n' "${paths[$k]}" "$T/api-$k" >>"$T/api.list"; done
  local status=()
  if [ -z "${EVERYLOG_EACH:-}" ]; then
    # (300 s, not one_run's 120: the batch loads the log up to once a route; a batch that
    # hangs still ends, and its routes then run alone, each bounded as before)
    timeout 300 "${BIN:-$CLARITY_ASAN}" api --batch "$T/api.list" "$log" >"$T/api.status" 2>"$T/err"; rc=$?
    if [ "$rc" = 0 ] && { [ ! -s "$T/err" ] || ! grep -qE 'Sanitizer|runtime error:' "$T/err"; }; then
      mapfile -t status < <(cut -f1 "$T/api.status")
      [ "${#status[@]}" = "$n" ] || status=()
    fi
    [ "${#status[@]}" = "$n" ] || whole=
  fi
  local alone=0
  for ((k = 0; k < n; k++)); do
    st=${status[$k]:-x}
    if [ "$st" = 0 ] && [ -s "$T/api-$k" ]; then ok "${names[$k]}"; continue; fi
    one_run "${names[$k]}" api "$log" "${paths[$k]}"
    cp "$T/out" "$T/api-$k" 2>/dev/null
    alone=$((alone+1))
  done
  echo "$n $alone" >>"$T0/api-batches"   # for the NOTE line
  [ -n "$whole" ] || [ -n "${EVERYLOG_EACH:-}" ] || [ "$T_FAIL" != "$fails_before" ] \
    || bad "api --batch of $n routes on ${log#"$ROOT/"}: exit $rc: $(grep -m1 -E 'Sanitizer|runtime error:|.' "$T/err" | head -c 200) (each route alone passed: only in one run)"
}

# every command on one log (the loop below spreads the logs over EVERYLOG_JOBS workers)
one_log() {
  local log="$1" short text_bin json_bin route_bin c r app pargs
  short=${log#"$ROOT/"}; short=${short#"$SHARED_DATA/"}
  # text_bin runs the text forms, json_bin the JSON forms, route_bin the REST routes and the
  # fleet store (empty: the ASan build)
  text_bin=""; json_bin=""; route_bin=""
  case "${ASAN_OF[$log]}" in
    json) text_bin="$CLARITY"; [ -z "${EVERYLOG_ALL:-}" ] && route_bin="$CLARITY" ;;
    none) text_bin="$CLARITY"; json_bin="$CLARITY"; route_bin="$CLARITY" ;;
  esac
  for c in "${CMDS[@]}"; do
    case "$NEEDS_MORE" in *" $c "*) continue ;; esac
    batched "$c" || abatched "$c" || BIN=$text_bin one_run "$c $short" "$c" -q "$log"
    batched "$c --json" || abatched "$c --json" || BIN=$json_bin one_run "$c --json $short" "$c" -q --json "$log"
  done
  pargs=(--ref "$log" --ref "$log" --ref-size 1,2 --ref-cores 4 --data-size 8 --cores 16)
  BIN=$text_bin one_run "predict $short" predict -q "${pargs[@]}"
  BIN=$json_bin one_run "predict --json $short" predict -q --json "${pargs[@]}"
  # diff needs two runs: the log with itself (a directory: its applications paired by name)
  BIN=$text_bin one_run "diff $short" diff -q "$log" "$log"
  BIN=$json_bin one_run "diff --json $short" diff -q --json "$log" "$log"
  # fleet indexes a directory: the log linked into one, indexed twice (the second reads nothing), queried
  batched fleet || abatched fleet || fleet_runs "$route_bin" "$short" "$log"
  # the listing, and the routes of the first application (the History Server layer on every
  # real log); the listing's date window is opened wide (SHS's default starts in 2010), and a
  # log whose times are out of every window (int64 extremes) is asked by the id it logged
  BIN=$route_bin api_routes "$log" "api /applications $short" /applications \
    "api /applications (any date) $short" \
    "/applications?minDate=0001-01-01&maxDate=99999-12-31&minEndDate=0001-01-01&maxEndDate=99999-12-31"
  cp "$T/api-1" "$T/out" 2>/dev/null || : >"$T/out"
  app=$(jq -r '.[0] | .id + (if (.attempts[0].attemptId // "") != "" then "/" + .attempts[0].attemptId else "" end)' "$T/out" 2>/dev/null)
  if { [ -z "$app" ] || [ "$app" = null ]; } && [ -f "$log" ] && [ "$(jq length "$T/out" 2>/dev/null)" = 0 ]; then
    app=$(jq -r 'select(.Event == "SparkListenerApplicationStart") | ."App ID" + (if (."App Attempt ID" // "") != "" then "/" + ."App Attempt ID" else "" end)' "$log" 2>/dev/null | head -1)
    [ -n "$app" ] && echo '[0]' >"$T/out"
  fi
  # (one application's logs only: a directory of many also prints a note per skipped file)
  [ -n "$app" ] && [ "$app" != null ] && [ "$(jq length "$T/out")" = 1 ] || return 0
  local routes=()
  for r in "" /jobs "/stages?details=true&withSummaries=true" /executors /environment \
           /stages/0/0/taskSummary "/stages/0/0/taskList?sortBy=-runtime" /storage/rdd \
           /allmiscellaneousprocess /logs "/sql?length=100000"; do
    routes+=("api $r $short" "/applications/$app$r")
  done
  BIN=$route_bin api_routes "$log" "${routes[@]}"
}

# api --batch must answer each path as a run for it alone does (the routes above rely on it):
# every route of two fixtures, their answers compared byte for byte on the normal build
for log in "$ROOT/tests/data/mini-3x.json" "$ROOT/tests/data/spark-3.1-app-20200706201101-0003.json"; do
  app=$("$CLARITY" api "$log" /applications | jq -r '.[0].id')
  : >"$T/same.list"; k=0
  for r in /applications "/applications?minDate=0001-01-01&maxDate=99999-12-31" "/applications/$app" \
           "/applications/$app/jobs" "/applications/$app/stages?details=true&withSummaries=true" \
           "/applications/$app/executors" "/applications/$app/environment" \
           "/applications/$app/stages/0/0/taskSummary" "/applications/$app/stages/0/0/taskList?sortBy=-runtime" \
           "/applications/$app/storage/rdd" "/applications/$app/allmiscellaneousprocess" \
           "/applications/$app/logs" "/applications/$app/sql?length=100000" "/applications/$app/stages/99/0" /nowhere; do
    printf '%s\t%s\n' "$r" "$T/same-$k" >>"$T/same.list"; k=$((k+1))
  done
  "$CLARITY" api --batch "$T/same.list" "$log" >"$T/same.status" 2>/dev/null
  diffs=""; k=0
  while IFS=$'\t' read -r r _; do
    "$CLARITY" api -o "$T/alone" "$log" "$r" 2>/dev/null; rc=$?
    [ "$(sed -n "$((k+1))p" "$T/same.status")" = "$rc	$r" ] || diffs+=" $r (exit)"
    if [ "$rc" = 0 ]; then cmp -s "$T/alone" "$T/same-$k" || diffs+=" $r"; fi
    k=$((k+1))
  done <"$T/same.list"
  [ -z "$diffs" ] && ok "api --batch: the $k answers and exit codes on ${log##*/} are those of runs alone" \
    || bad "api --batch on ${log##*/}: differs from runs alone on:$diffs"
done

# The logs are dealt to EVERYLOG_JOBS workers (default: the cores), each with its own scratch
# directory and counts: this suite is make check's longest and, once the other suites end, it
# ran alone on one core of two. Each worker's lines are printed after it ends, and its counts
# added; a FAIL line still names its command and log.
JOBS=${EVERYLOG_JOBS:-$(nproc 2>/dev/null || echo 1)}
T0=$T
for ((k = 0; k < JOBS; k++)); do
  (
    T="$T0/w$k"; mkdir -p "$T"; T_PASS=0; T_FAIL=0; T_SKIP=0
    for ((i = k; i < ${#LOGS[@]}; i += JOBS)); do
      log=${LOGS[$i]}
      [ -n "${DUP_OF[$log]:-}" ] && continue
      one_log "$log"
    done
    echo "$T_PASS $T_FAIL $T_SKIP" >"$T0/count-$k"
  ) >"$T0/worker-$k.log" 2>&1 &
done
wait
for ((k = 0; k < JOBS; k++)); do
  cat "$T0/worker-$k.log"
  if read -r p f s 2>/dev/null <"$T0/count-$k"; then
    T_PASS=$((T_PASS + p)); T_FAIL=$((T_FAIL + f)); T_SKIP=$((T_SKIP + s))
  else bad "everylog worker $k ended without its counts"; fi
done
T=$T0
# a batched form that failed while each log alone passed: the failure shows only when the logs
# are read together, and is reported as such
# (asan:FORM: the ASan build's run over all of that form)
for key in "${!BATCH_FAIL[@]}"; do
  form=${key#asan:}
  if ! cat "$T0"/worker-*.log | grep "^FAIL $form " | { [[ $form == *--json ]] && cat || grep -v -- "^FAIL $form --json"; } | grep -q .; then
    bad "${BATCH_FAIL[$key]#FAIL } (each log alone passed: only when read together)"
  fi
done

# Numeric fields at int64 extremes (extremes.py: seeded copies of a fixture, seeds 1-30; seeds
# 6, 24 and 29 overflowed stragglers' output bytes, LADRA's first-wave bound and the summary's
# SQL durations before those sums saturated): every analysis, and the REST routes that do
# arithmetic on task times, under the sanitizers.
# Each command's JSON form reads the 30 copies in one run: it analyses each as its own
# application (the JSON of each is byte-identical to a run on that copy alone), and an ASan run
# costs about 0.3 s of CPU before it reads a byte, so 30 runs a command cost ten times one.
# When the run over all fails, each copy is run alone so that the failure names the copy
# (EXTREMES_EACH=1: every copy alone, as before). diff and the REST routes take one
# application (the copies share one application id), so they run a copy at a time.
python3 "$ROOT/tests/everylog/extremes.py" "$ROOT/tests/data/mini-3x.json" "$T" 30
EXT=()
for s in $(seq 1 30); do EXT+=("$T/extremes-$s.json"); done
for c in "${CMDS[@]}"; do
  case "$NEEDS_MORE" in *" $c "*) continue ;; esac
  if [ -z "${EXTREMES_EACH:-}" ]; then
    # (in a subshell: its verdict is read, not yet counted)
    all=$(one_run "$c --json extremes-1..30" "$c" -q --json "${EXT[@]}")
    if ! grep -q '^FAIL' <<<"$all"; then ok "$c --json extremes-1..30"; continue; fi
  fi
  fails_before=$T_FAIL
  for s in $(seq 1 30); do
    one_run "$c --json extremes-$s" "$c" -q --json "$T/extremes-$s.json"
  done
  # failing only when the copies are read together: that run's own report
  [ -n "${EXTREMES_EACH:-}" ] || [ "$T_FAIL" != "$fails_before" ] || bad "${all#FAIL }"
done
for s in $(seq 1 30); do
  log="$T/extremes-$s.json"
  one_run "diff --json extremes-$s" diff -q --json "$ROOT/tests/data/mini-3x.json" "$log"
  routes=()
  for r in "/stages?details=true&withSummaries=true" /stages/1/0/taskSummary "/stages/1/0/taskList?sortBy=-runtime" /sql; do
    routes+=("api $r extremes-$s" "/applications/app-20240101000000-0001$r")
  done
  api_routes "$log" "${routes[@]}"
done
[ -z "${EVERYLOG_EACH:-}" ] && awk '{ b++; r += $1; a += $2 } END { printf "NOTE everylog: %d REST routes asked in %d api --batch runs (a log'"'"'s listing, its application'"'"'s routes, an extreme copy'"'"'s routes: one run each); %d of them not answered 0 there and run alone (EVERYLOG_EACH=1: every route in a run of its own)\n", r, b, a }' "$T0/api-batches"
summary
