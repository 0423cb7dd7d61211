#!/usr/bin/env bash
# SHS REST conformance: every row of history-server/cases.tsv is answered by `clarity api`
# (normal and ASan+UBSan builds) and compared field by field with Spark's expected JSON.
# lastUpdated/lastUpdatedEpoch are masked exactly as HistoryServerSuite masks them (they are
# the log file's modification time).
source "$(dirname "$0")/../lib.sh"
HS="$SHARED_DATA/history-server"
JSONCMP="${JSONCMP:-$ROOT/build/tools/jsoncmp}"
if [ ! -d "$HS" ] || [ ! -f "$HS/cases.tsv" ]; then
  skip "conformance: $HS absent (shared History Server expectations not available)"
  summary; exit $?
fi
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
# The other expectation files were hand-edited upstream (odd spacing), carry hash-map key
# order (stage "tasks"), or the copy's modification time (lastUpdated): field comparison only.
BYTE_IDENTICAL="job_list_json_expectation.json one_job_json_expectation.json succeeded_job_list_json_expectation.json executor_list_json_expectation.json stage_list_json_expectation.json failed_stage_list_json_expectation.json job_list_from_multi_attempt_app_json_1__expectation.json"
while IFS=$'\t' read -r expf url app logs name; do
  [ "$expf" = expectation_file ] && continue
  [ -n "$expf" ] || continue
  IFS=, read -r -a names <<<"$logs"
  paths=(); for n in "${names[@]}"; do paths+=("$SHARED_DATA/spark-events/$n"); done
  for bin in "$CLARITY" "$CLARITY_ASAN"; do
    label="$name ($(basename "$(dirname "$bin")"))"
    if [ ! -x "$bin" ]; then skip "$label: $bin not built"; continue; fi
    if ! "$bin" api "${paths[@]}" "$url" >"$tmp/out.json" 2>"$tmp/err"; then
      bad "$label: clarity api exited non-zero: $(head -3 "$tmp/err")"; continue
    fi
    if "$JSONCMP" "$HS/$expf" "$tmp/out.json" --ignore lastUpdated --ignore lastUpdatedEpoch >"$tmp/diff" 2>&1; then
      ok "$label"
      # answers whose expected file is Jackson's own output must match it byte for byte
      case " $BYTE_IDENTICAL " in *" $expf "*)
        if cmp -s "$tmp/out.json" "$HS/$expf"; then ok "$label: byte-identical"; else bad "$label: not byte-identical"; fi ;;
      esac
    else
      bad "$label: $(wc -l <"$tmp/diff") differences"; head -${DIFF_LINES:-8} "$tmp/diff" | sed 's/^/    /'
    fi
  done
done <"$HS/cases.tsv"

# /sql: every execution of logs with SQL (Spark 2.4 to 3.5, adaptive plans, Photon) against an
# independent Python transcription of the History Server's SQL listener, plan graph and metric
# texts (sql_reference.py); all executions at once (length past their number).
SQL_LOGS="external/nvidia-qualification/nds_q72_dataproc_2_2.zstd external/nvidia-qualification/nds_q88_photon_db_13_3.zstd spark-events/local-1642039451826 spark-events/app-20200706201101-0003 spark-events/application_1506645932520_24630151"
if ! command -v python3 >/dev/null || ! command -v zstd >/dev/null; then
  skip "sql: python3 or zstd not on PATH (the reference answers need them)"
else
  for rel in $SQL_LOGS; do
    log="$SHARED_DATA/$rel"
    if [ ! -f "$log" ]; then skip "sql $rel: absent"; continue; fi
    case "$log" in *.zstd) zstd -dcq "$log" >"$tmp/sql.json" ;; *) cp "$log" "$tmp/sql.json" ;; esac
    if ! python3 "$ROOT/tests/conformance/sql_reference.py" "$tmp/sql.json" >"$tmp/ref.json" 2>"$tmp/err"; then
      bad "sql $rel: reference failed: $(tail -1 "$tmp/err")"; continue
    fi
    for bin in "$CLARITY" "$CLARITY_ASAN"; do
      label="sql $(basename "$rel") ($(basename "$(dirname "$bin")"))"
      if [ ! -x "$bin" ]; then skip "$label: $bin not built"; continue; fi
      app=$("$bin" api --compact "$tmp/sql.json" /applications | sed -n 's/^\[{"id":"\([^"]*\)".*/\1/p')
      if ! "$bin" api "$tmp/sql.json" "/applications/$app/sql?length=1000000" >"$tmp/out.json" 2>"$tmp/err"; then
        bad "$label: clarity api exited non-zero: $(head -3 "$tmp/err")"; continue
      fi
      n=$(grep -c '"nodeId"' "$tmp/out.json")
      if [ "$n" -eq 0 ]; then bad "$label: no plan nodes answered"; continue; fi
      if "$JSONCMP" "$tmp/ref.json" "$tmp/out.json" >"$tmp/diff" 2>&1; then
        ok "$label: $n nodes equal to the reference"
      else
        bad "$label: $(wc -l <"$tmp/diff") differences"; head -${DIFF_LINES:-8} "$tmp/diff" | sed 's/^/    /'
      fi
    done
  done
fi
summary
