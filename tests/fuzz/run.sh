#!/usr/bin/env bash
# The libFuzzer harnesses (tests/fuzz/<name>.c). Two modes:
# - FUZZ_SECONDS unset or 0 (`make check`): every saved reproducer of a past finding
#   (tests/fuzz/regressions/<name>/*) and every seed input (tests/fuzz/corpus/<name>, and for
#   the event log harness the project's fixtures cut to 16 KB) is replayed once through its
#   harness, linked by gcc against the ASan+UBSan build's library with a plain main
#   (tests/fuzz/replay/replay.c). No clang, no libFuzzer, and no third build of the library:
#   the coverage-instrumented one libFuzzer needs cost about 150 CPU s, most of this suite,
#   and only mutation fuzzing needs it. A crash or sanitizer report fails the suite and names
#   the input.
# - FUZZ_SECONDS=N (`make fuzz`: 600; N=3 is what `make check` ran before): the same replays
#   on the libFuzzer build (clang, build/fuzz), then each harness fuzzes for N seconds,
#   FUZZ_JOBS (default 2) at a time. A crash, leak, timeout or sanitizer report fails the
#   suite and names the reproducer, which libFuzzer writes to build/fuzz/crashes/. Corpora
#   grow in build/fuzz/corpus/<name>, seeded from tests/fuzz/corpus/<name> and, for the event
#   log harness, from the project's fixtures. Without clang and libFuzzer (Debian: clang,
#   libclang-rt-14-dev) this mode is skipped.
# FUZZ_ONLY="events shs" limits it to some harnesses; FUZZ_FORK=1 fuzzes in libFuzzer's fork
# mode, which goes on after a finding (each is written to build/fuzz/crashes/ and reported).
source "$(dirname "$0")/../lib.sh"
set -uo pipefail
cd "$ROOT"
SECS=${FUZZ_SECONDS:-0}
JOBS=${FUZZ_JOBS:-2}
BF=build/fuzz
FZ=tests/fuzz
WORK=$(mktemp -d "${TMPDIR:-/tmp}/clarity-fuzz-run.XXXXXX")
# the harnesses' scratch files (each input is written to one): on a tmpfs when there is one
SCRATCH=$(mktemp -d "$( [ -d /dev/shm ] && [ -w /dev/shm ] && echo /dev/shm || echo "${TMPDIR:-/tmp}")/clarity-fuzz.XXXXXX")
trap 'rm -rf "$WORK" "$SCRATCH"' EXIT

mapfile -t NAMES < <(for f in "$FZ"/*.c; do basename "$f" .c; done)
if [ -n "${FUZZ_ONLY:-}" ]; then NAMES=($FUZZ_ONLY); fi

# Event logs cut to their first 16 KB (whole lines): the harness's inputs stay small and fast.
seed_events() {
  rm -rf "$1"; mkdir -p "$1"
  local f c
  for f in tests/data/*.json tests/everylog/*.json tests/contention/fixtures/*.json; do
    grep -q '"Event"' "$f" || continue
    head -c 16384 "$f" | sed '$!b; /}$/!d' >"$1/$(basename "$f")"
  done
  # the codec harnesses' seeds are compressed event logs: the loader reads them too
  for c in "$FZ"/corpus/codec_*/*; do cp "$c" "$1/"; done
}

# ---- replay mode (`make check`) ----
if [ "$SECS" = 0 ]; then
  BR=build-asan/fuzz-replay
  note "fuzz: replay only: ${#NAMES[@]} harnesses on every saved regression and seed input under ASan+UBSan, no mutation fuzzing (FUZZ_SECONDS=3: the former \`make check\` run, libFuzzer build and 3 s of fuzzing a harness; \`make fuzz\`: 600 s each)"
  if ! make --no-print-directory -j"$(nproc)" "${NAMES[@]/#/$BR/bin/}" >"$WORK/build.log" 2>&1; then
    bad "fuzz: building the replay harnesses"; grep -m10 -E 'error|Error' "$WORK/build.log"; summary; exit 1
  fi
  ok "fuzz: ${#NAMES[@]} replay harnesses built"
  seed_events "$WORK/seeds-events"
  export FUZZ_TMPDIR="$SCRATCH"
  for n in "${NAMES[@]}"; do
    inputs=()
    # (and the corpus an earlier `make fuzz` grew here, when there is one)
    for d in "$FZ/regressions/$n" "$FZ/corpus/$n" "$BF/corpus/$n"; do [ -d "$d" ] && inputs+=("$d"); done
    [ "$n" = events ] && inputs+=("$WORK/seeds-events")
    if [ ${#inputs[@]} = 0 ]; then bad "fuzz $n: no regression or seed input to replay"; continue; fi
    "$BR/bin/$n" "${inputs[@]}" >"$WORK/$n.replay" 2>&1; rc=$?
    count=$(sed -n 's/^replayed \([0-9]*\) input.*/\1/p' "$WORK/$n.replay")
    if [ "$rc" = 0 ] && [ -n "$count" ] && ! grep -qE 'Sanitizer|runtime error:' "$WORK/$n.replay"; then
      ok "fuzz $n: $count regression, seed and corpus inputs replayed"
    else
      which=$(grep -E '^Running: ' "$WORK/$n.replay" | tail -1 | sed 's/^Running: //')
      bad "fuzz $n: exit $rc on ${which:-?}: $(grep -m1 -E 'ERROR:|runtime error:|SUMMARY|replay:' "$WORK/$n.replay")"
    fi
  done
  summary; exit $?
fi

# ---- toolchain ----
CC_FUZZ=${FUZZ_CC:-clang}
printf 'int LLVMFuzzerTestOneInput(const unsigned char *d, unsigned long n) { (void)d; (void)n; return 0; }\n' >"$WORK/probe.c"
if ! command -v "$CC_FUZZ" >/dev/null; then
  skip "fuzz: $CC_FUZZ not found (Debian packages clang and libclang-rt-14-dev)"; summary; exit $?
fi
if ! "$CC_FUZZ" -fsanitize=fuzzer,address,undefined -o "$WORK/probe" "$WORK/probe.c" 2>"$WORK/probe.err"; then
  skip "fuzz: $CC_FUZZ cannot link libFuzzer (Debian package libclang-rt-14-dev): $(grep -m1 . "$WORK/probe.err")"
  summary; exit $?
fi

if ! make --no-print-directory -j"$(nproc)" "${NAMES[@]/#/$BF/bin/}" >"$WORK/build.log" 2>&1; then
  bad "fuzz: building the harnesses"; grep -m10 -E 'error|Error' "$WORK/build.log"; summary; exit 1
fi
ok "fuzz: ${#NAMES[@]} harnesses built"

# ---- seeds ----
seed_events "$BF/seeds/events"; mkdir -p "$BF/crashes"

# options per harness: input size bound, dictionary
max_len() {
  case "$1" in
    events) echo 16384 ;;
    codec_*) echo 65536 ;;
    shs) echo 512 ;;
    source) echo 512 ;;
    *) echo 16384 ;;
  esac
}

# run_one NAME: replays the regressions, then fuzzes; writes "ok ..." or "bad ..." lines to
# $WORK/NAME.result and the libFuzzer log to $BF/logs/NAME.log
run_one() {
  local n="$1" bin="$BF/bin/$1" res="$WORK/$1.result" log="$BF/logs/$1.log"
  export FUZZ_TMPDIR="$SCRATCH"
  mkdir -p "$BF/corpus/$n" "$BF/logs"
  local regs=()
  [ -d "$FZ/regressions/$n" ] && mapfile -t regs < <(find "$FZ/regressions/$n" -type f | sort)
  if [ ${#regs[@]} -gt 0 ]; then
    if "$bin" -runs=1 "${regs[@]}" >"$WORK/$n.replay" 2>&1; then
      echo "ok fuzz $n: ${#regs[@]} regression inputs replayed" >"$res"
    else
      local which; which=$(grep -E '^Running: ' "$WORK/$n.replay" | tail -1 | sed 's/^Running: //')
      echo "bad fuzz $n: regression input fails again: ${which:-?}: $(grep -m1 -E 'ERROR:|runtime error:|SUMMARY' "$WORK/$n.replay")" >"$res"
      return
    fi
  fi
  local seeds=()
  [ -d "$FZ/corpus/$n" ] && seeds+=("$FZ/corpus/$n")
  [ -d "$BF/seeds/$n" ] && seeds+=("$BF/seeds/$n")
  local dict=()
  [ -f "$FZ/$n.dict" ] && dict=(-dict="$FZ/$n.dict")
  local fork=()
  [ -n "${FUZZ_FORK:-}" ] && fork=(-fork=1 -ignore_crashes=1 -ignore_ooms=1 -ignore_timeouts=1)
  local start=$SECONDS
  touch "$WORK/$n.start"
  ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
    "$bin" -max_total_time="$SECS" -timeout=30 -rss_limit_mb=2048 -max_len="$(max_len "$n")" \
      -print_final_stats=1 -artifact_prefix="$BF/crashes/$n-" "${dict[@]}" "${fork[@]}" \
      "$BF/corpus/$n" "${seeds[@]}" >"$log" 2>&1
  local rc=$? took=$((SECONDS - start))
  local execs cov
  execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
  [ -z "$execs" ] && execs=$(grep -oE '^#[0-9]+' "$log" | tail -1 | tr -d '#')
  cov=$(grep -oE 'cov: [0-9]+' "$log" | tail -1 | sed 's/cov: //')
  local found
  found=$(find "$BF/crashes" -name "$n-*" -newer "$WORK/$n.start" | sort)
  if [ "$rc" = 0 ] && [ -n "$found" ]; then
    echo "bad fuzz $n: $(wc -l <<<"$found") findings in $took s: $(tr '\n' ' ' <<<"$found")(log $log)" >>"$res"
  elif [ "$rc" = 0 ]; then
    echo "ok fuzz $n: ${execs:-?} runs in $took s, cov ${cov:-?}" >>"$res"
  else
    local repro what
    repro=$(grep -oE '(Test unit|artifact) written to [^ ]+' "$log" | tail -1 | sed 's/.* written to //')
    what=$(grep -m1 -E 'ERROR: (Address|Leak|libFuzzer|UndefinedBehavior)|runtime error:|SUMMARY:' "$log")
    echo "bad fuzz $n: exit $rc after $took s: ${what:-see $log}; reproducer: ${repro:-none written} (log $log)" >>"$res"
  fi
  echo "$n ${took} ${execs:-?} ${cov:-?} rc=$rc" >>"$BF/report.txt"
}

: >"$BF/report.txt"
for n in "${NAMES[@]}"; do
  while [ "$(jobs -rp | wc -l)" -ge "$JOBS" ]; do wait -n; done
  run_one "$n" &
done
wait

for n in "${NAMES[@]}"; do
  if [ ! -f "$WORK/$n.result" ]; then bad "fuzz $n: no result"; continue; fi
  while read -r verdict rest; do
    if [ "$verdict" = ok ]; then ok "$rest"; echo "$rest"; else bad "$rest"; fi
  done <"$WORK/$n.result"
done
summary
