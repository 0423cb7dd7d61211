#!/usr/bin/env python3
"""`clarity findings` against synth ground truth (issue 16 part 3; driven by bench/findings-eval.sh).

For every seed and workload the clean run (no knob) is simulated, then one run per knob that
injects a finding kind (docs/synth.md "Injected problems"). Each run's truth.json lists the
problems it has ("findings": kind, secondary). `clarity findings --json` runs on every event log.

Scoring, per kind K (a run counts once per kind, however many stages the kind fires on):
  precision  runs where a K finding is reported and the truth has K (primary or secondary),
             over the runs where a K finding is reported (clean runs included: they are the
             negatives);
  recall     runs whose knob injected K (a primary K entry) and that get a K finding, over
             the runs whose knob injected K;
  saving     the reported saving of the problems the knob caused against the true saving: the
             knob run's runtime minus the clean run's (the same seed and options without the
             knob). Removing the knob removes every problem it caused, so the reported side
             is the saving_ms of that run's findings of every kind the truth lists with the
             knob's own knob string (a small --executor-memory: spill and GC pressure; a hot
             key: skew and the hot task's spill; tiny tasks: their scheduler delay), summed.
             For idle_executors the cost is core time: saving_core_ms against the difference
             in executor core time allocated. The error is |reported - true| / true over the
             detected runs whose true saving is at least 2% of the clean run's (below that the
             re-run's own noise, a shifted schedule, is as large as the effect: those runs are
             counted, not scored).

The ORACLE=1 mode replaces `clarity findings` by the truth itself, with savings of 0.9 x the true
one: the scorer must then print precision 1, recall 1 and a 10% error for every kind (a check of
this script, not of the findings).
"""
import concurrent.futures as cf
import json
import os
import statistics
import subprocess
import sys

CLARITY = os.environ.get("CLARITY", "build/clarity")
FINDINGS = os.environ.get("FINDINGS_CMD", "")  # default: CLARITY findings --json
QUICK = os.environ.get("QUICK", "") not in ("", "0")
ORACLE = os.environ.get("ORACLE", "") not in ("", "0")
JOBS = int(os.environ.get("JOBS", "2"))
WORK = sys.argv[1]
SEEDS = [int(x) for x in (sys.argv[2] if len(sys.argv) > 2 else "11 12 13 14 15").replace(",", " ").split()]

# Workload sizes kept small: every run is simulated, then analysed; the full evaluation must
# stay under ~10 minutes on 2 cores.
WORKLOADS = {
    "wordcount": ["wordcount", "--data", "8Gi"],
    "sort": ["sort", "--data", "4Gi"],
    "kmeans": ["kmeans", "--data", "2Gi", "--iterations", "3"],
    "pagerank": ["pagerank", "--data", "1Gi", "--iterations", "3"],
    "tpcds-mix": ["tpcds-mix", "--data", "4Gi", "--queries", "4", "--arrival", "5s"],
}

# kind -> (workloads where the knob applies, knob options; a callable gets the clean run)
def kill_opts(seed, clean):
    # the executor that dies, at 30% of the clean runtime: mid-run for every workload
    return ["--kill-executor", "%d@%.1fs" % (seed % 4, 0.3 * clean["runtime_ms"] / 1000.0)]

def slow_opts(seed, clean):
    return ["--fault", "cpu-hog@host%d:0.8" % (seed % 4 + 1)]

KNOBS = {
    "data_skew": (["wordcount", "sort", "pagerank", "tpcds-mix"], ["--skew-key", "0.3"]),
    "spill": (["wordcount", "sort", "pagerank", "tpcds-mix"], ["--executor-memory", "1Gi"]),
    "too_few_partitions": (["wordcount", "sort", "pagerank", "tpcds-mix"], ["--partitions", "6"]),
    "tiny_tasks": (["wordcount", "sort", "pagerank"], ["--partitions", "20000"]),
    "idle_executors": (["wordcount", "sort", "kmeans"], ["--idle-executors", "4"]),
    "task_failures": (["wordcount", "sort", "kmeans", "pagerank", "tpcds-mix"], ["--failure-rate", "0.1"]),
    "lost_executors": (["wordcount", "sort", "kmeans", "pagerank"], kill_opts),
    "gc_pressure": (["wordcount", "kmeans", "pagerank", "tpcds-mix"], ["--gc-pressure", "20"]),
    "driver_bound": (["wordcount", "sort", "kmeans", "pagerank", "tpcds-mix"], ["--driver-gap", "3s"]),
    "slow_host": (["wordcount", "sort", "kmeans", "pagerank"], slow_opts),
}
# options a kind's runs and their clean counterpart share: over-provisioning needs a job smaller
# than the cluster (2 GiB: 16 input tasks on 32-64 slots)
BASE = {"idle_executors": ["--data", "2Gi"]}
if QUICK:
    SEEDS = SEEDS[:1]
    KNOBS = {k: (w[:1], o) for k, (w, o) in KNOBS.items()}


def hosts(seed):
    return 4 + seed % 5   # 4..8 hosts, varied with the seed


def synth(name, wl, seed, extra):
    d = os.path.join(WORK, name)
    args = [CLARITY, "synth"] + WORKLOADS[wl] + ["--seed", str(seed), "--hosts", str(hosts(seed)),
                                                 "--no-logs", "--no-truth-tasks", "-q", "-o", d] + extra
    subprocess.run(["rm", "-rf", d], check=True)
    subprocess.run(args, check=True)
    with open(os.path.join(d, "truth.json")) as f:
        t = json.load(f)
    log = os.path.join(d, t["application"]["eventlog"])
    end = t["application"]["end_ms"]
    core_ms = sum(((e["removed_ms"] if e["removed_ms"] is not None else end) - e["added_ms"]) * e["cores"]
                  for e in t["cluster"]["executors"])
    return {"dir": d, "log": log, "runtime_ms": t["application"]["runtime_ms"], "core_ms": core_ms,
            "truth": t.get("findings", []), "args": args}


def findings(run):
    if ORACLE:
        return None
    cmd = FINDINGS.split() if FINDINGS else [CLARITY, "findings", "--json"]
    p = subprocess.run(cmd + [run["log"]], capture_output=True, text=True)
    if p.returncode not in (0, 1):
        return {"error": "exit %d: %s" % (p.returncode, p.stderr.strip()[:200])}
    try:
        doc = json.loads(p.stdout)
    except ValueError as e:
        return {"error": "bad JSON: %s" % e}
    if doc.get("schema") != "clarity.findings/1" or not doc.get("applications"):
        return {"error": "not clarity.findings/1"}
    return {"findings": doc["applications"][0].get("findings", [])}


def clean_job(wl, seed, base):
    return synth("clean-%s-%d%s" % (wl, seed, "".join(base)), wl, seed, list(base))


def knob_job(kind, wl, seed, clean):
    opts = KNOBS[kind][1]
    extra = opts(seed, clean) if callable(opts) else list(opts)
    return synth("%s-%s-%d" % (kind, wl, seed), wl, seed, BASE.get(kind, []) + extra)


def main():
    os.makedirs(WORK, exist_ok=True)
    wls = sorted({w for ws, _ in KNOBS.values() for w in ws}, key=list(WORKLOADS).index)
    runs = []   # (kind or None, wl, seed, run, clean)
    with cf.ThreadPoolExecutor(JOBS) as ex:
        keys = {(wl, s, tuple(BASE.get(kind, []))) for kind, (ws, _) in KNOBS.items() for wl in ws for s in SEEDS}
        keys |= {(wl, s, ()) for wl in wls for s in SEEDS}
        cleans = {k: ex.submit(clean_job, *k) for k in sorted(keys)}
        cleans = {k: v.result() for k, v in cleans.items()}
        ck = lambda kind, wl, s: cleans[(wl, s, tuple(BASE.get(kind, [])))]
        futs = [(kind, wl, s, ex.submit(knob_job, kind, wl, s, ck(kind, wl, s)))
                for kind, (ws, _) in KNOBS.items() for wl in ws for s in SEEDS]
        runs = [(None, wl, s, c, c) for (wl, s, b), c in cleans.items()]
        runs += [(kind, wl, s, f.result(), ck(kind, wl, s)) for kind, wl, s, f in futs]
        found = list(ex.map(lambda r: findings(r[3]), runs))

    kinds = list(KNOBS)
    stat = {k: {"tp": 0, "fp": 0, "inj": 0, "hit": 0, "err": [], "nonpos": 0, "fp_where": []} for k in kinds}
    errors, details = [], []
    for (kind, wl, seed, run, clean), fd in zip(runs, found):
        truth_all = {e["kind"] for e in run["truth"]}
        truth_primary = {e["kind"] for e in run["truth"] if not e.get("secondary")}
        true_wall = run["runtime_ms"] - clean["runtime_ms"]
        true_core = run["core_ms"] - clean["core_ms"]
        if fd is None:   # ORACLE: the truth's primary kinds, each saving 0.9 x the true one
            fs = [{"kind": k, "saving_ms": 0.9 * true_wall, "saving_core_ms": 0.9 * true_core} for k in truth_primary]
        elif "error" in fd:
            errors.append("%s: %s" % (run["dir"], fd["error"]))
            continue
        else:
            fs = fd["findings"]
        reported = {}
        for f in fs:
            r = reported.setdefault(f["kind"], {"saving_ms": 0, "saving_core_ms": 0})
            r["saving_ms"] += f.get("saving_ms") or 0
            r["saving_core_ms"] += f.get("saving_core_ms") or 0
        for k, r in reported.items():
            s = stat.setdefault(k, {"tp": 0, "fp": 0, "inj": 0, "hit": 0, "err": [], "nonpos": 0, "fp_where": []})
            if k in truth_all:
                s["tp"] += 1
            else:
                s["fp"] += 1
                s["fp_where"].append("%s/%s/%d" % (kind or "clean", wl, seed))
        own_knob = {e["knob"] for e in run["truth"] if e["kind"] == kind and not e.get("secondary")}
        group = {e["kind"] for e in run["truth"] if e["knob"] in own_knob}
        det = {"kind": kind, "workload": wl, "seed": seed, "runtime_ms": run["runtime_ms"],
               "clean_runtime_ms": clean["runtime_ms"], "reported": reported, "truth": sorted(truth_all)}
        if kind and kind in truth_primary:
            s = stat[kind]
            s["inj"] += 1
            if kind in reported:
                s["hit"] += 1
                idle = kind == "idle_executors"
                true = true_core if idle else true_wall
                est = sum(reported[k]["saving_core_ms" if idle else "saving_ms"] for k in group if k in reported)
                det.update(true_saving=true, est_saving=est, group=sorted(group))
                if true >= 0.02 * (clean["core_ms"] if idle else clean["runtime_ms"]):
                    s["err"].append(abs(est - true) / true)
                else:
                    s["nonpos"] += 1
        elif kind:
            det["not_injected"] = True   # the knob left no primary entry (e.g. the executor was gone)
        details.append(det)
    with open(os.path.join(WORK, "details.json"), "w") as f:
        json.dump({"seeds": SEEDS, "runs": details, "errors": errors}, f, indent=1)

    def q(v, p):
        v = sorted(v)
        return v[min(len(v) - 1, int(p * len(v)))] if v else float("nan")

    print("clarity findings against synth truth: seeds %s, %d runs (%d clean), hosts 4-8%s"
          % (",".join(map(str, SEEDS)), len(runs), sum(1 for r in runs if r[0] is None),
             ", ORACLE (the scorer's self-check)" if ORACLE else ""))
    print()
    print("| kind | workloads | precision | recall | saving error median | p90 | within 25% | true saving < 2% |")
    print("|---|---|---:|---:|---:|---:|---:|---:|")
    for k in list(stat):
        s = stat[k]
        if k not in KNOBS and not (s["tp"] + s["fp"]):
            continue
        prec = "%d/%d = %.2f" % (s["tp"], s["tp"] + s["fp"], s["tp"] / (s["tp"] + s["fp"])) if s["tp"] + s["fp"] else "-"
        rec = "%d/%d = %.2f" % (s["hit"], s["inj"], s["hit"] / s["inj"]) if s["inj"] else "-"
        e = s["err"]
        med = "%.0f%%" % (100 * statistics.median(e)) if e else "-"
        p90 = "%.0f%%" % (100 * q(e, 0.9)) if e else "-"
        w25 = "%d/%d" % (sum(1 for x in e if x <= 0.25), len(e)) if e else "-"
        wl = ",".join(KNOBS[k][0]) if k in KNOBS else "(no knob)"
        print("| %s | %s | %s | %s | %s | %s | %s | %d |" % (k, wl, prec, rec, med, p90, w25, s["nonpos"]))
    fps = {k: s["fp_where"] for k, s in stat.items() if s["fp_where"]}
    if fps:
        print()
        print("False positives (run: knob/workload/seed):")
        for k, w in fps.items():
            print("  %s: %s%s" % (k, " ".join(w[:8]), " ..." if len(w) > 8 else ""))
    if errors:
        print()
        print("%d runs without findings output, e.g. %s" % (len(errors), errors[0]))
    return 1 if errors and len(errors) == len(runs) else 0


if __name__ == "__main__":
    sys.exit(main())
