#!/usr/bin/env python3
"""Static checks of the library's shape, run by tests/layers/run.sh:

  prints    nothing below src/cli prints to stdout/stderr or exits (source text)
  symbols   the same on the built library: no object references stdout, printf, exit, ...
  includes  every #include goes to the file's own module or a lower layer
  calls     every call between objects of the library goes to the same module or a lower layer

Each check prints one line per violation and exits 1 when there is any, 0 otherwise.
`check.py --root DIR CHECK` checks another tree (run.sh plants violations in a copy to prove
the checks catch them).

The rules (why they are what they are is in the comments next to them):

prints: outside src/cli no `printf( vprintf( puts( putchar( perror( dprintf( exit( _exit(
  abort( assert( err( warn( syslog(`..., and no mention of `stdout`, `stderr`,
  `STDOUT_FILENO`, `STDERR_FILENO` at all (so no `fprintf(stderr, ...)` and no storing them).
  Writes to a stream (`fprintf vfprintf fputs fputc putc fwrite fflush` ...) must name, as
  their stream, a `FILE *` parameter of the function they are in: the caller chose the stream
  (report writers, clarity_ladra_model_write). Two exceptions write to streams they keep in a
  struct: src/synth/ (the event and executor logs it generates, opened by itself) and
  src/util/jsonw.c (the FILE * its caller gave jsonw_init). Comments and string literals are
  ignored.

layers (includes and calls), lowest first; modules on one line are peers and may not use
  one another:
      util
      codec
      source              (names codecs when it resolves files)
      event  store        (store: the SQLite index of log entries and their rows)
      model
      logs  sim  math     (sim is the analyses' shared lower module: task components, task
                           groups, Dolly's rule, replay plans, driver time)
      analysis/<feature>  (blocked, stragglers, whatif, predict, anomalies, contention: peers)
      analysis/findings   (aggregates the analyses above: may use them; only diff uses it)
      analysis/diff       (compares two runs, with their findings)
      shs
      report
      fleet               (the store's index of a directory: uses report's fleet-table figures)
      synth               (may use only util, clarity/model.h and itself)
      cli
  A public header in include/clarity/ belongs to the module named in HEADER_MODULE below; a
  header that is not listed there fails the check, so a new one must be placed in a layer.
"""
import os
import re
import subprocess
import sys

LAYERS = [
    ["util"],
    ["codec"],
    ["source"],
    # store: SQLite rows about log entries (names them through source's resolved entries);
    # the fleet index and the server use it, it uses nothing above source
    ["event", "store"],
    ["model"],
    ["logs", "sim", "math"],
    ["analysis/blocked", "analysis/stragglers", "analysis/whatif", "analysis/predict", "analysis/anomalies",
     "analysis/contention"],
    # findings aggregates the analyses above (stragglers per stage, the what-if curve): the one
    # analysis allowed to use others, so it sits in a layer of its own above them
    ["analysis/findings"],
    # diff compares the findings of two runs: a layer above findings
    ["analysis/diff"],
    ["shs"],
    ["report"],
    # fleet: the incremental index of a log directory into the store; its rows reuse the
    # fleet table's figures (report), the findings and the History Server's listing JSON.
    # serve: the History Server over HTTP: the REST layer (shs) behind libmicrohttpd
    ["fleet", "serve"],
    ["synth"],
    ["cli"],
]
RANK = {m: i for i, layer in enumerate(LAYERS) for m in layer}
# synth writes Spark logs from a workload model: it must not depend on the readers it tests.
SYNTH_MAY_USE = {"util", "synth"}
SYNTH_HEADERS = {"clarity/model.h"}

HEADER_MODULE = {
    "arena.h": "util", "error.h": "util", "icol.h": "util",
    "codec.h": "codec",
    "source.h": "source",
    "store.h": "store",
    "model.h": "model",
    "logs.h": "logs",
    "sim.h": "sim",
    "blocked.h": "analysis/blocked",
    "stragglers.h": "analysis/stragglers",
    "whatif.h": "analysis/whatif",
    "predict.h": "analysis/predict",
    "anomalies.h": "analysis/anomalies",
    "contention.h": "analysis/contention",
    "findings.h": "analysis/findings",
    "diff.h": "analysis/diff",
    "shs.h": "shs",
    "report.h": "report",
    "fleet.h": "fleet",
    "serve.h": "serve",
    "synth.h": "synth",
}

FORBIDDEN_CALLS = ["printf", "vprintf", "puts", "putchar", "putchar_unlocked", "perror", "dprintf", "vdprintf",
                   "exit", "_exit", "_Exit", "quick_exit", "abort", "assert", "err", "errx", "verr", "verrx",
                   "warn", "warnx", "vwarn", "vwarnx", "syslog", "vsyslog", "psignal", "psiginfo"]
FORBIDDEN_NAMES = ["stdout", "stderr", "STDOUT_FILENO", "STDERR_FILENO"]
# stream writers and the index of their stream argument (-1: the last one)
WRITERS = {"fprintf": 0, "vfprintf": 0, "fflush": 0, "fputs": -1, "fputc": -1, "putc": -1, "putc_unlocked": -1,
           "fputc_unlocked": -1, "fputs_unlocked": -1, "fwrite": 3, "fwrite_unlocked": 3, "fputws": -1,
           "fputwc": -1, "putwc": -1, "fwprintf": 0, "vfwprintf": 0}
# files that write to a stream kept in a struct (see the docstring)
OWN_STREAMS = ("src/synth/", "src/util/jsonw.c")
# simdjson's header-only code, compiled into the C++ wrapper, asserts its own invariants
# (assert() from <cassert>): that is the dependency's check, not a print of ours.
SYMBOL_ALLOW = {"json_simdjson.o": {"__assert_fail"}}
# symbols no library object may reference (glibc's fortified and assert entry points included)
FORBIDDEN_SYMBOLS = set(FORBIDDEN_CALLS + FORBIDDEN_NAMES) - {"assert"} | {
    "__printf_chk", "__vprintf_chk", "__dprintf_chk", "__vdprintf_chk", "__assert_fail", "__assert_perror_fail",
    "__assert", "stdin"}


def source_files(root, with_cli):
    out = []
    for top in ("src", "include/clarity"):
        for d, _, names in os.walk(os.path.join(root, top)):
            for n in names:
                if n.endswith((".c", ".h", ".cpp")):
                    rel = os.path.relpath(os.path.join(d, n), root)
                    if with_cli or not rel.startswith("src/cli/"):
                        out.append(rel)
    return sorted(out)


def module_of_path(rel):
    """Module of a file of the tree (src/... or include/clarity/...), None when unknown."""
    if rel.startswith("include/clarity/"):
        return HEADER_MODULE.get(os.path.basename(rel))
    parts = rel.split("/")
    if len(parts) < 3 or parts[0] != "src":
        return None
    if parts[1] == "analysis":
        return "analysis/" + parts[2] if len(parts) >= 4 else None
    return parts[1] if parts[1] in RANK else None


def strip_code(text):
    """Comments and string/char literal contents become spaces; line breaks stay."""
    out, i, n = [], 0, len(text)
    while i < n:
        c = text[i]
        if text.startswith("//", i):
            j = text.find("\n", i)
            j = n if j < 0 else j
            out.append(" " * (j - i))
            i = j
        elif text.startswith("/*", i):
            j = text.find("*/", i + 2)
            j = n if j < 0 else j + 2
            out.append(re.sub(r"[^\n]", " ", text[i:j]))
            i = j
        elif c in "\"'":
            j = i + 1
            while j < n and text[j] != c:
                j += 2 if text[j] == "\\" else 1
            out.append(c + re.sub(r"[^\n]", " ", text[i + 1:j]) + c)
            i = j + 1
        else:
            out.append(c)
            i += 1
    return "".join(out)


def split_args(s, start):
    """Arguments of the call whose '(' is at start: (list of argument texts, index after ')')."""
    depth, args, cur, i = 0, [], [], start
    while i < len(s):
        c = s[i]
        if c in "([{":
            depth += 1
            if depth > 1:
                cur.append(c)
        elif c in ")]}":
            depth -= 1
            if depth == 0:
                args.append("".join(cur).strip())
                return args, i + 1
            cur.append(c)
        elif c == "," and depth == 1:
            args.append("".join(cur).strip())
            cur = []
        else:
            cur.append(c)
        i += 1
    return args, i


def functions(code):
    """(body start, body end, FILE * parameter names) of every top-level function definition."""
    out, depth, last = [], 0, 0
    i = 0
    while i < len(code):
        c = code[i]
        if c == "{":
            if depth == 0:
                head = code[last:i]
                m = re.search(r"\b\w+\s*\(([^()]*(?:\([^()]*\)[^()]*)*)\)\s*$", head)
                params = set(re.findall(r"\bFILE\s*\*\s*(?:const\s+)?(\w+)", m.group(1))) if m else None
                start = i
            depth += 1
        elif c == "}":
            depth -= 1
            if depth == 0:
                if params is not None:
                    out.append((start, i, params))
                last = i + 1
        elif c == ";" and depth == 0:
            last = i + 1
        elif c == "#" and depth == 0 and (i == 0 or code[i - 1] == "\n"):   # preprocessor line
            j = code.find("\n", i)
            while j > 0 and code[j - 1] == "\\":
                j = code.find("\n", j + 1)
            i = len(code) if j < 0 else j
            last = i
            continue
        i += 1
    return out


def line_of(code, pos):
    return code.count("\n", 0, pos) + 1


def check_prints(root):
    bad = []
    files = source_files(root, with_cli=False)
    for rel in files:
        code = strip_code(open(os.path.join(root, rel), encoding="utf-8", errors="replace").read())
        for name in FORBIDDEN_NAMES:
            for m in re.finditer(r"\b%s\b" % re.escape(name), code):
                bad.append("%s:%d: names %s (only src/cli may use the standard streams)" % (rel, line_of(code, m.start()), name))
        for name in FORBIDDEN_CALLS:
            for m in re.finditer(r"(?<![\w.>])%s\s*\(" % re.escape(name), code):
                bad.append("%s:%d: calls %s() (prints or exits: only src/cli may)" % (rel, line_of(code, m.start()), name))
        funcs = functions(code)
        own = rel.startswith(OWN_STREAMS)
        for name, idx in WRITERS.items():
            for m in re.finditer(r"(?<![\w.>])%s\s*\(" % re.escape(name), code):
                args, _ = split_args(code, m.end() - 1)
                stream = args[idx] if -len(args) <= idx < len(args) else ""
                if own:
                    continue   # any stream but the standard ones, already refused above
                where = [f for f in funcs if f[0] < m.start() < f[1]]
                params = where[0][2] if where else set()
                if not re.fullmatch(r"\w+", stream) or stream not in params:
                    bad.append("%s:%d: %s() writes to '%s', not to a FILE * parameter of its function"
                               % (rel, line_of(code, m.start()), name, stream))
    return files, bad


def includes_of(root, rel):
    code = strip_code(open(os.path.join(root, rel), encoding="utf-8", errors="replace").read())
    raw = open(os.path.join(root, rel), encoding="utf-8", errors="replace").read().split("\n")
    for n, line in enumerate(code.split("\n"), 1):
        if re.match(r"\s*#\s*include\s*\"", line):
            m = re.search(r'#\s*include\s*"([^"]+)"', raw[n - 1])
            if m:
                yield n, m.group(1)


def target_module(root, rel, inc):
    """Module an include points to, or an error string."""
    if inc.startswith("clarity/"):
        mod = HEADER_MODULE.get(inc[len("clarity/"):])
        if not os.path.exists(os.path.join(root, "include", inc)):
            return None, "includes %s, which does not exist" % inc
        return mod, None if mod else "includes %s, a header tests/layers/check.py does not place in a layer" % inc
    if ".." in inc.split("/"):
        return None, "includes %s by a relative path" % inc
    path = os.path.join("src", inc)
    if not os.path.exists(os.path.join(root, path)):
        return None, "includes %s, not a path under src/" % inc
    mod = module_of_path(path)
    return mod, None if mod else "includes %s, in no known module" % inc


def allowed(src, dst, dst_name):
    if src == dst:
        return True
    if src == "synth":
        return dst in SYNTH_MAY_USE or dst_name in SYNTH_HEADERS
    return RANK[dst] < RANK[src]


def check_includes(root):
    bad, n = [], 0
    files = source_files(root, with_cli=True)
    for rel in files:
        src = module_of_path(rel)
        if src is None:
            bad.append("%s: in no known module (tests/layers/check.py: HEADER_MODULE or LAYERS)" % rel)
            continue
        for line, inc in includes_of(root, rel):
            n += 1
            dst, why = target_module(root, rel, inc)
            if why:
                bad.append("%s:%d: %s" % (rel, line, why))
            elif not allowed(src, dst, inc):
                bad.append("%s:%d: %s (%s) includes %s (%s): %s" % (
                    rel, line, rel, src, inc, dst,
                    "a peer module" if RANK[dst] == RANK[src] else "a higher layer"))
    return n, bad


def nm(lib):
    """{member: (defined symbols, undefined symbols)} of an archive."""
    out = subprocess.run(["nm", "-A", lib], check=True, capture_output=True, text=True).stdout
    members = {}
    for line in out.splitlines():
        m = re.match(r"[^:]+:([^:]+):\s*(?:[0-9a-fA-F]+\s+)?([A-Za-z])\s+(\S+)$", line)
        if not m:
            continue
        member, kind, sym = m.groups()
        d, u = members.setdefault(member, (set(), set()))
        (u if kind == "U" else d if kind.isupper() else set()).add(sym)
    return members


def check_symbols(root, lib):
    bad = []
    members = nm(lib)
    for member, (_, undef) in sorted(members.items()):
        for sym in sorted((undef & FORBIDDEN_SYMBOLS) - SYMBOL_ALLOW.get(member, set())):
            bad.append("%s: references %s (prints or exits: only src/cli may)" % (member, sym))
    return len(members), bad


def check_calls(root, lib):
    bad = []
    members = nm(lib)
    where = {}
    for rel in source_files(root, with_cli=False):
        if rel.endswith((".c", ".cpp")):
            where[os.path.splitext(os.path.basename(rel))[0] + ".o"] = module_of_path(rel)
    owner = {}
    for member, (defs, _) in members.items():
        for sym in defs:
            owner[sym] = member
    n = 0
    for member, (_, undef) in sorted(members.items()):
        src = where.get(member)
        if src is None:
            bad.append("%s: no source file of this name under src/ (stale library?)" % member)
            continue
        for sym in sorted(undef):
            if sym not in owner:
                continue   # libc, libstdc++, the codecs' libraries
            n += 1
            dst = where.get(owner[sym])
            if dst and not allowed(src, dst, None):
                bad.append("%s (%s) calls %s in %s (%s): %s" % (member, src, sym, owner[sym], dst,
                                                             "a peer module" if RANK[dst] == RANK[src] else "a higher layer"))
    return n, bad


def main(argv):
    root = "."
    if len(argv) > 2 and argv[1] == "--root":
        root, argv = argv[2], argv[:1] + argv[3:]
    what = argv[1] if len(argv) > 1 else ""
    if what == "prints":
        files, bad = check_prints(root)
        # a check that read nothing would pass: the tree has well over 100 library files
        if len(files) < 20:
            bad.append("only %d library files found under %s: wrong root?" % (len(files), root))
    elif what == "includes":
        n, bad = check_includes(root)
        if n < 20:
            bad.append("only %d includes found under %s: wrong root?" % (n, root))
    elif what in ("symbols", "calls"):
        lib = argv[2] if len(argv) > 2 else os.path.join(root, "build/libclarity.a")
        n, bad = (check_symbols if what == "symbols" else check_calls)(root, lib)
        if n < 20:
            bad.append("only %d %s checked in %s" % (n, "objects" if what == "symbols" else "calls", lib))
    else:
        print(__doc__)
        return 2
    for b in bad:
        print(b)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
