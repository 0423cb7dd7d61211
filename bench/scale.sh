#!/usr/bin/env bash
# Speed and scale (issue 7): synth logs of SCALE_GB (default "1"; e.g. SCALE_GB="1 5 10")
# uncompressed GB, plain and zstd, and a directory of FLEET_APPS (default 2000) small
# applications. Times, in one run and on the same files: clarity (default threads and
# --threads 1), wc -l (the I/O floor), a raw simdjson pass (the parse floor), jq and a
# Python json.loads loop (both on a 100 MB sample, scaled). BIG=1 adds every command along the
# task axis (up to 10 M tasks) and the job axis (up to 10^6 jobs): bench/scale-axes.sh.
# Best of 3.
set -euo pipefail
cd "$(cd "${0%/*}" && pwd)/.."
C=build/clarity
for t in "$C" build/tools/simdjson_pass; do
  [ -x "$t" ] || { echo "bench/scale.sh: $t missing: make build/clarity build/tools/simdjson_pass" >&2; exit 2; }
done
command -v jq >/dev/null || { echo "bench/scale.sh: jq missing (apt-get install jq)" >&2; exit 2; }
OUT=${SCALE_DIR:-bench/out/scale}
mkdir -p "$OUT"
RES="$OUT/results.md"
: >"$RES"
say() { echo "$*" | tee -a "$RES"; }

# best_of N CMD...: prints "seconds peak_kib" of the fastest of N runs
best_of() {
  local n="$1"; shift
  local best="" rss=0
  for _ in $(seq "$n"); do
    local t0 t1 m
    t0=$(date +%s.%N)
    /usr/bin/time -f '%M' -o "$OUT/.rss" "$@" >/dev/null 2>&1
    t1=$(date +%s.%N)
    m=$(tail -1 "$OUT/.rss")
    local s; s=$(awk -v a="$t0" -v b="$t1" 'BEGIN{printf "%.3f", b-a}')
    if [ -z "$best" ] || awk -v x="$s" -v y="$best" 'BEGIN{exit !(x<y)}'; then best=$s; fi
    [ "$m" -gt "$rss" ] && rss=$m
  done
  echo "$best $rss"
}

row() { # row LABEL BYTES SECONDS RSS_KIB REF_SECONDS
  awk -v l="$1" -v b="$2" -v s="$3" -v r="$4" -v ref="$5" 'BEGIN {
    printf "| %s | %.3f | %.2f | %.2fx | %.1f |\n", l, s, b / s / 1e9, s / ref, r / 1024 }' | tee -a "$RES"
}

say "## clarity speed and scale"
say ""
say "$(date -u +%FT%TZ), commit $(git rev-parse --short HEAD 2>/dev/null || echo ?), $(nproc) cores ($(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs))"
say ""
for gb in ${SCALE_GB:-1}; do
  dir="$OUT/wc-${gb}g"
  parts=$((gb * 100000))
  if [ ! -d "$dir/eventlogs" ]; then
    $C synth wordcount --hosts 20 --cores 16 --data "$((gb * 16))Gi" --split 160Ki --partitions "$parts" \
      --no-logs --no-truth-tasks --seed 7 -q -o "$dir"
    $C synth wordcount --hosts 20 --cores 16 --data "$((gb * 16))Gi" --split 160Ki --partitions "$parts" \
      --no-logs --no-truth-tasks --seed 7 --codec zstd -q -o "$dir-zstd"
  fi
  plain=$(ls "$dir"/eventlogs/* | head -1)
  zst=$(ls "$dir-zstd"/eventlogs/* | head -1)
  bytes=$(stat -c %s "$plain")
  tasks=$($C summary --json "$plain" | jq '.applications[0].totals.tasks')
  head -c 100000000 "$plain" | sed '$d' >"$OUT/sample.json"
  sbytes=$(stat -c %s "$OUT/sample.json")
  say "### ${gb} GB scale: $(awk -v b="$bytes" 'BEGIN{printf "%.2f", b/1e9}') GB plain log, $tasks tasks; zstd log $(awk -v b="$(stat -c %s "$zst")" 'BEGIN{printf "%.0f", b/1e6}') MB"
  say ""
  say "| command | seconds | GB/s (uncompressed) | time vs clarity | peak RSS MiB |"
  say "|---|---:|---:|---:|---:|"
  read -r c2 r2 < <(best_of 3 $C summary --json "$plain")
  read -r c1 r1 < <(best_of 3 $C summary --json --threads 1 "$plain")
  read -r cz rz < <(best_of 3 $C summary --json "$zst")
  read -r w rw < <(best_of 3 wc -l "$plain")
  read -r sj rs < <(best_of 3 build/tools/simdjson_pass "$plain")
  read -r jqs rj < <(best_of 1 jq -c .Event "$OUT/sample.json")
  read -r py rp < <(best_of 1 python3 -c 'import json,sys
for l in open(sys.argv[1], "rb"): json.loads(l)' "$OUT/sample.json")
  jqf=$(awk -v s="$jqs" -v a="$sbytes" -v b="$bytes" 'BEGIN{printf "%.3f", s*b/a}')
  pyf=$(awk -v s="$py" -v a="$sbytes" -v b="$bytes" 'BEGIN{printf "%.3f", s*b/a}')
  row "clarity summary --json (reader + one parser per core)" "$bytes" "$c2" "$r2" "$c2"
  row "clarity summary --json --threads 1" "$bytes" "$c1" "$r1" "$c2"
  row "clarity summary --json, zstd log" "$bytes" "$cz" "$rz" "$c2"
  row "wc -l" "$bytes" "$w" "$rw" "$c2"
  row "raw simdjson pass (one thread)" "$bytes" "$sj" "$rs" "$c2"
  row "jq -c .Event (100 MB sample, scaled)" "$bytes" "$jqf" "$rj" "$c2"
  row "python3 json.loads per line (100 MB sample, scaled)" "$bytes" "$pyf" "$rp" "$c2"
  say ""
  awk -v t="$tasks" -v r="$r2" -v c1="$c1" -v c2="$c2" -v sj="$sj" -v cz="$cz" -v b="$bytes" 'BEGIN {
    printf "peak RSS %.0f bytes per task (target: 100 bytes per task + 64 MiB = %.1f MiB, measured %.1f MiB)\n", r*1024/t, (t*100 + 64*1048576)/1048576, r/1024
    printf "plain: %.2f GB/s with 2 threads (target 1.5), %.2fx the one-thread time; one thread %.2fx the simdjson pass (target 2x)\n", b/c2/1e9, c1/c2, c1/sj
    printf "zstd: %.2f GB/s of uncompressed text (target 0.8)\n", b/cz/1e9 }' | tee -a "$RES"
  say ""
done

# a directory of many small applications
n=${FLEET_APPS:-2000}
fleet="$OUT/fleet-$n"
if [ ! -d "$fleet" ]; then
  mkdir -p "$fleet"
  for i in $(seq "$n"); do
    $C synth wordcount --hosts 2 --cores 4 --data 256Mi --partitions 8 --no-logs --no-truth-tasks --seed "$i" \
      --name "fleet-$i" --start-ms $((1700000000000 + i * 60000)) -q -o "$OUT/.one"
    mv "$OUT"/.one/eventlogs/* "$fleet/app-$i"
    rm -rf "$OUT/.one"
  done
fi
fb=$(du -sb "$fleet" | cut -f1)
read -r f2 fr2 < <(best_of 3 $C summary --csv "$fleet")
read -r f1 fr1 < <(best_of 3 $C summary --csv --threads 1 "$fleet")
say "### a directory of $n applications ($(awk -v b="$fb" 'BEGIN{printf "%.0f", b/1e6}') MB)"
say ""
say "| command | seconds | applications/s | peak RSS MiB |"
say "|---|---:|---:|---:|"
awk -v n="$n" -v s="$f2" -v r="$fr2" 'BEGIN{printf "| clarity summary --csv DIR (one application per core) | %.2f | %.0f | %.1f |\n", s, n/s, r/1024}' | tee -a "$RES"
awk -v n="$n" -v s="$f1" -v r="$fr1" 'BEGIN{printf "| clarity summary --csv --threads 1 DIR | %.2f | %.0f | %.1f |\n", s, n/s, r/1024}' | tee -a "$RES"
say ""

# BIG=1: every command along the task axis (1 M, 3 M, 10 M tasks) and the job axis (10^4,
# 10^5, 10^6 jobs): bench/scale-axes.sh, written to $OUT/axes.md
if [ "${BIG:-0}" = 1 ]; then
  SCALE_DIR="$OUT" bench/scale-axes.sh
fi
echo "(written to $RES)"
