#!/usr/bin/env python3
"""Writes tests/data/findings-plan.json: a small Spark 3.3 SQL event log with the two plan-shape
problems findings' repeated_work and large_broadcast look for, hand-made after the shapes of the
shared NDS q72 log (Dataproc 2.2: its node names, simpleStrings and driver metric updates):

  query 1: a self-join whose two sides are the same Exchange subtree (Filter over one parquet
           scan), computed twice in stages 0 and 1 (spark.sql.exchange.reuse=false), joined in
           stage 2;
  query 2: a BroadcastExchange whose built relation is 600 MiB (threshold 10m): 8 s to collect,
           3 s to build, 2 s to broadcast (SparkListenerDriverAccumUpdates), then stage 4.

Run it from the repository's root to rewrite the fixture; the figures the tests check are the
ones above (tests/findings/run.sh)."""
import json

T0 = 1685577600000   # 2023-06-01: before the 2024 fixtures that `--since 2024-01-01` tests keep
ev = []
def e(d): ev.append(json.dumps(d, separators=(',', ':')))

e({"Event": "SparkListenerLogStart", "Spark Version": "3.3.2"})
e({"Event": "SparkListenerEnvironmentUpdate", "JVM Information": {"Java Version": "11"},
   "Spark Properties": {"spark.app.id": "app-20230601000000-0042", "spark.executor.cores": "2",
                        "spark.sql.exchange.reuse": "false", "spark.sql.autoBroadcastJoinThreshold": "10m",
                        "spark.sql.adaptive.enabled": "true"},
   "Hadoop Properties": {}, "System Properties": {}, "Metrics Properties": {}, "Classpath Entries": {}})
e({"Event": "SparkListenerApplicationStart", "App Name": "plan-shapes", "App ID": "app-20230601000000-0042",
   "Timestamp": T0, "User": "alice"})
for i, h in ((1, "host-a"), (2, "host-b")):
    e({"Event": "SparkListenerExecutorAdded", "Timestamp": T0 + 500, "Executor ID": str(i),
       "Executor Info": {"Host": h, "Total Cores": 2, "Log Urls": {}}})

def node(name, simple, children=(), metrics=()):
    return {"nodeName": name, "simpleString": simple, "children": list(children), "metadata": {},
            "metrics": [{"name": n, "accumulatorId": a, "metricType": t} for n, a, t in metrics]}

def side(x, acc):   # one side of the self-join: its expression ids differ, as Spark gives each copy
    scan = node("Scan parquet ", "FileScan parquet [k#%d,v#%d] Batched: true, DataFilters: [isnotnull(k#%d)], "
                "Format: Parquet, Location: InMemoryFileIndex(1 paths)[gs://b/t], PushedFilters: [IsNotNull(k)], "
                "ReadSchema: struct<k:int,v:int>" % (x, x + 1, x), (), [("number of output rows", acc, "sum")])
    filt = node("Filter", "Filter isnotnull(k#%d)" % x, [scan], [("number of output rows", acc + 1, "sum")])
    wsc = node("WholeStageCodegen (%d)" % (x // 10), "WholeStageCodegen (%d)" % (x // 10), [filt],
               [("duration", acc + 2, "timing")])
    ex = node("Exchange", "Exchange hashpartitioning(k#%d, 4), ENSURE_REQUIREMENTS, [plan_id=%d]" % (x, 300 + x),
              [wsc], [("shuffle records written", acc + 3, "sum"), ("shuffle bytes written", acc + 4, "size"),
                      ("records read", acc + 5, "sum")])
    qs = node("ShuffleQueryStage", "ShuffleQueryStage %d" % (x // 10), [ex])
    return node("Sort", "Sort [k#%d ASC NULLS FIRST], false, 0" % x, [qs], [("sort time", acc + 6, "timing")])

plan1 = node("AdaptiveSparkPlan", "AdaptiveSparkPlan isFinalPlan=true", [
    node("SortMergeJoin", "SortMergeJoin [k#10], [k#20], Inner", [side(10, 100), side(20, 200)],
         [("number of output rows", 300, "sum")])])
bscan = node("Scan parquet ", "FileScan parquet [d#30] Batched: true, Location: InMemoryFileIndex(1 paths)[gs://b/d]",
             (), [("number of output rows", 400, "sum")])
bex = node("BroadcastExchange", "BroadcastExchange HashedRelationBroadcastMode(List(cast(input[0, int, false] as "
           "bigint)),false), [plan_id=501]", [bscan],
           [("time to broadcast", 401, "timing"), ("time to build", 402, "timing"), ("number of hash keys", 403, "sum"),
            ("time to collect", 404, "timing"), ("number of output rows", 405, "sum"), ("data size", 406, "size")])
plan2 = node("AdaptiveSparkPlan", "AdaptiveSparkPlan isFinalPlan=true", [
    node("BroadcastHashJoin", "BroadcastHashJoin [f#31], [d#30], Inner, BuildRight, false",
         [node("Scan parquet ", "FileScan parquet [f#31] Location: InMemoryFileIndex(1 paths)[gs://b/f]", (),
               [("number of output rows", 410, "sum")]), node("BroadcastQueryStage", "BroadcastQueryStage 3", [bex])],
         [("number of output rows", 411, "sum")])])

tid = [0]
def stage(sid, job, t, ntasks, ms, accs, sql):
    info = {"Stage ID": sid, "Stage Attempt ID": 0, "Stage Name": "stage %d at q.py:%d" % (sid, sid + 1),
            "Number of Tasks": ntasks, "RDD Info": [], "Parent IDs": [], "Details": "", "Resource Profile Id": 0}
    e({"Event": "SparkListenerStageSubmitted", "Stage Info": dict(info, **{"Submission Time": t}),
       "Properties": {"spark.sql.execution.id": str(sql)}})
    end = t
    for k in range(ntasks):
        ex = 1 + k % 2
        launch = t + 10 + (k // 4) * ms
        finish = launch + ms
        end = max(end, finish)
        ti = {"Task ID": tid[0], "Index": k, "Attempt": 0, "Partition ID": k, "Launch Time": launch,
              "Executor ID": str(ex), "Host": "host-a" if ex == 1 else "host-b", "Locality": "PROCESS_LOCAL",
              "Speculative": False, "Getting Result Time": 0, "Finish Time": finish, "Failed": False, "Killed": False,
              "Accumulables": []}
        e({"Event": "SparkListenerTaskStart", "Stage ID": sid, "Stage Attempt ID": 0, "Task Info": ti})
        e({"Event": "SparkListenerTaskEnd", "Stage ID": sid, "Stage Attempt ID": 0, "Task Type": "ShuffleMapTask",
           "Task End Reason": {"Reason": "Success"}, "Task Info": ti,
           "Task Metrics": {"Executor Deserialize Time": 5, "Executor Run Time": ms - 10,
                            "Executor CPU Time": (ms - 20) * 1000000, "JVM GC Time": 0, "Result Size": 1000,
                            "Result Serialization Time": 0, "Memory Bytes Spilled": 0, "Disk Bytes Spilled": 0,
                            "Input Metrics": {"Bytes Read": 64 << 20, "Records Read": 1000000}}})
        tid[0] += 1
    e({"Event": "SparkListenerStageCompleted", "Stage Info": dict(info, **{
        "Submission Time": t, "Completion Time": end + 5,
        "Accumulables": [{"ID": a, "Name": "m", "Value": "1", "Internal": True, "Count Failed Values": True,
                          "Metadata": "sql"} for a in accs]})})
    return end + 5

def sql_start(q, desc, plan, t):
    e({"Event": "org.apache.spark.sql.execution.ui.SparkListenerSQLExecutionStart", "executionId": q,
       "rootExecutionId": q, "description": desc, "details": "", "physicalPlanDescription": "== Physical Plan ==",
       "sparkPlanInfo": plan, "time": t, "modifiedConfigs": {}})

NTASKS = {0: 8, 1: 8, 2: 4, 3: 1, 4: 4}
def job(j, sid_list, t, sql):
    e({"Event": "SparkListenerJobStart", "Job ID": j, "Submission Time": t,
       "Stage Infos": [{"Stage ID": s, "Stage Attempt ID": 0, "Stage Name": "stage %d at q.py:%d" % (s, s + 1),
                        "Number of Tasks": NTASKS[s], "RDD Info": [], "Parent IDs": [], "Details": "", "Accumulables": [],
                        "Resource Profile Id": 0} for s in sid_list],
       "Stage IDs": sid_list, "Properties": {"spark.sql.execution.id": str(sql)}})

t = T0 + 1000
sql_start(1, "self join", plan1, t)
job(0, [0, 1, 2], t + 10, 1)
t = stage(0, 0, t + 20, 8, 10000, range(100, 105), 1)    # side 1: 2 waves of 10 s on 4 slots
t = stage(1, 0, t + 5, 8, 10000, range(200, 205), 1)     # side 2: the same work again
t = stage(2, 0, t + 5, 4, 2000, [105, 106, 205, 206, 300], 1)
e({"Event": "SparkListenerJobEnd", "Job ID": 0, "Completion Time": t + 5, "Job Result": {"Result": "JobSucceeded"}})
e({"Event": "org.apache.spark.sql.execution.ui.SparkListenerSQLExecutionEnd", "executionId": 1, "time": t + 10})
t += 100
sql_start(2, "broadcast join", plan2, t)
job(1, [3], t + 10, 2)
t3 = stage(3, 1, t + 20, 1, 8000, [400], 2)             # collecting the broadcast side
e({"Event": "SparkListenerJobEnd", "Job ID": 1, "Completion Time": t3, "Job Result": {"Result": "JobSucceeded"}})
e({"Event": "org.apache.spark.sql.execution.ui.SparkListenerDriverAccumUpdates", "executionId": 2,
   "accumUpdates": [[401, 2000], [402, 3000], [403, 5000000], [404, 8000], [405, 5000000], [406, 600 << 20]]})
t = t3 + 5000                                            # build and send on the driver, no task runs
job(2, [4], t, 2)
t = stage(4, 2, t + 10, 4, 5000, [410, 411], 2)
e({"Event": "SparkListenerJobEnd", "Job ID": 2, "Completion Time": t + 5, "Job Result": {"Result": "JobSucceeded"}})
e({"Event": "org.apache.spark.sql.execution.ui.SparkListenerSQLExecutionEnd", "executionId": 2, "time": t + 10})
e({"Event": "SparkListenerApplicationEnd", "Timestamp": t + 500})
open("tests/data/findings-plan.json", "w").write("\n".join(ev) + "\n")
