#!/usr/bin/env python3
"""Splits each finding's saving error into the truth's own spread and the estimate's bias (fnd28).

Reads the details.json that bench/findings-eval.sh leaves in EVAL_DIR (scored with the median
truth: each run's `true_perts`, the true saving of its three perturbed run pairs). Per scored run
of KIND (true saving >= 1 s): the error against the median truth; (a) the truth's spread,
(max - min) / median; (b) the estimate's distance to the nearest of the three truths (0 inside
their range), the part no truth draw explains. Prints the runs whose error is over 25% with
both, then the p90 of |error| and of |(b)| (the scorer's quantile), so a set's p90 can be read
as the estimate's or the truth's. Results: docs/findings-rounds.md "This round (fnd28)".
   python3 bench/findings-error-split.py KIND EVAL_DIR [EVAL_DIR...]
"""
import json
import os
import sys


def q(v, p):
    """the scorer's quantile (bench/findings-eval.py): the value at index int(p x n) sorted"""
    v = sorted(v)
    return v[min(len(v) - 1, int(p * len(v)))] if v else float("nan")


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    kind = sys.argv[1]
    for d in sys.argv[2:]:
        runs = json.load(open(os.path.join(d, "details.json")))["runs"]
        err, near = [], []
        print("== %s (%s)" % (d, kind))
        for r in runs:
            if r.get("kind") != kind or "est_saving" not in r or r.get("true_saving", 0) < 1000:
                continue
            t, e = r["true_saving"], r["est_saving"]
            p = r.get("true_perts") or [t]
            lo, hi = min(p), max(p)
            b = 0.0 if lo <= e <= hi else (e - hi) / t if e > hi else (e - lo) / t
            err.append(abs(e - t) / t)
            near.append(abs(b))
            if abs(e - t) / t > 0.25:
                print("  %-10s %4d true %6d truths %-22s est %6d error %+5.0f%%  (a) spread %3.0f%%  (b) %+5.0f%%"
                      % (r["workload"], r["seed"], t, ",".join(map(str, p)), e, 100 * (e - t) / t,
                         100 * (hi - lo) / t, 100 * b))
        print("  %d runs: p90 |error| %.0f%%, p90 |(b)| %.0f%%, over 25%%: %d, of which (b) within 25%%: %d"
              % (len(err), 100 * q(err, 0.9), 100 * q(near, 0.9), sum(x > 0.25 for x in err),
                 sum(x > 0.25 and y <= 0.25 for x, y in zip(err, near))))


if __name__ == "__main__":
    main()
