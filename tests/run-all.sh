#!/usr/bin/env bash
# Runs every test suite: Criterion unit tests (normal and ASan+UBSan builds) and the shell
# suites in tests/*/run.sh. Ends with one line "N passed, N failed[, N skipped]".
set -uo pipefail
cd "$(dirname "$0")/.."
export CLARITY_ROOT="$PWD"
export SHARED_DATA="${SHARED_DATA:-$PWD/../shared/data}"
passed=0; failed=0; skipped=0

run_criterion() { # $1 label, $2 binary, then its arguments (a --filter); sets last_failed
  local out; out=$(mktemp)
  # --timeout: a test that hangs fails, named, instead of holding make check until CI's limit
  "$2" --jobs=2 --timeout "${UNIT_TEST_TIMEOUT:-300}" "${@:3}" >"$out" 2>&1; local rc=$?
  last_failed=1
  grep -E '^\[(FAIL|----)\]|Synthesis' "$out" | grep -v '^\[----\] *$' | tail -40
  local line; line=$(grep -a 'Synthesis' "$out" | tail -1 | sed 's/\x1b\[[0-9;]*m//g')
  local p f c
  p=$(sed -n 's/.*Passing: \([0-9]*\).*/\1/p' <<<"$line"); f=$(sed -n 's/.*Failing: \([0-9]*\).*/\1/p' <<<"$line")
  c=$(sed -n 's/.*Crashing: \([0-9]*\).*/\1/p' <<<"$line")
  if [ -z "$p" ]; then echo "$1: criterion produced no summary (rc=$rc)"; tail -20 "$out"; failed=$((failed+1)); rm -f "$out"; return; fi
  if grep -qE 'ERROR: (Address|Leak)Sanitizer|runtime error:' "$out"; then
    echo "$1: sanitizer findings:"; grep -E -A12 'ERROR: (Address|Leak)Sanitizer|runtime error:' "$out" | head -40
    f=$((f+1))
  fi
  echo "$1: $p passed, $((f)) failed (crashing $c)"
  passed=$((passed+p)); failed=$((failed+f)); last_failed=$f
  [ "$rc" != 0 ] && [ "$f" = 0 ] && { echo "$1: exit code $rc"; failed=$((failed+1)); last_failed=1; }
  rm -f "$out"
}

# The unit tests a process a suite (tests/unit/runner/suite_runner.c: Criterion starts a
# process a test, and under ASan that start and LeakSanitizer's scan at its exit were most of
# the 231-249 CPU s of the 534 tests). A suite that fails there in any way (a failed
# assertion, a crash, a sanitizer report, a leak) runs again under Criterion, a process a
# test, and that run's result is the suite's: every failure is still named by its test, and a
# failure seen only when the suite's tests share a process is reported as such.
# UNIT_EACH=1: every test in a process of its own under Criterion, as before.
# A process runs up to UNIT_SUITES_PER_PROCESS suites (default 8) one after another: under
# ASan a child's fork and LeakSanitizer's scan at its exit cost about what a small suite's
# tests cost. A child that fails in any way sends every suite it ran to Criterion, so a
# failure is still named by its test. UNIT_SUITES_PER_PROCESS=1: a process a suite.
run_unit() { # $1 label, $2 the suite runner, $3 Criterion's binary
  if [ -n "${UNIT_EACH:-}" ] || [ ! -x "$2" ]; then run_criterion "$1" "$3"; return; fi
  local out per=${UNIT_SUITES_PER_PROCESS:-8}; out=$(mktemp)
  # bounded: a suite that hangs (a deadlock once hung the whole run) is killed, and with no
  # synthesis every test runs under Criterion, whose --timeout names the hanging one
  timeout -k 10 "${UNIT_SUITES_TIMEOUT:-900}" "$2" --jobs=2 --suites="$per" >"$out" 2>"$out.err"
  if ! grep -q '^\[====\] Synthesis' "$out"; then
    echo "$1: the suite runner ended without its synthesis: every test under Criterion"
    rm -f "$out" "$out.err"; run_criterion "$1" "$3"; return
  fi
  local tag name nt np nf ns st proc p=0 s=0 nsuites=0 rerun=()
  local -A proc_of named_in
  while read -r tag name nt np nf ns st proc; do
    nsuites=$((nsuites+1))
    if [ "$st" = ok ]; then p=$((p+np)); s=$((s+ns)); else rerun+=("$name"); proc_of[$name]=${proc:-0}; fi
  done < <(grep '^SUITE ' "$out")
  echo "NOTE $1: up to $per suites a process ($nsuites suites, $p tests passed, $s skipped); ${#rerun[@]} suite(s) failed there and ran again a process a test under Criterion (UNIT_SUITES_PER_PROCESS=1: a process a suite; UNIT_EACH=1: every test a process)"
  passed=$((passed+p))
  # a process's failure (a crash, a leak at its exit) sends all its suites here: it is named
  # when one of them fails under Criterion; when none does, it showed only when they shared
  # one process, and counts as one failure
  for name in "${rerun[@]}"; do
    run_criterion "$1, suite $name (a process a test)" "$3" --filter "$name/*"
    [ "$last_failed" = 0 ] || named_in[${proc_of[$name]}]=1
  done
  local shown=" "
  for name in "${rerun[@]}"; do
    proc=${proc_of[$name]}
    # (a suite the runner does not support ran only under Criterion: that run judged it)
    [ "$proc" != 0 ] && [ -z "${named_in[$proc]:-}" ] || continue
    case "$shown" in *" $proc "*) continue ;; esac
    shown+="$proc "
    echo "$1: suite $name failed only when its tests shared one process (with the other suites of that process): $(grep "^SUITE .* $proc\$" "$out" | grep -v ' ok ' | tr '\n' ';')"
    grep -E -m5 'ERROR: (Address|Leak)Sanitizer|runtime error:|: '"$name"'/' "$out.err"
    failed=$((failed+1))
  done
  rm -f "$out" "$out.err"
}

# the CPU seconds (user + system) of this shell's children so far, as the suites' lines give theirs
# (`times` run in this shell, into a file: a $(...) subshell has no children of its own)
CPUF=$(mktemp)
children_cpu() { times >"$CPUF"; cpu=$(tail -1 "$CPUF" | sed 's/m/ /g; s/s//g' | awk '{ printf "%.0f", $1 * 60 + $2 + $3 * 60 + $4 }'); }
children_cpu; c0=$cpu
run_unit "unit (normal build)" build/unit_suites build/unit_tests
children_cpu; c1=$cpu; echo "unit (normal build): CPU $((c1 - c0)) s"
ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
  run_unit "unit (asan+ubsan build)" build-asan/unit_suites build-asan/unit_tests
children_cpu; c2=$cpu; echo "unit (asan+ubsan build): CPU $((c2 - c1)) s"
rm -f "$CPUF"

# The shell suites run SUITE_JOBS at a time (default: the cores): each is mostly one process
# after another, so two at a time on CI's two cores halves the wall time. Every suite keeps
# its own temporary folder; its output is read back when it ends, in the order suites end.
SUITE_JOBS=${SUITE_JOBS:-$(nproc)}
RES=$(mktemp -d)
run_suite() { # run_suite SUITE: writes RES/<name>.out and .rc and .secs
  local name; name=$(basename "$(dirname "$1")"); local t0=$SECONDS
  "$1" >"$RES/$name.out" 2>&1; echo $? >"$RES/$name.rc"
  # wall seconds and the CPU seconds (user + system) of the suite's processes: wall grows with
  # the machine's load, CPU much less, so CPU is the figure to compare between runs
  # (`times` in this shell, not in a $(...) subshell, which has no children of its own)
  times >"$RES/$name.times"
  local cpu; cpu=$(tail -1 "$RES/$name.times" | sed 's/m/ /g; s/s//g' | awk '{ printf "%.0f", $1 * 60 + $2 + $3 * 60 + $4 }')
  echo "$((SECONDS - t0)) s, CPU $cpu s" >"$RES/$name.secs"
}
report_suite() { # report_suite SUITE: its FAIL/SKIP lines and summary, added to the totals
  local suite=$1 name; name=$(basename "$(dirname "$1")")
  local out="$RES/$name.out" rc; rc=$(cat "$RES/$name.rc")
  grep -E '^(FAIL|SKIP|NOTE)' "$out" | head -50
  local line; line=$(grep -E '^[0-9]+ passed, [0-9]+ failed' "$out" | tail -1)
  if [ -z "$line" ]; then echo "$suite: no summary (rc=$rc)"; tail -20 "$out"; failed=$((failed+1)); return; fi
  # the seconds each suite took, so the one that makes `make check` slow is named
  echo "$suite: $line ($(cat "$RES/$name.secs"))"
  local p f s
  p=$(sed -n 's/^\([0-9]*\) passed.*/\1/p' <<<"$line"); f=$(sed -n 's/.* \([0-9]*\) failed.*/\1/p' <<<"$line")
  s=$(sed -n 's/.* \([0-9]*\) skipped.*/\1/p' <<<"$line")
  passed=$((passed+p)); failed=$((failed+f)); skipped=$((skipped+${s:-0}))
}
# The longest suites start first: started last, one of them would run alone on one core at
# the end while the other core idles. The order is the CPU s of the quiet clean clone of
# 2026-11-28 (main a12ba5c: everylog 510, serve 126, codec 106, readable 88, report 84, cli 49,
# anomalies 38, crossapp 34, platform and conformance about 30; fuzz, 5 since its replays,
# was fourth); serve and report also wait on a server and a browser, so their wall time is
# longer than their CPU's share
LONG_FIRST="everylog serve codec readable report cli anomalies crossapp platform conformance"
suites=()
for name in $LONG_FIRST; do [ -x "tests/$name/run.sh" ] && suites+=("tests/$name/run.sh"); done
for suite in tests/*/run.sh; do
  case " $LONG_FIRST " in *" $(basename "$(dirname "$suite")") "*) continue ;; esac
  [ -x "$suite" ] && suites+=("$suite")
done
declare -A pid_of
live=0
reap() { # reports the suites that ended; sets live to how many still run
  local s; live=0
  for s in "${suites[@]}"; do
    [ -n "${pid_of[$s]:-}" ] || continue
    if kill -0 "${pid_of[$s]}" 2>/dev/null; then live=$((live+1)); else report_suite "$s"; unset "pid_of[$s]"; fi
  done
}
for suite in "${suites[@]}"; do
  reap
  while [ "$live" -ge "$SUITE_JOBS" ]; do wait -n 2>/dev/null || true; reap; done
  run_suite "$suite" & pid_of[$suite]=$!
done
wait
reap
rm -rf "$RES"
echo "$passed passed, $failed failed, $skipped skipped"
[ "$failed" = 0 ]
