#!/usr/bin/env python3
"""Time from starting `clarity serve` to its first /api/v1/applications answer, measured by
one process with no shell in the loop (a loaded machine makes every `sleep`, `head` and `jq`
of a shell poll cost tens of milliseconds, which the old bench counted as the server's).

usage: serve_first.py CLARITY DIR WANT REPEATS [serve options...]

Each repeat starts the server (--port 0), reads the port it prints, then asks for the listing
in a tight loop (a refused connection is retried at once) until it lists WANT applications.
SERVE_FIRST_HEADER="Name: value" sends that header with each request (a user for --acl).
With SERVE_FIRST_FRESH=1 the --store file is removed before each repeat (a cold store).
Prints one line per repeat and a last line "median first full cpu rss": seconds from the
exec to the first 200 answer, to the first answer listing WANT applications, the server's
CPU seconds then (user + system, from /proc) and its RSS in kB then."""
import http.client
import json
import os
import signal
import statistics
import subprocess
import sys
import time


def get_listing(port):
    c = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    hdr = os.environ.get("SERVE_FIRST_HEADER")   # "Name: value", e.g. the --user-header of --acl
    try:
        c.request("GET", "/api/v1/applications",
                  headers=dict([(hdr.split(":", 1)[0].strip(), hdr.split(":", 1)[1].strip())]) if hdr else {})
        r = c.getresponse()
        body = r.read()
        return r.status, body
    finally:
        c.close()


def one(clarity, d, want, opts):
    tck = os.sysconf("SC_CLK_TCK")
    if os.environ.get("SERVE_FIRST_FRESH") == "1" and "--store" in opts:
        st = opts[opts.index("--store") + 1]
        for suffix in ("", "-wal", "-shm"):
            if os.path.exists(st + suffix):
                os.remove(st + suffix)
    t0 = time.monotonic()
    p = subprocess.Popen([clarity, "serve", "--port", "0", *opts, d], stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE, text=True)
    line = p.stdout.readline()
    if not line.strip():
        p.wait()
        sys.exit("serve_first.py: the server did not start: " + p.stderr.read()[-500:])
    port = int(line)
    first = full = None
    n = 0
    while full is None:
        try:
            st, body = get_listing(port)
        except (ConnectionError, OSError):
            continue
        if st != 200:
            continue
        t = time.monotonic() - t0
        if first is None:
            first = t
        n = len(json.loads(body))
        if n >= want:
            full = t
        else:
            time.sleep(0.02)
    with open("/proc/%d/stat" % p.pid) as f:
        fields = f.read().rsplit(")", 1)[1].split()
    cpu = (int(fields[11]) + int(fields[12])) / tck   # utime, stime (fields 14, 15)
    rss = 0
    with open("/proc/%d/status" % p.pid) as f:
        for l in f:
            if l.startswith("VmRSS:"):
                rss = int(l.split()[1])
    p.send_signal(signal.SIGTERM)
    try:
        p.wait(timeout=30)
    except subprocess.TimeoutExpired:
        p.kill()
        p.wait()
    err = p.stderr.read()
    store_s = None
    for l in err.splitlines():
        if "listing from the store" in l or "first scan of" in l:
            try:
                store_s = float(l.rsplit(":", 1)[1].split()[0])
            except ValueError:
                pass
            break
    return first, full, cpu, rss, store_s


def main():
    if len(sys.argv) < 5:
        sys.exit(__doc__)
    clarity, d, want, reps = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
    opts = sys.argv[5:]
    runs = []
    for i in range(reps):
        r = one(clarity, d, want, opts)
        runs.append(r)
        print("run %d: first %.3f s, full %.3f s, cpu %.2f s, rss %d kB, server's own listing step %s s"
              % (i + 1, r[0], r[1], r[2], r[3], "?" if r[4] is None else "%.3f" % r[4]))
    med = lambda k: statistics.median(r[k] for r in runs)
    print("median %.3f %.3f %.2f %d" % (med(0), med(1), med(2), int(med(3))))


if __name__ == "__main__":
    main()
