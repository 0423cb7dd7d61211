#!/usr/bin/env bash
# Codec decoders against genuine Spark encoder output: every plain fixture (tests/data) and
# every plain log in $SHARED_DATA/spark-events is compressed with the Java libraries Spark
# uses (tests/java/SparkCodec.java), decoded with tests/tools/decode and compared byte for
# byte; then each compressed file is cut at CODEC_CUTS (default 3; 20 for a deeper run)
# seeded random offsets and decoded by an ASan+UBSan build, which must not crash, must
# report the cut, and must return a prefix of
# the original holding every line of the blocks/frames wholly before the cut (per
# tests/tools/framewalk, which walks the framing independently of the decoders).
source "$(dirname "$0")/../lib.sh"
set -uo pipefail
cd "$ROOT"

CODECS=(lz4 lzf snappy zstd)
# 3 cuts a file in `make check` (4 codecs x every plain log: about 420 truncated decodes under
# ASan, 35 inputs with the shared data of 2026-11-27); each cut costs three processes (the cut,
# the ASan decoder, tests/codec/cutcheck.c's facts: those took ten small tools a cut before,
# 0.23 CPU s a cut against 0.02 now, 2026-11-28), and 20 a file made this the slowest suite.
# The decoders' truncation paths are few (inside a header, a block header, a block's body, at
# a unit's end), and 140 random cuts a codec still meet each of them many times.
# Of a file of several units, the first cut is not random but 1-8 bytes into the second unit's
# header. CODEC_CUTS=5 is the former `make check`, 20 the deep run.
CUTS=${CODEC_CUTS:-3}
[ -z "${CODEC_CUTS:-}" ] && note "codec: 3 seeded cuts a compressed file (CODEC_CUTS=5: the former make check; 20: the deep run)"
SEED=${CODEC_TEST_SEED:-20240611}
OUT="$ROOT/build/codec-test"
WORK=$(mktemp -d "${TMPDIR:-/tmp}/clarity-codec-run.XXXXXX")
trap 'rm -rf "$WORK"' EXIT
mkdir -p "$OUT"

# ---- tools: the Makefile's decode when present; own builds for the ASan copy and oracle ----
CFLAGS=(-std=c17 -Wall -Wextra -Werror -D_GNU_SOURCE -Iinclude -Isrc -pthread)
# (as the Makefile's sanitizer build: line tables only, and linked -no-pie with the sanitizer
# runtimes static, which cuts each of the decoder's hundreds of starts; see the Makefile)
SAN=(-O1 -g1 -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all)
SAN_LD=(-no-pie -static-libasan -static-libubsan)
LIBS=(-lzstd -llz4 -lsnappy -llzf -lz -lxxhash -lm)
# Only the codec sources and the error type: the rest of the tree may be mid-edit.
SRCS=(src/codec/*.c src/util/error.c)
DECODE="$ROOT/build/tools/decode"
if [ ! -x "$DECODE" ] || [ -n "$(find src/codec tests/tools/decode.c -newer "$DECODE" 2>/dev/null | head -1)" ]; then
  DECODE="$OUT/decode"
  cc "${CFLAGS[@]}" -O2 -g -o "$DECODE" tests/tools/decode.c "${SRCS[@]}" "${LIBS[@]}" \
    || { bad "build decode"; summary; exit 1; }
fi
DECODE_ASAN="$OUT/decode-asan"
# the ASan+UBSan build's library, which `make check` has just built from the same sources with
# the same flags, when it is newer than them; else the codec sources compiled here again
ASAN_LIB="$ROOT/build-asan/libclarity.a"
if [ -f "$ASAN_LIB" ] && [ -z "$(find src/codec src/util/error.c -newer "$ASAN_LIB" 2>/dev/null | head -1)" ]; then
  DECODE_SRCS=("$ASAN_LIB")
else
  DECODE_SRCS=("${SRCS[@]}")
fi
cc "${CFLAGS[@]}" "${SAN[@]}" "${SAN_LD[@]}" -o "$DECODE_ASAN" tests/tools/decode.c "${DECODE_SRCS[@]}" "${LIBS[@]}" \
  || { bad "build decode (asan)"; summary; exit 1; }
WALK="$OUT/framewalk"
cc "${CFLAGS[@]}" -O2 -o "$WALK" tests/tools/framewalk.c -lzstd || { bad "build framewalk"; summary; exit 1; }
# the facts a cut is judged by, in one process a cut (tests/codec/cutcheck.c says which)
CHECK="$OUT/cutcheck"
cc "${CFLAGS[@]}" -O2 -o "$CHECK" tests/codec/cutcheck.c || { bad "build cutcheck"; summary; exit 1; }
ok "tools built"

if ! CP=$(tests/java/build.sh 2>"$WORK/javac.err"); then
  skip "Java codec helper unavailable: $(head -1 "$WORK/javac.err")"
  summary; exit $?
fi
ok "java helper built"

# ---- inputs ----
is_plain() { # first non-BOM, non-space byte is '{'
  local c; c=$(head -c 64 "$1" | LC_ALL=C sed '1s/^\xEF\xBB\xBF//' | LC_ALL=C tr -d ' \t\r\n' | head -c 1)
  [ "$c" = "{" ]
}
INPUTS=()
for f in tests/data/*.json; do [ -f "$f" ] && [ -s "$f" ] && is_plain "$f" && INPUTS+=("$f"); done
[ ${#INPUTS[@]} -gt 0 ] && ok "project fixtures found (${#INPUTS[@]})" || bad "no plain fixtures in tests/data"
if have_shared; then
  n0=${#INPUTS[@]}
  # a shared log byte-identical to a fixture (tests/data keeps copies of two) is not
  # compressed and cut again
  declare -A have_sum
  for f in "${INPUTS[@]}"; do have_sum[$(md5sum <"$f" | cut -d' ' -f1)]=1; done
  ndup=0
  while IFS= read -r -d '' f; do
    [ -s "$f" ] && is_plain "$f" || continue
    sum=$(md5sum <"$f" | cut -d' ' -f1)
    if [ -n "${have_sum[$sum]:-}" ]; then ndup=$((ndup+1)); continue; fi
    have_sum[$sum]=1; INPUTS+=("$f")
  done < <(find "$SHARED_DATA/spark-events" -type f -print0 | sort -z)
  [ ${#INPUTS[@]} -gt "$n0" ] && ok "shared logs found ($(( ${#INPUTS[@]} - n0 )), $ndup byte-identical to an input before skipped)" || bad "no plain logs in $SHARED_DATA/spark-events"
else
  skip "shared event logs: $SHARED_DATA/spark-events absent"
fi

# ---- compress: one JVM per codec ----
declare -A ZF   # "codec:index" -> compressed file
for c in "${CODECS[@]}"; do
  args=()
  for i in "${!INPUTS[@]}"; do
    ZF[$c:$i]="$WORK/$i.$c"
    args+=("${INPUTS[$i]}" "${ZF[$c:$i]}")
  done
  if tests/java/spark-codec.sh "$c" "${args[@]}" 2>"$WORK/java.err"; then
    ok "java $c compress"
  else
    bad "java $c compress: $(head -3 "$WORK/java.err")"
  fi
done

status_field() { sed -n "s/.* $2=\([^ ]*\).*/\1/p; s/^$2=\([^ ]*\).*/\1/p" "$1" | head -1; }

RANDOM=$SEED   # reproducible cut offsets
for c in "${CODECS[@]}"; do
  for i in "${!INPUTS[@]}"; do
    in="${INPUTS[$i]}"; z="${ZF[$c:$i]}"; name="$c $(basename "$in")"
    [ -s "$z" ] || { bad "$name: no compressed file"; continue; }
    "$DECODE" "$z" >"$WORK/out" 2>"$WORK/err"; rc=$?
    if [ $rc -eq 0 ] && cmp -s "$WORK/out" "$in" && [ "$(status_field "$WORK/err" codec)" = "$c" ]; then
      ok "$name: round trip"
    else
      bad "$name: round trip (rc=$rc, $(tail -1 "$WORK/err"))"
    fi
    if ! "$WALK" "$c" "$z" >"$WORK/units" 2>"$WORK/walk.err"; then
      bad "$name: framewalk: $(cat "$WORK/walk.err")"; continue
    fi
    zsize=$(stat -c %s "$z"); osize=$(stat -c %s "$in")
    [ "$(tail -1 "$WORK/units" | cut -d' ' -f2)" = "$osize" ] || bad "$name: framewalk total differs from input size"
    first_end=$(head -1 "$WORK/units" | cut -d' ' -f1)
    for ((k = 0; k < CUTS; k++)); do
      # Offsets 0-1 cannot name a codec; everything from 2 up must decode as far as it goes.
      cut=$(( (RANDOM * 32768 + RANDOM) % (zsize - 2) + 2 ))
      # the first cut of a file of several units falls 1-8 bytes past the first unit's end:
      # inside the next unit's header, a path a random cut reaches about once in a few hundred
      if [ "$k" = 0 ] && [ "$first_end" -gt 1 ] && [ $((first_end + 8)) -lt "$zsize" ]; then
        cut=$(( first_end + 1 + cut % 8 ))
      fi
      head -c "$cut" "$z" >"$WORK/cut"
      "$DECODE_ASAN" "$WORK/cut" >"$WORK/cout" 2>"$WORK/cerr"; rc=$?
      must=""; read -r must clean got want_lines got_lines prefix truncated \
        < <("$CHECK" "$WORK/units" "$cut" "$in" "$WORK/cout" "$WORK/cerr")
      why="$name cut@$cut/$zsize"
      [ -n "$must" ] || { bad "$why: cutcheck failed"; continue; }
      if [ $rc -ne 0 ] && [ $rc -ne 4 ]; then
        bad "$why: decoder crashed or failed (rc=$rc): $(grep -m3 -E 'ERROR|runtime error|decode:' "$WORK/cerr")"
      elif [ "$clean" = 1 ] && [ $rc -ne 0 ]; then
        bad "$why: clean unit boundary reported as damage: $(tail -1 "$WORK/cerr")"
      elif [ "$clean" = 0 ] && { [ $rc -ne 4 ] || [ "$truncated" != 1 ]; }; then
        bad "$why: cut not reported as truncation (rc=$rc): $(tail -1 "$WORK/cerr")"
      elif [ "$prefix" != 1 ]; then
        bad "$why: decoded bytes are not a prefix of the original"
      elif [ "$got" -lt "$must" ] || [ "$got_lines" -lt "$want_lines" ]; then
        bad "$why: recovered $got bytes/$got_lines lines, whole units before the cut hold $must/$want_lines"
      elif [ "$cut" -ge "$first_end" ] && [ "$must" -gt 0 ] && [ "$got_lines" -eq 0 ]; then
        bad "$why: nothing recovered past the first unit"
      else
        ok "$why"
      fi
    done
  done
done

summary
