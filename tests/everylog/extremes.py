#!/usr/bin/env python3
"""Writes N copies of an event log with numeric fields replaced at random by int64 extremes
(INT64_MAX/MIN and near them, 4e18, -1, 0): each copy's seed is its number, so a failure is
reproduced by the same call. Times, durations and sizes at these values reach every sum and
difference of the analyses; a run of this kind found four overflows that 30 minutes of
libFuzzer had not reached.  usage: extremes.py SRC OUTDIR N"""
import json
import random
import re
import sys

M = 9223372036854775807
VALUES = [M, -M - 1, M - 1, 4 * 10**18, -4 * 10**18, 2**62, -1, 0]


def mutate(o, p, rnd):
    items = o.items() if isinstance(o, dict) else enumerate(o) if isinstance(o, list) else []
    for k, v in list(items):
        if isinstance(v, bool):
            continue
        if isinstance(v, int) and rnd.random() < p:
            o[k] = rnd.choice(VALUES)
        elif isinstance(v, str) and re.fullmatch(r"-?\d+", v) and rnd.random() < p / 2:
            o[k] = str(rnd.choice(VALUES))   # Spark writes some numbers as strings
        else:
            mutate(v, p, rnd)


def main():
    src, out, n = sys.argv[1], sys.argv[2], int(sys.argv[3])
    lines = open(src).read().splitlines()
    for seed in range(1, n + 1):
        rnd = random.Random(seed)
        p = rnd.choice([0.02, 0.05, 0.15])
        res = []
        for line in lines:
            try:
                o = json.loads(line)
            except ValueError:
                res.append(line)
                continue
            if rnd.random() < 0.5:
                mutate(o, p, rnd)
            res.append(json.dumps(o, separators=(",", ":")))
        with open(f"{out}/extremes-{seed}.json", "w") as f:
            f.write("\n".join(res) + "\n")


if __name__ == "__main__":
    main()
