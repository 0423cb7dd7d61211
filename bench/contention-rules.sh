#!/usr/bin/env bash
# iQCAR's scheduler rules applied in a re-run (AGG and DYNP, the paper's section 6.3; its
# Section 7.3: victim's slot wait -56%, runtime -53%, total workload -31%).
# For each seed and scheduler mode (FIFO, FAIR), on synth tpcds-mix with one aggressive query:
#  1. run the workload (BASE) and `clarity contention --rules`;
#  2. R-AGG: the top AGG rule's query goes alone into a pool with share rule-value (1/n)
#     (synth `query-pool = NAME:SHARE`); re-run the same seed;
#  3. R-DYNP: the top DYNP rule (rank 1 target, P_orig + 1) sets that query's priority
#     (synth `query-priority = NAME:P`); re-run the same seed.
# One rule per re-run, as the paper did. Measured from the event logs: slot wait (SWT) of a
# query = sum over its task attempts of Launch Time - its stage's Submission Time; runtime =
# SQLExecutionStart to End; total workload = sum of every query's runtime. DOR comes from
# `clarity contention --all` on each run.
#  R-AGG: victims = the queries that received DOR > 0 from the moved query in BASE; the table
#         shows the top victim, the moved query's summed DOR toward all its BASE victims, and
#         the share of victims that got faster.
#  R-DYNP: the promoted query itself is the victim; the table shows the DOR it receives from
#         the BASE top aggressive query and from all other queries.
# Usage: bench/contention-rules.sh [SEEDS] [AGGRESSIVE]   (default 5 seeds, q67); prints
# Markdown tables, one row per run, then the medians.
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
CLARITY="${CLARITY:-$ROOT/build/clarity}"
SEEDS="${1:-5}"
AGG="${2:-q67}"
W=$(mktemp -d); trap 'rm -rf "$W"' EXIT

run_synth() { # dir seed pool extra-ini-line
  { echo "scenario = tpcds-mix"; echo "seed = $2"; echo "pool = $3"; echo "queries = 10"; echo "arrival = 6s"
    echo "aggressive = $AGG"; [ -n "$4" ] && echo "$4"; } >"$1.ini"
  "$CLARITY" synth --scenario "$1.ini" --no-logs --no-truth-tasks -q -o "$1"
  "$CLARITY" contention --json --all --top 100 --rules "$1/rules.json" "$1"/eventlogs/* >"$1/iq.json"
}

# the synth query name of an iQCAR unit ("TPC-DS q67" -> q67)
top_rule() { # rules.json type qtype -> "name value"
  jq -r --arg t "$2" --arg q "$3" '[.[] | select(.["rule-type"] == $t and .["query-type"] == $q)]
    | sort_by(.["rule-order"]) | .[0] | "\(.["query-id"] | split(" ") | last) \(.["rule-value"])"' "$1"
}

for seed in $(seq 1 "$SEEDS"); do
  for pool in fifo fair; do
    d="$W/$seed-$pool"
    run_synth "$d-base" "$seed" "$pool" ""
    read -r aq av < <(top_rule "$d-base/rules.json" AGG Source)
    read -r tq tv < <(top_rule "$d-base/rules.json" DYNP Target)
    echo "$aq $av" >"$d-agg.rule"; echo "$tq $tv" >"$d-dynp.rule"
    run_synth "$d-agg" "$seed" "$pool" "query-pool = $aq:$av"
    run_synth "$d-dynp" "$seed" "$pool" "query-priority = $tq:$tv"
  done
done

python3 - "$W" "$SEEDS" "$AGG" <<'PY'
import json, os, sys, statistics
W, SEEDS, AGG = sys.argv[1], int(sys.argv[2]), sys.argv[3]

def measure(run):
    """Per query (synth name): slot wait and runtime in ms, from the event log."""
    d = os.path.join(W, run, "eventlogs")
    submit, stage_q, job_q, sql_name, start, end = {}, {}, {}, {}, {}, {}
    swt = {}
    with open(os.path.join(d, os.listdir(d)[0])) as f:
        for line in f:
            e = json.loads(line)
            ev = e["Event"]
            if ev == "SparkListenerJobStart":
                x = e.get("Properties", {}).get("spark.sql.execution.id")
                for s in e["Stage IDs"]:
                    if x is not None: stage_q[s] = int(x)
            elif ev == "SparkListenerStageSubmitted":
                si = e["Stage Info"]
                submit.setdefault(si["Stage ID"], si["Submission Time"])
            elif ev == "SparkListenerTaskEnd":
                s, ti = e["Stage ID"], e["Task Info"]
                q = stage_q.get(s)
                if q is not None: swt[q] = swt.get(q, 0) + ti["Launch Time"] - submit[s]
            elif ev.endswith("SparkListenerSQLExecutionStart"):
                sql_name[e["executionId"]] = e["description"].split(" ")[-1]
                start[e["executionId"]] = e["time"]
            elif ev.endswith("SparkListenerSQLExecutionEnd"):
                end[e["executionId"]] = e["time"]
    return {sql_name[x]: {"swt": swt.get(x, 0), "rt": end[x] - start[x]} for x in sql_name}

def dor(run):
    """dor[target][source], and DOR received from others per target, by synth name."""
    j = json.load(open(os.path.join(W, run, "iq.json")))
    n = lambda u: (u or "").split(" ")[-1]
    m, recv = {}, {}
    for t in j["targets"]:
        m[n(t["target"])] = {n(x["query"]): x["dor"] for x in t["noisy"]}
        recv[n(t["target"])] = t["dor_from_others"]
    return m, recv

def pct(a, b): return 100.0 * (b - a) / a if a else 0.0
def f(a, b): return f"{a/1000:.{0 if a >= 1e6 else 1}f} → {b/1000:.{0 if a >= 1e6 else 1}f} s ({pct(a, b):+.0f}%)"

agg_rows, dynp_rows = [], []
for seed in range(1, SEEDS + 1):
    for pool in ("fifo", "fair"):
        d = f"{seed}-{pool}"
        base, db = measure(d + "-base"), dor(d + "-base")
        tot0 = sum(q["rt"] for q in base.values())
        # R-AGG
        aq, av = open(os.path.join(W, d + "-agg.rule")).read().split()
        after, da = measure(d + "-agg"), dor(d + "-agg")
        victims = {t: s[aq] for t, s in db[0].items() if s.get(aq, 0) > 0 and t != aq}
        if victims:
            v = max(victims, key=victims.get)
            d0 = sum(victims.values()); d1 = sum(da[0].get(t, {}).get(aq, 0) for t in victims)
            faster = sum(1 for t in victims if after[t]["rt"] < base[t]["rt"])
            tot1 = sum(q["rt"] for q in after.values())
            agg_rows.append(dict(seed=seed, pool=pool.upper(), q=aq, share=float(av), v=v, nv=len(victims), faster=faster,
                                 swt=(base[v]["swt"], after[v]["swt"]), rt=(base[v]["rt"], after[v]["rt"]),
                                 qrt=(base[aq]["rt"], after[aq]["rt"]), dor=(d0, d1), tot=(tot0, tot1)))
        # R-DYNP
        tq, tv = open(os.path.join(W, d + "-dynp.rule")).read().split()
        after, dd = measure(d + "-dynp"), dor(d + "-dynp")
        ja = json.load(open(os.path.join(W, d + "-base", "iq.json")))
        top = ja["aggressive"][0]["query"].split(" ")[-1] if ja["aggressive"] else ""
        tot1 = sum(q["rt"] for q in after.values())
        dynp_rows.append(dict(seed=seed, pool=pool.upper(), q=tq, p=float(tv), top=top,
                              swt=(base[tq]["swt"], after[tq]["swt"]), rt=(base[tq]["rt"], after[tq]["rt"]),
                              dtop=(db[0].get(tq, {}).get(top, 0), dd[0].get(tq, {}).get(top, 0)),
                              drecv=(db[1].get(tq, 0), dd[1].get(tq, 0)), tot=(tot0, tot1)))

def med(rows, k): return statistics.median(pct(*r[k]) for r in rows)

print("R-AGG: the top aggressive query alone in a pool with share 1/n (one rule per re-run)\n")
print("| seed | mode | moved query (share) | top victim | victim slot wait (task-s) | victim runtime | moved query runtime "
      "| its DOR toward its BASE victims | victims faster | total workload |")
print("|---|---|---|---|---|---|---|---|---|---|")
for r in agg_rows:
    print(f"| {r['seed']} | {r['pool']} | {r['q']} ({r['share']:.3g}) | {r['v']} | {f(*r['swt'])} | {f(*r['rt'])} | {f(*r['qrt'])} "
          f"| {r['dor'][0]:.2f} → {r['dor'][1]:.2f} | {r['faster']}/{r['nv']} | {f(*r['tot'])} |")
if agg_rows:
    print(f"| **median** | | | | **{med(agg_rows, 'swt'):+.0f}%** | **{med(agg_rows, 'rt'):+.0f}%** | {med(agg_rows, 'qrt'):+.0f}% "
          f"| {med(agg_rows, 'dor'):+.0f}% | | **{med(agg_rows, 'tot'):+.0f}%** |")
    inj = [r for r in agg_rows if r["q"] == AGG]
    if inj:   # the runs where iQCAR's top aggressive query is the one made heavier
        print(f"| median, moved = {AGG} ({len(inj)} runs) | | | | {med(inj, 'swt'):+.0f}% | {med(inj, 'rt'):+.0f}% "
              f"| {med(inj, 'qrt'):+.0f}% | {med(inj, 'dor'):+.0f}% | | {med(inj, 'tot'):+.0f}% |")
print("\nR-DYNP: the most-affected query's priority raised to P_orig + 1 (one rule per re-run)\n")
print("| seed | mode | promoted query (P) | its slot wait (task-s) | its runtime | DOR from the top aggressive query "
      "| DOR from all others | total workload |")
print("|---|---|---|---|---|---|---|---|")
for r in dynp_rows:
    print(f"| {r['seed']} | {r['pool']} | {r['q']} ({r['p']:g}) | {f(*r['swt'])} | {f(*r['rt'])} "
          f"| {r['top']} {r['dtop'][0]:.2f} → {r['dtop'][1]:.2f} | {r['drecv'][0]:.2f} → {r['drecv'][1]:.2f} | {f(*r['tot'])} |")
if dynp_rows:
    print(f"| **median** | | | **{med(dynp_rows, 'swt'):+.0f}%** | **{med(dynp_rows, 'rt'):+.0f}%** | {med(dynp_rows, 'dtop'):+.0f}% "
          f"| {med(dynp_rows, 'drecv'):+.0f}% | **{med(dynp_rows, 'tot'):+.0f}%** |")
PY
