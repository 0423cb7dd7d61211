#!/usr/bin/env bash
# Scale of `clarity fleet index`: index time (wall and CPU), store size and coordinator peak
# RSS for 2,000 and 20,000 applications (100,000 with FLEET_BENCH_100K=1: about ten minutes
# more), then a second run over the unchanged directory, one with 1% new logs and one with
# --verify (every entry stat'ed); the same for 20,000 logs in one flat directory (a History
# Server's own layout); and the 2,000 case over Dask LocalClusters of 1, 2 and 4 worker
# processes with each phase's seconds and the per-shard overhead. The logs are copies of three
# small templates (a real Spark 1.2 log, the hand-made mini log, a synth wordcount log) with
# distinct application ids, 1,000 per subdirectory, made in $FLEET_BENCH_DIR (default
# /tmp/clarity-fleet-bench). References measured in the same run: `find DIR -type f -printf
# '%s %T@'` (a stat of every file) and a read of every file's first 4 KiB. The "+1%" ratios
# are against the first run of the same size in the same run, in wall time and in CPU time
# (user + system of all threads: steadier than wall time on a shared machine). Writes the
# tables to bench/out/fleet-results.md too. FLEET_BENCH_DASK=0 skips the Dask rows.
set -euo pipefail
cd "$(cd "${0%/*}" && pwd)/.."
OUT=bench/out; mkdir -p "$OUT"
B=${FLEET_BENCH_DIR:-/tmp/clarity-fleet-bench}
C=build/clarity
[[ -x $C ]] || { echo "bench/fleet.sh: build/clarity not built (make build/clarity)" >&2; exit 1; }
command -v jq >/dev/null || { echo "bench/fleet.sh: jq not found (apt-get install jq)" >&2; exit 1; }
[[ -x /usr/bin/time ]] || { echo "bench/fleet.sh: GNU time not found (apt-get install time)" >&2; exit 1; }
SIZES="2000 20000"; [[ ${FLEET_BENCH_100K:-0} = 1 ]] && SIZES="$SIZES 100000"
rm -rf "$B"; mkdir -p "$B/tpl"
cp tests/data/spark-1.2-local-1422981780767.json "$B/tpl/local-1422981780767"
cp tests/data/mini-3x.json "$B/tpl/app-20240101000000-0001"
"$C" synth wordcount --data 200M --hosts 2 -o "$B/synth" >/dev/null 2>&1
cp "$B"/synth/eventlogs/app-* "$B/tpl/"

# index DIR STORE [args]: "wall cpu read unchanged rss_kb list_s check_s read_s"
index() {
  local dir=$1 store=$2; shift 2
  /usr/bin/time -f "%M %U %S" -o "$B/rss" "$C" fleet index "$dir" --store "$store" --json -q "$@" >"$B/out.json"
  read -r rss u sy <"$B/rss"
  jq -r --arg rss "$rss" --arg cpu "$(echo "$u + $sy" | bc -l)" \
    '"\(.seconds) \($cpu) \(.stats.read) \(.stats.unchanged) \($rss) \(.stats.list_seconds) \(.stats.check_seconds) \(.stats.read_seconds)"' "$B/out.json"
}
secs() { local t0 t1; t0=$(date +%s.%N); "$@" >/dev/null 2>&1; t1=$(date +%s.%N); echo "$t1 - $t0" | bc -l; }

one_size() {   # n layout
  local n=$1 layout=$2 L="$B/l$1$2" S="$B/s$1$2.db" flat=0
  [[ $layout = flat ]] && flat=1
  FLEET_GEN_FLAT=$flat /usr/bin/python3 bench/fleet_gen.py "$L" "$n" 0 "$B"/tpl/*
  sync
  ref_stat=$(secs find "$L" -type f -printf '%s %T@\n')
  ref_head=$(secs sh -c "find '$L' -type f -exec head -c 4096 {} + >/dev/null")
  local fw fc
  row() { read -r w c rd un rss ls cs rs <<<"$2"
          [[ $1 = first ]] && { fw=$w; fc=$c; }
          printf "| %d | %s | %s | %.2f | %.2f | %d | %d | %.2f | %.2f | %.2f | %.0f | %.1f | %.1f%% | %.1f%% | %.2f | %.2f |\n" \
            "$n" "$layout" "$1" "$w" "$c" "$rd" "$un" "$ls" "$cs" "$rs" "$(echo "$rss / 1024" | bc -l)" \
            "$(echo "$(du -bc "$S"* | tail -1 | cut -f1) / 1000000" | bc -l)" "$(echo "100 * $w / $fw" | bc -l)" \
            "$(echo "100 * $c / $fc" | bc -l)" "$ref_stat" "$ref_head"; }
  row first "$(index "$L" "$S")"
  row "second, unchanged" "$(index "$L" "$S")"
  FLEET_GEN_FLAT=$flat /usr/bin/python3 bench/fleet_gen.py "$L" $((n / 100)) "$n" "$B"/tpl/*
  row "+1% new" "$(index "$L" "$S")"
  row "--verify, unchanged" "$(index "$L" "$S" --verify)"
  rm -rf "$S"* "$L"
}

{
echo "| apps | layout | run | wall s | CPU s | read | unchanged | list s | check s | read s | peak RSS MB | store MB | wall vs first | CPU vs first | ref: stat all, s | ref: 4 KiB heads, s |"
echo "|---:|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"
for n in $SIZES; do one_size "$n" dirs; done
one_size 20000 flat
} | tee "$OUT/fleet-results.md"

if [[ ${FLEET_BENCH_DASK:-1} = 1 ]] && /usr/bin/python3 -c 'import distributed' 2>/dev/null; then
  echo
  echo "| apps | Dask workers | seconds | plan s | cluster start s | map s | merge s | shards | overhead per shard s | shard seconds (sum) |"
  echo "|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"
  L="$B/dask2k"; /usr/bin/python3 bench/fleet_gen.py "$L" 2000 0 "$B"/tpl/*
  for w in 1 2 4; do
    rm -f "$B/dask.db"*
    if "$C" fleet index "$L" --store "$B/dask.db" --dask local --dask-workers "$w" --json >"$B/dask.json" 2>"$B/dask.err"; then
      jq -r --arg w "$w" '"| 2000 | \($w) | \(.seconds) | \(.phases.plan) | \(.phases.cluster) | \(.phases.map) | \(.phases.merge) | \(.shards) | \(.shard_overhead_seconds) | \(.worker_seconds) |"' "$B/dask.json"
    else
      echo "| 2000 | $w | failed: $(tail -1 "$B/dask.err") | | | | | | | |"
    fi
  done
  rm -f "$B/dask.db"*
  /usr/bin/time -f "%e %M" -o "$B/t" "$C" fleet index "$L" --store "$B/dask.db" -q >/dev/null
  read -r s rss <"$B/t"
  echo "| 2000 | none (local, one process) | $s | | | | | | | |"
else
  echo "SKIP Dask rows: FLEET_BENCH_DASK=0, or 'import distributed' fails under /usr/bin/python3"
fi | tee -a "$OUT/fleet-results.md"
echo; echo "load average during the run: $(cut -d' ' -f1-3 /proc/loadavg) on $(nproc) cores" | tee -a "$OUT/fleet-results.md"
rm -rf "$B"
