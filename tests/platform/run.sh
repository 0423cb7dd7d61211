#!/usr/bin/env bash
# Platform and storage detection through the CLI: the Photon excerpt fixture (always), then
# the real logs: Databricks 13.3 Photon (q88), Dataproc 2.2 (q72), YARN/local/standalone
# logs, and every shared log's summary naming a platform line and a storage line.
source "$(dirname "$0")/../lib.sh"
T=$(mktemp -d); trap 'rm -rf "$T"' EXIT
BIN="$CLARITY_ASAN"; [ -x "$BIN" ] || BIN="$CLARITY"

has() { # has NAME FILE PATTERN: grep -E
  if grep -qE -- "$3" "$2"; then ok "$1"; else bad "$1: no /$3/ in: $(head -c 600 "$2")"; fi
}
hasnt() {
  if grep -qE -- "$3" "$2"; then bad "$1: /$3/ found: $(grep -m2 -E -- "$3" "$2")"; else ok "$1"; fi
}

# --- the Photon fixture: events cut from the q88 log ---
FIX="$ROOT/tests/data/photon-db13.3-q88-excerpt.json"
"$BIN" summary "$FIX" >"$T/s" 2>"$T/e" || bad "summary fixture: exit $?"
has "fixture: platform line" "$T/s" '^platform     Databricks 13\.3 \(Photon\), aarch64, AWS$'
has "fixture: input on s3" "$T/s" '^storage      input s3:// object store; output not in this log$'
# the Photon and data lines wrap at 100 columns: the figures are matched across line breaks
has "fixture: Photon shuffle from SQL metrics" <(tr -s '\n ' '  ' <"$T/s") 'shuffle write 7\.7 kB in 3 ms, read 30\.9 kB remote \+ 30\.9 kB local, fetch wait 315 ms'
has "fixture: Photon spill from SQL metrics" <(tr -s '\n ' '  ' <"$T/s") 'spilled 0 to disk \(Photon SQL metrics\)'
has "fixture: per-stage spill is not a false 0" "$T/s" '^  spill disk -: Photon spills outside task metrics'
hasnt "fixture: no stage row claims 0 spill" "$T/s" '^ +[0-9]+\.[0-9]+  COMPLETE .* 0  wrapper'
"$BIN" summary --json "$FIX" >"$T/j" 2>/dev/null
if jq -e '.applications[0].platform | .vendor == "Databricks" and .runtime == "13.3" and .photon and
          .input_store == "object_store" and .input_paths.s3 == 3 and .output_store == "unknown" and
          .photon_metrics.scan_io_wait_ns == 40212583267 and .photon_metrics.fetch_wait_ms == 315' "$T/j" >/dev/null
then ok "fixture: summary JSON platform"; else bad "fixture: summary JSON platform: $(jq -c '.applications[0].platform' "$T/j")"; fi
"$BIN" whatif "$FIX" >"$T/w" 2>/dev/null
has "fixture: whatif input over the network" "$T/w" 'input read from s3:// object store over the network'
hasnt "fixture: whatif does not read s3 from disk" "$T/w" 'input read from disk: yes'
"$BIN" blocked "$FIX" >"$T/b" 2>/dev/null
has "fixture: blocked names the object store" "$T/b" '^storage      input from s3:// object store: network to a remote service, not disk; time not logged$'
has "fixture: blocked gives Photon's scan I/O wait" "$T/b" '^photon       scan I/O wait 40\.2 s \(Photon SQL metrics; [0-9.]+% of task time\): in no column below$'
"$BIN" stragglers "$FIX" >"$T/st" 2>/dev/null
hasnt "fixture: stragglers does not call s3 reads HDFS" "$T/st" 'input read \(HDFS\)'
# a log without environment says why the platform is unknown
head -1 "$ROOT/tests/data/mini-3x.json" >/dev/null
"$BIN" summary "$ROOT/tests/data/mini-3x.json" >"$T/m" 2>/dev/null
has "mini: platform never guessed" "$T/m" '^platform     (unknown \(|local$|YARN$|standalone$)'

if ! have_shared; then skip "real logs: no $SHARED_DATA/spark-events"; summary; exit; fi
NV="$SHARED_DATA/external/nvidia-qualification"
Q72="$NV/nds_q72_dataproc_2_2.zstd"; Q88="$NV/nds_q88_photon_db_13_3.zstd"
if [ -f "$Q88" ]; then
  "$BIN" summary "$Q88" >"$T/s" 2>/dev/null
  has "q88: Databricks 13.3 Photon" "$T/s" '^platform     Databricks 13\.3 \(Photon\), aarch64, AWS$'
  has "q88: Spark version from Databricks' metadata event" "$T/s" '^application .*  Spark 3\.4\.1$'
  has "q88: input on s3" "$T/s" '^storage      input s3:// object store'
  # Photon's own shuffle figures agree with the task metrics' 402.8 kB: 201.2 + 201.6 kB
  has "q88: Photon shuffle read" <(tr -s '\n ' '  ' <"$T/s") 'read 201\.2 kB remote \+ 201\.6 kB local, fetch wait 1\.4 s'
  has "q88: Photon scan I/O wait" "$T/s" 'scan I/O wait 2\.9 min, cloud storage read 53\.9 GB'
  "$BIN" blocked "$Q88" >"$T/b" 2>/dev/null
  has "q88: blocked shows the scan wait" "$T/b" 'scan I/O wait 2\.9 min \(Photon SQL metrics; 4\.0% of task time\)'
else skip "q88 log absent"; fi
if [ -f "$Q72" ]; then
  "$BIN" summary "$Q72" >"$T/s" 2>/dev/null
  has "q72: Dataproc 2.2 on YARN" "$T/s" '^platform     Dataproc 2\.2 on YARN, GCP$'
  has "q72: input on gs" "$T/s" '^storage      input gs:// object store; output not in this log$'
  "$BIN" whatif "$Q72" >"$T/w" 2>/dev/null
  has "q72: whatif labels input as object store" "$T/w" 'input read from gs:// object store over the network, not host disks \[log\]'
  hasnt "q72: whatif no longer reads gs:// from disk" "$T/w" 'input read from disk: yes'
  # disk x2: the saving comes from shuffle and spill only. Before, 18.4 GB of gs:// input
  # counted as disk bytes and the what-if claimed -34.1%; input now counts as network
  "$BIN" whatif --json --disk-mbps x2 "$Q72" >"$T/wj" 2>/dev/null
  if jq -e '.applications[0] as $a | $a.hardware.input_store == "object_store" and $a.hardware.input_scheme == "gs://"' "$T/wj" >/dev/null
  then ok "q72: whatif JSON input_store"; else bad "q72: whatif JSON input_store: $(jq -c '.applications[0].hardware' "$T/wj" | head -c 400)"; fi
  "$BIN" whatif --disk-mbps x2 "$Q72" >"$T/w2" 2>/dev/null
  has "q72: disk x2 saves 27.2%, not 34.1%" "$T/w2" '^whatif +[0-9.]+ s +84\.9 s +-27\.2%'
  has "q72: application total moves gs:// bytes to network" "$T/w2" 'application total: CPU 100\.4 min, disk 41\.2 GB, network 33\.8 GB'
  "$BIN" stragglers "$Q72" >"$T/st" 2>/dev/null
  has "q72: stragglers name gs:// reads, not HDFS" "$T/st" '^not seen     input from gs:// object store'
  for c in blocked stragglers whatif summary; do   # the new lines fit 100 columns
    "$BIN" $c "$Q72" 2>/dev/null | grep -E '^(storage|not seen|platform|photon) |object store' >"$T/new"
    w=$(awk '{ if (length($0) > m) m = length($0) } END { print m + 0 }' "$T/new")
    [ "$w" -le 100 ] && ok "q72 $c: platform/storage lines fit 100 columns ($w)" || bad "q72 $c: a line of $w columns"
  done
else skip "q72 log absent"; fi
SE="$SHARED_DATA/spark-events"
for pair in "application_1506645932520_24630151|YARN|input hdfs://" "local-1430917381534|local|" \
            "app-20200706201101-0003|unknown \(no platform evidence in the environment\)|" ; do
  IFS='|' read -r log plat store <<<"$pair"
  [ -e "$SE/$log" ] || { skip "$log absent"; continue; }
  "$BIN" summary "$SE/$log" >"$T/s" 2>/dev/null
  has "$log: platform $plat" "$T/s" "^platform     $plat\$"
  [ -n "$store" ] && has "$log: $store" "$T/s" "^storage      $store"
done
# every shared log: a platform object per application, and a vendor only where a property
# names it: spark.databricks.* (q88, db_subExecution_id, xgboost, cluster_information's two
# Databricks logs), spark.dataproc.* (q72), spark.emr.* (the four multiple_attempts logs)
"$CLARITY" summary -q --json "$SE" "$NV" >"$T/all.json" 2>/dev/null
napps=$(jq '.applications | length' "$T/all.json"); nplat=$(jq '[.applications[] | select(.platform.text != null)] | length' "$T/all.json")
[ "$napps" -gt 20 ] && [ "$napps" = "$nplat" ] && ok "every app has a platform object ($napps)" || bad "platform objects: $napps apps, $nplat with one"
vend=$(jq -r '[.applications[] | select(.platform.vendor != "") | .source | split("/") | last] | sort | join(" ")' "$T/all.json")
[ "$vend" = "attempt_1_eventlog.zstd attempt_2_eventlog.zstd attempt_3_eventlog.zstd attempt_4_eventlog.zstd databricks-aws databricks-azure db_subExecution_id.zstd nds_q72_dataproc_2_2.zstd nds_q88_photon_db_13_3.zstd xgboost_eventlog.zstd" ] \
  && ok "vendors named on the 10 logs whose properties name one" || bad "vendors on: $vend"
emr=$(jq -r '[.applications[] | select(.platform.vendor == "EMR") | .platform.text] | unique | join(",")' "$T/all.json")
[ "$emr" = "EMR on YARN, AWS" ] && ok "multiple_attempts: EMR on YARN" || bad "EMR text: $emr"
summary
