#!/usr/bin/env bash
# clarity serve (issue 18): time to the first full answer and RSS after start, against
# `clarity api` on the same logs in the same run, over
#  - a directory of SERVE_APPS (default 2000) applications: copies of the project's fixture
#    logs with distinct app ids and start times, made in /tmp; cold without a store, cold with
#    an empty store, and a warm restart over that store (the acceptance: /applications in
#    under 1 s); each serve figure is the median of SERVE_REPEATS (3) runs timed by
#    bench/serve_first.py, clarity api the median of as many;
#  - one large synth log (SERVE_SYNTH_DATA of wordcount input, default 64Gi: about 400k tasks;
#    SERVE_SYNTH_DATA=1Ti for a log of about 1 GB): the listing, then a stage list and a task
#    list page (the model loaded on the first request).
# Loopback only. Writes the table to bench/out/serve-results.md as well.
set -euo pipefail
cd "$(cd "${0%/*}" && pwd)/.."
C=$PWD/build/clarity
OUT=bench/out
mkdir -p "$OUT"
RES="$OUT/serve-results.md"
: >"$RES"
die() { echo "bench/serve.sh: $*" >&2; exit 1; }
[ -x "$C" ] || die "build/clarity not built (make build/clarity)"
command -v curl >/dev/null || die "curl not found (apt-get install curl)"
command -v jq >/dev/null || die "jq not found (apt-get install jq)"
say() { echo "$*" | tee -a "$RES"; }
now() { date +%s.%N; }
secs() { awk -v a="$1" -v b="$2" 'BEGIN {printf "%.3f", b - a}'; }
W=$(mktemp -d /tmp/clarity-serve-bench.XXXXXX)
SPID=
cleanup() { [ -n "$SPID" ] && kill "$SPID" 2>/dev/null; wait 2>/dev/null; rm -rf "$W"; }
trap cleanup EXIT

# serve_until NAME DIR WANT [opts]: starts the server, polls /applications until it lists WANT
# applications; prints "seconds_to_first_answer seconds_to_full_listing rss_kB cpu_s": cpu_s is
# the server's CPU time (user + system) when the full listing came, which a loaded machine does
# not inflate as it inflates wall time
serve_until() {
  local name="$1" dir="$2" want="$3"; shift 3
  local t0 t1 t2 port n
  t0=$(now)
  "$C" serve --port 0 "$@" "$dir" >"$W/$name.port" 2>"$W/$name.log" &
  SPID=$!
  while [ -z "$(head -1 "$W/$name.port" 2>/dev/null)" ]; do kill -0 "$SPID" || die "$name: $(cat "$W/$name.log")"; sleep 0.01; done
  port=$(head -1 "$W/$name.port")
  until curl -sf -o "$W/$name.json" -w '%{time_total}' "http://127.0.0.1:$port/api/v1/applications" >"$W/$name.curl"; do sleep 0.01; done
  t1=$(now)
  n=$(jq length "$W/$name.json")
  while [ "$n" -lt "$want" ]; do
    sleep 0.05
    curl -sf -o "$W/$name.json" "http://127.0.0.1:$port/api/v1/applications"; n=$(jq length "$W/$name.json")
  done
  t2=$(now)
  PORT=$port
  local tck; tck=$(getconf CLK_TCK)
  echo "$(secs "$t0" "$t1") $(secs "$t0" "$t2") $(awk '/^VmRSS/ {print $2}' "/proc/$SPID/status") $(awk -v t="$tck" '{printf "%.2f", ($14 + $15) / t}' "/proc/$SPID/stat")"
}
stop() { kill -TERM "$SPID"; wait "$SPID" || true; SPID=; }
# api_time ARGS...: seconds and peak RSS (kB) of clarity api
api_time() {
  /usr/bin/time -f '%e %M' -o "$W/time" "$C" api "$@" >/dev/null
  cat "$W/time"
}

say "## clarity serve: start and first answers"
say ""
say "$(date -u +%FT%TZ), commit $(git rev-parse --short HEAD 2>/dev/null || echo ?), $(nproc) cores, load average $(cut -d' ' -f1 /proc/loadavg)"
say ""

# ---- a directory of many applications ----
n=${SERVE_APPS:-2000}
R=${SERVE_REPEATS:-3}
D="$W/apps"
mkdir -p "$D"
python3 - "$D" "$n" tests/data/mini-3x.json tests/data/spark-3.1-app-20200706201101-0003.json tests/data/spark-1.2-local-1422981780767.json <<'EOF'
import json, sys
out, n, srcs = sys.argv[1], int(sys.argv[2]), sys.argv[3:]
tmpl = [open(s).read().splitlines() for s in srcs]
for i in range(n):
    lines = tmpl[i % len(tmpl)]
    app = "app-bench-%06d" % i
    with open("%s/%s" % (out, app), "w") as f:
        for l in lines:
            if '"SparkListenerApplicationStart"' in l:
                e = json.loads(l); e["App ID"] = app; e["Timestamp"] = 1700000000000 + i * 60000
                l = json.dumps(e, separators=(",", ":"))
            f.write(l + "\n")
EOF
mb=$(du -sm "$D" | cut -f1)
say "### a directory of $n applications ($mb MB; copies of 3 fixture logs with distinct ids)"
say ""
say "Each serve row: $R runs, median; times from the exec to the answer, measured by one Python"
say "process (bench/serve_first.py) with no shell poll in the loop; server CPU and RSS when the full"
say "listing came. clarity api: $R runs, median wall, largest peak RSS."
say ""
say "| run | first answer s | full listing s | server CPU s | RSS after MiB |"
say "|---|---:|---:|---:|---:|"
FIRST="python3 bench/serve_first.py $C"
$FIRST "$D" "$n" "$R" --no-store >"$W/r"; read -r _ a1 f1 c1 r1 < <(tail -1 "$W/r")
say "| serve, no store (first scan before listening) | $a1 | $f1 | $c1 | $((r1 / 1024)) |"
SERVE_FIRST_FRESH=1 $FIRST "$D" "$n" "$R" --store "$W/st.db" >"$W/r"; read -r _ a2 f2 c2 r2 < <(tail -1 "$W/r")
say "| serve, empty store (cold) | $a2 | $f2 | $c2 | $((r2 / 1024)) |"
$FIRST "$D" "$n" "$R" --store "$W/st.db" >"$W/warm"; read -r _ a3 f3 c3 r3 < <(tail -1 "$W/warm")
say "| serve, restart over the store (warm) | $a3 | $f3 | $c3 | $((r3 / 1024)) |"
apis=(); apir=0
for _ in $(seq 1 "$R"); do
  api_time "$D" /api/v1/applications >"$W/r"; read -r s r <"$W/r"
  apis+=("$s"); [ "$r" -gt "$apir" ] && apir=$r
done
s4=$(printf '%s\n' "${apis[@]}" | sort -g | awk '{v[NR]=$1} END {print v[int((NR + 1) / 2)]}')
say "| clarity api DIR /applications (loads every log) | $s4 | $s4 | | $((apir / 1024)) |"
say ""
awk -v f="$f3" 'BEGIN {exit !(f < 1.0)}' && say "warm restart lists all $n applications in $f3 s (median of $R; < 1 s)" ||
  say "warm restart took $f3 s of wall time (median of $R), $c3 s of CPU (load average $(cut -d' ' -f1 /proc/loadavg) on $(nproc) cores)"
say "warm restart runs: $(grep -c '^run' "$W/warm") ($(grep '^run' "$W/warm" | sed 's/.*full \([0-9.]*\) s.*listing step \([0-9.?]*\) s/\1 s (store read \2 s)/' | paste -sd, -))"
say ""

# ---- one large log ----
[ -n "${SERVE_SKIP_SYNTH:-}" ] && exit 0
data=${SERVE_SYNTH_DATA:-64Gi}
S="$W/synth"
"$C" synth wordcount --hosts 20 --cores 16 --data "$data" --split 160Ki --no-logs --no-truth-tasks --seed 7 -q -o "$S"
L="$W/big"; mkdir -p "$L"; mv "$S"/eventlogs/* "$L"/
log=$(ls "$L"/* | head -1)
bytes=$(stat -c %s "$log")
app=$("$C" api "$log" /applications | jq -r '.[0].id')
say "### one synth log ($(awk -v b="$bytes" 'BEGIN {printf "%.0f", b / 1e6}') MB, wordcount --data $data)"
say ""
say "| step | serve s | clarity api s | serve RSS MiB | api peak RSS MiB |"
say "|---|---:|---:|---:|---:|"
serve_until big "$L" 1 --no-store >"$W/r"; read -r a5 f5 r5 c5 <"$W/r"
api_time "$log" /api/v1/applications >"$W/r"; read -r s6 r6 <"$W/r"
say "| start to /applications | $f5 | $s6 | $((r5 / 1024)) | $((r6 / 1024)) |"
for p in "/stages" "/stages/0/0/taskList?length=20&sortBy=-runtime"; do
  t0=$(now); curl -sf -o /dev/null "http://127.0.0.1:$PORT/api/v1/applications/$app$p"; t1=$(now)
  t2=$(now); curl -sf -o /dev/null "http://127.0.0.1:$PORT/api/v1/applications/$app$p"; t3=$(now)
  api_time "$log" "/api/v1/applications/$app$p" >"$W/r"; read -r s7 r7 <"$W/r"
  say "| $p (first: loads the model / again: cached) | $(secs "$t0" "$t1") / $(secs "$t2" "$t3") | $s7 | $(( $(awk '/^VmRSS/ {print $2}' "/proc/$SPID/status") / 1024 )) | $((r7 / 1024)) |"
done
stop
say ""
say "Published History Server figures (issue 18, for scale, not measured here): 18 GB of logs"
say "listed in 47 min; 2.3 GB replayed in 68 s in memory or 434 s on LevelDB; first scans of a"
say "large directory taking hours; memory about the size of the logs."
