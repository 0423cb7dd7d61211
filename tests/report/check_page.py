#!/usr/bin/env python3
"""Checks one page of `clarity report` as the browser left it (chromium --dump-dom): the
page's own self-check ran and agreed, and, counted here independently, the stage bars,
executor rows, findings and critical-path bars in the DOM equal the JSON island's. With
--whatif FILE (clarity whatif --json of the same log): the critical path drawn is whatif's,
its length equal and the drawn critical stages' longest tasks summing to it.
Prints one line per problem; exit 1 when there is any."""
import html, json, re, sys

def main():
    dom = open(sys.argv[1], encoding="utf-8").read()
    whatif = None
    if len(sys.argv) > 3 and sys.argv[2] == "--whatif":
        whatif = json.load(open(sys.argv[3]))
    problems = []
    m = re.search(r'<script type="application/json" id="clarity-data">(.*?)</script>', dom, re.S)
    if not m:
        print("no JSON island"); return 1
    data = json.loads(m.group(1))
    c = re.search(r'<div id="clarity-check"[^>]*data-ok="(\w+)"[^>]*>(.*?)</div>', dom, re.S)
    if not c:
        problems.append("the page's script did not run (no data-ok on #clarity-check)")
    elif c.group(1) != "yes":
        problems.append("the page's self-check failed: " + html.unescape(c.group(2)))
    def count(pattern):
        return len(re.findall(pattern, dom))
    if data["schema"] == "clarity.report/1":
        got = {"stages": count(r'<rect class="stage-bar[ "]'), "executors": count(r'<g class="exec-row[ "]'),
               "findings": count(r'<li class="finding"'), "critical": count(r'<rect class="stage-bar [^"]*\bcrit\b')}
        want = {"stages": len(data["stages"]), "executors": len(data["executors"]), "findings": len(data["findings"]),
                "critical": len(data["critical_path"]["stages"])}
        for k in want:
            if got[k] != want[k]:
                problems.append(f"{k}: {got[k]} in the DOM, {want[k]} in the JSON island")
        drawn = sorted(int(s) for s in re.findall(r'<rect class="stage-bar [^"]*\bcrit\b[^"]*" data-stage="(-?\d+)"', dom))
        island = sorted(s["stage"] for s in data["critical_path"]["stages"])
        if drawn != island:
            problems.append(f"critical stages drawn {drawn} != island {island}")
        if whatif is not None:
            apps = whatif.get("applications", [])
            curve = apps[0].get("curve") if apps else None
            if curve is None:
                problems.append("whatif --json has no curve")
            else:
                w = curve["critical_path_ms"]
                length = data["critical_path"].get("length_ms", -1)
                total = sum(s["longest_task_ms"] for s in data["critical_path"]["stages"])
                if abs(length - w) > 0.5:
                    problems.append(f"critical path length {length} ms != whatif's {w} ms")
                if abs(total - w) > 0.5:
                    problems.append(f"critical stages drawn sum to {total} ms, whatif's path is {w} ms")
    elif data["schema"] == "clarity.report-fleet/1":
        rows = count(r'<tr class="app-row"')
        if rows != len(data["applications"]):
            problems.append(f"{rows} rows in the DOM, {len(data['applications'])} applications in the island")
    else:
        problems.append("unknown schema " + str(data.get("schema")))
    for p in problems:
        print(p)
    return 1 if problems else 0

sys.exit(main())
