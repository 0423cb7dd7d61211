#!/usr/bin/python3
"""Index a log directory into a clarity store with the reading spread over a Dask cluster.

    fleet_dask.py --scheduler tcp://host:8786 --store fleet.db DIR
    fleet_dask.py --scheduler local --workers 3 --store fleet.db DIR

1. The coordinator (this process) runs `clarity fleet index DIR --store S --plan P`: it lists
   the entries, decides from stats and head hashes which need a read, marks vanished ones
   deleted, and writes the ones to read into P. Nothing is read yet.
2. P is cut into shards of about equal bytes (largest entries first, each to the lightest
   shard), more shards than workers so a slow shard does not hold the others up.
3. Each Dask task runs `clarity fleet index DIR --store shard.db --only LIST` on a worker and
   returns the shard store's bytes (a small SQLite file: rows, not models).
4. The coordinator writes the shards beside it and `clarity fleet merge`s them into S.

Workers need the same clarity binary path (--clarity) and DIR at the same path (a shared or
network file system, or an object-store mount). Uses Debian's python3-distributed; run it with
/usr/bin/python3. `clarity fleet index DIR --store S --dask ADDRESS` runs this script.
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile
import time


def entry_size(root, rel):
    p = os.path.join(root, rel)
    if os.path.isdir(p):
        return sum(os.path.getsize(os.path.join(d, f)) for d, _, fs in os.walk(p) for f in fs)
    try:
        return os.path.getsize(p)
    except OSError:
        return 0


def shard(entries, sizes, n):
    """Greedy by bytes: each entry, largest first, to the shard holding the fewest bytes."""
    shards = [[] for _ in range(max(1, min(n, len(entries))))]
    load = [0] * len(shards)
    for e, s in sorted(zip(entries, sizes), key=lambda x: (-x[1], x[0])):
        i = load.index(min(load))
        shards[i].append(e)
        load[i] += s
    return [s for s in shards if s]


def index_shard(entries, root, clarity, no_findings):
    """Runs on a worker: indexes the entries into a fresh store, returns its bytes."""
    with tempfile.TemporaryDirectory(prefix="clarity-shard-") as tmp:
        lst = os.path.join(tmp, "entries.txt")
        with open(lst, "w") as f:
            f.write("".join(e + "\n" for e in entries))
        db = os.path.join(tmp, "shard.db")
        cmd = [clarity, "fleet", "index", root, "--store", db, "--only", lst, "--workers", "1", "-q", "--json"]
        if no_findings:
            cmd.append("--no-findings")
        t0 = time.time()
        p = subprocess.run(cmd, capture_output=True, text=True)
        data = b""
        if os.path.exists(db):
            with open(db, "rb") as f:
                data = f.read()
        return {"rc": p.returncode, "stderr": p.stderr[-2000:], "stats": p.stdout, "db": data,
                "seconds": time.time() - t0, "host": os.uname().nodename}


def run(cmd):
    p = subprocess.run(cmd, capture_output=True, text=True)
    if p.returncode not in (0, 4):
        sys.stderr.write(p.stderr)
        sys.exit(p.returncode or 3)
    return p


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--scheduler", required=True, help="tcp://host:port of a Dask scheduler, or 'local'")
    ap.add_argument("--workers", type=int, default=2, help="with 'local': worker processes (default 2)")
    ap.add_argument("--shards", type=int, default=0, help="shards (default: 4 per worker)")
    ap.add_argument("--clarity", default="clarity", help="the clarity binary, same path on every worker")
    ap.add_argument("--store", required=True)
    ap.add_argument("--no-findings", action="store_true")
    ap.add_argument("--verify", action="store_true", help="the plan stats every entry (clarity fleet index --verify)")
    ap.add_argument("--json", action="store_true", help="a clarity.fleet/1 document on stdout")
    ap.add_argument("dir")
    a = ap.parse_args()
    root = os.path.realpath(a.dir)
    t0 = time.time()
    try:
        from distributed import Client, LocalCluster
    except ImportError as e:
        sys.exit("fleet_dask.py: python3-distributed is missing (%s); run with Debian's /usr/bin/python3" % e)

    with tempfile.TemporaryDirectory(prefix="clarity-fleet-") as tmp:
        plan = os.path.join(tmp, "plan.txt")
        p = run([a.clarity, "fleet", "index", root, "--store", a.store, "--plan", plan, "-q", "--json"]
                + (["--verify"] if a.verify else []))
        t_plan = time.time()
        planned = json.loads(p.stdout)
        entries = [l.rstrip("\n") for l in open(plan) if l.strip()]
        cluster = None
        if a.scheduler == "local":
            cluster = LocalCluster(n_workers=a.workers, threads_per_worker=1, processes=True,
                                   dashboard_address=None, silence_logs=40)
            client = Client(cluster)
        else:
            client = Client(a.scheduler)
        nworkers = max(1, len(client.scheduler_info()["workers"]))
        t_cluster = time.time()
        shards = shard(entries, [entry_size(root, e) for e in entries], a.shards or 4 * nworkers)
        futures = client.map(index_shard, shards, root=root, clarity=a.clarity, no_findings=a.no_findings,
                             pure=False)
        paths, failed, worker_secs, read, overhead = [], 0, 0.0, 0, 0.0
        for i, fut in enumerate(futures):
            r = fut.result()
            worker_secs += r["seconds"]
            if r["rc"] not in (0, 4) or not r["db"]:
                failed += 1
                sys.stderr.write("fleet_dask.py: shard %d on %s failed (exit %d): %s\n"
                                 % (i, r["host"], r["rc"], r["stderr"].strip()))
                continue
            try:
                st = json.loads(r["stats"])["stats"]
                read += st["read"]
                # what a shard costs besides reading its logs: starting clarity, creating and
                # committing the shard store, handing its bytes back
                overhead += r["seconds"] - st["read_seconds"]
            except (ValueError, KeyError):
                pass
            path = os.path.join(tmp, "shard-%04d.db" % i)
            with open(path, "wb") as f:
                f.write(r["db"])
            paths.append(path)
        t_map = time.time()
        client.close()
        if cluster:
            cluster.close()
        t_close = time.time()
        if paths:
            run([a.clarity, "fleet", "merge", a.store] + paths + ["-q"])
        t_merge = time.time()
    out = {"schema": "clarity.fleet/1", "view": "dask-index", "stats": planned["stats"], "planned": len(entries),
           "read": read, "shards": len(shards), "failed_shards": failed, "workers": nworkers,
           "worker_seconds": round(worker_secs, 3),
           "shard_overhead_seconds": round(overhead / len(paths), 3) if paths else 0,
           "phases": {"plan": round(t_plan - t0, 3), "cluster": round(t_cluster - t_plan, 3),
                      "map": round(t_map - t_cluster, 3), "close": round(t_close - t_map, 3),
                      "merge": round(t_merge - t_close, 3)},
           "seconds": round(time.time() - t0, 3)}
    if a.json:
        print(json.dumps(out, indent=2))
    else:
        st = planned["stats"]
        print("%d log entries: %d new, %d grown, %d changed, %d unchanged; %d marked deleted\n"
              "read %d in %d shard(s) on %d Dask worker(s), %d shard(s) failed; %.2f s"
              % (st["entries"], st["new"], st["grown"], st["changed"], st["unchanged"], st["deleted"], read,
                 len(shards), nworkers, failed, out["seconds"]))
    sys.exit(3 if failed else 0)


if __name__ == "__main__":
    main()
