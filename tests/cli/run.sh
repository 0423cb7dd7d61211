#!/usr/bin/env bash
# The CLI on real and broken input: every shared log summarizes (ASan build, no finding),
# bad input gives a one-line error naming the file and exit code 3, never a crash.
source "$(dirname "$0")/../lib.sh"
T=$(mktemp -d); trap 'rm -rf "$T"' EXIT

# expect_rc NAME RC CMD...: exit code RC, no sanitizer report
expect_rc() {
  local name="$1" want="$2"; shift 2
  "$@" >"$T/out" 2>"$T/err"; local rc=$?
  if grep -qE 'Sanitizer|runtime error:' "$T/err"; then bad "$name: sanitizer finding"; head -30 "$T/err"; return; fi
  if [ "$rc" = "$want" ]; then ok "$name"; else bad "$name: exit $rc, wanted $want"; head -5 "$T/err"; fi
}

# --- own fixtures (always run) ---
expect_rc "summary mini-3x" 0 "$CLARITY_ASAN" summary "$ROOT/tests/data/mini-3x.json"
[ ! -s "$T/err" ] && ok "nothing on stderr when it is not a terminal (no progress line)" || bad "stderr not empty: $(head -2 "$T/err")"
grep -q 'app-20240101000000-0001' "$T/out" && ok "summary names the app" || bad "summary names the app"
grep -q 'unknown      com.example.VendorEvent x1' "$T/out" && ok "unknown event counted" || bad "unknown event counted"
expect_rc "summary --json mini-3x" 0 "$CLARITY_ASAN" summary --json "$ROOT/tests/data/mini-3x.json"
if jq -e '.schema == "clarity.summary/1" and .applications[0].totals.run_ms == 2020 and .applications[0].jobs[0].sql_id == 7 and .applications[0].integrity.events_unknown == 1' "$T/out" >/dev/null; then
  ok "summary json values"; else bad "summary json values"; fi
expect_rc "summary of own fixtures dir" 0 "$CLARITY_ASAN" summary "$ROOT/tests/data"
expect_rc "help" 0 "$CLARITY" summary --help
expect_rc "no args" 2 "$CLARITY"
expect_rc "unknown command" 2 "$CLARITY" frobnicate
expect_rc "summary without logs" 2 "$CLARITY" summary
expect_rc "bad --limit" 2 "$CLARITY" summary --limit x "$ROOT/tests/data/mini-3x.json"

# --- bad input ---
: >"$T/empty"
expect_rc "empty file" 3 "$CLARITY_ASAN" summary "$T/empty"
grep -q "$T/empty" "$T/err" && ok "empty file named" || bad "empty file named"
head -c 4096 /dev/urandom >"$T/binary"; printf '\x00\x01' | dd of="$T/binary" conv=notrunc 2>/dev/null
expect_rc "binary file" 3 "$CLARITY_ASAN" summary "$T/binary"
echo '{"name":"x","dependencies":{}}' >"$T/package.json"
expect_rc "JSON that is not an event log" 3 "$CLARITY_ASAN" summary "$T/package.json"
grep -q 'no Spark events' "$T/err" && ok "not-an-event-log message" || bad "not-an-event-log message"
expect_rc "missing file" 3 "$CLARITY_ASAN" summary "$T/does-not-exist"
grep -q 'does-not-exist' "$T/err" && ok "missing file named" || bad "missing file named"
[ "$(wc -l <"$T/err")" = 1 ] && ok "missing file: one stderr line" || bad "missing file: $(wc -l <"$T/err") stderr lines"

# REST quantiles outside [0, 1] are a 400 (exit 2) as in the History Server; 1e18 overflowed a cast
expect_rc "api quantiles=1e18: exit 2" 2 "$CLARITY_ASAN" api "$ROOT/tests/data/mini-3x.json" '/applications/app-20240101000000-0001/stages/0/0/taskSummary?quantiles=1e18'
grep -q 'Bad value for parameter "quantiles"' "$T/err" && ok "api quantiles message" || bad "api quantiles message: $(cat "$T/err")"

# A directory where some applications could not be read exits 4 (the others analysed), so
# scripts can tell a partial run from a complete one; it used to exit 0. Under -q the
# unreadable files are one summary line, not a line each.
mkdir "$T/partial"; cp "$ROOT/tests/data/mini-3x.json" "$T/partial/"; : >"$T/partial/a.json"; : >"$T/partial/b.json"
for c in summary blocked stragglers whatif anomalies contention; do
  expect_rc "$c on a partly readable dir: exit 4" 4 "$CLARITY_ASAN" $c "$T/partial"
done
expect_rc "summary on a partly readable dir" 4 "$CLARITY_ASAN" summary "$T/partial"
grep -q 'app-20240101000000-0001' "$T/out" && ok "partly readable dir: the good app analysed" || bad "partly readable dir: good app missing"
[ "$(grep -c 'empty file' "$T/err")" = 2 ] && ok "partly readable dir: each empty file named" || bad "partly readable dir: $(cat "$T/err")"
expect_rc "summary -q on a partly readable dir" 4 "$CLARITY_ASAN" summary -q "$T/partial"
if [ "$(wc -l <"$T/err")" = 1 ] && grep -q '^clarity summary: 2 files skipped (could not be read); the first: .*empty file' "$T/err"
then ok "-q: one summary line"; else bad "-q: $(cat "$T/err")"; fi
grep -q 'app-20240101000000-0001' "$T/out" && ok "-q: the good app analysed" || bad "-q: good app missing"
mkdir "$T/emptydir"
expect_rc "directory with no logs" 3 "$CLARITY_ASAN" summary "$T/emptydir"
head -c 3000 "$ROOT/tests/data/mini-3x.json" >"$T/cut.json"
expect_rc "log cut mid-line" 0 "$CLARITY_ASAN" summary --json "$T/cut.json"
jq -e '.applications[0].integrity.truncated == true' "$T/out" >/dev/null && ok "cut reported as truncation" || bad "cut reported as truncation"
if [ "$(id -u)" != 0 ]; then
  cp "$ROOT/tests/data/mini-3x.json" "$T/noread.json"; chmod 000 "$T/noread.json"
  expect_rc "unreadable file" 3 "$CLARITY_ASAN" summary "$T/noread.json"
else
  skip "unreadable file: running as root, permissions do not apply"
fi
cp "$ROOT/tests/data/mini-3x.json" "$T/app.lz4"
expect_rc "wrong codec extension (plain named .lz4)" 0 "$CLARITY_ASAN" summary "$T/app.lz4"
# a 50 MB line: a valid event with a huge description is read, memory stays bounded
{ head -4 "$ROOT/tests/data/mini-3x.json"
  printf '{"Event":"SparkListenerJobStart","Job ID":9,"Submission Time":1,"Stage IDs":[],"Properties":{"spark.job.description":"'
  head -c 50000000 /dev/zero | tr '\0' 'x'
  printf '"}}\n'
  tail -n +5 "$ROOT/tests/data/mini-3x.json"; } >"$T/bigline.json"
expect_rc "50 MB line" 0 "$CLARITY" summary --json "$T/bigline.json"
jq -e '.applications[0].jobs | length == 2' "$T/out" >/dev/null && ok "50 MB line event kept" || bad "50 MB line event kept"
rss=$( { /usr/bin/time -f '%M' "$CLARITY" summary "$T/bigline.json" >/dev/null; } 2>&1 | tail -1)
[ "${rss:-999999}" -lt 1500000 ] && ok "50 MB line peak RSS ${rss} KiB" || bad "50 MB line peak RSS ${rss} KiB"
python3 -c "print('[' * 200000 + ']' * 200000)" >"$T/deep.json" 2>/dev/null || printf '%*s' 200000 '' | tr ' ' '[' >"$T/deep.json"
expect_rc "deeply nested JSON" 3 "$CLARITY_ASAN" summary "$T/deep.json"
printf '{"Event":"SparkListenerLogStart","Spark Version":"3.0.0"}\n{"Event":"SparkListenerApplicationStart","App Name":"\xff\xfe","Timestamp":1,"User":"u"}\n' >"$T/badutf8.json"
expect_rc "invalid UTF-8 line" 0 "$CLARITY_ASAN" summary --json "$T/badutf8.json"
jq -e '.applications[0].integrity.lines_malformed == 1' "$T/out" >/dev/null && ok "invalid UTF-8 counted" || bad "invalid UTF-8 counted"

# --- a directory of good and bad logs: a complete fleet table, problems flagged per row ---
mkdir "$T/fleet"
cp "$ROOT/tests/data/mini-3x.json" "$T/fleet/app-good"
: >"$T/fleet/app-empty"
head -c 2000 /dev/urandom >"$T/fleet/app-junk.lz4"
head -c 5000 "$ROOT/tests/data/spark-3.1-app-20200706201101-0003.json" >"$T/fleet/app-cut"
cp "$T/bigline.json" "$T/fleet/app-huge-line"
if command -v zstd >/dev/null; then
  zstd -q "$ROOT/tests/data/spark-3.1-app-20200706201101-0003.json" -o "$T/full.zstd"
  head -c 20000 "$T/full.zstd" >"$T/fleet/app-trunc.zstd"
fi
expect_rc "fleet of good and bad logs (partial: exit 4)" 4 "$CLARITY_ASAN" summary --csv "$T/fleet"
rows=$(($(wc -l <"$T/out") - 1))
want=$(ls "$T/fleet" | wc -l)
[ "$rows" = "$want" ] && ok "fleet has one row per file ($rows)" || bad "fleet rows: $rows, wanted $want"
grep -q '"app-empty".*empty' "$T/out" || grep -q 'app-empty.*empty' "$T/out" && ok "empty log flagged in its row" || bad "empty log flagged in its row"
grep -q 'app-junk.lz4.*[a-z]' "$T/out" && ok "junk log has a row" || bad "junk log has a row"
grep -q 'app-cut.*truncated' "$T/out" && ok "cut log flagged truncated" || bad "cut log flagged truncated"
[ -f "$T/fleet/app-trunc.zstd" ] && { grep -qE 'app-trunc.zstd.*(truncated|stream cut)' "$T/out" && ok "cut zstd flagged truncated" || bad "cut zstd flagged truncated"; }
expect_rc "fleet text, sorted, filtered" 4 "$CLARITY" summary --sort tasks --name mini "$T/fleet"
grep -q 'app-20240101000000-0001' "$T/out" && ! grep -q 'terryk' "$T/out" && ok "--name filters" || bad "--name filters"
expect_rc "fleet --since" 4 "$CLARITY" summary --csv --since 2024-01-01 "$T/fleet"
grep -q 'app-cut' "$T/out" && bad "--since keeps a 2020 app" || ok "--since drops older apps"
# the filter applies to --json as to the text (it once listed every application)
expect_rc "summary --json --since 2099" 0 "$CLARITY_ASAN" summary --json --since 2099-01-01 "$ROOT/tests/data"
jq -e '(.applications | length) == 0 and (.failed | length) == 0 and (.skipped | length) == 2' "$T/out" >/dev/null \
  && ok "--since 2099 leaves 0 applications in JSON" || bad "--since 2099 leaves 0 applications in JSON: $(jq -c '.applications | length' "$T/out")"
expect_rc "summary --json --name local" 0 "$CLARITY_ASAN" summary --json --name local "$ROOT/tests/data"
jq -e '[.applications[] | .app_id] == ["local-1430917381534", "local-1422981780767"]' "$T/out" >/dev/null \
  && ok "--name keeps only the matching applications in JSON" || bad "--name in JSON: $(jq -c '[.applications[].app_id]' "$T/out")"
expect_rc "summary --json --since 2024-01-01" 0 "$CLARITY" summary --json --since 2024-01-01 "$ROOT/tests/data"
jq -e '[.applications[] | .app_id] == ["app-20240101000000-0001", "app-20240919162642-0000"]' "$T/out" >/dev/null \
  && ok "--since keeps the 2024 applications (mini-3x, the Photon excerpt) in JSON" || bad "--since in JSON: $(jq -c '[.applications[].app_id]' "$T/out")"
expect_rc "bad --sort" 2 "$CLARITY" summary --sort bogus "$T/fleet"
expect_rc "bad --since" 2 "$CLARITY" summary --since yesterday "$T/fleet"

# --- directory links and rolling logs with a part missing ---
mkdir "$T/loop"; cp "$ROOT/tests/data/mini-3x.json" "$T/loop/"
for i in 1 2 3 4 5 6 7 8; do ln -s . "$T/loop/s$i"; done
expect_rc "directory of 8 self-links" 0 "$CLARITY_ASAN" summary --json "$T/loop"
jq -e '.applications | length == 1' "$T/out" >/dev/null && ok "self-links: one application" || bad "self-links: $(jq '.applications|length' "$T/out") applications"
grep -q "loop/s1: skipped: symlink loop: already visited as $T/loop" "$T/err" && ok "self-link loop noted" || bad "self-link loop noted: $(head -2 "$T/err")"
app=app-20240101000000-0001; rd="$T/rolling/eventlog_v2_$app"; mkdir -p "$rd"
split -n l/3 -d -a1 "$ROOT/tests/data/mini-3x.json" "$T/part"
for i in 1 2 3; do cp "$T/part$((i - 1))" "$rd/events_${i}_$app"; done; : >"$rd/appstatus_$app"
expect_rc "complete rolling dir" 0 "$CLARITY_ASAN" summary --json "$rd"
jq -e '.applications[0].integrity | (.flags | test("missing-rolling-part") | not) and (has("rolling_parts_missing") | not)' "$T/out" >/dev/null \
  && ok "complete rolling dir: no missing-part flag" || bad "complete rolling dir flagged: $(jq -c '.applications[0].integrity.flags' "$T/out")"
rm "$rd/events_2_$app"
expect_rc "rolling dir without events_2" 0 "$CLARITY_ASAN" summary --json "$rd"
jq -e '.applications[0].integrity | (.flags | split(",") | index("missing-rolling-part")) and .rolling_parts_missing == 1 and .rolling_first_missing == 2' "$T/out" >/dev/null \
  && ok "rolling gap flagged in JSON" || bad "rolling gap in JSON: $(jq -c '.applications[0].integrity.flags' "$T/out")"
expect_rc "rolling dir without events_2 (text)" 0 "$CLARITY_ASAN" summary "$rd"
grep -q '^integrity .*missing-rolling-part' "$T/out" && grep -q '^  missing      1 rolling log file(s) absent, from events_2_' "$T/out" \
  && ok "rolling gap said in text" || bad "rolling gap said in text"

# --- layering: the library (and its public headers) never include the CLI's ---
if grep -rl '#include "cli/' "$ROOT/src" "$ROOT/include" --include='*.c' --include='*.h' --include='*.cpp' \
     | grep -v "^$ROOT/src/cli/" | grep -q .; then
  bad "the library includes cli headers: $(grep -rl '#include "cli/' "$ROOT/src" "$ROOT/include" | grep -v "^$ROOT/src/cli/" | head -3)"
else ok "the library includes no cli header"; fi

# --- every shared log ---
if have_shared; then
  # genuinely unusable logs, and why: none so far (empty_eventlog has 7 events, no jobs)
  n=0
  while IFS= read -r f; do
    n=$((n+1))
    expect_rc "summary $(basename "$f")" 0 "$CLARITY_ASAN" summary --json "$f"
  done < <(find "$SHARED_DATA/spark-events" "$SHARED_DATA/external" "$SHARED_DATA/runtimes" -mindepth 1 -maxdepth 1 \( -type f -o -type d \) ! -name '*.tsv' ! -name '.*' ! -name '*.csv' | sort)
  expect_rc "summary of all shared logs at once" 0 "$CLARITY_ASAN" summary --json "$SHARED_DATA/spark-events" "$SHARED_DATA/external" "$SHARED_DATA/runtimes"
  jq -e '(.failed | length) == 0 and (.applications | length) >= 70' "$T/out" >/dev/null && ok "all shared apps load ($(jq '.applications|length' "$T/out"))" || bad "all shared apps load"
else
  skip "shared data absent ($SHARED_DATA): real-log summaries not run"
fi
# Per-stage work runs on --threads workers: one and two give the same bytes (the ASan build,
# so a data race that corrupts memory shows too).
logs=("$ROOT/tests/data/spark-3.1-app-20200706201101-0003.json" "$ROOT/tests/data/mini-3x.json")
have_shared && logs+=("$SHARED_DATA/spark-events")
for c in "blocked --json" "blocked --slots configured" "stragglers --json --top 50" "whatif --json" "whatif --slots configured --cores 2,8"; do
  "$CLARITY_ASAN" $c --threads 1 "${logs[@]}" >"$T/t1" 2>"$T/e1"; r1=$?
  "$CLARITY_ASAN" $c --threads 2 "${logs[@]}" >"$T/t2" 2>"$T/e2"; r2=$?
  if [ "$r1" = "$r2" ] && [ -s "$T/t1" ] && cmp -s "$T/t1" "$T/t2" && ! grep -qE 'Sanitizer|runtime error:' "$T/e1" "$T/e2"
  then ok "$c: --threads 1 and 2 print the same"; else bad "$c: --threads 1 and 2 differ (exit $r1/$r2)"; fi
done
expect_rc "bad --threads" 2 "$CLARITY" blocked --threads 0 "$ROOT/tests/data/mini-3x.json"

# A write error stdio held back (output smaller than its buffer, on a full disk) is reported
# in one line and exits 3; it used to vanish with exit 0.
if [ -w /dev/full ]; then
  for c in summary blocked stragglers whatif anomalies contention; do
    "$CLARITY" $c "$ROOT/tests/data/mini-3x.json" >/dev/full 2>"$T/err"; rc=$?
    if [ "$rc" = 3 ] && [ "$(wc -l <"$T/err")" = 1 ] && grep -q "^clarity $c: cannot write standard output" "$T/err"
    then ok "$c to a full disk: exit 3, one line"; else bad "$c to a full disk: exit $rc: $(head -2 "$T/err")"; fi
  done
  "$CLARITY" api "$ROOT/tests/data/mini-3x.json" /applications >/dev/full 2>"$T/err"
  [ $? = 3 ] && ok "api to a full disk: exit 3" || bad "api to a full disk"
else
  skip "no /dev/full: write-error checks not run"
fi
# Out of memory is its own exit code (5), never "unreadable input" (3): under address-space
# limits from tight to roomy every command ends 0 or 5, and the tight ones do hit 5 with a line
# that says "out of memory". Where the limit strikes depends on the machine, so no single limit
# is asserted.
oom_seen=0 oom_wrong=""
for v in 20000 30000 40000 50000 60000 80000 120000; do
  for c in summary stragglers blocked contention; do
    ( ulimit -v $v; exec "$CLARITY" $c --json "$ROOT/tests/data/spark-3.1-app-20200706201101-0003.json" ) >/dev/null 2>"$T/err"; rc=$?
    case $rc in
      0) ;;
      5) grep -q "out of memory" "$T/err" && oom_seen=$((oom_seen + 1)) || oom_wrong="$oom_wrong $c@$v:no-message" ;;
      *) oom_wrong="$oom_wrong $c@${v}KiB:exit-$rc" ;;
    esac
  done
done
if [ -z "$oom_wrong" ] && [ "$oom_seen" -gt 0 ]; then ok "out of memory: exit 5 with a message ($oom_seen runs), never 3"
elif [ -n "$oom_wrong" ]; then bad "out of memory: wrong exit or no message:$oom_wrong"
else skip "out of memory: no address-space limit tried made the commands run out (exit 5 not exercised)"; fi
# Ernest refuses absurd scales and machine counts (1e308 used to print "xinf scale").
"$CLARITY" ernest fit "$ROOT/tests/data/ernest-rcv1-parsed.csv" --json -o "$T/em.json" >/dev/null 2>&1
for a in "--machines 4 --scale 1e308" "--machines 1e300 --scale 1"; do
  "$CLARITY" ernest predict "$T/em.json" $a >"$T/out" 2>"$T/err"; rc=$?
  if [ $rc = 2 ] && grep -q "at most" "$T/err" && [ ! -s "$T/out" ]; then ok "ernest predict $a: usage error"
  else bad "ernest predict $a: exit $rc: $(head -2 "$T/err" "$T/out")"; fi
done
summary
