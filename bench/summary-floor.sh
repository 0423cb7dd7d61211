#!/usr/bin/env bash
# How far is `summary --json --threads 1` from a raw simdjson pass over the same log (the floor
# issue 22 holds it to: within 2x in CPU)? And, with BASE=<another clarity binary>, how far
# was it before a change? The three are run interleaved, REPS times per log (default 3), so a
# shared machine's load weighs on all of them alike; each cell is the median CPU (user + sys,
# /usr/bin/time) and the ratio is taken between medians of the same rounds.
# With two or more logs of one shape in increasing size (e.g. 10^4 and 10^5 jobs), a last line
# gives the marginal ratio between each size and the next: (CPU_b - CPU_a) / (pass_b - pass_a),
# the cost of the added jobs alone. The pass has a fixed cost (its 16 MiB read buffer and the
# parser's first allocation, ~17 MB of fresh memory: ~0.1 s on a VM where a first touch costs
# 6-8 ms a MB) that a small log does not amortise, so the ratio of a small log can understate
# the ratio the same shape tends to.
#   bench/summary-floor.sh LOG...           [CLARITY=build/clarity] [BASE=path] [REPS=3]
set -euo pipefail
cd "$(cd "${0%/*}" && pwd)/.."
C=${CLARITY:-build/clarity}
P=build/tools/simdjson_pass
for t in "$C" "$P" ${BASE:+"$BASE"}; do
  [ -x "$t" ] || { echo "bench/summary-floor.sh: $t missing (make build/clarity build/tools/simdjson_pass)" >&2; exit 2; }
done
[ $# -gt 0 ] || { echo "usage: bench/summary-floor.sh LOG..." >&2; exit 2; }
REPS=${REPS:-3}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cpu() { # cpu OUTFILE CMD...: appends "cpu_s rss_kib"
  local f=$1; shift
  /usr/bin/time -f '%U %S %M' -o "$tmp/t" "$@" >/dev/null 2>"$tmp/err" || { echo "failed: $* ($(head -1 "$tmp/err"))" >&2; exit 1; }
  awk '{printf "%.3f %d\n", $1 + $2, $3}' "$tmp/t" >>"$f"
}
med() { sort -n "$1" | awk '{v[NR]=$1; r[NR]=$2} END{m=int((NR+1)/2); printf "%.2f %.0f\n", v[m], r[m]/1024}'; }
echo "$(date -u +%FT%TZ), commit $(git rev-parse --short HEAD 2>/dev/null || echo ?), $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg), $REPS rounds"
echo
if [ -n "${BASE:-}" ]; then
  echo "| log | MB | simdjson CPU s | base CPU s | base ratio | base RSS MiB | CPU s | ratio | RSS MiB |"
  echo "|---|---:|---:|---:|---:|---:|---:|---:|---:|"
else
  echo "| log | MB | simdjson CPU s | CPU s | ratio | RSS MiB |"
  echo "|---|---:|---:|---:|---:|---:|"
fi
: >"$tmp/m"
for log in "$@"; do
  : >"$tmp/p"; : >"$tmp/b"; : >"$tmp/c"
  for _ in $(seq "$REPS"); do
    cpu "$tmp/p" "$P" "$log"
    [ -z "${BASE:-}" ] || cpu "$tmp/b" "$BASE" summary --json --threads 1 "$log"
    cpu "$tmp/c" "$C" summary --json --threads 1 "$log"
  done
  read -r pc _ < <(med "$tmp/p")
  read -r cc cr < <(med "$tmp/c")
  bc=; br=
  [ -z "${BASE:-}" ] || read -r bc br < <(med "$tmp/b")
  mb=$(du -m "$(readlink -f "$log")" | cut -f1)
  echo "$(basename "$log") $pc $cc ${bc:-}" >>"$tmp/m"
  if [ -n "${BASE:-}" ]; then
    awk -v l="$(basename "$log")" -v mb="$mb" -v p="$pc" -v b="$bc" -v br="$br" -v c="$cc" -v cr="$cr" 'BEGIN{
      printf "| %s | %d | %.2f | %.2f | %.2fx | %d | %.2f | %.2fx | %d |\n", l, mb, p, b, b/p, br, c, c/p, cr }'
  else
    awk -v l="$(basename "$log")" -v mb="$mb" -v p="$pc" -v c="$cc" -v cr="$cr" 'BEGIN{
      printf "| %s | %d | %.2f | %.2f | %.2fx | %d |\n", l, mb, p, c, c/p, cr }'
  fi
done
if [ "$#" -gt 1 ]; then
  echo
  awk 'NR > 1 && $2 > pp {
      printf "marginal %s -> %s: pass %.2f s, CPU %.2f s, ratio %.2fx", pl, $1, $2 - pp, $3 - pc, ($3 - pc) / ($2 - pp)
      if ($4 != "") printf "; base %.2f s, ratio %.2fx", $4 - pb, ($4 - pb) / ($2 - pp)
      printf "\n" }
    { pl = $1; pp = $2; pc = $3; pb = $4 }' "$tmp/m"
fi
