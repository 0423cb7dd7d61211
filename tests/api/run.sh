#!/usr/bin/env bash
# The library's face to programs that link it:
# - every strong symbol libclarity.a exports starts with clarity_ (a program with its own
#   `grow` or `intern` must link); C++ symbols of the simdjson wrapper are weak template
#   instances and are not ours to name;
# - each installed header compiles on its own, with only the installed headers on the path
#   (internals live under src/ and must not leak into include/clarity/);
# - examples/ builds against an installed copy (make install PREFIX=tmp) with pkg-config and runs.
source "$(dirname "$0")/../lib.sh"
T=$(mktemp -d); trap 'rm -rf "$T"' EXIT
LIB="$ROOT/build/libclarity.a"

if [ ! -f "$LIB" ]; then bad "no $LIB (make build/libclarity.a)"; summary; exit; fi
nm -g --defined-only "$LIB" | awk 'NF==3 && $2 ~ /^[TDBRGSC]$/ {print $3}' | sort -u >"$T/syms"
grep -v -e '^clarity_' -e '^_Z' "$T/syms" >"$T/bad" || true
n=$(wc -l <"$T/syms"); nb=$(wc -l <"$T/bad")
if [ "$n" -gt 100 ] && [ "$nb" = 0 ]; then ok "exported symbols: all $n start with clarity_"
else bad "exported symbols: $nb of $n lack the clarity_ prefix: $(head -20 "$T/bad" | tr '\n' ' ')"; fi

# the check must be able to fail: a planted unprefixed symbol is caught
printf 'int grow(int x) { return x + 1; }\n' >"$T/planted.c"
cc -c "$T/planted.c" -o "$T/planted.o" && ar rcs "$T/planted.a" "$T/planted.o"
if nm -g --defined-only "$T/planted.a" | awk 'NF==3 && $2 ~ /^[TDBRGSC]$/ {print $3}' | grep -qv -e '^clarity_' -e '^_Z'
then ok "symbol check catches a planted 'grow'"; else bad "symbol check missed a planted symbol"; fi

# installed headers stand alone
make -s -C "$ROOT" install PREFIX="$T/inst" >"$T/install.log" 2>&1 || { bad "make install"; tail -5 "$T/install.log"; }
for h in "$T"/inst/include/clarity/*.h; do
  name=$(basename "$h")
  printf '#include <clarity/%s>\nint main(void) { return 0; }\n' "$name" >"$T/h.c"
  if cc -std=c17 -Wall -Wextra -Werror -I"$T/inst/include" -c "$T/h.c" -o "$T/h.o" 2>"$T/h.err"
  then ok "header $name compiles alone"; else bad "header $name: $(head -3 "$T/h.err" | tr '\n' ' ')"; fi
done
nh=$(ls "$T"/inst/include/clarity/*.h | wc -l)
# one header per module (util gives three: errors, the arena and the integer columns the
# model's inline accessors read; findings, the module above the analyses, and diff, the module
# above findings, have their own; store, the SQLite index, fleet, the directory index over
# it, and serve, the History Server over HTTP, one each); an internal header installed by
# mistake pushes it over
if [ "$nh" -le 22 ]; then ok "$nh installed headers"; else bad "$nh installed headers (one per module is 22)"; fi

# an example program built the way a user builds it
export PKG_CONFIG_PATH="$T/inst/lib/pkgconfig"
for ex in "$ROOT"/examples/*.c; do
  [ -f "$ex" ] || continue
  name=$(basename "$ex" .c)
  # shellcheck disable=SC2046
  if cc -std=c17 -Wall -Wextra -Werror -o "$T/$name" "$ex" $(pkg-config --cflags --libs --static clarity) 2>"$T/ex.err"
  then ok "example $name builds with pkg-config"
  else bad "example $name: $(head -5 "$T/ex.err" | tr '\n' ' ')"; continue; fi
  if out=$("$T/$name" "$ROOT/tests/data/mini-3x.json" 2>&1) && [ -n "$out" ]
  then ok "example $name runs: $(head -1 <<<"$out")"; else bad "example $name failed: $out"; fi
done
summary
