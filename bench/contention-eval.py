#!/usr/bin/env python3
"""Scores iQCAR and the simple-overlap baseline for bench/contention-eval.sh (read it first).

argv: WORKDIR SEEDS. WORKDIR/mix/<run>/ and WORKDIR/s74/<run>/ each hold truth.json,
truth-tasks.jsonl, submitted.jsonl (the log's StageSubmitted lines), iq.json, iqn.json and
wo-<query>/truth.json (the re-run without that query). Prints Markdown tables."""
import bisect
import glob
import json
import os
import sys

CF_MIN = 0.02   # a speed-up below 2% of the victim's runtime is schedule noise, not a culprit
METHODS = {"iQCAR (DOR)": ("iq.json", "noisy", "dor"),
           "iQCAR, --ie-normalize=median": ("iqn.json", "noisy", "dor"),
           "iQCAR, --slot-blame=wait (spec 6.6 literally)": ("iqw.json", "noisy", "dor"),
           "simple-overlap baseline": ("iq.json", "simple_overlap", "share")}


def name(u):
    return u.split(" ")[-1]


def ranks(v):
    o = sorted(range(len(v)), key=lambda i: v[i])
    r = [0.0] * len(v)
    i = 0
    while i < len(o):
        j = i
        while j + 1 < len(o) and v[o[j + 1]] == v[o[i]]:
            j += 1
        for k in range(i, j + 1):
            r[o[k]] = (i + j) / 2.0
        i = j + 1
    return r


def spearman(a, b):
    if len(a) < 3:
        return None
    ra, rb = ranks(a), ranks(b)
    n = len(a)
    ma, mb = sum(ra) / n, sum(rb) / n
    sa = sum((x - ma) ** 2 for x in ra) ** .5
    sb = sum((x - mb) ** 2 for x in rb) ** .5
    if sa == 0 or sb == 0:
        return None
    return sum((x - ma) * (y - mb) for x, y in zip(ra, rb)) / (sa * sb)


def resource_truth(t, names):
    """victim -> culprit -> ms: synth's cpu + disk + network delay between queries."""
    d = {}
    for p in t["contention"]["pairs"]:
        if p["victim"] != p["culprit"] and p["culprit"] in names:
            v = d.setdefault(p["victim"], {})
            v[p["culprit"]] = v.get(p["culprit"], 0) + p["delay_ms"]
    return d


def slot_truth(run, names):
    """victim -> culprit -> ms: every task's slot wait (stage submission -> launch) split over
    the queries by their share of the cluster's busy slot-time during that wait (self dropped)."""
    submit = {}
    for line in open(run + "/submitted.jsonl"):
        si = json.loads(line)["Stage Info"]
        s = si["Stage ID"]
        submit[s] = min(submit.get(s, si["Submission Time"]), si["Submission Time"])
    tasks = [json.loads(l) for l in open(run + "/truth-tasks.jsonl")]
    qs = sorted(names)
    qi = {q: i for i, q in enumerate(qs)}
    ev = sorted([(x["launch_ms"], 1, qi[x["query"]]) for x in tasks] +
                [(x["finish_ms"], -1, qi[x["query"]]) for x in tasks])
    # step function of slots held per query; cum[k][q] = slot-ms held by q up to times[k]
    times, cum, occ, acc, last = [], [], [0] * len(qs), [0.0] * len(qs), None
    for tm, dlt, q in ev:
        if last is not None and tm != last:
            for i in range(len(qs)):
                acc[i] += occ[i] * (tm - last)
        if not times or times[-1] != tm:
            times.append(tm)
            cum.append(None)
        occ[q] += dlt
        cum[-1] = (list(acc), list(occ))
        last = tm

    def held(t):   # slot-ms held per query up to t
        k = bisect.bisect_right(times, t) - 1
        if k < 0:
            return [0.0] * len(qs)
        a, o = cum[k]
        return [a[i] + o[i] * (t - times[k]) for i in range(len(qs))]

    d = {}
    for x in tasks:
        a, b = submit.get(x["stage_id"], x["launch_ms"]), x["launch_ms"]
        if b <= a:
            continue
        h0, h1 = held(a), held(b)
        share = [h1[i] - h0[i] for i in range(len(qs))]
        tot = sum(share)
        if tot <= 0:
            continue
        v = d.setdefault(x["query"], {})
        for i, q in enumerate(qs):
            if q != x["query"] and share[i] > 0:
                v[q] = v.get(q, 0) + (b - a) * share[i] / tot
    return d


def counterfactual(run, t):
    """victim -> culprit -> ms of runtime saved when the culprit is left out."""
    base = {q["name"]: q["runtime_ms"] for q in t["queries"]}
    d = {v: {} for v in base}
    for q in base:
        wo = {x["name"]: x["runtime_ms"] for x in json.load(open(f"{run}/wo-{q}/truth.json"))["queries"]}
        for v, rt in wo.items():
            d[v][q] = base[v] - rt
    return d


def blame(run):
    out = {}
    for m, (f, key, val) in METHODS.items():
        j = json.load(open(f"{run}/{f}"))
        out[m] = {name(x["target"]): {name(n["query"]): n[val] for n in x[key]} for x in j["targets"]}
    return out


def ranked(d):
    return [c for c, _ in sorted(d.items(), key=lambda kv: (-kv[1], kv[0]))]


class Score:
    def __init__(self):
        self.n = 0
        self.t1 = 0
        self.t3 = 0.0
        self.rho = []

    def add(self, true_rank, pred):
        pr = ranked(pred)
        self.n += 1
        self.t1 += 1 if pr and pr[0] == true_rank[0] else 0
        k = min(3, len(true_rank))
        self.t3 += len(set(pr[:3]) & set(true_rank[:3])) / k

    def row(self, label, rho=True):
        r = sorted(self.rho)
        med = f"{r[len(r) // 2]:+.2f} ({len(r)})" if r else "n/a"
        s = f"| {label} | {self.n} | {100 * self.t1 / max(1, self.n):.0f}% | {100 * self.t3 / max(1, self.n):.0f}% |"
        return s + (f" {med} |" if rho else "")


def score_mix(W):
    truths = ["R", "RS", "CF"]
    sc = {(tr, m): Score() for tr in truths for m in METHODS}
    # references, not methods: the two synth-side truths used as predictors of the counterfactual
    ref = {"R": Score(), "RS": Score()}
    runs = sorted(glob.glob(W + "/mix/*"))
    for run in runs:
        t = json.load(open(run + "/truth.json"))
        names = {q["name"] for q in t["queries"]}
        rt = {q["name"]: q["runtime_ms"] for q in t["queries"]}
        span = {q["name"]: (q["start_ms"], q["end_ms"]) for q in t["queries"]}
        r = resource_truth(t, names)
        s = slot_truth(run, names)
        rs = {}
        for dd in (r, s):
            for v, cul in dd.items():
                for c, x in cul.items():
                    rs.setdefault(v, {})[c] = rs.setdefault(v, {}).get(c, 0) + x
        cf = counterfactual(run, t)
        cfp = {v: {c: x for c, x in cul.items() if x > CF_MIN * rt[v]} for v, cul in cf.items()}
        bl = blame(run)
        for v, cul in cfp.items():
            if cul:
                ref["R"].add(ranked(cul), r.get(v, {}))
                ref["RS"].add(ranked(cul), rs.get(v, {}))
        for tr, dd in (("R", r), ("RS", rs), ("CF", cfp)):
            for v, cul in dd.items():
                cul = {c: x for c, x in cul.items() if x > 0}
                if not cul:
                    continue
                for m in METHODS:
                    sc[(tr, m)].add(ranked(cul), bl[m].get(v, {}))
        # Spearman per victim over the queries that overlapped it in time: blame vs speed-up
        for v in names:
            src = [q for q in names if q != v and span[q][0] < span[v][1] and span[q][1] > span[v][0]]
            if not any(cf[v][q] > CF_MIN * rt[v] for q in src):
                continue
            for m in METHODS:
                rho = spearman([bl[m].get(v, {}).get(q, 0.0) for q in src], [float(cf[v][q]) for q in src])
                if rho is not None:
                    sc[("CF", m)].rho.append(rho)
    return len(runs), sc, ref


def score_74(W):
    """Target q3; sources q17 (started with it) and one heavy query started later (4x data).
    Truth: which removal speeds q3 up more. All runs with a culprit, and the subset where the
    source with more task overlap is not that one (the situation Section 7.4 is about)."""
    allr = {m: Score() for m in METHODS}
    sub = {m: Score() for m in METHODS}
    runs = sorted(glob.glob(W + "/s74/*"))
    for run in runs:
        t = json.load(open(run + "/truth.json"))
        rt = {q["name"]: q["runtime_ms"] for q in t["queries"]}
        cf = {c: x for c, x in counterfactual(run, t)["q3"].items() if c != "q3" and x > CF_MIN * rt["q3"]}
        if not cf:
            continue
        truth = ranked(cf)
        bl = blame(run)
        ov = ranked(bl["simple-overlap baseline"].get("q3", {}))
        for m in METHODS:
            allr[m].add(truth, bl[m].get("q3", {}))
            if ov and ov[0] != truth[0]:
                sub[m].add(truth, bl[m].get("q3", {}))
    return len(runs), allr, sub


def task_time(run):
    """query -> [(launch_ms, finish_ms)] of its task attempts (what the event log says too)."""
    d = {}
    for line in open(run + "/truth-tasks.jsonl"):
        x = json.loads(line)
        d.setdefault(x["query"], []).append((x["launch_ms"], x["finish_ms"]))
    return d


def clipped(spans, a, b):
    return sum(max(0, min(f, b) - max(l, a)) for l, f in spans)


def grid_setting(run):
    """'101-fifo-h8-n12-a6-q25_q52' -> the labels the tables group by."""
    seed, pool, h, n, a, agg = os.path.basename(run).split("-", 5)
    return {"mix": "{" + agg.replace("_", ",") + "}", "hosts": h[1:], "scheduler": pool.upper(), "queries": n[1:],
            "arrival": a[1:] + " s"}


AGG_METHODS = ["iQCAR replay", "iQCAR DOR (paper)", "iQCAR victim time", "heaviest-query baseline",
               "simple-overlap baseline"]
VIC_METHODS = ["iQCAR replay", "iQCAR DOR", "heaviest-query baseline", "simple-overlap baseline"]


def grid_run_scores(run):
    """Per run: the aggregate truth and every method's ranking, and per victim the same."""
    t = json.load(open(run + "/truth.json"))
    names = {q["name"] for q in t["queries"]}
    rt = {q["name"]: q["runtime_ms"] for q in t["queries"]}
    cf = counterfactual(run, t)
    # aggregate truth: the runtime the other queries save, summed, when s is left out
    saved = {s: sum(cf[v][s] for v in names if v != s) for s in names}
    j = json.load(open(run + "/iq.json"))
    tt = task_time(run)
    agg = {"iQCAR DOR (paper)": {name(x["query"]): x["dor"] for x in j["aggressive"]},
           "heaviest-query baseline": {q: float(sum(f - l for l, f in tt.get(q, []))) for q in names}}
    if "aggressive_time" in j:
        agg["iQCAR victim time"] = {name(x["query"]): x["lost_ms"] for x in j["aggressive_time"]}
    if j.get("aggressive_replay"):
        agg["iQCAR replay"] = {name(x["query"]): x["saved_ms"] for x in j["aggressive_replay"]}
    so = {}
    vic = {m: {} for m in VIC_METHODS}
    for x in j["targets"]:
        v = name(x["target"])
        for n in x["simple_overlap"]:
            so[name(n["query"])] = so.get(name(n["query"]), 0) + n["share"]
        vic["iQCAR DOR"][v] = {name(n["query"]): n["dor"] for n in x["noisy"]}
        if "replay" in x:
            vic["iQCAR replay"][v] = {name(n["query"]): n["saved_ms"] for n in x["replay"]}
        vic["simple-overlap baseline"][v] = {name(n["query"]): n["share"] for n in x["simple_overlap"]}
        a, b = x["start_ms"], x["end_ms"]
        vic["heaviest-query baseline"][v] = {q: float(clipped(tt.get(q, []), a, b)) for q in names if q != v
                                             and clipped(tt.get(q, []), a, b) > 0}
    agg["simple-overlap baseline"] = so
    cfp = {v: {c: x for c, x in cul.items() if c != v and x > CF_MIN * rt[v]} for v, cul in cf.items()}
    # the replay's fidelity: its saving per (victim, source) against synth's re-run (ms; a pair
    # the replay does not list saved nothing in it), as a share of the victim's runtime
    fid = []
    if j.get("aggressive_replay"):
        cands = {name(x["query"]) for x in j["aggressive_replay"]}
        for v in names:
            for c in cands:
                if c != v and rt[v] > 0:
                    fid.append((vic["iQCAR replay"].get(v, {}).get(c, 0.0) - cf[v][c]) / rt[v])
    return saved, agg, cfp, vic, fid


def truth_top(saved):
    t = ranked({s: x for s, x in saved.items() if x > 0})
    return t[0] if t else None


def score_grid(W, grid):
    runs = sorted(glob.glob(W + "/*"))
    dims = ["mix", "hosts", "scheduler", "queries"]
    aggsc, vicsc = {}, {}
    fids, closes = [], []
    for run in runs:
        st = grid_setting(run)
        saved, agg, cfp, vic, fid = grid_run_scores(run)
        fids.extend(fid)
        closes.append((json.load(open(run + "/iq.json")).get("aggressive_close"), truth_top(saved), agg))
        truth = ranked({s: x for s, x in saved.items() if x > 0})
        keys = [("all", "")] + [(d, st[d]) for d in dims]
        for m in AGG_METHODS:
            if m not in agg or not truth:
                continue
            for k in keys:
                aggsc.setdefault((k, m), Score()).add(truth, agg[m])
        for v, cul in cfp.items():
            if not cul:
                continue
            for m in VIC_METHODS:
                for k in keys:
                    vicsc.setdefault((k, m), Score()).add(ranked(cul), vic[m].get(v, {}))
    print(f"{len(runs)} BASE runs of the {grid} grid, each re-simulated once without each of its queries\n")
    for title, sc, methods, unit in (
            ("aggressive queries (truth: the query whose removal saves the others the most runtime)", aggsc,
             AGG_METHODS, "runs"),
            ("per victim (truth: the victim's speed-up when a source is removed, above 2% of its runtime)", vicsc,
             VIC_METHODS, "victims")):
        print(f"{title}\n")
        print(f"| setting | {unit} | " + " | ".join(f"{m} top-1 / top-3" for m in methods if (("all", ""), m) in sc) + " |")
        print("|---|---:|" + "---:|" * sum(1 for m in methods if (("all", ""), m) in sc))
        groups = [("all", "")] + sorted({k for k, _ in sc if k[0] != "all"},
                                        key=lambda k: (dims.index(k[0]), int(k[1]) if k[1].isdigit() else 0, k[1]))
        for k in groups:
            row = [sc[(k, m)] for m in methods if (k, m) in sc]
            if not row:
                continue
            lab = "all" if k[0] == "all" else f"{k[0]} {k[1]}"
            cells = " | ".join(f"{100 * x.t1 / max(1, x.n):.0f}% / {100 * x.t3 / max(1, x.n):.0f}%" for x in row)
            print(f"| {lab} | {row[0].n} | {cells} |")
        print()
    if fids:
        a = sorted(abs(x) for x in fids)
        print(f"replay fidelity: {len(a)} (victim, source) pairs; |replayed saving - re-simulated saving| / victim "
              f"runtime: median {100 * a[len(a) // 2]:.1f}%, p90 {100 * a[int(0.9 * (len(a) - 1))]:.1f}%\n")
    # the replay answer split by whether it was a close call (second >= threshold x first)
    for thr in (0.5, 0.6, 0.75, 0.9):
        cl = [0, 0]; clr = [0, 0]
        for _, top, agg in closes:
            rp = ranked(agg.get("iQCAR replay", {}))
            if len(rp) < 2 or not top:
                continue
            a = agg["iQCAR replay"]
            c = a[rp[1]] >= thr * a[rp[0]]
            (cl if c else clr)[0] += rp[0] == top
            (cl if c else clr)[1] += 1
        print(f"replay answer, close call at {thr}: clear {clr[0]}/{clr[1]} right, close {cl[0]}/{cl[1]} right")
    print()


def main():
    if sys.argv[1] == "--grid":
        score_grid(sys.argv[2], sys.argv[3])
        return
    W, seeds = sys.argv[1], sys.argv[2]
    n, sc, ref = score_mix(W)
    print(f"{n} synth runs (tpcds-mix, 10 queries, {seeds} seeds x FIFO/FAIR x aggressive {{q67}} or {{q42,q98}} "
          f"at 4x data), plus one re-run without each query ({10 * n} runs)\n")
    labels = {"R": "resource delay (cpu+disk+network)", "RS": "resource + slot delay",
              "CF": "counterfactual speed-up (re-run without the source)"}
    print("| truth | method | victims | top-1 noisy found | top-3 noisy found | Spearman blame vs speed-up (median, victims) |")
    print("|---|---|---:|---:|---:|---:|")
    for tr in ("R", "RS", "CF"):
        for m in METHODS:
            print(sc[(tr, m)].row(f"{labels[tr]} | {m}", rho=True).replace("| n/a |", "| |") if tr != "CF"
                  else sc[(tr, m)].row(f"{labels[tr]} | {m}"))
    for tr in ("R", "RS"):
        print(ref[tr].row(f"{labels['CF']} | reference: truth '{labels[tr]}' as the predictor", rho=False) + " |")
    n74, allr, sub = score_74(W)
    print(f"\nSection 7.4 comparison (spec 5.5): {n74} runs ({seeds} seeds x heavy query q67/q98/q89), target q3, "
          f"sources q17 (started with q3) and the heavy query (4x data, own FAIR pool, started later); truth = "
          f"which removal speeds q3 up more (above 2%)\n")
    print("| method | runs with a culprit: top-1 | runs where more overlap is not the culprit: top-1 |")
    print("|---|---:|---:|")
    for m in METHODS:
        a, b = allr[m], sub[m]
        print(f"| {m} | {a.t1}/{a.n} | {b.t1}/{b.n} |")


if __name__ == "__main__":
    main()
