#!/usr/bin/env python3
"""An independent model of what Spark 3.5's History Server answers for
/applications/{id}/sql: it replays an event log through a transcription of
SQLAppStatusListener (job start re-creating each stage's tracking, per-index values,
max with its task, driver values, execution end and flush), SparkPlanGraph (clusters,
skipped InputAdapter / query stages, reused exchanges and subqueries by structural
equality) and SQLMetrics.stringValue (Utils.bytesToString / msDurationToString with
Java's half-up rounding of the shortest decimal text), and prints the answer as JSON.

It shares no code with clarity (written from Spark's sources, dictionaries and lists
instead of clarity's tables), so comparing both answers field by field finds
implementation slips on real logs; the rules themselves are stated in docs/api.md.

usage: sql_reference.py LOG   (plain JSON lines; '-' reads stdin) -> JSON list on stdout
"""
import datetime
import json
import struct
import sys
from decimal import Decimal, ROUND_HALF_UP

SUM, SIZE, TIMING, NS, AVG = "sum", "size", "timing", "nsTiming", "average"


def f32(x):
    return struct.unpack("f", struct.pack("f", x))[0]


def java_fixed(d, places):
    q = Decimal(1).scaleb(-places)
    return str(Decimal(repr(d)).quantize(q, rounding=ROUND_HALF_UP))


def ms_string(ms):
    if ms < 1000:
        return "%d ms" % ms
    if ms < 60000:
        return java_fixed(f32(f32(ms) / 1000.0), 1) + " s"
    if ms < 3600000:
        return java_fixed(f32(f32(ms) / 60000.0), 1) + " m"
    return java_fixed(f32(f32(ms) / 3600000.0), 2) + " h"


def bytes_string(size):
    for k, unit in ((60, "EiB"), (50, "PiB"), (40, "TiB"), (30, "GiB"), (20, "MiB"), (10, "KiB")):
        if size >= 2 * (1 << k):
            v = Decimal(size) / Decimal(1 << k)
            return str(v.quantize(Decimal("0.1"), rounding=ROUND_HALF_UP)) + " " + unit
    return str(Decimal(size).quantize(Decimal("0.1"))) + " B"


def grouped(v):
    return "{:,}".format(v)


def avg_string(v):
    d = Decimal(v) / 10
    s = "{:,}".format(d.quantize(Decimal("0.1")))
    return s[:-2] if s.endswith(".0") else s


def java_long(v):
    v &= (1 << 64) - 1
    return v - (1 << 64) if v >= 1 << 63 else v


def string_value(mtype, values, maxm):
    info = "(driver)" if not maxm else "(stage %d.%d: task %d)" % (maxm[1], maxm[2], maxm[3])
    if mtype == SUM:
        return grouped(java_long(sum(values)))
    if mtype.startswith("v2Custom_"):
        return "N/A"
    if mtype == AVG:
        valid = sorted(v for v in values if v > 0)
        if len(valid) <= 1:
            return avg_string(valid[0] if valid else 0)
        return "(min, med, max (stageId: taskId)):\n(%s, %s, %s %s)" % (
            avg_string(valid[0]), avg_string(valid[len(valid) // 2]), avg_string(valid[-1]), info)
    fmt = {SIZE: bytes_string, TIMING: ms_string, NS: lambda n: ms_string(int(n / 1000000) if n >= 0 else -((-n) // 1000000))}.get(mtype)
    if fmt is None:
        return None
    valid = sorted(v for v in values if v >= 0)
    if len(valid) <= 1:
        return fmt(valid[0] if valid else 0)
    return "total (min, med, max (stageId: taskId))\n%s (%s, %s, %s %s)" % (
        fmt(java_long(sum(valid))), fmt(valid[0]), fmt(valid[len(valid) // 2]), fmt(valid[-1]), info)


# ---- Scala 2.12 immutable Set / Map iteration order for Int keys ----
def improve(h):
    h &= 0xFFFFFFFF
    h = (h + (~(h << 9) & 0xFFFFFFFF)) & 0xFFFFFFFF
    h ^= h >> 14
    h = (h + (h << 4)) & 0xFFFFFFFF
    return h ^ (h >> 10)


def scala_order(keys):
    keys = list(keys)
    if len(keys) <= 4:
        return keys
    def chunks(k):
        h = improve(k)
        return [(h >> (5 * i)) & 31 for i in range(7)]
    return sorted(keys, key=chunks)


# ---- SparkPlanGraph ----
def plan_key(p):
    return (p.get("nodeName", ""), p.get("simpleString", ""), tuple(plan_key(c) for c in p.get("children", [])))


def build_graph(info):
    nodes, edges, exchanges = [], [], {}
    counter = [0]

    def add(p, cluster):
        n = {"id": counter[0], "name": p.get("nodeName", ""), "cluster": cluster,
             "metrics": [(m.get("name", ""), m.get("accumulatorId"), m.get("metricType", "")) for m in p.get("metrics", [])]}
        counter[0] += 1
        nodes.append(n)
        return n

    def b(p, parent, sub):
        name = p.get("nodeName", "")
        ch = p.get("children", [])
        if name.startswith("WholeStageCodegen"):
            cl = add(p, None)
            cl["is_cluster"] = True
            b(ch[0], parent, cl)
        elif name == "InputAdapter":
            b(ch[0], parent, None)
        elif name in ("BroadcastQueryStage", "ShuffleQueryStage"):
            k = plan_key(ch[0])
            if k in exchanges:
                edges.append((exchanges[k]["id"], parent["id"]))
            else:
                b(ch[0], parent, None)
        elif name == "TableCacheQueryStage":
            b(ch[0], parent, None)
        elif name in ("Subquery", "SubqueryBroadcast") and sub is not None:
            b(p, parent, None)
        elif name in ("Subquery", "SubqueryBroadcast") and plan_key(p) in exchanges:
            edges.append((exchanges[plan_key(p)]["id"], parent["id"]))
        elif name == "ReusedSubquery":
            b(ch[0], parent, sub)
        elif name == "ReusedExchange" and plan_key(ch[0]) in exchanges:
            edges.append((exchanges[plan_key(ch[0])]["id"], parent["id"]))
        else:
            n = add(p, sub)
            if "Exchange" in name or name in ("Subquery", "SubqueryBroadcast"):
                exchanges[plan_key(p)] = n
            if parent is not None:
                edges.append((n["id"], parent["id"]))
            for c in ch:
                b(c, n, sub)

    b(info, None, None)
    return nodes, edges


def graph_metrics(nodes):
    return [(acc, t) for n in nodes for (_, acc, t) in n["metrics"]]


# ---- SQLAppStatusListener ----
class Exec:
    def __init__(self, eid):
        self.id, self.metrics, self.stages, self.jobs = eid, {}, [], {}
        self.live, self.values, self.end_events, self.drv = True, None, 0, []
        self.desc = self.plan = None
        self.start = self.end = None
        self.err = None
        self.err_logged = False
        self.graph = None


def short(name):
    return name.rsplit(".", 1)[-1]


def replay(lines):
    execs, stage_metrics, order = {}, {}, []

    def live_execs():
        return [e for e in execs.values() if e.live]

    def is_sql_stage(s):
        return any(s in e.stages for e in live_execs())

    def remove_stale(e):
        active = set()
        for o in live_execs():
            if o is not e:
                active.update(o.stages)
        for s in list(stage_metrics):
            if s not in active:
                del stage_metrics[s]

    def update(e):
        if e.live and e.end_events >= len(e.jobs) + 1:
            remove_stale(e)
            e.live = False

    def aggregate(e):
        if e.values is not None:
            return
        allm, maxes = {}, {}
        for s in scala_order(e.stages):
            lsm = stage_metrics.get(s)
            if not lsm:
                continue
            for acc, vals in lsm["vals"].items():
                if acc in e.metrics:
                    allm.setdefault(acc, []).extend(vals)
            for acc, (v, tid) in lsm["max"].items():
                if acc not in e.metrics:
                    continue
                if acc not in maxes:
                    maxes[acc] = [v, lsm["stage"], lsm["attempt"], tid]
                elif v > maxes[acc][0]:
                    maxes[acc] = [v, lsm["stage"], lsm["attempt"], tid]
        for acc, v in e.drv:
            if acc in e.metrics:
                if acc in allm:
                    if acc in maxes and v > maxes[acc][0]:
                        del maxes[acc]
                    allm[acc].append(v)
                else:
                    allm[acc] = [v]
        e.values = {}
        for acc, vals in allm.items():
            s = string_value(e.metrics[acc], vals, maxes.get(acc))
            if s is not None:
                e.values[acc] = s

    for line in lines:
        line = line.strip()
        if not line:
            continue
        ev = json.loads(line)
        kind = short(ev.get("Event", ""))
        if kind == "SparkListenerSQLExecutionStart":
            eid = ev["executionId"]
            e = execs.get(eid)
            if e is None:
                e = execs[eid] = Exec(eid)
                order.append(eid)
            e.live = True
            e.desc, e.plan, e.start = ev.get("description"), ev.get("physicalPlanDescription"), ev.get("time")
            e.graph = build_graph(ev["sparkPlanInfo"])
            e.metrics = {}
            for acc, t in graph_metrics(e.graph[0]):
                e.metrics[acc] = t
        elif kind == "SparkListenerSQLAdaptiveExecutionUpdate":
            e = execs.get(ev["executionId"])
            if e:
                e.plan = ev.get("physicalPlanDescription")
                e.graph = build_graph(ev["sparkPlanInfo"])
                for acc, t in graph_metrics(e.graph[0]):
                    e.metrics[acc] = t
        elif kind == "SparkListenerSQLAdaptiveSQLMetricUpdates":
            e = execs.get(ev["executionId"])
            if e:
                for m in ev.get("sqlPlanMetrics", []):
                    e.metrics[m["accumulatorId"]] = m.get("metricType", "")
        elif kind == "SparkListenerDriverAccumUpdates":
            e = execs.get(ev["executionId"])
            if e and e.live:
                e.drv.extend((int(a), int(v)) for a, v in ev["accumUpdates"])
        elif kind == "SparkListenerSQLExecutionEnd":
            e = execs.get(ev["executionId"])
            if e and e.live:
                e.end = ev.get("time")
                e.err_logged = "errorMessage" in ev
                e.err = ev.get("errorMessage")
                aggregate(e)
                remove_stale(e)
                e.end_events += 1
                update(e)
        elif kind == "SparkListenerJobStart":
            sid = (ev.get("Properties") or {}).get("spark.sql.execution.id")
            if sid is None:
                continue
            eid = int(sid)
            e = execs.get(eid)
            if e is None:
                e = execs[eid] = Exec(eid)
                order.append(eid)
            elif not e.live:
                e.end_events = len(e.jobs) + 1
                e.live = True
            if e.metrics:
                snap = dict(e.metrics)
                for si in ev.get("Stage Infos", []):
                    stage_metrics[si["Stage ID"]] = {"stage": si["Stage ID"], "attempt": 0, "n": si.get("Number of Tasks", 0),
                                                    "types": snap, "vals": {}, "max": {}, "done": set()}
            e.jobs[ev["Job ID"]] = "RUNNING"
            for s in ev.get("Stage IDs", []):
                if s not in e.stages:
                    e.stages.append(s)
            update(e)
        elif kind == "SparkListenerJobEnd":
            for e in live_execs():
                if ev["Job ID"] in e.jobs:
                    ok = ev.get("Job Result", {}).get("Result") == "JobSucceeded"
                    e.jobs[ev["Job ID"]] = "SUCCEEDED" if ok else "FAILED"
                    e.end_events += 1
                    update(e)
        elif kind == "SparkListenerStageSubmitted":
            si = ev["Stage Info"]
            s, att = si["Stage ID"], si.get("Stage Attempt ID", 0)
            if is_sql_stage(s) and s in stage_metrics and stage_metrics[s]["attempt"] != att:
                old = stage_metrics[s]
                stage_metrics[s] = {"stage": s, "attempt": att, "n": old["n"], "types": old["types"], "vals": {}, "max": {},
                                    "done": set()}
        elif kind == "SparkListenerTaskEnd":
            s = ev.get("Stage ID")
            if not is_sql_stage(s):
                continue
            lsm = stage_metrics.get(s)
            if not lsm or lsm["attempt"] != ev.get("Stage Attempt ID", 0):
                continue
            ti = ev["Task Info"]
            idx, tid = ti["Index"], ti["Task ID"]
            if idx in lsm["done"]:
                continue
            for a in ti.get("Accumulables", []):
                acc = a.get("ID")
                if "Update" not in a or acc not in lsm["types"]:
                    continue
                v = int(a["Update"])
                arr = lsm["vals"].setdefault(acc, [0] * lsm["n"])
                arr[idx] = v
                if lsm["types"][acc] != SUM:
                    if acc not in lsm["max"] or v > lsm["max"][acc][0]:
                        lsm["max"][acc] = (v, tid)
            if ti.get("Finish Time", 0) and not ti.get("Failed") and not ti.get("Killed"):
                lsm["done"].add(idx)
    for e in execs.values():
        if e.live:
            aggregate(e)
    return execs


def answer(execs):
    out = []
    for eid in sorted(execs):
        e = execs[eid]
        if e.graph is None or e.start is None:
            continue
        jobs = scala_order(list(e.jobs))
        if e.err_logged:
            status = "FAILED" if e.err else "COMPLETED"
        elif e.end is None:
            status = "RUNNING"
        else:
            status = "FAILED" if "FAILED" in e.jobs.values() else "COMPLETED"
        nodes, edges = e.graph
        values = e.values or {}
        out_nodes = []
        for n in sorted(nodes, key=lambda n: -n["id"]):
            d = {"nodeId": n["id"], "nodeName": n["name"].strip()}
            cl = n["cluster"]
            if cl is not None:
                nm = cl["name"].strip()
                try:
                    d["wholeStageCodegenId"] = int(nm[len("WholeStageCodegen ("):-1])
                except ValueError:
                    pass
            d["metrics"] = [{"name": m[0].strip(), "value": values[m[1]]} for m in n["metrics"] if m[1] in values]
            out_nodes.append(d)
        x = {"id": eid, "status": status, "description": e.desc, "planDescription": e.plan or "",
             "runningJobIds": [j for j in jobs if e.jobs[j] == "RUNNING"],
             "successJobIds": [j for j in jobs if e.jobs[j] == "SUCCEEDED"],
             "failedJobIds": [j for j in jobs if e.jobs[j] == "FAILED"],
             "nodes": out_nodes, "edges": [{"fromId": f, "toId": t} for f, t in edges]}
        t = datetime.datetime.fromtimestamp(e.start / 1000, datetime.timezone.utc)
        x["submissionTime"] = t.strftime("%Y-%m-%dT%H:%M:%S.") + "%03dGMT" % (e.start % 1000)
        if e.end is not None:
            x["duration"] = e.end - e.start
        out.append(x)
    return out


if __name__ == "__main__":
    src = sys.stdin if sys.argv[1] == "-" else open(sys.argv[1])
    json.dump(answer(replay(src)), sys.stdout, indent=1)
    sys.stdout.write("\n")
