#!/usr/bin/env python3
"""Makes a History-Server-like directory of N small event logs for bench/fleet.sh: copies of
a few templates (a real Spark 1.2 log, the hand-made mini log, a synth log), each with its own
application id, 1,000 per subdirectory (FLEET_GEN_FLAT=1: all in OUT, as a History Server's
own directory is).  fleet_gen.py OUT N [START] [TEMPLATE...]"""
import os
import sys

out, n = sys.argv[1], int(sys.argv[2])
flat = os.environ.get("FLEET_GEN_FLAT") == "1"
start = int(sys.argv[3]) if len(sys.argv) > 3 else 0
templates = []
for path in sys.argv[4:]:
    data = open(path, "rb").read()
    # the application id is the file's base name (History Server naming)
    app_id = os.path.basename(path).split(".")[0].encode()
    templates.append((app_id, data))
for i in range(start, start + n):
    app_id, data = templates[i % len(templates)]
    new_id = b"app-29990101000000-%07d" % i
    d = out if flat else os.path.join(out, "d%03d" % (i // 1000))
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, new_id.decode()), "wb") as f:
        f.write(data.replace(app_id, new_id))
