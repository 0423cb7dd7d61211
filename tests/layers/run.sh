#!/usr/bin/env bash
# The library's shape (rules in tests/layers/check.py): nothing below src/cli prints to the
# standard streams or exits, in the source and in the built library; every #include and every
# call between the library's objects goes to the file's own module or a lower layer (the
# analysis features are peers that share only lower modules such as src/sim).
# Each check also runs on a copy of the tree with violations planted in it and must catch
# every one: a checker that reads nothing, or matches nothing, fails here instead of passing.
set -uo pipefail
source "$(dirname "$0")/../lib.sh"
cd "$ROOT"
CHECK="python3 tests/layers/check.py"
LIB="$ROOT/build/libclarity.a"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

run_check() { # name, args...: passes when the checker finds nothing
  local name="$1"; shift
  if $CHECK "$@" >"$tmp/out" 2>&1; then ok "$name"; else bad "$name:"; sed 's/^/    /' "$tmp/out" | head -40; fi
}

run_check "no printing or exiting below src/cli (source)" prints
run_check "includes go to the same module or a lower layer" includes
if [ -f "$LIB" ]; then
  run_check "no printing or exiting below src/cli (build/libclarity.a)" symbols "$LIB"
  run_check "calls between objects go to the same module or a lower layer" calls "$LIB"
else
  skip "symbols and calls: build/libclarity.a not built (make build/libclarity.a)"
fi

# ---- planted violations: each must be reported ----
mkdir -p "$tmp/tree"
cp -r src include "$tmp/tree/"
t="$tmp/tree"
cat >>"$t/src/analysis/blocked/blocked.c" <<'EOF'
static void planted_print(void) { printf("x\n"); }
static void planted_stderr(int x) { fprintf(stderr, "%d\n", x); }
static void planted_local(const char *p) { FILE *f = fopen(p, "w"); fputs("x", f); fclose(f); }
static void planted_exit(void) { exit(1); }
static void planted_ok(FILE *o, int x) { fprintf(o, "%d printf(\"not code\")\n", x); } /* exit(0) in a comment */
EOF
sed -i '0,/#include "clarity\/blocked.h"/s//&\n#include "clarity\/stragglers.h"/' "$t/src/analysis/blocked/blocked.c"
sed -i '0,/#include "clarity\/sim.h"/s//&\n#include "clarity\/blocked.h"/' "$t/src/sim/plan.c"
# findings sits above the analysis features: one of them including it is an upward include
sed -i '0,/#include "clarity\/stragglers.h"/s//&\n#include "clarity\/findings.h"/' "$t/src/analysis/stragglers/stragglers.c"
echo '#include "clarity/planted_new.h"' >>"$t/src/sim/slots.c"
touch "$t/include/clarity/planted_new.h"

expect_found() { # name, pattern: the last checker output must contain the pattern
  if grep -q -- "$2" "$tmp/out"; then ok "planted: $1"; else bad "planted: $1 not reported"; sed 's/^/    /' "$tmp/out" | head -20; fi
}
$CHECK --root "$t" prints >"$tmp/out" 2>&1 && bad "planted prints: checker passed" || ok "planted prints: checker fails"
expect_found "printf()" "blocked.c:[0-9]*: calls printf()"
expect_found "fprintf(stderr)" "blocked.c:[0-9]*: names stderr"
expect_found "write to a local FILE *" "blocked.c:[0-9]*: fputs() writes to 'f'"
expect_found "exit()" "blocked.c:[0-9]*: calls exit()"
okline=$(grep -n planted_ok "$t/src/analysis/blocked/blocked.c" | cut -d: -f1)
if grep -q "blocked.c:$okline:" "$tmp/out"; then
  bad "planted: a write to a FILE * parameter, or text in a comment or string, was reported"; sed 's/^/    /' "$tmp/out" | head
else ok "planted: parameters, comments and strings are not reported"; fi

$CHECK --root "$t" includes >"$tmp/out" 2>&1 && bad "planted includes: checker passed" || ok "planted includes: checker fails"
expect_found "analysis feature including another" "blocked.c:[0-9]*: .*includes clarity/stragglers.h (analysis/stragglers): a peer module"
expect_found "lower layer including a higher one" "plan.c:[0-9]*: .*includes clarity/blocked.h (analysis/blocked): a higher layer"
expect_found "analysis feature including findings" "stragglers.c:[0-9]*: .*includes clarity/findings.h (analysis/findings): a higher layer"
expect_found "header in no layer" "slots.c:[0-9]*: includes clarity/planted_new.h, a header"

# the built-library checks on a two-object archive named after two analysis features
mkdir -p "$tmp/obj"
printf '#include <stdio.h>\nint clarity__planted_peer(void);\nint clarity__planted(void) { puts("x"); return clarity__planted_peer(); }\n' >"$tmp/obj/blocked.c"
printf 'int clarity__planted_peer(void) { return 1; }\n' >"$tmp/obj/stragglers.c"
if cc -c -O0 -o "$tmp/obj/blocked.o" "$tmp/obj/blocked.c" && cc -c -O0 -o "$tmp/obj/stragglers.o" "$tmp/obj/stragglers.c" &&
   ar rcs "$tmp/obj/lib.a" "$tmp/obj/blocked.o" "$tmp/obj/stragglers.o"; then
  $CHECK --root "$t" symbols "$tmp/obj/lib.a" >"$tmp/out" 2>&1 && bad "planted symbols: checker passed" || ok "planted symbols: checker fails"
  expect_found "puts in an object" "blocked.o: references puts"
  $CHECK --root "$t" calls "$tmp/obj/lib.a" >"$tmp/out" 2>&1 && bad "planted calls: checker passed" || ok "planted calls: checker fails"
  expect_found "call into a peer feature" "blocked.o (analysis/blocked) calls clarity__planted_peer in stragglers.o (analysis/stragglers): a peer module"
else
  bad "planted symbols: cannot compile the probe objects"
fi
summary
