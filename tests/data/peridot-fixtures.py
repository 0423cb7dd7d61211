#!/usr/bin/env python3
"""Writes peridot-ref-1.json and peridot-ref-2.json: spec 001 test 3 as full Spark 3.3 logs.
Ref 1: D = 1 (1 MB read), 5 cores, an 8-task stage spanning 20 s, a 1-task stage (2 s), T = 30 s.
Ref 2: D = 2 (2 MB), 16 tasks spanning 38 s, the same 1-task stage, T = 48 s. Ref 1 also has a
failed and a speculative attempt, a stage listed in JobStart but skipped, and an unknown event."""
import json, sys, os
T0 = 1700000000000

def log(tasks, wave_ms, app_end, fixed_submit, path, extra_attempts):
    ev = []
    e = ev.append
    e({"Event": "SparkListenerLogStart", "Spark Version": "3.3.0"})
    e({"Event": "SparkListenerApplicationStart", "App Name": "peridot-ref", "App ID": "app-peridot-%d" % tasks,
       "Timestamp": T0, "User": "test"})
    e({"Event": "SparkListenerExecutorAdded", "Timestamp": T0 + 100, "Executor ID": "0",
       "Executor Info": {"Host": "h1", "Total Cores": 5, "Log Urls": {}}})
    e({"Event": "com.example.UnknownEvent", "Whatever": 1})
    def info(sid, name, n, **kw):
        d = {"Stage ID": sid, "Stage Attempt ID": 0, "Stage Name": name, "Number of Tasks": n, "RDD Info": [],
             "Parent IDs": [], "Details": "", "Accumulables": [], "Extra Field": True}
        d.update(kw)
        return d
    e({"Event": "SparkListenerJobStart", "Job ID": 0, "Submission Time": T0 + 1000,
       "Stage Infos": [info(0, "map at Ref.scala:10", tasks), info(1, "collect at Ref.scala:12", 1),
                       info(2, "skipped at Ref.scala:11", 4)], "Stage IDs": [0, 1, 2], "Properties": {}})
    e({"Event": "SparkListenerStageSubmitted", "Stage Info": info(0, "map at Ref.scala:10", tasks, **{"Submission Time": T0 + 1000}),
       "Properties": {}})
    tid = [0]
    def task(sid, index, launch, finish, reason="Success", spec=False, nbytes=125000, attempt=0):
        t = tid[0]; tid[0] += 1
        ti = {"Task ID": t, "Index": index, "Attempt": attempt, "Partition ID": index, "Launch Time": T0 + launch,
              "Executor ID": "0", "Host": "h1", "Locality": "PROCESS_LOCAL", "Speculative": spec,
              "Getting Result Time": 0, "Finish Time": 0, "Failed": False, "Killed": False, "Accumulables": []}
        e({"Event": "SparkListenerTaskStart", "Stage ID": sid, "Stage Attempt ID": 0, "Task Info": ti})
        done = dict(ti, **{"Finish Time": T0 + finish, "Failed": reason not in ("Success", "TaskKilled"),
                           "Killed": reason == "TaskKilled"})
        r = {"Reason": reason}
        if reason == "ExceptionFailure":
            r.update({"Class Name": "java.lang.RuntimeException", "Description": "boom", "Stack Trace": [], "Accumulator Updates": []})
        if reason == "TaskKilled":
            r.update({"Kill Reason": "another attempt succeeded"})
        e({"Event": "SparkListenerTaskEnd", "Stage ID": sid, "Stage Attempt ID": 0, "Task Type": "ShuffleMapTask",
           "Task End Reason": r, "Task Info": done,
           "Task Metrics": {"Executor Deserialize Time": 1, "Executor Run Time": finish - launch - 1,
                            "Input Metrics": {"Bytes Read": nbytes if reason == "Success" else 0, "Records Read": 10},
                            "JVM GC Time": 0}})
    waves = (tasks + 4) // 5
    for i in range(tasks):
        w = i // 5
        task(0, i, 1000 + w * wave_ms, 1000 + (w + 1) * wave_ms)
    if extra_attempts:   # a failed first attempt and a killed speculative copy; neither changes P
        task(0, 0, 1000, 1500, reason="ExceptionFailure", nbytes=0, attempt=1)
        task(0, 1, 1200, 1800, reason="TaskKilled", spec=True, nbytes=0, attempt=1)
    end0 = 1000 + waves * wave_ms
    e({"Event": "SparkListenerStageCompleted", "Stage Info": info(0, "map at Ref.scala:10", tasks,
       **{"Submission Time": T0 + 1000, "Completion Time": T0 + end0 + 5})})
    e({"Event": "SparkListenerStageSubmitted", "Stage Info": info(1, "collect at Ref.scala:12", 1, **{"Submission Time": T0 + fixed_submit}),
       "Properties": {}})
    task(1, 0, fixed_submit, fixed_submit + 2000, nbytes=0)
    e({"Event": "SparkListenerStageCompleted", "Stage Info": info(1, "collect at Ref.scala:12", 1,
       **{"Submission Time": T0 + fixed_submit, "Completion Time": T0 + fixed_submit + 2000})})
    e({"Event": "SparkListenerJobEnd", "Job ID": 0, "Completion Time": T0 + fixed_submit + 2001, "Job Result": {"Result": "JobSucceeded"}})
    e({"Event": "SparkListenerApplicationEnd", "Timestamp": T0 + app_end})
    with open(path, "w") as f:
        for x in ev:
            f.write(json.dumps(x, separators=(",", ":")) + "\n")

here = os.path.dirname(os.path.abspath(sys.argv[0]))
log(8, 10000, 30000, 22000, os.path.join(here, "peridot-ref-1.json"), True)
log(16, 9500, 48000, 40000, os.path.join(here, "peridot-ref-2.json"), False)
