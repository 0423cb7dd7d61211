# Shared helpers for shell test suites: source it, call ok/bad/skip, end with `summary`.
# Each suite prints "N passed, N failed, N skipped" last; run-all.sh adds them up.
T_PASS=0; T_FAIL=0; T_SKIP=0
ROOT="${CLARITY_ROOT:-$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)}"
SHARED_DATA="${SHARED_DATA:-$ROOT/../shared/data}"
CLARITY="${CLARITY:-$ROOT/build/clarity}"
CLARITY_ASAN="${CLARITY_ASAN:-$ROOT/build-asan/clarity}"
export ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
ok()   { T_PASS=$((T_PASS+1)); [ -n "${VERBOSE:-}" ] && echo "ok   $*"; return 0; }
bad()  { T_FAIL=$((T_FAIL+1)); echo "FAIL $*"; return 0; }
skip() { T_SKIP=$((T_SKIP+1)); echo "SKIP $*"; return 0; }
# note: what a suite sampled or left out on purpose (and the variable that restores it);
# run-all.sh shows these lines with the suite's FAIL and SKIP lines
note() { echo "NOTE $*"; return 0; }
check() { # check "name" cmd...: passes when cmd exits 0
  local name="$1"; shift
  if "$@"; then ok "$name"; else bad "$name"; fi
}
have_shared() { [ -d "$SHARED_DATA/spark-events" ]; }
summary() { echo "$T_PASS passed, $T_FAIL failed, $T_SKIP skipped"; [ "$T_FAIL" = 0 ]; }
