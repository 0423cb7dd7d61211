#!/usr/bin/env python3
"""The root-cause model's domain bound per mode (docs/anomalies.md, "A cause without a period").

For every training sample of a clarity.ladra-model/2 file, the distance to its nearest sample
of another workload and seed (z-scored over the mode's samples as the GRNN reads them, in
kernel widths), then the 95th percentile over the mode's samples (nearest rank): a run of a
setting the model never saw lies that close to it 95 times in 100. That is how far a run may be
from the model for its cause to stand without a period (LADRA_MAX_MODEL_DISTANCE_LOGS and
_EVENTLOG in include/clarity/anomalies.h). Only the training samples decide it.

Samples are grouped as scripts/train-ladra-model.sh writes them: per workload and seed, GROUP
runs in a row (9: one fault-free, then each fault and intensity; 27 with GRID=wide, the same
for each of 4, 8 and 16 hosts), each run once per mode. --log reads the extended features but
FWB on a log scale, the variant measured in docs/anomalies.md ("Retrained over host counts and
workloads"; not what the shipped GRNN reads).

Usage: bench/anomalies-domain.py [MODEL] [--group N] [--quantile Q] [--log]
"""
import argparse
import math
import os

here = os.path.dirname(os.path.abspath(__file__))
ap = argparse.ArgumentParser()
ap.add_argument("model", nargs="?", default=os.path.join(here, "..", "models", "ladra-default.model"))
ap.add_argument("--group", type=int, default=9)
ap.add_argument("--log", action="store_true")
ap.add_argument("--quantile", type=float, default=0.95)
args = ap.parse_args()

lines = [l.split() for l in open(args.model) if l.strip() and not l.startswith("#")]
head, samples = lines[0], lines[1:]
xsigma = float(head[head.index("xsigma") + 1])
# the extended features the GRNN reads per mode: 17 with GC logs, the first 14 without
for mode, dim in (("log", 17), ("eventlog", 14)):
    fwb = head.index("FWB") - head.index("features") - 1
    S = [[float(v) if d == fwb or not args.log else math.log(max(float(v), 1e-3))
          for d, v in enumerate(l[2:2 + dim])] for l in samples if l[0] == mode]
    k = len(S)
    mu = [sum(s[d] for s in S) / k for d in range(dim)]
    sd = [math.sqrt(sum((s[d] - mu[d]) ** 2 for s in S) / k) or 1.0 for d in range(dim)]
    nearest = []
    for a, xa in enumerate(S):
        best = min(sum(((xa[d] - xb[d]) / sd[d]) ** 2 for d in range(dim))
                   for b, xb in enumerate(S) if b // args.group != a // args.group)
        nearest.append(math.sqrt(best) / xsigma)
    nearest.sort()
    q = nearest[min(k - 1, int(args.quantile * k))]
    print(f"{mode:8s} samples {k}: nearest other workload/seed median {nearest[k // 2]:.2f}, "
          f"p{round(args.quantile * 100)} {q:.2f}, max {nearest[-1]:.2f} kernel widths")
