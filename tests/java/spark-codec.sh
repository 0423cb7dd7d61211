#!/usr/bin/env bash
# spark-codec.sh CODEC IN OUT [IN2 OUT2 ...]: compresses IN as Spark writes event logs with
# CODEC (several pairs share one JVM).
set -euo pipefail
[ $# -ge 3 ] && [ $(($# % 2)) -eq 1 ] || { echo "usage: spark-codec.sh <lz4|lzf|snappy|zstd> IN OUT [IN2 OUT2 ...]" >&2; exit 2; }
CP="$("$(dirname "$0")/build.sh")"
# The JNI codecs load their native parts from Debian's system libraries.
exec java -Djava.library.path=/usr/lib/x86_64-linux-gnu/jni:/usr/lib/x86_64-linux-gnu:/usr/lib/jni \
  -Dorg.xerial.snappy.use.systemlib=true -cp "$CP" SparkCodec "$@"
