#!/usr/bin/env python3
"""Where the knob run and its counterpart placed the tasks of a stage differently (fnd32).

gc_pressure's estimate keeps every task on the executor it ran on and removes its GC. On the
TPC-DS mixes the counterpart (the same seed without the knob) can place a concurrent query's
scan stage differently: its earlier queries end sooner, other slots are free when the scan is
submitted, and more or fewer of its tasks read their input on one host at once. Their time
outside GC then moves by seconds, which no GC model of the knob run's log sees.

Per gc_pressure run of a TPC-DS mix in EVAL_DIR (scored by bench/findings-eval.sh, its
details.json there): the error of the estimate against the median truth, and per stage of at
most MAX_TASKS tasks (the mixes' scans; their 200-task shuffle stages spread evenly, differently
in every run and to no effect) whose tasks per executor differ between the two runs (sorted
counts): the change of the stage's time outside GC (knob minus counterpart, summed over its
tasks) and of its longest task's.
Results: docs/findings-rounds.md "This round (fnd32)".
   python3 bench/findings-gc-placement.py EVAL_DIR [EVAL_DIR...]
"""
import collections
import glob
import json
import os
import subprocess
import sys

MAX_TASKS = 20


def stages(log):
    """per stage id: [(executor, ms outside GC)] of its ended attempts"""
    cmd = ["zstd", "-dc", log] if log.endswith(".zstd") else ["cat", log]
    out = subprocess.run(cmd, capture_output=True, check=True).stdout.decode()
    st = collections.defaultdict(list)
    for line in out.splitlines():
        e = json.loads(line)
        if e.get("Event") != "SparkListenerTaskEnd":
            continue
        i, m = e["Task Info"], e.get("Task Metrics") or {}
        st[e["Stage ID"]].append((i["Executor ID"], i["Finish Time"] - i["Launch Time"] - m.get("JVM GC Time", 0)))
    return st


def log_of(d):
    logs = glob.glob(os.path.join(d, "eventlogs", "*"))
    return logs[0] if logs else None


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    for d in sys.argv[1:]:
        runs = json.load(open(os.path.join(d, "details.json")))["runs"]
        for r in runs:
            if r.get("kind") != "gc_pressure" or r.get("workload") != "tpcds-mix" or "est_saving" not in r:
                continue
            s = r["seed"]
            k, c = log_of(os.path.join(d, "gc_pressure-tpcds-mix-%d" % s)), log_of(os.path.join(d, "clean-tpcds-mix-%d" % s))
            if not k or not c:
                continue
            t, e = r["true_saving"], r["est_saving"]
            ks, cs = stages(k), stages(c)
            moved = []
            for sid in sorted(ks):
                if len(ks[sid]) > MAX_TASKS:
                    continue
                pk = sorted(collections.Counter(x[0] for x in ks[sid]).values(), reverse=True)
                pc = sorted(collections.Counter(x[0] for x in cs.get(sid, [])).values(), reverse=True)
                if pk != pc:
                    moved.append("stage %d %s -> %s: outside GC %+d ms, longest %+d ms" % (
                        sid, pk, pc, sum(x[1] for x in ks[sid]) - sum(x[1] for x in cs[sid]),
                        max(x[1] for x in ks[sid]) - max(x[1] for x in cs[sid])))
            print("%s mix %d: true %d est %d (%+.0f%%), truths %s; %s" % (
                os.path.basename(d.rstrip("/")), s, t, e, 100.0 * (e - t) / t if t else 0.0,
                r.get("true_perts"), "; ".join(moved) if moved else "placement the same"))


if __name__ == "__main__":
    main()
