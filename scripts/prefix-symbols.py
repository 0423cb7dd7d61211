#!/usr/bin/env python3
"""Gives every exported symbol of libclarity.a the clarity_ prefix, in the C sources.

    scripts/prefix-symbols.py build/libclarity.a [DIR...]

Reads the library's strong defined symbols (nm), keeps those not already clarity_-prefixed
(C++ symbols excepted: the simdjson wrapper's template instances are weak), and renames each
identifier NAME to clarity_NAME in the .c/.h/.cpp files under DIR (default src include tests
examples). The rename is token-aware: it skips string and character literals, comments,
#include lines and member accesses (`.name`, `->name`), so output strings and struct fields
keep their names. A struct field that shares a function's name shows up as a compile error,
never as a silent change. Kept in the tree for the next time a module is added without the
prefix; `tests/api/run.sh` is the check that says so.
"""
import os, re, subprocess, sys

TOKEN = re.compile(r'''
    (?P<comment>/\*.*?\*/|//[^\n]*)
  | (?P<string>"(?:\\.|[^"\\\n])*"|'(?:\\.|[^'\\\n])*')
  | (?P<include>^[ \t]*\#[ \t]*include[^\n]*)
  | (?P<ident>[A-Za-z_][A-Za-z0-9_]*)
  | (?P<other>->|.)
''', re.S | re.M | re.X)


def exported(lib):
    out = subprocess.run(["nm", "-g", "--defined-only", lib], capture_output=True, text=True).stdout
    names = set()
    for line in out.splitlines():
        parts = line.split()
        if len(parts) == 3 and parts[1] in "TDBRGSC" and not parts[2].startswith(("clarity_", "_Z")):
            names.add(parts[2])
    return names


def rename(text, names):
    out = []
    prev = prev2 = ""  # the last two significant tokens
    for m in TOKEN.finditer(text):
        tok = m.group(0)
        # Criterion's Test(suite, name) takes bare words that only look like identifiers
        if (m.lastgroup == "ident" and tok in names and prev not in (".", "->")
                and not (prev == "(" and prev2 in ("Test", "TestSuite", "ParameterizedTest"))):
            tok = "clarity_" + tok
        out.append(tok)
        if m.lastgroup in ("ident", "other") and not tok.isspace():
            prev2, prev = prev, tok
        elif m.lastgroup == "string":
            prev2, prev = prev, '"'
    return "".join(out)


def main():
    lib = sys.argv[1]
    dirs = sys.argv[2:] or ["src", "include", "tests", "examples"]
    names = exported(lib)
    clash = sorted(n for n in names if ("clarity_" + n) in names)
    if clash:
        sys.exit("would collide: " + ", ".join(clash))
    changed = 0
    for d in dirs:
        for base, _, files in os.walk(d):
            for f in files:
                if not f.endswith((".c", ".h", ".cpp")):
                    continue
                p = os.path.join(base, f)
                s = open(p, encoding="utf-8").read()
                t = rename(s, names)
                if t != s:
                    open(p, "w", encoding="utf-8").write(t)
                    changed += 1
    print("%d symbols prefixed in %d files" % (len(names), changed))


if __name__ == "__main__":
    main()
