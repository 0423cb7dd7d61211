#!/usr/bin/env bash
# Proves a refactor changed no output: builds REV (default: the commit before the reshaping,
# 8fd130d) in a temporary worktree, records every command's output with it and with the
# current build (tests/snapshot/record.py), and diffs the two recordings.
#   tests/snapshot/compare.sh [REV]      exit 0 when byte-identical, 1 with the diff's head
# Not part of `make check` (it builds a second tree); run it after every refactor step.
set -euo pipefail
cd "$(dirname "$0")/../.."
rev="${1:-8fd130d}"
base="${SNAPSHOT_DIR:-/tmp/clarity-snapshot}"
wt="$base/tree-$rev"
if [ ! -x "$wt/build/clarity" ]; then
  rm -rf "$wt"; git worktree prune
  git worktree add --detach "$wt" "$rev" >/dev/null
  make -C "$wt" -j2 build/clarity >/dev/null
fi
make -j2 build/clarity >/dev/null
[ -d "$base/rec-$rev" ] || python3 tests/snapshot/record.py "$base/rec-$rev" --clarity "$wt/build/clarity" >/dev/null
now="$base/rec-now-$(basename "$PWD")"; rm -rf "$now"
python3 tests/snapshot/record.py "$now" --clarity build/clarity
n=$(ls "$now" | wc -l)
allowed=${ALLOWED:-tests/snapshot/expected-changes.txt}   # ALLOWED=/dev/null: no change allowed
diff -rq "$base/rec-$rev" "$now" | sed -n 's|^Files .*/rec-[^/]*/\([^ ]*\)\.[a-z]* and .*|\1|p; s|^Only in \(.*\): \(.*\)|only in \1: \2|p' | sort -u >"$now.names" || true
{ grep -v "^#" "$allowed" || true; } | sed "/^$/d" >"$now.allowed"
unexpected=$(grep -vxFf "$now.allowed" "$now.names" || true)
diff -r "$base/rec-$rev" "$now" >"$now.diff" || true
if [ -z "$unexpected" ]; then
  echo "identical: $n files of $rev and the working tree, apart from $(wc -l <"$now.names") expected changes ($allowed)"
else
  echo "DIFFERENT: $(wc -l <<<"$unexpected") cases differ ($now.diff):"; head -20 <<<"$unexpected"; exit 1
fi
