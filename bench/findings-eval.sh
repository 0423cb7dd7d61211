#!/usr/bin/env bash
# clarity findings against synth ground truth, per kind: precision, recall and the error of the
# estimated saving against the same seed re-run without the injected problem (issue 16 part 3;
# method in bench/findings-eval.py, results in docs/findings.md "Evaluation").
#   SEEDS="11 12 13 14 15" bench/findings-eval.sh      reporting seeds (the default)
#   SEEDS="1 2 3 4 5" bench/findings-eval.sh           tuning seeds
#   QUICK=1 bench/findings-eval.sh                     smoke run: one seed, one workload a kind
#   KINDS="data_skew lost_executors" ...               only these kinds' knobs (clean runs stay;
#                                                      precision then counts only their false alarms)
#   ORACLE=1 ...                                       score the truth itself (checks the scorer)
#   TRUTH_PERTS=1 ...                                  the truth of one run pair (otherwise the median
#                                                      of three: CPU work x1, x1.001, x0.999 in both)
#   EVAL_DIR=DIR keeps the runs and DIR/details.json; JOBS=N parallel runs (default 2);
#   FINDINGS_CMD="prog args" replaces `clarity findings --json`; CODEC=zstd writes the event
#   logs compressed (a tenth of the disk; the same events).
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
export CLARITY="${CLARITY:-$ROOT/build/clarity}"
[ -x "$CLARITY" ] || { echo "build $CLARITY first (make build/clarity)" >&2; exit 2; }
if [ -z "${ORACLE:-}" ] && [ -z "${FINDINGS_CMD:-}" ] && ! "$CLARITY" findings --help >/dev/null 2>&1; then
  echo "$CLARITY has no findings command (merge branch findings16), or set ORACLE=1 / FINDINGS_CMD" >&2; exit 2
fi
if [ -n "${EVAL_DIR:-}" ]; then W=$EVAL_DIR; mkdir -p "$W"
else W=$(mktemp -d); trap 'rm -rf "$W"' EXIT; fi
start=$(date +%s)
nice -n 10 python3 "$ROOT/bench/findings-eval.py" "$W" "${SEEDS:-11 12 13 14 15}"
echo
echo "($(( $(date +%s) - start )) s on $(nproc) cores)"
