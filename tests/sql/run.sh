#!/usr/bin/env bash
# The /sql routes end to end, bounded (a few seconds):
#  1. `clarity api` (normal and ASan+UBSan builds) on the fixture written for them and the real
#     Spark 3.1 log: answers equal to the independent Python reference
#     (tests/conformance/sql_reference.py), details/planDescription/offset/length, and SHS's
#     404 text for an unknown execution;
#  2. over HTTP (`clarity serve` on a free loopback port): /sql, /sql?offset=&length= and
#     /sql/{id} byte-equal to `clarity api`'s answers, and the 404; the server loads a model
#     with SQL plan graphs beside one without them (asked first by a stage list).
source "$(dirname "$0")/../lib.sh"
T=$(mktemp -d)
SPID=
cleanup() { [ -n "$SPID" ] && kill "$SPID" 2>/dev/null; wait 2>/dev/null; rm -rf "$T"; }
trap cleanup EXIT
if [ ! -x "$CLARITY" ]; then skip "sql: $CLARITY not built"; summary; exit $?; fi
D="$T/logs"; mkdir -p "$D"
cp "$ROOT/tests/unit/shs/data_sql/app-sql18-0001.json" "$ROOT/tests/data/spark-3.1-app-20200706201101-0003.json" "$D"/
A=/api/v1/applications
FX=$A/app-sql18-0001
REAL=$A/app-20200706201101-0003
JSONCMP="${JSONCMP:-$ROOT/build/tools/jsoncmp}"

# ---- 1. clarity api ----
for bin in "$CLARITY" "$CLARITY_ASAN"; do
  b=$(basename "$(dirname "$bin")")
  if [ ! -x "$bin" ]; then skip "api ($b): $bin not built"; continue; fi
  for log in "$D/app-sql18-0001.json" "$D/spark-3.1-app-20200706201101-0003.json"; do
    app=$(basename "$log" .json); app=${app#spark-3.1-}
    if ! command -v python3 >/dev/null || [ ! -x "$JSONCMP" ]; then skip "api $app ($b): python3 or jsoncmp missing"; continue; fi
    python3 "$ROOT/tests/conformance/sql_reference.py" "$log" >"$T/ref.json"
    "$bin" api "$log" "$A/$app/sql" >"$T/out.json" 2>"$T/err" || { bad "api $app ($b): $(head -1 "$T/err")"; continue; }
    if "$JSONCMP" "$T/ref.json" "$T/out.json" >"$T/diff" 2>&1; then ok "api $app/sql ($b): equal to the reference"
    else bad "api $app/sql ($b): $(head -3 "$T/diff" | tr '\n' ' ')"; fi
  done
  n=$("$bin" api --compact "$D" "$FX/sql?offset=1&length=2" | grep -o '"id":[0-9]*' | tr '\n' ' ')
  [ "$n" = '"id":1 "id":2 ' ] && ok "api offset=1&length=2 ($b)" || bad "api offset=1&length=2 ($b): $n"
  out=$("$bin" api --compact "$D" "$FX/sql/0?details=false&planDescription=false")
  case "$out" in *'"planDescription":"",'*'"nodes":[],"edges":[]}') ok "api details=false&planDescription=false ($b)" ;;
    *) bad "api details=false ($b): $out" ;; esac
  "$bin" api "$D" "$FX/sql/12" >/dev/null 2>"$T/err"; rc=$?
  [ "$rc" = 3 ] && grep -qx "clarity api: unknown query execution id: 12" "$T/err" && ok "api unknown execution: exit 3, SHS's text ($b)" \
    || bad "api unknown execution ($b): exit $rc, $(cat "$T/err")"
done

# a TPC-DS-like mix from the simulator (10 queries, joins, several at once): every execution
if command -v python3 >/dev/null && [ -x "$JSONCMP" ]; then
  "$CLARITY" synth tpcds-mix --seed 11 --queries 10 --arrival 1s --no-logs --no-truth-tasks -q -o "$T/tpcds" >/dev/null 2>&1
  tl=$(ls "$T"/tpcds/eventlogs/* 2>/dev/null | head -1)
  if [ -n "$tl" ]; then
    python3 "$ROOT/tests/conformance/sql_reference.py" "$tl" >"$T/ref.json"
    "$CLARITY" api "$tl" "$A/$(basename "$tl")/sql?length=1000" >"$T/out.json" 2>"$T/err"
    n=$(grep -c '"nodeId"' "$T/out.json")
    if [ "$n" -gt 0 ] && "$JSONCMP" "$T/ref.json" "$T/out.json" >"$T/diff" 2>&1; then ok "api synth tpcds-mix/sql: $n nodes equal to the reference"
    else bad "api synth tpcds-mix/sql: $n nodes; $(head -3 "$T/diff" | tr '\n' ' ')"; fi
  else bad "synth tpcds-mix wrote no log"; fi
fi

# ---- 2. over HTTP ----
if ! command -v curl >/dev/null; then skip "http: curl not installed"; summary; exit $?; fi
"$CLARITY" serve --port 0 --no-store "$D" >"$T/port" 2>"$T/serve.log" &
SPID=$!
PORT=
for _ in $(seq 1 200); do PORT=$(head -1 "$T/port" 2>/dev/null); [ -n "$PORT" ] && break; kill -0 "$SPID" 2>/dev/null || break; sleep 0.05; done
if [ -z "$PORT" ]; then bad "http: server did not start: $(tail -2 "$T/serve.log")"; summary; exit $?; fi
# a stage list first, so the /sql requests below find a model without graphs in the cache
curl -s -o /dev/null "http://127.0.0.1:$PORT$REAL/stages"
for p in "$REAL/sql" "$FX/sql" "$FX/sql?offset=1&length=2" "$FX/sql/0" "$REAL/sql/0?details=false"; do
    code=$(curl -s -o "$T/http.body" -w '%{http_code} %{content_type}' "http://127.0.0.1:$PORT$p")
    "$CLARITY" api "$D" "$p" >"$T/api.body" 2>/dev/null
    if [ "$code" != "200 application/json" ]; then bad "http $p: got '$code'"; continue; fi
    cmp -s "$T/http.body" "$T/api.body" && ok "http $p: byte-equal to clarity api" || bad "http $p: differs from clarity api"
done
code=$(curl -s -o "$T/http.body" -w '%{http_code}' "http://127.0.0.1:$PORT$FX/sql/12")
[ "$code" = 404 ] && [ "$(cat "$T/http.body")" = "unknown query execution id: 12" ] && ok "http unknown execution: 404, SHS's text" \
    || bad "http unknown execution: $code $(cat "$T/http.body")"
summary
