#!/usr/bin/env python3
"""Splits one synth tpcds-mix event log into one application per SQL query: a shared cluster
of applications that ran at the same time (synth simulates one application; its queries really
shared the hosts' CPU, disks, network and slots, so their contention is simulated, not made up).

  split-apps.py EVENTLOG OUTDIR [--shift QUERY=MS ...] [--other-cluster QUERY ...] [--shift-all MS]

Each application gets the cluster's events (log start, resource profile, environment, block
managers, executors: added no earlier than it starts, removals after its end left out), its
query's SQL, job, stage and task events, and an ApplicationStart/End around the query (100 ms
before its start, 100 ms after its end). Application ids are app-<query's start>-<sql id>
(4 digits), names the query's description ("TPC-DS q67"). --shift moves every time of one
query's application by MS (a query moved to another time: tests of applications that do not
overlap); --other-cluster renames every host of one query's application to other-HOST (an
application of another cluster that ran at the same time); --shift-all moves every application by
MS (a later copy of the same cluster: several copies make a long chain of overlapping
applications)."""
import json
import os
import sys

TIME_KEYS = ("Timestamp", "time", "Submission Time", "Completion Time", "Launch Time", "Finish Time")


def shift_times(o, ms):
    if isinstance(o, dict):
        for k, v in o.items():
            if k in TIME_KEYS and isinstance(v, int) and v > 0:
                o[k] = v + ms
            else:
                shift_times(v, ms)
    elif isinstance(o, list):
        for v in o:
            shift_times(v, ms)


def rename_hosts(o):
    if isinstance(o, dict):
        for k, v in o.items():
            if k == "Host" and isinstance(v, str):
                o[k] = "other-" + v
            else:
                rename_hosts(v)
    elif isinstance(o, list):
        for v in o:
            rename_hosts(v)


def main():
    log, out = sys.argv[1], sys.argv[2]
    shifts, other, opt, shift_all = {}, set(), None, 0
    for a in sys.argv[3:]:
        if a.startswith("--"):
            opt = a
        elif opt == "--shift":
            q, ms = a.split("=")
            shifts[q] = int(ms)
        elif opt == "--other-cluster":
            other.add(a)
        elif opt == "--shift-all":
            shift_all = int(a)
    ev = [json.loads(line) for line in open(log) if line.strip()]
    stage_sql, job_sql, sql = {}, {}, {}
    for e in ev:
        t = e["Event"]
        if t == "SparkListenerJobStart":
            sid = int(e.get("Properties", {}).get("spark.sql.execution.id", -1))
            job_sql[e["Job ID"]] = sid
            for s in e.get("Stage IDs", []):
                stage_sql[s] = sid
        elif t.endswith("SQLExecutionStart"):
            sql[e["executionId"]] = {"start": e["time"], "desc": e.get("description", "sql %d" % e["executionId"])}
        elif t.endswith("SQLExecutionEnd"):
            sql[e["executionId"]]["end"] = e["time"]
    glob = ("SparkListenerLogStart", "SparkListenerResourceProfileAdded", "SparkListenerEnvironmentUpdate",
            "SparkListenerBlockManagerAdded", "SparkListenerExecutorAdded", "SparkListenerExecutorRemoved",
            "SparkListenerBlockManagerRemoved")
    os.makedirs(out, exist_ok=True)
    for sid, q in sorted(sql.items()):
        short = q["desc"].split()[-1]
        shift = shifts.get(short, 0) + shift_all
        start, end = q["start"] - 100, q.get("end", q["start"]) + 100
        app_id = "app-%d-%04d" % (q["start"] + shift, sid)
        lines = []
        for e in ev:
            t = e["Event"]
            mine = False
            if t in glob:
                ts = e.get("Timestamp")
                if t == "SparkListenerExecutorRemoved" and ts is not None and ts > end:
                    continue
                e = json.loads(json.dumps(e))
                if t in ("SparkListenerExecutorAdded", "SparkListenerBlockManagerAdded") and ts is not None and ts < start:
                    e["Timestamp"] = start
                mine = True
            elif t == "SparkListenerApplicationStart":
                e = dict(e, **{"App ID": app_id, "App Name": q["desc"], "Timestamp": start})
                mine = True
            elif t == "SparkListenerApplicationEnd":
                e = dict(e, Timestamp=end)
                mine = True
            elif "executionId" in e:
                mine = e["executionId"] == sid
            elif t in ("SparkListenerJobStart", "SparkListenerJobEnd"):
                mine = job_sql.get(e["Job ID"]) == sid
            elif "Stage Info" in e:
                mine = stage_sql.get(e["Stage Info"]["Stage ID"]) == sid
            elif "Stage ID" in e:
                mine = stage_sql.get(e["Stage ID"]) == sid
            if mine:
                if shift or short in other:
                    e = json.loads(json.dumps(e))
                if shift:
                    shift_times(e, shift)
                if short in other:
                    rename_hosts(e)
                lines.append(json.dumps(e, separators=(",", ":")))
        with open(os.path.join(out, app_id), "w") as f:
            f.write("\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
