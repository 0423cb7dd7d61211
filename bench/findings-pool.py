#!/usr/bin/env python3
"""Pool several bench/findings-eval.sh seed sets into one per-kind table, with an interval.

  bench/findings-pool.py DIR...        DIR: a set's EVAL_DIR (its details.json and its runs)
  bench/findings-pool.py --self-test   the worked example below, checked
Exit 0; 1 when a set's rebuilt cells differ from its scorer's table or a set cannot be read.

A set of 5 seeds scores 9-24 runs a kind, so its p90 saving error is close to its largest
error and one run moves it by tens of points. Pooling sets gives a larger sample; the interval
says how far the pooled p90 itself could move.

Per kind, over the pooled runs, the same definitions as bench/findings-eval.py:
  precision    runs with a finding of the kind whose truth lists it / runs with one;
  owed recall  detected / injected runs whose knob cost reaches the smallest saving `clarity
               findings` reports (2% of the clean run and 1 s; idle executors: 10% of the
               allocated core time and 0.1 core-hour);
  saving error |estimated - true| / true over the detected owed runs (10 when true <= 0),
               median and p90 (the scorer's quantile: the sorted value at int(p x n)).
details.json keeps the true saving of detected runs only, so "owed" is rebuilt from the runs'
truth.json files in DIR, exactly as the scorer decides it: the median knob cost over the run and
its perturbed copies (p1-, p2-) against its counterpart's. Where the set's table is next to it
(DIR.out: findings-eval.sh's stdout saved beside DIR), each set's precision, recall, owed
recall, median, p90 and within-25% cells are checked against it and any difference is printed
as a MISMATCH, so a drift between this rebuild and the scorer shows.

Interval: a 90% percentile bootstrap of the p90 that resamples seeds, not runs: the runs of one
seed share a cluster, a data layout and a clean counterpart, so they are not independent, and
resampling runs would understate the spread. 2000 draws of as many seeds as the pool has, with
replacement, one RNG with a fixed seed: the output is reproducible.
"""
import json
import os
import random
import re
import statistics
import sys
import tempfile

KINDS = ["data_skew", "spill", "too_few_partitions", "tiny_tasks", "idle_executors", "task_failures",
         "lost_executors", "gc_pressure", "driver_bound", "slow_host"]
POSTFIX = {"tiny_tasks", "idle_executors"}   # scored against a re-run of the finding's action
DRAWS = 2000
RNG_SEED = 16


def q(v, p):
    v = sorted(v)
    return v[min(len(v) - 1, int(p * len(v)))] if v else float("nan")


def counterpart(kind, wl, seed):
    if kind == "too_few_partitions":
        return "fix-%s-%s-%d" % (kind, wl, seed)
    if kind == "idle_executors":
        return "clean-%s-%d--data2Gi" % (wl, seed)
    return "clean-%s-%d" % (wl, seed)


def read_truth(d, name):
    """(runtime ms, allocated core ms) of run NAME in set D, None when it is not there"""
    p = os.path.join(d, name, "truth.json")
    if not os.path.exists(p):
        return None
    with open(p) as f:
        t = json.load(f)
    end = t["application"]["end_ms"]
    core = sum(((e["removed_ms"] if e["removed_ms"] is not None else end) - e["added_ms"]) * e["cores"]
               for e in t["cluster"]["executors"])
    return t["application"]["runtime_ms"], core


def knob_cost(d, r):
    """median (wall ms, core ms) the knob cost, over the perturbations the scorer used"""
    kind, wl, seed = r["kind"], r["workload"], r["seed"]
    name, cname = "%s-%s-%d" % (kind, wl, seed), counterpart(kind, wl, seed)
    post = "post-%s-%s-%d" % (kind, wl, seed) if kind in POSTFIX and kind in r["reported"] else None
    if post and not os.path.isdir(os.path.join(d, post)):
        post = None   # the finding proposed no re-run
    vals = []
    for pre in ("", "p1-", "p2-"):
        a, c = read_truth(d, pre + name), read_truth(d, pre + cname)
        if a is None or c is None or (pre and post and read_truth(d, pre + post) is None):
            if not pre:
                raise SystemExit("%s: no truth.json for %s or %s (the owed test needs the set's runs)"
                                 % (d, name, cname))
            continue
        vals.append((a[0] - c[0], a[1] - c[1]))
    return statistics.median(v[0] for v in vals), statistics.median(v[1] for v in vals)


def load_set(d):
    """the set's runs as records: seed, per kind tp/fp, and for injected runs owed/detected/err"""
    path = os.path.join(d, "details.json")
    try:
        with open(path) as f:
            doc = json.load(f)
    except (OSError, ValueError) as e:
        raise SystemExit("%s: cannot read the scorer's per-run records: %s" % (path, e))
    recs = []
    for r in doc["runs"]:
        rec = {"set": d, "seed": r["seed"], "tp": [], "fp": [], "inj": None, "err": None}
        for k in r["reported"]:
            (rec["tp"] if k in r["truth"] else rec["fp"]).append(k)
        kind = r["kind"]
        if kind and not r.get("not_injected"):
            wall, core = knob_cost(d, r)
            clean = read_truth(d, counterpart(kind, r["workload"], r["seed"]))
            if kind == "idle_executors":
                owed = core >= 0.10 * clean[1] and core >= 360000
            else:
                owed = wall >= 0.02 * r["clean_runtime_ms"] and wall >= 1000
            det = kind in r["reported"]
            err = None
            if det and owed:
                t, e = r["true_saving"], r["est_saving"]
                err = abs(e - t) / t if t > 0 else 10.0
            rec.update(inj=kind, owed=owed, det=det, err=err, where="%s %d" % (r["workload"], r["seed"]))
        recs.append(rec)
    return recs, doc.get("errors", [])


def stats(recs):
    out = {}
    for k in KINDS + sorted({x for r in recs for x in r["tp"] + r["fp"]} - set(KINDS)):
        s = {"tp": sum(k in r["tp"] for r in recs), "fp": sum(k in r["fp"] for r in recs)}
        inj = [r for r in recs if r["inj"] == k]
        s["inj"] = len(inj)
        s["hit"] = sum(r["det"] for r in inj)
        s["owed"] = sum(r["owed"] for r in inj)
        s["owed_hit"] = sum(r["owed"] and r["det"] for r in inj)
        s["err"] = [r["err"] for r in inj if r["err"] is not None]
        s["w25"] = sum(e <= 0.25 for e in s["err"])
        out[k] = s
    return out


def boot_p90(recs, draws=DRAWS, rng_seed=RNG_SEED):
    """per kind: (5th, 95th percentile) of the p90 over seed-resampled pools"""
    seeds = sorted({(r["set"], r["seed"]) for r in recs})
    errs = {}
    for r in recs:
        if r["err"] is not None:
            errs.setdefault(r["inj"], {}).setdefault((r["set"], r["seed"]), []).append(r["err"])
    rng = random.Random(rng_seed)
    p90s = {k: [] for k in errs}
    for _ in range(draws):
        pick = [seeds[rng.randrange(len(seeds))] for _ in seeds]
        for k, by in errs.items():
            v = [e for s in pick for e in by.get(s, [])]
            if v:   # a draw without a scored run of the kind has no p90 (rare: counted out)
                p90s[k].append(q(v, 0.9))
    return {k: (q(v, 0.05), q(v, 0.95), len(v)) for k, v in p90s.items() if v}


def frac(a, b):
    return "%d/%d = %.2f" % (a, b, a / b) if b else "-"


def pct(x):
    return "%.0f%%" % (100 * x)


def table_row(s):
    """the scorer's cells for one kind: precision, owed recall, median, p90, within 25%"""
    e = s["err"]
    return (frac(s["tp"], s["tp"] + s["fp"]), frac(s["owed_hit"], s["owed"]),
            pct(statistics.median(e)) if e else "-", pct(q(e, 0.9)) if e else "-",
            "%d/%d" % (s["w25"], len(e)) if e else "-")


def check_against_table(d, st):
    """mismatches between this rebuild and the scorer's own table DIR.out; None without one"""
    path = d.rstrip("/") + ".out"
    if not os.path.exists(path):
        return None
    bad = []
    with open(path) as f:
        for line in f:
            c = [x.strip() for x in line.strip().strip("|").split("|")]
            if len(c) != 8 or c[0] not in st or not re.match(r"[\d-]", c[2]):
                continue
            s = st[c[0]]
            mine = table_row(s)
            mine = mine[:1] + (frac(s["hit"], s["inj"]),) + mine[1:]
            for name, a, b in zip(("precision", "recall", "owed recall", "median", "p90", "within 25%"), mine, c[2:]):
                if a != b:
                    bad.append("%s %s: %s here, %s in %s" % (c[0], name, a, b, path))
    return bad


def pool(dirs, out=sys.stdout):
    recs, seeds, mismatched = [], [], 0
    for d in dirs:
        r, errors = load_set(d)
        if errors:
            print("%s: %d runs without findings output (not in details.json), e.g. %s" % (d, len(errors), errors[0]), file=out)
        recs += r
        seeds += sorted({x["seed"] for x in r})
        bad = check_against_table(d, stats(r))
        if bad is None:
            print("%s: no scorer table (%s.out) to check against" % (d, d.rstrip("/")), file=out)
        elif bad:
            mismatched += 1
            print("%s: MISMATCH with the scorer's table:\n  %s" % (d, "\n  ".join(bad)), file=out)
    st, iv = stats(recs), boot_p90(recs)
    checked = sum(check_against_table(d, {}) is not None for d in dirs)
    print("%d sets, %d seeds (%s), %d runs; %d of the sets' tables checked against this rebuild"
          % (len(dirs), len(set(seeds)), ",".join(map(str, seeds)), len(recs), checked), file=out)
    print("p90 interval: 90%% percentile bootstrap over seeds (%d draws, RNG seed %d)" % (DRAWS, RNG_SEED), file=out)
    print(file=out)
    print("| kind | injected | precision | owed recall | scored | saving error median | p90 [90% interval] | within 25% |", file=out)
    print("|---|---:|---:|---:|---:|---:|---:|---:|", file=out)
    for k, s in st.items():
        if not s["inj"] and not s["tp"] + s["fp"]:
            continue
        prec, rec, med, p90, w25 = table_row(s)
        if k in iv:
            p90 += " [%s, %s]" % (pct(iv[k][0]), pct(iv[k][1]))
        inj = str(s["inj"]) if k in KINDS else "(no knob)"
        print("| %s | %s | %s | %s | %d | %s | %s | %s |" % (k, inj, prec, rec, len(s["err"]), med, p90, w25), file=out)
    return st, iv, mismatched


# ---- self-test: two hand-made sets, every figure worked out by hand ----

def _write_run(d, name, runtime, execs=((0, None, 4),), end=None):
    os.makedirs(os.path.join(d, name), exist_ok=True)
    t = {"application": {"runtime_ms": runtime, "end_ms": end if end is not None else runtime},
         "cluster": {"executors": [{"added_ms": a, "removed_ms": rm, "cores": c} for a, rm, c in execs]}}
    with open(os.path.join(d, name, "truth.json"), "w") as f:
        json.dump(t, f)


def _run(kind, wl, seed, rt, crt, reported, truth, true=None, est=None):
    r = {"kind": kind, "workload": wl, "seed": seed, "runtime_ms": rt, "clean_runtime_ms": crt,
         "reported": {k: {"saving_ms": 1, "saving_core_ms": 0} for k in reported}, "truth": truth}
    if true is not None:
        r.update(true_saving=true, est_saving=est)
    return r


def self_test():
    with tempfile.TemporaryDirectory(prefix="findings-pool-") as tmp:
        return _self_test(tmp)


def _self_test(tmp):
    a, b = os.path.join(tmp, "setA"), os.path.join(tmp, "setB")
    # set A, seeds 1 and 2; clean runs 10 s
    for s in (1, 2):
        _write_run(a, "clean-sort-%d" % s, 10000)
    # seed 1: skew costs 3 s (owed), found, estimate 2.5 s of a true 2 s: error 25%
    _write_run(a, "data_skew-sort-1", 13000)
    # its perturbed copies: 1.5 s and 2.5 s of knob cost; the median of (3, 1.5, 2.5) s is 2.5 s
    for p, rt in (("p1-", 11500), ("p2-", 12500)):
        _write_run(a, p + "data_skew-sort-1", rt)
        _write_run(a, p + "clean-sort-1", 10000)
    # seed 2: skew costs 1.2 s unperturbed but 0.5 s and 0.8 s perturbed: the median, 0.8 s, is
    # under 1 s, so it is not owed and its finding is not scored (the unperturbed cost alone
    # would score it, with a 33% error); a second skew run of seed 2 (pagerank) costs 5 s and is
    # missed (owed)
    _write_run(a, "data_skew-sort-2", 11200)
    for p, rt in (("p1-", 10500), ("p2-", 10800)):
        _write_run(a, p + "data_skew-sort-2", rt)
        _write_run(a, p + "clean-sort-2", 10000)
    _write_run(a, "clean-pagerank-2", 10000)
    _write_run(a, "data_skew-pagerank-2", 15000)
    runs_a = [
        _run(None, "sort", 1, 10000, 10000, ["data_skew"], []),             # a false alarm
        _run(None, "sort", 2, 10000, 10000, [], []),
        _run("data_skew", "sort", 1, 13000, 10000, ["data_skew"], ["data_skew"], true=2000, est=2500),
        _run("data_skew", "sort", 2, 11200, 10000, ["data_skew"], ["data_skew"], true=750, est=500),
        _run("data_skew", "pagerank", 2, 15000, 10000, [], ["data_skew"]),
    ]
    with open(os.path.join(a, "details.json"), "w") as f:
        json.dump({"seeds": [1, 2], "runs": runs_a, "errors": []}, f)
    # set B, seed 3: skew found twice, errors 10% and 40%; one idle run on core time
    _write_run(b, "clean-sort-3", 20000)
    _write_run(b, "data_skew-sort-3", 30000)
    _write_run(b, "clean-wordcount-3", 20000)
    _write_run(b, "data_skew-wordcount-3", 25000)
    # idle: 8 cores x 100 s = 800,000 core-ms clean; the knob adds 4 cores x 100 s = 400,000
    # (50%, 0.11 core-hour: owed); true saving 400,000, estimate 300,000: error 25%
    _write_run(b, "clean-sort-3--data2Gi", 100000, execs=((0, None, 8),))
    _write_run(b, "idle_executors-sort-3", 100000, execs=((0, None, 8), (0, None, 4)))
    runs_b = [
        _run("data_skew", "sort", 3, 30000, 20000, ["data_skew"], ["data_skew"], true=10000, est=11000),
        _run("data_skew", "wordcount", 3, 25000, 20000, ["data_skew"], ["data_skew"], true=5000, est=3000),
        _run("idle_executors", "sort", 3, 100000, 100000, ["idle_executors"], ["idle_executors"], true=400000, est=300000),
    ]
    runs_b[2]["reported"]["idle_executors"]["saving_core_ms"] = 300000
    with open(os.path.join(b, "details.json"), "w") as f:
        json.dump({"seeds": [3], "runs": runs_b, "errors": []}, f)
    # set B's scorer table, as findings-eval.py prints it, with one wrong cell planted below
    row = "| data_skew | w | 3/3 = 1.00 | 2/2 = 1.00 | 2/2 = 1.00 | 25% | 40% | 1/2 |\n"
    row += "| idle_executors | w | 1/1 = 1.00 | 1/1 = 1.00 | 1/1 = 1.00 | 25% | 25% | 1/1 |\n"
    with open(b + ".out", "w") as f:
        f.write(row)

    import io
    buf = io.StringIO()
    st, iv, mism = pool([a, b], out=buf)
    text = buf.getvalue()
    fails, checks = [], [0]

    def eq(what, got, want):
        checks[0] += 1
        if got != want:
            fails.append("%s: got %r, want %r" % (what, got, want))
    s = st["data_skew"]
    # precision: 5 runs report skew, 4 of them with skew in their truth (the clean one is a false alarm)
    eq("skew tp", s["tp"], 4)
    eq("skew fp", s["fp"], 1)
    eq("skew injected", s["inj"], 5)
    # owed: sort 1 (2.5 s median), pagerank 2 (5 s), sort 3 (10 s), wordcount 3 (5 s); not sort 2
    eq("skew owed", s["owed"], 4)
    eq("skew owed hit", s["owed_hit"], 3)
    eq("skew errors", sorted(round(e, 6) for e in s["err"]), [0.1, 0.25, 0.4])
    eq("skew row", table_row(s), ("4/5 = 0.80", "3/4 = 0.75", "25%", "40%", "2/3"))
    i = st["idle_executors"]
    eq("idle owed/hit/err", (i["owed"], i["owed_hit"], [round(e, 6) for e in i["err"]]), (1, 1, [0.25]))
    # the interval of the p90: a draw (3 seeds of 3, with replacement) that holds seed 3 pools
    # its 10% and 40% with any copies of seed 1's 25%: at most 9 values, so the p90 (index
    # int(0.9 n) = n - 1) is the largest, 40%; without seed 3 (p = 8/27) but with seed 1
    # (7/27) it is 25%; with neither (seed 2 three times, 1/27) there is no p90. So the draws
    # give 25% with p = 7/26 > 5% and 40% with 19/26 > 5%: the interval is [25%, 40%].
    lo, hi, n = iv["data_skew"]
    eq("skew interval", (round(lo, 6), round(hi, 6)), (0.25, 0.4))
    eq("skew draws with a p90", 0.9 * DRAWS < n < DRAWS, True)   # expected 26/27 of the draws
    eq("idle interval", iv["idle_executors"][:2], (0.25, 0.25))
    # the check against the scorer's table: set B's table says skew precision 3/3; this rebuild
    # of set B alone gives 2/2 (its two runs): the planted cell, and only it, is reported
    eq("mismatch reported", "data_skew precision: 2/2 = 1.00 here, 3/3 = 1.00" in text, True)
    eq("one mismatch", (text.count(" here, "), mism), (1, 1))
    eq("no table for A", "no scorer table" in text and a in text, True)
    # reproducible: the same pool twice prints the same text
    buf2 = io.StringIO()
    pool([a, b], out=buf2)
    eq("reproducible", buf2.getvalue() == text, True)
    if fails:
        print(text)
        print("self-test FAILED:\n  " + "\n  ".join(fails))
        return 1
    print("self-test passed (%d checks on two hand-made sets)" % checks[0])
    return 0


def main(argv):
    if argv[1:] == ["--self-test"]:
        return self_test()
    if len(argv) < 2 or argv[1].startswith("-"):
        print(__doc__.split("\n\n")[0].strip() + "\nusage: bench/findings-pool.py DIR... | --self-test", file=sys.stderr)
        return 2
    # exit 1 when a set's rebuild differs from its scorer's table: the pooled figures are then
    # not the scorer's and must not be quoted as such
    return 1 if pool([d.rstrip("/") for d in argv[1:]])[2] else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
