#!/usr/bin/env python3
"""What each injected fault leaves in synth's logs: victim host against the other hosts.

Runs wordcount, sort, kmeans and pagerank on 4 hosts as bench/anomalies-eval.sh does (fault on
host (seed mod 4)+1 from 20% to 80% of the fault-free runtime) and prints, per scenario x fault
at one intensity, the median over the seeds of:
  dur    victim / other hosts: mean task duration (tasks launched in the fault window)
  cpu/run  victim / others: sum executorCpuTime / sum executorRunTime
  gc     victim / others: JVM GC Time share of run time
  fw     victim / others: fetch wait share of run time
  fwO    other hosts' fetch wait share under the fault / the same hosts' share, fault-free run
  sw     victim / others: shuffle write time per byte written
  dcoV dcoO  GC log: mean real/(user+sys) on the victim, on the other hosts (records in the window)
  gcN    GC count on the victim / mean of the others (window)
and, per fault kind and intensity, the fraction of runs whose truth has affected_tasks > 0.
Not part of `make check`; used for docs/synth.md's table.
Usage: tests/synth/fault-effects.py [--bin build/clarity] [--work DIR] [--seeds 1,2,3]
       [--affected-seeds 1,2,3,11,12,13] [--low]   (--low: the lower intensity of each kind)
"""
import argparse, glob, json, os, re, statistics, subprocess, sys
from concurrent.futures import ThreadPoolExecutor

SCEN = ["wordcount", "sort", "kmeans", "pagerank"]
FAULTS = ["cpu-hog", "memory-hog", "disk-hog", "network"]
# intensities as bench/anomalies-eval.sh: the throttle at 0.9 and 0.98 (1 Gbps, 250 Mbps of 10 GbE)
XS = {"network": ("0.9", "0.98")}


def xs(f):
    return XS.get(f, ("0.5", "0.8"))
HOSTS = 4


def run(binp, work, sc, fault, x, seed):
    d = f"{work}/{sc}-{fault}-{x}-{seed}"
    if os.path.exists(d + "/truth.json"):
        return d
    args = []
    if fault != "none":
        base = run(binp, work, sc, "none", 0, seed)
        rt = json.load(open(base + "/truth.json"))["application"]["runtime_ms"]
        h, a, b = seed % HOSTS + 1, rt // 5000, rt * 4 // 5000
        args = ["--fault", f"{fault}@host{h}:{a}s-{b}s:{x}"]
    subprocess.run([binp, "synth", sc, "--seed", str(seed), "--hosts", str(HOSTS), *args, "-q", "-o", d], check=True)
    return d


def tasks(d):
    out = []
    for f in glob.glob(d + "/eventlogs/*"):
        for line in open(f):
            if '"SparkListenerTaskEnd"' not in line:
                continue
            e = json.loads(line)
            i, m = e["Task Info"], e["Task Metrics"]
            if i["Failed"] or i["Killed"]:
                continue
            sr, sw = m["Shuffle Read Metrics"], m["Shuffle Write Metrics"]
            out.append(dict(host=i["Host"], launch=i["Launch Time"], dur=i["Finish Time"] - i["Launch Time"],
                            run=m["Executor Run Time"], cpu=m["Executor CPU Time"] / 1e6, gc=m["JVM GC Time"],
                            fw=sr["Fetch Wait Time"], swt=sw["Shuffle Write Time"] / 1e6, swb=sw["Shuffle Bytes Written"]))
    return out


GC8 = re.compile(r"^(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3})\+0000: .*Times: user=([\d.]+) sys=([\d.]+), real=([\d.]+)")


def gcrecs(d, start_ms):
    import datetime
    out = {}
    for f in glob.glob(d + "/gc/*.log"):
        host = os.path.basename(f).split("-")[0]
        for line in open(f):
            m = GC8.match(line)
            if not m:
                continue
            t = datetime.datetime.strptime(m.group(1), "%Y-%m-%dT%H:%M:%S.%f").replace(tzinfo=datetime.timezone.utc)
            ms = int(t.timestamp() * 1000)
            out.setdefault(host, []).append((ms, float(m.group(2)), float(m.group(3)), float(m.group(4))))
    return out


def ratio(v, o):
    return v / o if o > 0 else float("nan")


def measure(d, base):
    t = json.load(open(d + "/truth.json"))
    f = t["faults"][0]
    vh, ws, we = f["host"], f["start_ms"], f["end_ms"]
    T = [k for k in tasks(d) if ws <= k["launch"] < we]
    B = [k for k in tasks(base) if ws <= k["launch"] < we]
    hosts = sorted({k["host"] for k in T} | {vh})

    def per(ts, fn):
        return {h: fn([k for k in ts if k["host"] == h]) for h in hosts}

    def vo(ts, fn):
        p = per(ts, fn)
        o = [p[h] for h in hosts if h != vh and p[h] == p[h]]
        return ratio(p[vh], statistics.mean(o)) if o and p[vh] == p[vh] else float("nan")

    mean_dur = lambda ks: statistics.mean(k["dur"] for k in ks) if ks else float("nan")
    share = lambda key: (lambda ks: sum(k[key] for k in ks) / max(1, sum(k["run"] for k in ks)) if ks else float("nan"))
    swper = lambda ks: (sum(k["swt"] for k in ks) / sum(k["swb"] for k in ks)) if sum(k["swb"] for k in ks) > 0 else float("nan")
    oth = lambda ts: [k for k in ts if k["host"] != vh]
    fwo = ratio(share("fw")(oth(T)) + 1e-4, share("fw")(oth(B)) + 1e-4)
    g = gcrecs(d, t["application"]["start_ms"])
    dco, cnt = {}, {}
    for h in hosts:
        rs = [r for r in g.get(h, []) if ws <= r[0] < we]
        cnt[h] = len(rs)
        q = [r[3] / (r[1] + r[2]) for r in rs if r[1] + r[2] >= 0.01]
        dco[h] = statistics.mean(q) if q else float("nan")
    od = [dco[h] for h in hosts if h != vh and dco[h] == dco[h]]
    oc = [cnt[h] for h in hosts if h != vh]
    return dict(dur=vo(T, mean_dur), cpu=vo(T, share("cpu")), gc=vo(T, share("gc")), fw=vo(T, share("fw")), fwO=fwo,
                sw=vo(T, swper), dcoV=dco[vh], dcoO=statistics.mean(od) if od else float("nan"),
                gcN=ratio(cnt[vh], statistics.mean(oc)) if oc else float("nan"))


def med(xs):
    xs = [x for x in xs if x == x]
    return statistics.median(xs) if xs else float("nan")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--bin", default="build/clarity")
    ap.add_argument("--work", default="/tmp/fault-effects")
    ap.add_argument("--seeds", default="1,2,3")
    ap.add_argument("--affected-seeds", default="1,2,3,11,12,13")
    ap.add_argument("--low", action="store_true", help="the lower intensity of each kind (default: the higher)")
    ap.add_argument("-j", type=int, default=2)
    a = ap.parse_args()
    binp = os.path.abspath(a.bin)
    os.makedirs(a.work, exist_ok=True)
    seeds = [int(s) for s in a.seeds.split(",")]
    aseeds = [int(s) for s in a.affected_seeds.split(",")]
    with ThreadPoolExecutor(a.j) as ex:
        list(ex.map(lambda p: run(binp, a.work, p[0], "none", 0, p[1]), [(sc, s) for sc in SCEN for s in set(seeds + aseeds)]))
        jobs = [(sc, f, x, s) for sc in SCEN for f in FAULTS for x in xs(f) for s in set(seeds + aseeds)]
        list(ex.map(lambda p: run(binp, a.work, *p), jobs))
    cols = ["dur", "cpu", "gc", "fw", "fwO", "sw", "dcoV", "dcoO", "gcN"]
    pick = 0 if a.low else 1
    print(f"Victim host vs other hosts, fault intensity {'0.5 (network 0.9)' if a.low else '0.8 (network 0.98)'}, median over seeds {a.seeds} (tasks launched in the fault window)\n")
    print("| scenario | fault | dur | cpu/run | gc share | fetch-wait share | others' fetch wait vs fault-free | sw time/byte | DCO victim | DCO others | GC count |")
    print("|---|---|" + "---:|" * len(cols))
    for sc in SCEN:
        for f in FAULTS:
            ms = [measure(f"{a.work}/{sc}-{f}-{xs(f)[pick]}-{s}", f"{a.work}/{sc}-none-0-{s}") for s in seeds]
            print(f"| {sc} | {f} | " + " | ".join(f"{med([m[c] for m in ms]):.2f}" for c in cols) + " |")
    print("\nFraction of fault runs whose truth has affected_tasks > 0 (seeds " + a.affected_seeds + ", 4 scenarios)\n")
    print("| fault | lower intensity | higher intensity |")
    print("|---|---:|---:|")
    for f in FAULTS:
        row = []
        for x in xs(f):
            n = k = 0
            for sc in SCEN:
                for s in aseeds:
                    t = json.load(open(f"{a.work}/{sc}-{f}-{x}-{s}/truth.json"))
                    n += 1
                    k += t["faults"][0]["affected_tasks"] > 0
            row.append(f"{k}/{n} ({k / n:.2f})")
        print(f"| {f} | " + " | ".join(row) + " |")
    ff = []
    for sc in SCEN:
        for s in aseeds:
            t = json.load(open(f"{a.work}/{sc}-none-0-{s}/truth.json"))
            ff.append(f"{sc}:{s}={t['application']['abnormal_tasks']}")
    print("\nFault-free runs, abnormal tasks in truth: " + " ".join(ff))


if __name__ == "__main__":
    main()
