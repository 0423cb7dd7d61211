#!/usr/bin/env bash
# iQCAR against ground truth on synth tpcds-mix workloads (spec 000 section 5.3; issue 9 item 6).
# For each seed, scheduler mode (FIFO, FAIR) and set of aggressive queries (data x4):
#  - noisy-query accuracy: for every victim, the true noisy queries are synth's culprits ranked
#    by the delay they caused (truth.json contention pairs, cpu+disk+network, others only);
#    top-1 = the first guess is the true first; top-3 = share of the true top 3 in the top 3;
#  - counterfactual: for the most-delayed victim, the workload is re-simulated without each of
#    its concurrent source queries (synth `omit`); Spearman rank correlation between the blame
#    given to each source and the victim's measured speed-up.
# Both for iQCAR (DOR, default and --ie-normalize=median) and the simple-overlap baseline.
# Usage: bench/contention-eval.sh [SEEDS]   (default 5 seeds); prints a Markdown table.
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
CLARITY="${CLARITY:-$ROOT/build/clarity}"
SEEDS="${1:-5}"
W=$(mktemp -d); trap 'rm -rf "$W"' EXIT

run_synth() { # dir seed pool aggressive omit
  { echo "scenario = tpcds-mix"; echo "seed = $2"; echo "pool = $3"; echo "queries = 10"; echo "arrival = 6s"
    [ -n "$4" ] && echo "aggressive = $4"; [ -n "$5" ] && echo "omit = $5"; } >"$W/s.ini"
  "$CLARITY" synth --scenario "$W/s.ini" --no-logs --no-truth-tasks -q -o "$1"
}

for seed in $(seq 1 "$SEEDS"); do
  for pool in fifo fair; do
    for agg in q67 q42,q98; do
      d="$W/$seed-$pool-${agg/,/_}"
      run_synth "$d" "$seed" "$pool" "$agg" ""
      log=$(ls "$d"/eventlogs/*)
      "$CLARITY" contention --json --all --top 100 "$log" >"$d/iq.json"
      "$CLARITY" contention --json --all --top 100 --ie-normalize=median "$log" >"$d/iqn.json"
      victim=$(python3 - "$d/truth.json" <<'PY'
import json, sys
t = json.load(open(sys.argv[1])); d = {}
for p in t["contention"]["pairs"]:
    if p["victim"] != p["culprit"]: d[p["victim"]] = d.get(p["victim"], 0) + p["delay_ms"]
print(max(d, key=d.get) if d else "")
PY
)
      echo "$victim" >"$d/victim"
      [ -z "$victim" ] && continue
      base=$(python3 -c "import json,sys;print([q['runtime_ms'] for q in json.load(open('$d/truth.json'))['queries'] if q['name']=='$victim'][0])")
      : >"$d/cf.tsv"
      for src in $(python3 -c "
import json
t=json.load(open('$d/truth.json'));v=[q for q in t['queries'] if q['name']=='$victim'][0]
print(' '.join(q['name'] for q in t['queries'] if q['name']!='$victim' and q['start_ms']<v['end_ms'] and q['end_ms']>v['start_ms']))"); do
        run_synth "$d/wo-$src" "$seed" "$pool" "$agg" "$src"
        rt=$(python3 -c "import json;print([q['runtime_ms'] for q in json.load(open('$d/wo-$src/truth.json'))['queries'] if q['name']=='$victim'][0])")
        printf '%s\t%s\n' "$src" "$((base - rt))" >>"$d/cf.tsv"
      done
    done
  done
done

python3 - "$W" <<'PY'
import json, os, sys, glob
W = sys.argv[1]
def name(u): return u.split(" ")[-1]
def ranks(v):
    o = sorted(range(len(v)), key=lambda i: v[i]); r = [0.0]*len(v); i = 0
    while i < len(o):
        j = i
        while j + 1 < len(o) and v[o[j+1]] == v[o[i]]: j += 1
        for k in range(i, j+1): r[o[k]] = (i + j) / 2.0
        i = j + 1
    return r
def spearman(a, b):
    if len(a) < 3: return None
    ra, rb = ranks(a), ranks(b); n = len(a)
    ma, mb = sum(ra)/n, sum(rb)/n
    sa = sum((x-ma)**2 for x in ra) ** .5; sb = sum((x-mb)**2 for x in rb) ** .5
    if sa == 0 or sb == 0: return None
    return sum((x-ma)*(y-mb) for x, y in zip(ra, rb)) / (sa*sb)
methods = {"iQCAR (DOR)": ("iq.json", "noisy", "dor"), "iQCAR, --ie-normalize=median": ("iqn.json", "noisy", "dor"),
           "simple-overlap baseline": ("iq.json", "simple_overlap", "share")}
res = {m: {"t1": 0, "t3": 0.0, "n": 0, "rho": []} for m in methods}
runs = 0
for d in sorted(glob.glob(W + "/*-*-*")):
    if "/wo-" in d or not os.path.exists(d + "/truth.json"): continue
    runs += 1
    t = json.load(open(d + "/truth.json")); truth = {}
    for p in t["contention"]["pairs"]:
        if p["victim"] != p["culprit"]:
            truth.setdefault(p["victim"], {}); truth[p["victim"]][p["culprit"]] = truth[p["victim"]].get(p["culprit"], 0) + p["delay_ms"]
    victim = open(d + "/victim").read().strip()
    cf = [l.split("\t") for l in open(d + "/cf.tsv").read().split("\n") if l] if os.path.exists(d + "/cf.tsv") else []
    for m, (f, key, val) in methods.items():
        j = json.load(open(d + "/" + f))
        by = {name(x["target"]): {name(n["query"]): n[val] for n in x[key]} for x in j["targets"]}
        for v, cul in truth.items():
            tr = [c for c, _ in sorted(cul.items(), key=lambda kv: (-kv[1], kv[0]))]
            pr = [c for c, _ in sorted(by.get(v, {}).items(), key=lambda kv: (-kv[1], kv[0]))]
            res[m]["n"] += 1
            res[m]["t1"] += 1 if pr and pr[0] == tr[0] else 0
            k = min(3, len(tr)); res[m]["t3"] += len(set(pr[:3]) & set(tr[:3])) / k
        if cf:
            blame = by.get(victim, {})
            rho = spearman([blame.get(s, 0.0) for s, _ in cf], [float(x) for _, x in cf])
            if rho is not None: res[m]["rho"].append(rho)
print(f"{runs} synth runs (tpcds-mix, 10 queries, seeds x FIFO/FAIR x aggressive {{q67}} or {{q42,q98}} at 4x data)\n")
print("| method | victims | top-1 noisy found | top-3 noisy found | Spearman blame vs speed-up (median, runs) |")
print("|---|---:|---:|---:|---:|")
for m, r in res.items():
    rh = sorted(r["rho"]); med = rh[len(rh)//2] if rh else float("nan")
    print(f"| {m} | {r['n']} | {100*r['t1']/max(1,r['n']):.0f}% | {100*r['t3']/max(1,r['n']):.0f}% | {med:+.2f} ({len(rh)}) |")
PY
