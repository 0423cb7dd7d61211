#!/usr/bin/env bash
# Compiles SparkCodec.java into build/java/ when it is out of date and prints the classpath
# to run it with. Exit 1 (message on stderr) when no JDK or codec jar is available.
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/../.." && pwd)"
OUT="$ROOT/build/java"
SRC="$ROOT/tests/java/SparkCodec.java"
JARS=""
for j in lz4-java snappy-java compress-lzf zstd-jni; do
  f="/usr/share/java/$j.jar"
  [ -f "$f" ] || { echo "build.sh: missing $f" >&2; exit 1; }
  JARS="$JARS:$f"
done
CP="$OUT$JARS"
command -v javac >/dev/null || { echo "build.sh: javac not found" >&2; exit 1; }
if [ ! -f "$OUT/SparkCodec.class" ] || [ "$SRC" -nt "$OUT/SparkCodec.class" ]; then
  mkdir -p "$OUT"
  javac -nowarn -d "$OUT" -cp "${JARS#:}" "$SRC" >&2
fi
echo "$CP"
