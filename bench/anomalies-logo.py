#!/usr/bin/env python3
"""Leave one workload and seed out: the GRNN's own classification on a GRID=wide model file's
samples (scripts/train-ladra-model.sh), per input variant, in pure Python (docs/anomalies.md,
"Retrained over host counts and workloads").

Each sample is classified by the GRNN (z-scores over the mode's samples, kernel width XS,
--min-cause 0.4) trained on every sample of another workload and seed; prints per cause
precision / recall, recall over faulty samples per host count, and how many samples were
wrongly given normal or a cause ("normal-FP" counts the samples called normal that were not).
It assumes GRID=wide's layout: per workload (wordcount sort kmeans pagerank tpcds-mix), seed
(1-5) and host count (4 8 16), a fault-free run then cpu, memory, disk at 0.5 and 0.8 and the
network at 0.9 and 0.98, each once per mode. Only the training samples are read.

Variants: base (the shipped input: raw z-scores), log (the log of each feature, log(1 + FWB)),
logfwbraw (the log of each ratio, FWB raw), log-DAR, log-DAR-ARS; a suffix " xs.6" or " xs.8"
sets the kernel width, "+H" adds log2(hosts) as an input.
Usage: bench/anomalies-logo.py MODEL log|eventlog VARIANT...   (about 12 s per variant)
"""
import math
import sys

SC = ["wordcount", "sort", "kmeans", "pagerank", "tpcds-mix"]
HOSTS = [4, 8, 16]
FAULTS = ["none", "cpu.5", "cpu.8", "mem.5", "mem.8", "disk.5", "disk.8", "net.9", "net.98"]
CL = ["normal", "cpu", "memory", "network", "disk"]

lines = [l.split() for l in open(sys.argv[1]) if l.strip() and not l.startswith("#")]
head = lines[0]
names = head[head.index("features") + 1:]
meta = [(w, seed, n, f) for w in SC for seed in range(1, 6) for n in HOSTS for f in FAULTS]


def inputs(v, feats, scale):
    out = []
    for d in feats:
        a = v[d]
        if scale == "log":
            a = math.log1p(max(a, 0)) if names[d] == "FWB" else math.log(max(a, 1e-3))
        elif scale == "logfwbraw" and names[d] != "FWB":
            a = math.log(max(a, 1e-3))
        out.append(a)
    return out


def run(mode, feats, xs, scale, add_hosts, min_cause=0.4):
    dim = 17 if mode == "log" else 14
    rows = [l for l in lines[1:] if l[0] == mode]
    if len(rows) != len(meta):
        sys.exit(f"{len(rows)} {mode} samples, {len(meta)} expected: not a GRID=wide model file")
    X, Y, G, H = [], [], [], []
    for r, m in zip(rows, meta):
        z = inputs([float(x) for x in r[2:2 + dim]], [d for d in feats if d < dim], scale)
        if add_hosts:
            z.append(math.log2(m[2]))
        X.append(z), Y.append(CL.index(r[1])), G.append((m[0], m[1])), H.append(m[2])
    D, k = len(X[0]), len(X)
    mu = [sum(x[d] for x in X) / k for d in range(D)]
    sd = [math.sqrt(sum((x[d] - mu[d]) ** 2 for x in X) / k) or 1 for d in range(D)]
    Z = [[(x[d] - mu[d]) / sd[d] for d in range(D)] for x in X]
    tp, fp, n = [0] * 5, [0] * 5, [0] * 5
    byh = {h: [0, 0] for h in HOSTS}
    for i in range(k):
        ds = [(sum((Z[i][d] - Z[j][d]) ** 2 for d in range(D)), Y[j]) for j in range(k) if G[j] != G[i]]
        m0 = min(d for d, _ in ds)
        y = [0.0] * 5
        for d, l in ds:
            y[l] += math.exp(-(d - m0) / (2 * xs * xs))
        s = sum(y)
        y = [a / s for a in y]
        b = max(range(5), key=lambda c: y[c])
        if b != 0 and y[b] < min_cause:
            b = 0
        n[Y[i]] += 1
        if b == Y[i]:
            tp[b] += 1
        else:
            fp[b] += 1
        if Y[i] != 0:
            byh[H[i]][0] += 1
            byh[H[i]][1] += b == Y[i]
    out = [f"{CL[c][:3]} {tp[c] / max(1, tp[c] + fp[c]):.2f}/{tp[c] / max(1, n[c]):.2f}" for c in range(1, 5)]
    out.append("recall h4/8/16 " + "/".join(f"{byh[h][1] / max(1, byh[h][0]):.2f}" for h in HOSTS))
    out.append(f"normal-FP {fp[0]}")
    return "  ".join(out)


mode = sys.argv[2]
allf = list(range(17))
for name in sys.argv[3:]:
    base, xs = name, 1.0
    if " xs." in name:
        base, x = name.split(" xs.")
        xs = float("0." + x)
    add_hosts = base.endswith("+H")
    base = base.removesuffix("+H")
    drop = {"log-DAR": {"DAR"}, "log-DAR-ARS": {"DAR", "ARS"}}.get(base, set())
    scale = {"base": "raw", "log": "log", "logfwbraw": "logfwbraw", "log-DAR": "log", "log-DAR-ARS": "log"}[base]
    feats = [d for d in allf if names[d] not in drop]
    print(f"{mode} {name:22s}", run(mode, feats, xs, scale, add_hosts), flush=True)
