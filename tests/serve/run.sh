#!/usr/bin/env bash
# clarity serve as a server, on loopback only, on a free port the server picks (--port 0):
#  1. every route over HTTP against `clarity api`'s answer for the same path: byte-equal
#     bodies, SHS's status codes, content types and error texts; HEAD, POST, a path outside
#     /api/v1;
#  2. the shared HistoryServerSuite expected answers over HTTP, compared field by field as
#     tests/conformance does (lastUpdated masked);
#  3. hostile requests: "..", "%2e%2e", encoded slashes, a 100 kB query string, 2,000
#     connections at once: each gets 4xx or is closed, and the server still answers;
#  1b. one-stage loads: under --max-memory 1 a stage's routes (stage, attempts, task list,
#     task summary) load that stage's tasks alone, and answer as clarity api's whole model;
#  1c. no-task loads: under --max-memory 1 the routes that show no task (application, attempt,
#     environment, storage, misc processes, logs, 404s) load no task row, and answer as a
#     whole model does, on every attempt of the fixtures and of the shared logs;
#  1d. task-sum loads: under --max-memory 1 jobs, a job, the stage list and executors are
#     answered from sums built while reading, no task row kept, as a whole model answers;
#  1e. streamed answers: the bounded server of 1c/1d streams every answer over 4 KiB
#     (--stream-above 4K), so their comparisons cover the streamed path; a streamed answer is
#     chunked and equals clarity api's, a small one keeps its Content-Length; --max-response
#     cuts a streamed answer (curl exit 18) and the server goes on;
#  3b. a directory that changes: a new log is listed, a deleted one leaves the listing, and a
#     restart over the store answers /applications at once with the same bytes;
#  4. a soak: an .inprogress log appended while clients poll; no 5xx, nothing lost (the last
#     answers equal clarity api's on the finished log);
#  4b. append-only resume: a log appended in 6 byte-cut pieces lists as clarity api's fresh
#     read after each, the later pieces read from where the last read stopped;
#  4d. model resume: a served log grown in pieces (mid-line too) answers as clarity api's fresh
#     read after each, its model loaded once and read on from where it stopped;
#  4e. rolling log resume: a rolling log served, its last part grown and a part added,
#     answers as clarity api's fresh read, only the new bytes read;
#  4f. zstd resume: a served zstd .inprogress log gains half a frame, the rest, a frame:
#     answers as clarity api's fresh read, the decoder fed only the new compressed bytes;
#  4c. --acl: who sees which application (owner, view lists and groups, admins, "*"), 403
#     with SHS's text, no user header, a restart over the store;
#  5. a wrk load test (SERVE_LOAD_SECONDS per route, 1 s by default: the figures are printed,
#     not compared, so 3 s only steadied them; 2 threads, 32 connections) on /applications, a
#     stage list and a task list: requests/s, p99 and RSS before and after, printed.
# The correctness parts run the ASan+UBSan build when it is built (SERVE_BIN overrides);
# the load test runs the normal build. Bounded: about 50 s on a quiet machine (2.5 min at load 30)
# before 1c and 4d, which add about 8 CPU s each (1c: one route per attempt, every route on three).
source "$(dirname "$0")/../lib.sh"
T=$(mktemp -d)
PIDS=()
cleanup() {
  for p in "${PIDS[@]}"; do kill "$p" 2>/dev/null; done
  for p in "${PIDS[@]}"; do wait "$p" 2>/dev/null; done
  rm -rf "$T"
}
trap cleanup EXIT
if ! command -v curl >/dev/null; then skip "serve: curl not installed"; summary; exit $?; fi
if [ ! -x "$CLARITY" ]; then skip "serve: $CLARITY not built"; summary; exit $?; fi
BIN="${SERVE_BIN:-$CLARITY}"
[ -z "${SERVE_BIN:-}" ] && [ -x "$CLARITY_ASAN" ] && BIN="$CLARITY_ASAN"

# start_server NAME DIR [options...]: starts it, sets PORT and SPID; the port is the first
# line the server prints on stdout
start_server() {
  local name="$1" dir="$2"; shift 2
  "$BIN_NOW" serve --port 0 --store "$T/$name.db" "$@" "$dir" >"$T/$name.port" 2>"$T/$name.log" &
  SPID=$!; PIDS+=("$SPID")
  PORT=
  for _ in $(seq 1 200); do
    PORT=$(head -1 "$T/$name.port" 2>/dev/null)
    [ -n "$PORT" ] && break
    kill -0 "$SPID" 2>/dev/null || break
    sleep 0.05
  done
  [ -n "$PORT" ]
}
# stop_server: SIGTERM, and the exit code must be 0 (drained and stopped)
stop_server() {
  kill -TERM "$SPID"; wait "$SPID"; local rc=$?
  [ "$rc" = 0 ] && ok "$1: stops on SIGTERM with exit 0" || bad "$1: exit $rc after SIGTERM: $(tail -3 "$T/$1.log")"
  if grep -qE 'Sanitizer|runtime error:' "$T/$1.log"; then bad "$1: sanitizer report: $(grep -m1 -E 'Sanitizer|runtime error:' "$T/$1.log")"; fi
}
URL() { echo "http://127.0.0.1:$PORT$1"; }

# ---- 1. every route against clarity api ----
D="$T/logs"; mkdir -p "$D"
cp "$ROOT"/tests/unit/shs/data/* "$ROOT"/tests/data/spark-1.2-local-1422981780767.json \
   "$ROOT"/tests/data/spark-3.1-app-20200706201101-0003.json "$ROOT"/tests/data/mini-3x.json "$D"/
BIN_NOW="$BIN"
if ! start_server routes "$D"; then bad "routes: server did not start: $(tail -3 "$T/routes.log")"; summary; exit $?; fi
ok "routes: listening on 127.0.0.1:$PORT ($(basename "$(dirname "$BIN")"))"
A=/api/v1/applications
S2=$A/app-shs-0001/2
L=$A/local-1422981780767
# paths answered 200
OKPATHS=(
  "$A" "$A?status=completed" "$A?status=running" "$A?minDate=2023-11-15" "$A?maxDate=2015-02-03T16:42:40.000GMT"
  "$A?minEndDate=2015-03-16&maxEndDate=2023-11-14T22:00:00.000GMT" "$A?limit=2" "$A?status=completed&limit=1"
  "$A/app-shs-0001" "$A/app-shs-0001/1" "$S2/jobs" "$S2/jobs/0" "$S2/jobs?status=succeeded" "$S2/stages"
  "$S2/stages?details=true&withSummaries=true" "$S2/stages/1" "$S2/stages/1/0" "$S2/stages/0/0/taskSummary"
  "$S2/stages/0/0/taskSummary?quantiles=0.01,0.5,0.99" "$S2/stages/0/0/taskList?sortBy=-runtime&length=5"
  "$S2/executors" "$S2/allexecutors" "$S2/environment" "$S2/storage/rdd" "$S2/allmiscellaneousprocess"
  "$A/app-shs-0002/jobs" "$A/app-shs-0002/stages?status=active" "$L/stages" "$L/executors" "$L/jobs?status=succeeded&status=failed"
  "$L/stages/1/0/taskList?offset=2&length=3&sortBy=runtime"
  "$A/app-20200706201101-0003/stages?withSummaries=true"
)
for p in "${OKPATHS[@]}"; do
  code=$(curl -s -o "$T/http.body" -w '%{http_code} %{content_type}' "$(URL "$p")")
  "$CLARITY" api "$D" "$p" >"$T/api.body" 2>"$T/api.err"; arc=$?
  if [ "$arc" != 0 ]; then bad "route $p: clarity api exit $arc: $(head -1 "$T/api.err")"; continue; fi
  if [ "$code" != "200 application/json" ]; then bad "route $p: got '$code', want '200 application/json'"; continue; fi
  if cmp -s "$T/http.body" "$T/api.body"; then ok "route $p"; else bad "route $p: body differs from clarity api's ($(cmp "$T/http.body" "$T/api.body" | head -1))"; fi
done
# paths SHS turns down: status and the message as the body (clarity api prints the same text)
ERRPATHS=(
  "404|$A/foobar|unknown app: foobar"
  "404|$A/foobar/jobs|no such app: foobar"
  "404|$A/app-shs-0001/7|unknown app app-shs-0001, attempt 7"
  "404|$A/app-shs-0001/jobs|no such app: app-shs-0001"
  "404|$L/stages/12345|unknown stage: 12345"
  "404|$L/stages/1/1|unknown attempt for stage 1.  Found attempts: [0]"
  "404|$L/stages/flimflam|"
  "404|$L/jobs/99|unknown job: 99"
  "400|$L/stages/1/0/taskSummary?quantiles=2|"
  "400|$A?minDate=yesterday|Couldn't parse date: yesterday"
  "400|$A?status=done|"
  "404|/api/v1/foobar|"
)
for e in "${ERRPATHS[@]}"; do
  IFS='|' read -r want p msg <<<"$e"
  code=$(curl -s -o "$T/http.body" -w '%{http_code}' "$(URL "$p")")
  "$CLARITY" api "$D" "$p" >/dev/null 2>"$T/api.err"; arc=$?
  apimsg=$(sed -n '1s/^clarity api: //p' "$T/api.err")
  body=$(cat "$T/http.body")
  if [ "$code" != "$want" ]; then bad "error $p: status $code, want $want"; continue; fi
  if [ "$arc" = 0 ]; then bad "error $p: clarity api answered it"; continue; fi
  if [ "$body" != "$apimsg" ]; then bad "error $p: body '$body', clarity api says '$apimsg'"; continue; fi
  if [ -n "$msg" ] && [ "$body" != "$msg" ]; then bad "error $p: body '$body', SHS says '$msg'"; continue; fi
  ok "error $p: $code $body"
done
# HEAD answers the headers of GET; POST is not a method of the API; outside /api/v1: 404
h=$(curl -s -I -o /dev/null -w '%{http_code} %{content_type}' "$(URL "$A")")
[ "$h" = "200 application/json" ] && ok "HEAD $A" || bad "HEAD $A: $h"
h=$(curl -s -o /dev/null -w '%{http_code}' -X POST -d x=1 "$(URL "$A")")
[ "$h" = 405 ] && ok "POST: 405" || bad "POST: $h, want 405"
h=$(curl -s -o /dev/null -w '%{http_code}' "$(URL /)")
[ "$h" = 404 ] && ok "/ outside the API: 404" || bad "/: $h, want 404"
# keep-alive: two requests on one connection
n=$(curl -s -o /dev/null -o /dev/null -w '%{num_connects}\n' "$(URL "$A")" "$(URL "$A?limit=1")" | paste -sd+ | bc)
[ "$n" = 1 ] && ok "keep-alive: two requests, one connection" || bad "keep-alive: $n connections for two requests"

# ---- 3. hostile requests ----
alive() { [ "$(curl -s -o /dev/null -w '%{http_code}' --max-time 10 "$(URL "$A")")" = 200 ]; }
for p in "/api/v1/applications/../../../etc/passwd" "/api/v1/applications/%2e%2e/%2e%2e/etc/passwd" \
         "/api/v1/applications/app-shs-0001%2F2/jobs" "/api/v1/applications/app-shs-0001%5c2/jobs" \
         "/api/v1/applications/%00/jobs" "/api/v1/applications/./app-shs-0001"; do
  code=$(curl -s --path-as-is -o "$T/h.body" -w '%{http_code}' --max-time 10 "$(URL "$p")")
  case "$code" in 4??) ok "hostile $p: $code" ;; *) bad "hostile $p: $code, want 4xx" ;; esac
  grep -q "root:" "$T/h.body" && bad "hostile $p: a file's content came back"
done
big=$(head -c 100000 /dev/zero | tr '\0' 'a')
code=$(curl -s -o /dev/null -w '%{http_code}' --max-time 10 "$(URL "$A?x=$big")")
case "$code" in 4??|000) ok "100 kB query string: $code" ;; *) bad "100 kB query string: $code, want 4xx or closed" ;; esac
alive && ok "answers after the hostile paths" || bad "no answer after the hostile paths"
# 2,000 connections at once, held, then a request on each that still is open
python3 - "$PORT" >"$T/conns" 2>&1 <<'EOF'
import socket, sys, time
port = int(sys.argv[1]); socks = []; refused = 0
for i in range(2000):
    s = socket.socket(); s.settimeout(5)
    try:
        s.connect(("127.0.0.1", port)); socks.append(s)
    except OSError:
        refused += 1; s.close()
time.sleep(0.5)
good = bad = closed = 0
for s in socks[:50]:
    try:
        s.sendall(b"GET /api/v1/applications?limit=1 HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
        d = s.recv(64)
        if d.startswith(b"HTTP/1.1 200"): good += 1
        elif d == b"": closed += 1
        else: bad += 1
    except OSError:
        closed += 1
for s in socks: s.close()
print(f"opened {len(socks)} refused {refused} answered200 {good} closed {closed} other {bad}")
EOF
read -r _ opened _ refused _ good _ closed _ other <"$T/conns"
if [ "${other:-x}" = 0 ]; then ok "2,000 connections: $(cat "$T/conns")"; else bad "2,000 connections: $(cat "$T/conns")"; fi
sleep 0.5
alive && ok "answers after 2,000 connections" || bad "no answer after 2,000 connections"

# ---- 3b. a directory that changes, and a restart over the store ----
wait_for() { # wait_for SECONDS CMD...: polls CMD every 0.1 s
  local end=$((SECONDS + $1)); shift
  while [ $SECONDS -lt "$end" ]; do "$@" && return 0; sleep 0.1; done; return 1
}
ids() { curl -s "$(URL "$A")" | jq -r '.[].id' | sort | tr '\n' ' '; }
cp "$ROOT/tests/data/peridot-ref-1.json" "$D/new-app.json"
newid=$("$CLARITY" api "$D/new-app.json" "$A" | jq -r '.[0].id')
listed() { ids | grep -q "$1"; }
unlisted() { ! listed "$1"; }
if wait_for 10 listed "$newid"; then ok "a new log is listed ($newid)"; else bad "a new log is not listed after 10 s: $(ids)"; fi
rm "$D/new-app.json"
if wait_for 10 unlisted "$newid"; then ok "a deleted log leaves the listing"; else bad "a deleted log is still listed after 10 s"; fi
curl -s "$(URL "$A")" >"$T/before.json"
stop_server routes
start_server routes "$D"
t0=$(date +%s.%N)
code=$(curl -s -o "$T/after.json" -w '%{http_code}' "$(URL "$A")")
t1=$(date +%s.%N)
if grep -q "listing from the store" "$T/routes.log" && [ "$code" = 200 ] && cmp -s "$T/before.json" "$T/after.json"; then
  ok "restart: /applications from the store, same bytes ($(awk -v a="$t0" -v b="$t1" 'BEGIN {printf "%.3f", b - a}') s for the request)"
else bad "restart: $code, $(grep -c . "$T/after.json") lines; log: $(head -2 "$T/routes.log" | tr '\n' ' ')"; fi
stop_server routes

# ---- 1b. one-stage loads: a stage's routes under a --max-memory smaller than the model ----
# With --max-memory 1 every whole model is "too large", so each stage route loads that
# stage's tasks only (load option only_stage); every answer must still be clarity api's on
# the whole model, byte for byte: every stage of the fixtures and of three shared logs (a
# multi-attempt application, one with failed and excluded tasks, a Spark 2.3 YARN one).
O="$T/onestage"; mkdir -p "$O"
cp "$D"/* "$O"/
for f in local-1430917381534 app-20161116163331-0000 application_1538416563558_0014; do
  [ -f "$SHARED_DATA/spark-events/$f" ] && cp "$SHARED_DATA/spark-events/$f" "$O/" || skip "one-stage: $SHARED_DATA/spark-events/$f absent"
done
if ! start_server onestage "$O" --max-memory 1; then bad "one-stage: server did not start: $(tail -3 "$T/onestage.log")"
else
  # every application attempt's base path, and the stage attempts of each (at most 12)
  "$CLARITY" api "$O" "$A" | jq -r '.[] | .id as $i | .attempts[] | "\($i)" + (if .attemptId then "/" + .attemptId else "" end)' >"$T/bases"
  n=0; nbad=0
  while read -r b; do
    "$CLARITY" api "$O" "$A/$b/stages" | jq -r '.[] | "\(.stageId) \(.attemptId)"' | head -12 >"$T/stages"
    while read -r sid att; do
      for p in "$A/$b/stages/$sid" "$A/$b/stages/$sid/$att" "$A/$b/stages/$sid/$att?details=false&withSummaries=true" \
               "$A/$b/stages/$sid/$att/taskSummary" "$A/$b/stages/$sid/$att/taskList?length=100000" \
               "$A/$b/stages/$sid/$att/taskList?sortBy=-runtime&offset=1&length=3" \
               "$A/$b/stages/$sid/$att/taskList?status=failed" "$A/$b/stages/$sid/99"; do
        code=$(curl -s -o "$T/http.body" -w '%{http_code}' "$(URL "$p")")
        "$CLARITY" api "$O" "$p" >"$T/api.body" 2>"$T/api.err"; arc=$?
        [ "$arc" = 0 ] || sed -n '1s/^clarity api: //p' "$T/api.err" | tr -d '\n' >"$T/api.body"
        n=$((n + 1))
        if ! cmp -s "$T/http.body" "$T/api.body"; then
          nbad=$((nbad + 1)); [ "$nbad" -le 5 ] && bad "one-stage $p: $code, differs from clarity api's whole model ($(cmp "$T/http.body" "$T/api.body" 2>&1 | head -1))"
        fi
      done
    done <"$T/stages"
  done <"$T/bases"
  loads=$(grep -c "tasks only (a whole load" "$T/onestage.log")
  if [ "$nbad" = 0 ] && [ "$n" -gt 100 ]; then ok "one-stage: $n stage routes over $(wc -l <"$T/bases") attempts equal clarity api's, $loads one-stage loads"
  else bad "one-stage: $nbad of $n answers differ"; fi
  [ "$loads" -gt 10 ] && ok "one-stage: the lean path was taken ($loads loads)" || bad "one-stage: only $loads one-stage loads"
  stop_server onestage
fi

# ---- 1c. no-task loads: routes that read no task row under --max-memory 1 ----
# An application, its attempt, environment, storage (list, each RDD, an unknown one), its
# miscellaneous processes, its log files and the routes that answer 404 read no task row, so
# under a bound every whole model passes they load the log keeping no task rows (load option
# no_task_rows). Every answer must be the whole model's, byte for byte: over the fixtures and
# every shared History Server log, against a server with whole models (whose answers are
# clarity api's: section 1), and against clarity api itself for every route of three attempts.
NT="$T/notask"; mkdir -p "$NT"
cp "$D"/* "$NT"/
if [ -d "$SHARED_DATA/spark-events" ]; then
  for f in "$SHARED_DATA"/spark-events/*; do
    case "$f" in *.tsv|*/legacy-dir-format) continue ;; esac
    ln -s "$f" "$NT/$(basename "$f")"
  done
else skip "no-task: $SHARED_DATA/spark-events absent (fixtures only)"; fi
if start_server whole "$NT" && WPORT=$PORT && WSPID=$SPID && start_server notask "$NT" --max-memory 1 --stream-above 4K; then
  NPORT=$PORT
  # One route asked of the bounded server (NPORT) and the whole-model one (WPORT): the status
  # and body must match; counts every route in n and every difference in nbad (the first five
  # named), and leaves the bounded answer in $T/n.body and its status in $lc.
  lean_vs_whole() {
    lc=$(curl -s -o "$T/n.body" -w '%{http_code}' "http://127.0.0.1:$NPORT$2")
    local wc_
    wc_=$(curl -s -o "$T/w.body" -w '%{http_code}' "http://127.0.0.1:$WPORT$2")
    n=$((n + 1))
    if [ "$lc" != "$wc_" ] || ! cmp -s "$T/n.body" "$T/w.body"; then
      nbad=$((nbad + 1)); [ "$nbad" -le 5 ] && bad "$1 $2: $lc against the whole model's $wc_ ($(cmp "$T/n.body" "$T/w.body" 2>&1 | head -1))"
    fi
  }
  "$CLARITY" api "$NT" "$A" | jq -r '.[] | .id as $i | .attempts[] | "\($i)" + (if .attemptId then "/" + .attemptId else "" end)' >"$T/nbases"
  n=0; nbad=0; napi=0
  while read -r b; do
    # each route is a load of the log here (nothing stays cached under the bound), so to keep
    # the suite short every attempt gets one route (environment: a no-task load of every log
    # shape) and three attempts of different shapes every route, an RDD among them
    paths=("$A/$b/environment")
    case "$b" in app-shs-0001/2|local-1430917381534|application_1538416563558_0014)
      paths+=("$A/$b" "$A/$b/storage/rdd" "$A/$b/allmiscellaneousprocess" "$A/${b%%/*}" "$A/$b/logs"
              "$A/$b/storage/rdd/987654" "$A/$b/streaming" "$A/$b/nosuch")
      for id in $(curl -s "http://127.0.0.1:$WPORT$A/$b/storage/rdd" | jq -r '.[].id' 2>/dev/null | head -1); do paths+=("$A/$b/storage/rdd/$id"); done ;;
    esac
    for p in "${paths[@]}"; do
      lean_vs_whole no-task "$p"
      case "$b" in app-shs-0001/2|local-1430917381534|application_1538416563558_0014)
        if [ "$lc" = 200 ]; then
          "$CLARITY" api -o "$T/api.body" "$NT" "$p" 2>/dev/null
          napi=$((napi + 1))
          cmp -s "$T/n.body" "$T/api.body" || { nbad=$((nbad + 1)); bad "no-task $p: differs from clarity api's"; }
        fi ;;
      esac
    done
  done <"$T/nbases"
  loads=$(grep -c "no task rows (a whole load" "$T/notask.log")
  natt=$(wc -l <"$T/nbases")
  if [ "$nbad" = 0 ] && [ "$n" -ge "$natt" ]; then ok "no-task: $n routes over $(wc -l <"$T/nbases") attempts equal the whole model's ($napi also clarity api's), $loads no-task loads"
  else bad "no-task: $nbad of $n answers differ"; fi
  [ "$loads" -ge "$natt" ] && ok "no-task: the lean path was taken ($loads loads)" || bad "no-task: only $loads no-task loads"

  # ---- 1d. task-sum loads: jobs, stages, executors under --max-memory 1 ----
  # jobs, a job, the stage list (without details or withSummaries), executors and all
  # executors read tasks only through per stage attempt, executor and job sums, which the
  # server then builds while reading (load option task_fold) and keeps no task row. Every
  # answer must be the whole model's: one of those routes per attempt (in turn), every one
  # of them (with status filters and a job) on three attempts of different shapes (killed
  # tasks under two reasons, commit-denied, a Spark 1.3 local log), their four lists also
  # against clarity api itself; /sql and an execution of two attempts with SQL queries.
  # The stage list with details or withSummaries shows every task of every stage: the fold
  # then also keeps every row in a file, read back a batch of stages at a time (same rotation,
  # and on the three attempts with details, summaries, quantiles and a task status filter).
  # Each answer is a load here (about 55 of them).
  n=0; nbad=0; napi=0; k=0
  routes=(jobs stages executors allexecutors "stages?details=true" "stages?withSummaries=true")
  while read -r b; do
    paths=("$A/$b/${routes[$((k % 6))]}"); k=$((k + 1))
    case "$b" in app-shs-0001/2|application_1628109047826_1317105|local-1430917381534)
      paths=("$A/$b/jobs" "$A/$b/stages" "$A/$b/executors" "$A/$b/allexecutors"
             "$A/$b/jobs?status=succeeded&status=failed" "$A/$b/stages?status=complete&status=failed"
             "$A/$b/stages?details=true" "$A/$b/stages?withSummaries=true&quantiles=0.1,0.5"
             "$A/$b/stages?details=true&withSummaries=true&taskStatus=failed")
      for id in $(curl -s "http://127.0.0.1:$WPORT$A/$b/jobs" | jq -r '.[].jobId' 2>/dev/null | head -1); do paths+=("$A/$b/jobs/$id"); done ;;
    # /sql: the plan graphs and the SQL listener's replay of every task end, with a fold
    local-1642039451826|application_1506645932520_24630151)
      paths+=("$A/$b/sql")
      for id in $(curl -s "http://127.0.0.1:$WPORT$A/$b/sql" | jq -r '.[].id' 2>/dev/null | tail -1); do paths+=("$A/$b/sql/$id?details=true&planDescription=false"); done ;;
    esac
    for p in "${paths[@]}"; do
      lean_vs_whole task-sum "$p"
      # the whole-model server answers as clarity api (section 1); clarity api itself on the
      # plain routes of the three attempts
      case "$b:${p##*/}" in app-shs-0001/2:*s|application_1628109047826_1317105:*s|local-1430917381534:*s|\
                            app-shs-0001/2:stages\?*|application_1628109047826_1317105:stages\?*|local-1430917381534:stages\?*)
        if [ "$lc" = 200 ]; then
          "$CLARITY" api -o "$T/api.body" "$NT" "$p" 2>/dev/null
          napi=$((napi + 1))
          cmp -s "$T/n.body" "$T/api.body" || { nbad=$((nbad + 1)); bad "task-sum $p: differs from clarity api's"; }
        fi ;;
      esac
    done
  done <"$T/nbases"
  folds=$(grep -c "(task sums)" "$T/notask.log")
  whole=$(grep -c "task sums cannot stand for the rows" "$T/notask.log")
  spills=$(grep -c "task rows kept on disk" "$T/notask.log")
  if [ "$nbad" = 0 ] && [ "$n" -ge "$natt" ]; then ok "task-sum: $n routes over $natt attempts equal the whole model's ($napi also clarity api's)"
  else bad "task-sum: $nbad of $n answers differ"; fi
  # killed-task keys in row order, commit-denied text, a job's window: the three attempts
  # above must have taken the folded path, not the whole-model fallback
  [ "$folds" -ge "$natt" ] && [ "$whole" = 0 ] && ok "task-sum: the folded path was taken ($folds loads, $whole read whole)" \
    || bad "task-sum: $folds folded loads, $whole read whole instead"
  # details/withSummaries: the rotation's two in six (less the three attempts that ask
  # every route), and three on each of those three
  [ "$spills" -ge $((natt / 3 + 6)) ] && ok "task-sum: stage lists with every task read their rows back from disk ($spills loads)" \
    || bad "task-sum: only $spills loads kept task rows on disk"
  # ---- 1e. streamed answers ----
  # The bounded server streams every answer over 4 KiB (--stream-above 4K) as it is written
  # (chunked), so the comparisons of 1c and 1d above went through that path for their larger
  # answers; the whole-model server sent the same bytes with a Content-Length.
  streamed=$(grep -c "clarity serve: streamed: " "$T/notask.log")
  [ "$streamed" -ge 10 ] && ok "stream: $streamed answers of 1c/1d were streamed, each equal to the whole model's" \
    || bad "stream: only $streamed answers streamed"
  p="$A/local-1430917381534/stages?details=true"
  curl -s -D "$T/sh" -o "$T/s.body" "http://127.0.0.1:$NPORT$p"
  "$CLARITY" api -o "$T/api.body" "$NT" "$p" 2>/dev/null
  if grep -qi '^transfer-encoding: chunked' "$T/sh" && ! grep -qi '^content-length' "$T/sh" && [ "$(wc -c <"$T/s.body")" -gt 4096 ] &&
     cmp -s "$T/s.body" "$T/api.body"; then ok "stream: $p chunked, $(wc -c <"$T/s.body") bytes equal to clarity api's"
  else bad "stream: $p: $(head -1 "$T/sh" | tr -d '\r'), $(cmp "$T/s.body" "$T/api.body" 2>&1 | head -1)"; fi
  # a small answer keeps its Content-Length
  curl -s -D "$T/sh" -o /dev/null "http://127.0.0.1:$NPORT/api/v1/version"
  grep -qi '^content-length: ' "$T/sh" && ! grep -qi '^transfer-encoding' "$T/sh" && ok "stream: a small answer is sent whole with its Content-Length" \
    || bad "stream: /version: $(tr -d '\r' <"$T/sh" | tr '\n' ' ')"
  stop_server notask
  SPID=$WSPID; stop_server whole
  # --max-response cuts a streamed answer: 200 and the first bytes were sent (the REST layer
  # writes 64 KiB at a time: past --stream-above 1K at its first write), so the stream ends
  # without its last chunk (curl: exit 18, partial file) and the server logs why; the server
  # goes on answering
  if start_server cut "$D" --stream-above 1K --max-response 100K; then
    p="$A/app-20200706201101-0003/stages?details=true"
    curl -s -o "$T/c.body" "$(URL "$p")"; crc=$?
    "$CLARITY" api -o "$T/api.body" "$D" "$p" 2>/dev/null
    csize=$(wc -c <"$T/c.body")
    if [ "$crc" = 18 ] && [ "$csize" -ge 1024 ] && [ "$csize" -le 102400 ] && cmp -s "$T/c.body" <(head -c "$csize" "$T/api.body") &&
       grep -q "streamed answer cut after .* answer larger than --max-response" "$T/cut.log"; then
      ok "stream: an answer over --max-response is cut after $csize of $(wc -c <"$T/api.body") bytes (curl exit 18), logged"
    else bad "stream: cut answer: curl exit $crc, $csize bytes, $(grep -c 'streamed answer cut' "$T/cut.log") log lines"; fi
    code2=$(curl -s -o /dev/null -w '%{http_code}' "$(URL /api/v1/version)")
    [ "$code2" = 200 ] && ok "stream: still answering after a cut stream (/version 200)" || bad "stream: /version $code2 after a cut stream"
    stop_server cut
  else bad "stream: server did not start: $(tail -2 "$T/cut.log")"; fi
else bad "no-task: servers did not start: $(tail -2 "$T/whole.log" "$T/notask.log" 2>/dev/null | tr '\n' ' ')"; fi

# ---- 2. HistoryServerSuite's expected answers over HTTP ----
HS="$SHARED_DATA/history-server"
JSONCMP="${JSONCMP:-$ROOT/build/tools/jsoncmp}"
if [ ! -f "$HS/cases.tsv" ]; then skip "HistoryServerSuite cases: $HS absent"
elif [ ! -x "$JSONCMP" ]; then skip "HistoryServerSuite cases: $JSONCMP not built (make tools)"
else
  # the directory SHS's suite serves, without the legacy-format copies of the same applications
  E="$T/events"; mkdir -p "$E"
  for f in "$SHARED_DATA"/spark-events/*; do
    case "$f" in *.tsv|*/legacy-dir-format) continue ;; esac
    ln -s "$f" "$E/$(basename "$f")"
  done
  if start_server suite "$E"; then
    while IFS=$'\t' read -r expf url app logs name; do
      [ "$expf" = expectation_file ] || [ -z "$expf" ] && continue
      code=$(curl -s -o "$T/s.json" -w '%{http_code}' "$(URL "$url")")
      if [ "$code" != 200 ]; then bad "suite $name: HTTP $code"; continue; fi
      if "$JSONCMP" "$HS/$expf" "$T/s.json" --ignore lastUpdated --ignore lastUpdatedEpoch >"$T/diff" 2>&1; then ok "suite $name over HTTP"
      else bad "suite $name over HTTP: $(wc -l <"$T/diff") differences: $(head -2 "$T/diff" | tr '\n' ' ')"; fi
    done <"$HS/cases.tsv"
    stop_server suite
  else bad "suite: server did not start: $(tail -3 "$T/suite.log")"; fi
fi

# ---- 4. soak: a log appended while clients poll ----
SD="$T/soak"; mkdir -p "$SD"
SRC="$ROOT/tests/data/mini-3x.json"
total=$(wc -l <"$SRC")
LOGF="$SD/soak-app.inprogress"
head -n 5 "$SRC" >"$LOGF"
if start_server soak "$SD"; then
  app=$("$CLARITY" api "$SRC" /applications | jq -r '.[0].id')
  ( # two clients: the listing and the application's stage list, as fast as they can
    for c in 1 2; do
      ( end=$((SECONDS + 6)); while [ $SECONDS -lt $end ]; do
          curl -s -o /dev/null -w '%{http_code}\n' "$(URL "$A")"
          curl -s -o /dev/null -w '%{http_code}\n' "$(URL "$A/$app/stages")"
        done ) >"$T/soak.codes.$c" &
    done
    wait ) &
  CL=$!
  # the writer: the rest of the log in 10 parts over 4 s, whole lines at a time
  step=$(( (total - 5 + 9) / 10 )); at=6
  while [ $at -le "$total" ]; do
    sed -n "${at},$((at + step - 1))p" "$SRC" >>"$LOGF"; at=$((at + step)); sleep 0.4
  done
  wait "$CL"
  sleep 1.5   # a watcher's quiet time and one scan
  codes=$(cat "$T"/soak.codes.* | sort | uniq -c | tr '\n' ' ')
  if ! cat "$T"/soak.codes.* | grep -qv '^200$'; then ok "soak: every answer 200 while appended ($codes)"
  else bad "soak: answers other than 200 while appended: $codes"; fi
  # nothing lost: the server's answers now are clarity api's on the whole log
  for p in "$A" "$A/$app/stages" "$A/$app/jobs"; do
    curl -s -o "$T/soak.http" "$(URL "$p")"
    "$CLARITY" api "$SD" "$p" >"$T/soak.api" 2>/dev/null
    cmp -s "$T/soak.http" "$T/soak.api" && ok "soak: $p after the appends equals clarity api" \
      || bad "soak: $p after the appends differs from clarity api"
  done
  jobs_now=$(curl -s "$(URL "$A/$app/jobs")" | jq length)
  jobs_all=$("$CLARITY" api "$SRC" "/applications/$app/jobs" | jq length)
  [ "$jobs_now" = "$jobs_all" ] && ok "soak: all $jobs_all jobs listed" || bad "soak: $jobs_now jobs, the log has $jobs_all"
  stop_server soak
else bad "soak: server did not start: $(tail -3 "$T/soak.log")"; fi

# ---- 4b. append-only resume: a log appended in pieces answers as a fresh read ----
# The pieces end at byte offsets, mid-line too (as a writer's flushes do); the first holds no
# ApplicationStart yet (68,719 bytes into this log), so the next read is a whole one, and the
# later ones are read from where the last read stopped. After each piece the listing must
# equal clarity api's fresh read of the log as it is, byte for byte; the server's log must
# say that the later pieces were resumed, and the final answer is a completed application.
RD="$T/resume"; mkdir -p "$RD"
RSRC="$ROOT/tests/data/spark-3.1-app-20200706201101-0003.json"
RLOG="$RD/app-resume-1.inprogress"
rsz=$(stat -c %s "$RSRC")
head -c 3000 "$RSRC" >"$RLOG"
if start_server resume "$RD"; then
  prev=3000; same=0; cuts="70000 100001 $((rsz / 2)) $((rsz - 300)) $((rsz - 5)) $rsz"
  for cut in $cuts; do
    tail -c +$((prev + 1)) "$RSRC" | head -c $((cut - prev)) >>"$RLOG"; prev=$cut
    "$CLARITY" api "$RD" "$A" >"$T/resume.api" 2>/dev/null
    if wait_for 10 sh -c "curl -s '$(URL "$A")' | cmp -s - '$T/resume.api'"; then same=$((same + 1))
    else bad "resume: listing after $cut bytes differs from clarity api: $(curl -s "$(URL "$A")" | diff - "$T/resume.api" | head -3 | tr '\n' ' ')"; fi
  done
  [ "$same" = 6 ] && ok "resume: the listing after each of 6 pieces equals clarity api's fresh read"
  resumed=$(grep -o '[0-9]* read from where the last read stopped' "$T/resume.log" | awk '{s += $1} END {print s + 0}')
  [ "$resumed" -ge 3 ] && ok "resume: $resumed of the grown reads started where the last one stopped" \
    || bad "resume: only $resumed reads resumed: $(grep grew "$T/resume.log" | tr '\n' ' ')"
  [ "$(curl -s "$(URL "$A")" | jq -r '.[0].attempts[0].completed')" = true ] && ok "resume: the ApplicationEnd of the last piece completes the application" \
    || bad "resume: the application is not completed after its last piece"
  # the application's routes load the whole log: equal to clarity api's too
  rapp=$(jq -r '.[0].id' "$T/resume.api")
  curl -s -o "$T/resume.http" "$(URL "$A/$rapp/jobs")"; "$CLARITY" api "$RD" "$A/$rapp/jobs" >"$T/resume.api2" 2>/dev/null
  cmp -s "$T/resume.http" "$T/resume.api2" && ok "resume: /jobs after the appends equals clarity api" || bad "resume: /jobs differs from clarity api"
  stop_server resume
else bad "resume: server did not start: $(tail -3 "$T/resume.log")"; fi

# ---- 4d. model resume: a served application's log grows; its model reads on ----
# A log (over 4 KiB, so its head hash stays) is served and its routes asked, which loads its
# model; then whole lines are appended (the end of job 0, job 1 with its stage and tasks, job
# 2), then half a line (a writer's flush mid-line), then the rest with the ApplicationEnd.
# After each piece every route equals clarity api's fresh read of the file as it is; the log
# says the model was loaded once and then resumed, and the bytes the resumes read add up to
# what was appended plus the torn half read twice: only new bytes were read.
MD="$T/mresume"; mkdir -p "$MD"
MSRC="$ROOT/tests/data/spark-3.1-app-20200706201101-0003.json"
MLOG="$MD/app-mresume-1.inprogress"
head -n 30 "$MSRC" >"$MLOG"
if start_server mresume "$MD"; then
  mapp=app-20200706201101-0003
  mroutes="jobs stages executors allexecutors environment storage/rdd stages/0/0/taskList?length=1000 jobs/1"
  msame=0; mtotal=0
  mcheck() {   # every route and the listing against clarity api's fresh read
    wait_for 10 sh -c "curl -s '$(URL "$A/$mapp/jobs")' | cmp -s - '$T/m.expect'" || true
    for r in $mroutes; do
      mtotal=$((mtotal + 1))
      mc=$(curl -s -o "$T/m.http" -w '%{http_code}' "$(URL "$A/$mapp/$r")")
      "$CLARITY" api "$MLOG" "$A/$mapp/$r" >"$T/m.api" 2>"$T/m.err" || sed -n '1s/^clarity api: //p' "$T/m.err" | tr -d '\n' >"$T/m.api"
      if cmp -s "$T/m.http" "$T/m.api"; then msame=$((msame + 1))
      else bad "model resume ($1) $r: $mc, differs from clarity api: $(diff "$T/m.http" "$T/m.api" | head -3 | tr '\n' ' ')"; fi
    done
  }
  "$CLARITY" api "$MLOG" "$A/$mapp/jobs" >"$T/m.expect" 2>/dev/null; mcheck "30 lines"
  sz0=$(stat -c %s "$MLOG")
  sed -n 31,60p "$MSRC" >>"$MLOG"; "$CLARITY" api "$MLOG" "$A/$mapp/jobs" >"$T/m.expect"; mcheck "60 lines"
  sed -n 61,100p "$MSRC" >>"$MLOG"; "$CLARITY" api "$MLOG" "$A/$mapp/jobs" >"$T/m.expect"; mcheck "100 lines"
  l101=$(sed -n 101p "$MSRC"); half=$(( ${#l101} / 2 ))
  printf '%s' "${l101:0:$half}" >>"$MLOG"
  # the answers do not change with half a line: wait for the server to have read it
  wait_for 10 sh -c "curl -s -o /dev/null '$(URL "$A/$mapp/jobs")'; [ \$(grep -c 'resume: $MLOG: read' '$T/mresume.log') -ge 3 ]" || true
  "$CLARITY" api "$MLOG" "$A/$mapp/jobs" >"$T/m.expect" 2>/dev/null; mcheck "half a line"
  torn=$(( $(stat -c %s "$MLOG") - $(head -n 100 "$MSRC" | wc -c) ))
  printf '%s\n' "${l101:$half}" >>"$MLOG"; sed -n '102,$p' "$MSRC" >>"$MLOG"
  cmp -s "$MLOG" "$MSRC" || bad "model resume: the pieces do not rebuild the log"
  "$CLARITY" api "$MLOG" "$A/$mapp/jobs" >"$T/m.expect"; mcheck "whole log"
  [ "$msame" = "$mtotal" ] && ok "model resume: $msame route answers after 5 pieces equal clarity api's fresh reads"     || bad "model resume: $((mtotal - msame)) of $mtotal answers differ"
  mloads=$(grep -c "load: $MLOG: " "$T/mresume.log"); mres=$(grep -c "resume: $MLOG: read" "$T/mresume.log")
  mread=$(grep -o "resume: $MLOG: read [0-9]* bytes" "$T/mresume.log" | awk '{s += $4} END {print s + 0}')
  want=$(( $(stat -c %s "$MLOG") - sz0 + torn ))
  [ "$mloads" = 1 ] && [ "$mres" -ge 4 ] && ok "model resume: one load, then $mres resumes"     || bad "model resume: $mloads loads and $mres resumes: $(grep -E 'load:|resume:' "$T/mresume.log" | tail -3 | tr '\n' ' ')"
  [ "$mread" = "$want" ] && ok "model resume: the resumes read $mread bytes: the appended ones (and the torn half again), not the $(stat -c %s "$MLOG")-byte log" \
    || bad "model resume: the resumes read $mread bytes, expected $want"
  stop_server mresume
  grep -q "models resumed ($mread bytes read)" "$T/mresume.log" && ok "model resume: the stop line counts the bytes resumed" \
    || bad "model resume: stop line: $(grep stopped "$T/mresume.log")"
else bad "model resume: server did not start: $(tail -3 "$T/mresume.log")"; fi

# ---- 4f. zstd resume: a served zstd .inprogress log grows; its decoder reads on ----
# A zstd single file (a frame of 60 lines, over 4 KiB so its head hash stays) is served and
# its routes asked; then half of a second frame is appended (a writer's flush inside a
# frame), then the rest of it, then a third frame. After each piece every route equals
# clarity api's fresh read of the file; the log shows one load and three resumes, which read
# exactly the appended compressed bytes (the decoder's state is kept, not the file re-read).
if command -v zstd >/dev/null; then
  ZD="$T/zresume"; mkdir -p "$ZD"
  ZSRC="$ROOT/tests/data/spark-3.1-app-20200706201101-0003.json"
  ZLOG="$ZD/app-zresume.zstd.inprogress"
  head -n 60 "$ZSRC" | zstd -q -c >"$ZLOG"
  sed -n 61,120p "$ZSRC" | zstd -q -c >"$T/z.f2"; sed -n '121,$p' "$ZSRC" | zstd -q -c >"$T/z.f3"
  if start_server zresume "$ZD"; then
    zapp=app-20200706201101-0003; zsame=0; ztotal=0
    zcheck() {   # every route against clarity api's fresh read
      "$CLARITY" api "$ZLOG" "$A/$zapp/jobs" >"$T/z.expect" 2>/dev/null
      wait_for 10 sh -c "curl -s '$(URL "$A/$zapp/jobs")' | cmp -s - '$T/z.expect'" || true
      for r in jobs stages executors environment "stages/0/0/taskList?length=1000" "stages?details=true"; do
        ztotal=$((ztotal + 1))
        curl -s -o "$T/z.http" "$(URL "$A/$zapp/$r")"
        "$CLARITY" api "$ZLOG" "$A/$zapp/$r" >"$T/z.api" 2>"$T/z.err" || sed -n '1s/^clarity api: //p' "$T/z.err" | tr -d '\n' >"$T/z.api"
        if cmp -s "$T/z.http" "$T/z.api"; then zsame=$((zsame + 1)); else bad "zstd resume ($1) $r: differs from clarity api"; fi
      done
    }
    zcheck "one frame"
    zs0=$(stat -c %s "$ZLOG")
    head -c 3000 "$T/z.f2" >>"$ZLOG"
    # half a frame may decode to no whole line: wait for the server to have read it
    wait_for 10 sh -c "curl -s -o /dev/null '$(URL "$A/$zapp/jobs")'; [ \$(grep -c 'resume: $ZLOG: read' '$T/zresume.log') -ge 1 ]" || true
    zcheck "half a frame"
    tail -c +3001 "$T/z.f2" >>"$ZLOG"; zcheck "two frames"
    cat "$T/z.f3" >>"$ZLOG"; zcheck "three frames"
    [ "$zsame" = "$ztotal" ] && ok "zstd resume: $zsame route answers after 4 pieces equal clarity api's fresh reads" \
      || bad "zstd resume: $((ztotal - zsame)) of $ztotal answers differ"
    zloads=$(grep -c "load: $ZLOG: " "$T/zresume.log"); zres=$(grep -c "resume: $ZLOG: read" "$T/zresume.log")
    zread=$(grep -o "resume: $ZLOG: read [0-9]* bytes" "$T/zresume.log" | awk '{s += $4} END {print s + 0}')
    zwant=$(( $(stat -c %s "$ZLOG") - zs0 ))
    [ "$zloads" = 1 ] && [ "$zres" = 3 ] && ok "zstd resume: one load, then $zres resumes" \
      || bad "zstd resume: $zloads loads and $zres resumes: $(grep -E 'load:|resume:' "$T/zresume.log" | tail -3 | tr '\n' ' ')"
    [ "$zread" = "$zwant" ] && ok "zstd resume: the resumes read $zread compressed bytes, the appended ones, not the $(stat -c %s "$ZLOG")-byte file" \
      || bad "zstd resume: the resumes read $zread bytes, expected $zwant"
    stop_server zresume
  else bad "zstd resume: server did not start: $(tail -3 "$T/zresume.log")"; fi
else skip "zstd resume: zstd (the command) not installed"; fi

# ---- 4e. rolling log resume: parts added, the last part grown ----
# A rolling event-log directory (eventlog_v2_<id>/events_N_<id>, Spark 3's layout) of the same
# log: parts 1 and 2 (lines 1-60) served and asked; then part 2 grows (lines 61-100), then
# part 3 appears (the rest). After each change every route equals clarity api's fresh read
# of the directory; the model is loaded once and resumed, and the resumes read exactly the
# bytes appended to part 2 plus part 3's: the parts already read are not read again.
RD="$T/rolling"; mkdir -p "$RD"
rapp=app-20200706201101-0003
RL="$RD/eventlog_v2_$rapp"; mkdir -p "$RL"
head -n 40 "$MSRC" >"$RL/events_1_$rapp"
sed -n 41,60p "$MSRC" >"$RL/events_2_$rapp"
: >"$RL/appstatus_$rapp.inprogress"
if start_server rolling "$RD"; then
  rsame=0; rtotal=0
  rcheck() {   # every route against clarity api's fresh read of the directory
    wait_for 10 sh -c "curl -s '$(URL "$A/$rapp/jobs")' | cmp -s - '$T/r.expect'" || true
    for r in $mroutes; do
      rtotal=$((rtotal + 1))
      curl -s -o "$T/r.http" "$(URL "$A/$rapp/$r")"
      "$CLARITY" api "$RL" "$A/$rapp/$r" >"$T/r.api" 2>"$T/r.err" || sed -n '1s/^clarity api: //p' "$T/r.err" | tr -d '\n' >"$T/r.api"
      if cmp -s "$T/r.http" "$T/r.api"; then rsame=$((rsame + 1))
      else bad "rolling resume ($1) $r: differs from clarity api: $(diff "$T/r.http" "$T/r.api" | head -3 | tr '\n' ' ')"; fi
    done
  }
  "$CLARITY" api "$RL" "$A/$rapp/jobs" >"$T/r.expect" 2>/dev/null; rcheck "2 parts"
  sed -n 61,100p "$MSRC" >>"$RL/events_2_$rapp"; grown=$(sed -n 61,100p "$MSRC" | wc -c)
  "$CLARITY" api "$RL" "$A/$rapp/jobs" >"$T/r.expect"; rcheck "part 2 grown"
  sed -n '101,$p' "$MSRC" >"$RL/events_3_$rapp.tmp"; mv "$RL/events_3_$rapp.tmp" "$RL/events_3_$rapp"
  "$CLARITY" api "$RL" "$A/$rapp/jobs" >"$T/r.expect"; rcheck "part 3 added"
  [ "$rsame" = "$rtotal" ] && ok "rolling resume: $rsame route answers after a part grew and a part was added equal clarity api's fresh reads" \
    || bad "rolling resume: $((rtotal - rsame)) of $rtotal answers differ"
  rloads=$(grep -c "load: $RL: " "$T/rolling.log"); rres=$(grep -c "resume: $RL: read" "$T/rolling.log")
  rread=$(grep -o "resume: $RL: read [0-9]* bytes" "$T/rolling.log" | awk '{s += $4} END {print s + 0}')
  rwant=$(( grown + $(stat -c %s "$RL/events_3_$rapp") ))
  [ "$rloads" = 1 ] && [ "$rres" -ge 2 ] && ok "rolling resume: one load, then $rres resumes" \
    || bad "rolling resume: $rloads loads and $rres resumes: $(grep -E 'load:|resume:' "$T/rolling.log" | tail -3 | tr '\n' ' ')"
  [ "$rread" = "$rwant" ] && ok "rolling resume: the resumes read $rread bytes: part 2's new lines and part 3, not parts 1-2 again" \
    || bad "rolling resume: the resumes read $rread bytes, expected $rwant"
  stop_server rolling
else bad "rolling resume: server did not start: $(tail -3 "$T/rolling.log")"; fi

# ---- 4c. --acl: who may see which application ----
# Five copies of mini-3x.json with view ACLs in their environments; the user comes from the
# X-Remote-User header, groups from an /etc/group-format file. Expected sets worked by hand
# from SHS's rule (owner, view list, view groups, admin list and groups, "*", server admins).
AD="$T/acl"; mkdir -p "$AD"
python3 - "$ROOT/tests/data/mini-3x.json" "$AD" <<'PY'
import json, sys
src, out = sys.argv[1], sys.argv[2]
apps = [("app-acl-open", "alice", {}),
        ("app-acl-view", "alice", {"spark.ui.view.acls": "bob, carol", "spark.acls.enable": "true"}),
        ("app-acl-group", "alice", {"spark.ui.view.acls.groups": "analysts"}),
        ("app-acl-admin", "alice", {"spark.admin.acls": "dave", "spark.admin.acls.groups": "ops"}),
        ("app-acl-star", "erin", {"spark.ui.view.acls": "*"})]
lines = open(src).read().splitlines()
for i, (app, user, props) in enumerate(apps):
    with open("%s/%s" % (out, app), "w") as f:
        for l in lines:
            if '"SparkListenerApplicationStart"' in l:
                e = json.loads(l); e["App ID"] = app; e["User"] = user; e["Timestamp"] += i * 1000
                l = json.dumps(e, separators=(",", ":"))
            elif '"SparkListenerEnvironmentUpdate"' in l:
                e = json.loads(l); e["Spark Properties"].update(props)
                l = json.dumps(e, separators=(",", ":"))
            f.write(l + "\n")
PY
printf '# name:password:gid:members\nanalysts:x:1001:frank, gina\nops:x:1002:hank\n' >"$T/groups"
acl_ids() { curl -s -H "X-Remote-User: $1" "$(URL "$A")" | jq -r '.[].id' | sort | tr '\n' ' ' | sed 's/ $//'; }
acl_check() { # acl_check PHASE
  local u want got
  while read -r u want; do
    got=$(acl_ids "$u")
    [ "$got" = "$want" ] && ok "acl ($1): $u sees ${want:-nothing}" || bad "acl ($1): $u sees '$got', expected '$want'"
  done <<'EXP'
alice app-acl-admin app-acl-group app-acl-open app-acl-star app-acl-view
bob app-acl-star app-acl-view
frank app-acl-group app-acl-star
hank app-acl-admin app-acl-star
dave app-acl-admin app-acl-star
erin app-acl-star
zed app-acl-star
root app-acl-admin app-acl-group app-acl-open app-acl-star app-acl-view
EXP
}
if start_server acl "$AD" --acl --user-header X-Remote-User --admin-acls root --groups-file "$T/groups"; then
  acl_check "first scan"
  n=$(curl -s "$(URL "$A")" | jq length)
  [ "$n" = 0 ] && ok "acl: a request without the user header lists nothing" || bad "acl: no user header lists $n"
  body=$(curl -s -w ' %{http_code}' -H 'X-Remote-User: zed' "$(URL "$A/app-acl-view/jobs")")
  [ "$body" = 'user "zed" is not authorized 403' ] && ok "acl: 403 with SHS's text on a route of an application the user may not view" \
    || bad "acl: zed on app-acl-view/jobs: $body"
  body=$(curl -s -w ' %{http_code}' "$(URL "$A/app-acl-view")")
  [ "$body" = 'user "null" is not authorized 403' ] && ok "acl: 403 for a request naming no user" || bad "acl: no user: $body"
  curl -s -o "$T/acl.http" -H 'X-Remote-User: carol' "$(URL "$A/app-acl-view/jobs")"
  "$CLARITY" api "$AD" "$A/app-acl-view/jobs" >"$T/acl.api"
  cmp -s "$T/acl.http" "$T/acl.api" && ok "acl: an allowed user gets clarity api's answer" || bad "acl: carol's /jobs differs from clarity api"
  code=$(curl -s -o /dev/null -w '%{http_code}' -H 'X-Remote-User: zed' "$(URL "$A/no-such-app/jobs")")
  [ "$code" = 404 ] && ok "acl: an unknown application stays 404" || bad "acl: unknown application: $code"
  stop_server acl
  # a restart lists from the store (which keeps no ACLs): they are read from the logs' heads
  if start_server acl "$AD" --acl --user-header X-Remote-User --admin-acls root --groups-file "$T/groups"; then
    grep -q "listing from the store" "$T/acl.log" && acl_check "restart over the store" || bad "acl: the restart did not list from the store"
    stop_server acl
  else bad "acl: restart did not start: $(tail -3 "$T/acl.log")"; fi
else bad "acl: server did not start: $(tail -3 "$T/acl.log")"; fi
code=0; "$BIN_NOW" serve --port 0 --no-store --acl "$AD" >/dev/null 2>"$T/acl-usage.err" || code=$?
[ "$code" = 2 ] && grep -q -- "--user-header" "$T/acl-usage.err" && ok "acl: --acl without --user-header is a usage error" \
  || bad "acl: --acl without --user-header: exit $code, $(cat "$T/acl-usage.err")"

# ---- 5. load test (normal build; figures printed, not asserted beyond sanity) ----
if ! command -v wrk >/dev/null; then skip "load test: wrk not installed"
else
  BIN_NOW="$CLARITY"
  if start_server load "$D"; then
    rss() { awk '/^VmRSS/ {print $2 " kB"}' "/proc/$SPID/status"; }
    echo "load: RSS after start $(rss)"
    for p in "$A" "$S2/stages" "$S2/stages/0/0/taskList?length=20"; do
      curl -s -o /dev/null "$(URL "$p")"   # loads the model once
      wrk -t2 -c32 -d"${SERVE_LOAD_SECONDS:-1}s" --latency "$(URL "$p")" >"$T/wrk" 2>&1
      rps=$(awk '/^Requests\/sec/ {print $2}' "$T/wrk")
      p99=$(awk '$1 == "99%" {print $2}' "$T/wrk")
      non2xx=$(awk '/Non-2xx/ {print $NF}' "$T/wrk")
      echo "load: $p: ${rps:-?} requests/s, p99 ${p99:-?}, RSS $(rss)"
      if [ -n "$rps" ] && awk -v r="$rps" 'BEGIN {exit !(r > 10)}' && [ -z "$non2xx" ]; then ok "load $p: $rps requests/s, p99 $p99"
      else bad "load $p: $(tr '\n' ' ' <"$T/wrk" | head -c 300)"; fi
    done
    echo "load: RSS after the load $(rss)"
    stop_server load
  else bad "load: server did not start: $(tail -3 "$T/load.log")"; fi
fi
summary
