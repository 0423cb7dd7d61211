#!/usr/bin/env python3
"""Records what every clarity command prints, so a refactor can prove it changed nothing.

    tests/snapshot/record.py OUTDIR [--clarity BIN] [--shared DIR] [--jobs N]

For every log in tests/data and ../shared/data (each file, rolling/legacy directory and
History Server directory as a user names it), runs every analysis command in text and JSON,
`api` on every route the History Server answers for the application and its first stage,
directory runs, predict/ernest on the run tables, and synth scenarios (the synth output files
themselves and the analyses of them). Each case writes OUTDIR/NAME.out (stdout), .err (stderr,
with OUTDIR and the shared path replaced by placeholders) and .rc (exit status).

Compare two recordings with `diff -r A B` (bench/snapshot.sh does both steps for a commit).
"""
import argparse, hashlib, json, os, re, subprocess, sys
from concurrent.futures import ThreadPoolExecutor

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("out")
    ap.add_argument("--clarity", default=os.path.join(ROOT, "build", "clarity"))
    ap.add_argument("--shared", default=os.path.join(ROOT, "..", "shared", "data"))
    ap.add_argument("--jobs", type=int, default=2)
    a = ap.parse_args()
    out = os.path.abspath(a.out)
    shared = os.path.abspath(a.shared)
    exe = os.path.abspath(a.clarity)
    os.makedirs(out, exist_ok=True)
    work = os.path.join(out, "_work")
    os.makedirs(work, exist_ok=True)

    def run(name, args, cwd=ROOT, stdin=None):
        p = subprocess.run([exe] + args, cwd=cwd, capture_output=True, timeout=600)
        def clean(b):
            b = b.replace(work.encode(), b"$WORK").replace(shared.encode(), b"$SHARED")
            # the History Server's lastUpdated is the log file's mtime: a checkout's, not the code's
            b = re.sub(rb'("lastUpdated" ?: ?)"[^"]*"', rb'\1"$MTIME"', b)
            return re.sub(rb'("lastUpdatedEpoch" ?: ?)[0-9]+', rb'\1"$MTIME"', b)
        with open(os.path.join(out, name + ".out"), "wb") as f:
            f.write(clean(p.stdout))
        with open(os.path.join(out, name + ".err"), "wb") as f:
            f.write(clean(p.stderr))
        with open(os.path.join(out, name + ".rc"), "w") as f:
            f.write("%d\n" % p.returncode)
        return p

    # ---- the logs, as a user names them ----
    logs = []
    for f in sorted(os.listdir(os.path.join(ROOT, "tests", "data"))):
        if f.endswith(".json") and not f.startswith("peridot-ref"):
            logs.append(("data." + f, os.path.join("tests", "data", f)))
    se = os.path.join(shared, "spark-events")
    if os.path.isdir(se):
        for f in sorted(os.listdir(se)):
            if f.endswith(".tsv"):
                continue
            logs.append(("se." + f, os.path.join(se, f)))
    ext = os.path.join(shared, "external", "nvidia-qualification")
    if os.path.isdir(ext):
        for f in sorted(os.listdir(ext)):
            if f.endswith(".tsv") or f == "cluster_information":
                continue
            logs.append(("ext." + f, os.path.join(ext, f)))
        ci = os.path.join(ext, "cluster_information")
        for f in sorted(os.listdir(ci)):
            if f != "platform":
                logs.append(("ci." + f, os.path.join(ci, f)))
        pl = os.path.join(ci, "platform")
        for f in sorted(os.listdir(pl)):
            logs.append(("pl." + f, os.path.join(pl, f)))
    rt = os.path.join(shared, "runtimes")
    if os.path.isdir(rt):
        for d in ("linearregression", "pagerank-5-hosts"):
            fs = sorted(x for x in os.listdir(os.path.join(rt, d)) if x.endswith(".json"))
            for f in fs[:3]:
                logs.append(("rt.%s.%s" % (d, f), os.path.join(rt, d, f)))

    # ---- synth scenarios: the generated files are part of the record ----
    synth_cases = [
        ("wordcount", ["wordcount", "--seed", "3"]),
        ("sort-fault", ["sort", "--seed", "2", "--fault", "cpu-hog@host2:0.8"]),
        ("kmeans", ["kmeans", "--seed", "4", "--codec", "lz4"]),
        ("pagerank", ["pagerank", "--seed", "5", "--gc-log", "unified", "--speculation"]),
        ("tpcds", ["tpcds-mix", "--seed", "6", "--pool", "fair", "--instrument", "--codec", "zstd"]),
        ("wordcount-da", ["wordcount", "--seed", "7", "--dynamic-allocation", "--failure-rate", "0.02",
                          "--fault", "disk-hog@host1:10s-60s:0.9"]),
    ]
    synth_dirs = []
    for name, args in synth_cases:
        d = os.path.join(work, "synth-" + name)
        subprocess.run(["rm", "-rf", d])
        run("synth." + name, ["synth"] + args + ["-o", d])
        # api answers carry the file's mtime (lastUpdated): pin it so runs compare
        subprocess.run(["find", d, "-exec", "touch", "-h", "-d", "2024-03-01T00:00:00Z", "{}", "+"])
        h = hashlib.sha256()
        for base, _, files in sorted(os.walk(d)):
            for f in sorted(files):
                p = os.path.join(base, f)
                h.update(os.path.relpath(p, d).encode() + b"\0")
                with open(p, "rb") as fh:
                    h.update(hashlib.sha256(fh.read()).digest())
        with open(os.path.join(out, "synth.%s.files" % name), "w") as f:
            f.write(h.hexdigest() + "\n")
        ev = os.path.join(d, "eventlogs")
        logs.append(("synth." + name, os.path.join(ev, sorted(os.listdir(ev))[0])))
        synth_dirs.append((name, d))
    run("synth.list", ["synth", "--list"])

    jobs = []  # (name, args)
    for name, log in logs:
        for cmd in ("summary", "blocked", "stragglers", "whatif", "anomalies", "contention"):
            jobs.append(("%s.%s" % (name, cmd), [cmd, log]))
            jobs.append(("%s.%s.json" % (name, cmd), [cmd, "--json", log]))
        jobs.append((name + ".blocked.configured", ["blocked", "--slots", "configured", "--json", log]))
        jobs.append((name + ".whatif.hw", ["whatif", "--disks", "x2", "--network", "x2", "--json", log]))
        jobs.append((name + ".whatif.curve", ["whatif", "--executors", "0.5x,1x,2x", "--json", log]))
        jobs.append((name + ".anomalies.rules", ["anomalies", "--rules", "--json", log]))
        jobs.append((name + ".stragglers.top", ["stragglers", "--top", "3", "--limit", "0", log]))
        jobs.append((name + ".summary.detail", ["summary", "--detail", "--limit", "0", log]))
        jobs.append((name + ".contention.all", ["contention", "--all", "--json", log]))
        jobs.append((name + ".api.apps", ["api", log, "/applications"]))

    for name, d in synth_dirs:
        ev = os.path.join(d, "eventlogs")
        log = os.path.join(ev, sorted(os.listdir(ev))[0])
        jobs.append(("synth.%s.anomalies.logs" % name,
                     ["anomalies", "--json", "--executor-logs", os.path.join(d, "executor-logs"),
                      "--gc-logs", os.path.join(d, "gc"), log]))
        jobs.append(("synth.%s.anomalies.logs.txt" % name,
                     ["anomalies", "--executor-logs", os.path.join(d, "executor-logs"),
                      "--gc-logs", os.path.join(d, "gc"), log]))

    # directory runs
    dirs = [("dir.data", os.path.join("tests", "data"))]
    if os.path.isdir(se):
        dirs.append(("dir.se", se))
    if os.path.isdir(ext):
        dirs.append(("dir.ext", ext))
    if os.path.isdir(rt):
        dirs.append(("dir.lr", os.path.join(rt, "linearregression")))
    for name, d in dirs:
        for cmd in ("summary", "blocked", "stragglers", "whatif", "contention"):
            jobs.append(("%s.%s" % (name, cmd), [cmd, d]))
            jobs.append(("%s.%s.json" % (name, cmd), [cmd, "--json", d]))
        jobs.append((name + ".summary.csv", ["summary", "--csv", d]))
        jobs.append((name + ".summary.sort", ["summary", "--sort", "core-hours", d]))
        jobs.append((name + ".summary.since", ["summary", "--since", "2099-01-01", d]))
        jobs.append((name + ".summary.name", ["summary", "--name", "local", d]))
        jobs.append((name + ".summary.since.json", ["summary", "--json", "--since", "2099-01-01", d]))
        jobs.append((name + ".summary.name.json", ["summary", "--json", "--name", "local", d]))
        jobs.append((name + ".api.apps", ["api", d, "/applications"]))
        jobs.append((name + ".api.apps.q", ["api", d, "/applications?status=completed&limit=3"]))

    # predict and ernest on the run tables
    if os.path.isdir(rt):
        lr = os.path.join(rt, "linearregression")
        fs = sorted(x for x in os.listdir(lr) if x.endswith(".json"))
        r1, r2, r3 = (os.path.join(lr, f) for f in fs[:3])
        jobs.append(("predict.lr", ["predict", "--ref", r1, "--ref", r2, "--ref-cores", "8,8",
                                    "--data-size", "10G,50G", "--cores", "8,16"]))
        jobs.append(("predict.lr.json", ["predict", "--ref", r1, "--ref", r2, "--ref-cores", "8,8",
                                         "--actual", r3, "--ref-size", "1,2", "--data-size", "3", "--json"]))
        pr = os.path.join(rt, "pagerank-5-hosts")
        fs = sorted(x for x in os.listdir(pr) if x.endswith(".json"))
        jobs.append(("predict.pr", ["predict", "--ref", os.path.join(pr, fs[0]), "--ref", os.path.join(pr, fs[1]),
                                    "--ref-cores", "10,10", "--cores", "20", "--detail"]))
        csv = os.path.join(rt, "ernest-rcv1-parsed.csv")
        jobs.append(("ernest.fit", ["ernest", "fit", csv]))
        jobs.append(("ernest.fit.json", ["ernest", "fit", csv, "--json"]))
        jobs.append(("ernest.fit.terms", ["ernest", "fit", csv, "--terms", "sqrt(m)"]))
    csvd = os.path.join("tests", "data", "ernest-rcv1-parsed.csv")
    jobs.append(("ernest.design", ["ernest", "design", "--scale", "0.01-0.1"]))
    jobs.append(("ernest.design.json", ["ernest", "design", "--scale", "0.01-0.1", "--budget", "10", "--json"]))
    jobs.append(("ernest.design.parts", ["ernest", "design", "--parts", "1-32", "--total-parts", "256",
                                         "--powers-of-two"]))
    jobs.append(("ernest.predict", ["ernest", "predict", csvd, "--machines", "8,16,64", "--scale", "1"]))
    jobs.append(("ernest.choose", ["ernest", "choose", csvd, "--scale", "1", "--deadline", "2m"]))
    jobs.append(("ernest.choose.price", ["ernest", "choose", csvd, "--scale", "1", "--deadline", "2m",
                                         "--price-per-machine-hour", "0.5", "--json"]))
    # help texts and usage errors
    for cmd in ("summary", "api", "blocked", "stragglers", "whatif", "predict", "ernest", "anomalies",
                "contention", "synth"):
        jobs.append(("help." + cmd, [cmd, "--help"]))
        jobs.append(("usage." + cmd, [cmd, "--no-such-option", "x"]))
        jobs.append(("missing." + cmd, [cmd, "/nonexistent/log"]))
    jobs.append(("help.main", ["--help"]))
    jobs.append(("version", ["--version"]))

    # contention on synth tpcds with the sidecar-free options
    tp = [l for n, l in logs if n == "synth.tpcds"]
    if tp:
        t = tp[0]
        jobs.append(("synth.tpcds.contention.opts",
                     ["contention", "--json", "--top", "5", "--unit", "job", "--critical-path",
                      "--slot-blame=wait", "--ie-normalize=median", "--rank-by=dor", t]))
        jobs.append(("synth.tpcds.contention.rules",
                     ["contention", "--rules", os.path.join(work, "rules.json"),
                      "--graph", os.path.join(work, "g.dot"), t]))

    with ThreadPoolExecutor(a.jobs) as ex:
        list(ex.map(lambda j: run(*j), jobs))
    n = len(jobs)

    # api routes per application (needs the ids the logs carry)
    api_jobs = []
    for name, log in logs:
        p = os.path.join(out, name + ".api.apps.out")
        try:
            apps = json.load(open(p))
        except Exception:
            continue
        if not apps:
            continue
        app = apps[0]
        base = "/applications/" + app["id"]
        att = app.get("attempts", [{}])[0].get("attemptId")
        if att:
            base += "/" + att
        routes = ["", "/jobs", "/jobs?status=succeeded", "/jobs/0", "/stages", "/stages?details=true",
                  "/stages?withSummaries=true", "/stages?status=complete", "/executors", "/allexecutors",
                  "/environment", "/storage/rdd", "/allmiscellaneousprocess", "/stages/0", "/stages/0/0",
                  "/stages/0/0/taskSummary", "/stages/0/0/taskSummary?quantiles=0.01,0.5,0.99",
                  "/stages/0/0/taskList", "/stages/0/0/taskList?sortBy=-runtime&length=5",
                  "/stages/0/0/taskList?offset=2&length=3&status=success", "/stages/99999", "/jobs/99999"]
        for i, r in enumerate(routes):
            api_jobs.append(("%s.api.%02d" % (name, i), ["api", log, "/api/v1" + base + r]))
            if i == 5:
                api_jobs.append(("%s.api.%02dc" % (name, i), ["api", "--compact", log, base + r]))
    with ThreadPoolExecutor(a.jobs) as ex:
        list(ex.map(lambda j: run(*j), api_jobs))
    n += len(api_jobs) + len(synth_cases) + 1
    for f in ("rules.json", "g.dot"):  # files written by contention --rules/--graph
        if os.path.exists(os.path.join(work, f)):
            subprocess.run(["cp", os.path.join(work, f), os.path.join(out, "synth.tpcds.contention." + f)])
    subprocess.run(["rm", "-rf", work])
    print("%d cases recorded in %s" % (n, out))


if __name__ == "__main__":
    main()
