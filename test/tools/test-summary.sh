#!/usr/bin/env bash
# Prints the summary make test collected (test/tools/suite.sh writes one line per
# suite, then its skip reasons), with the totals.
#   test-summary.sh [FILE]   (default build/test-summary.txt)
set -euo pipefail
file=${1:-build/test-summary.txt}
[ -f "$file" ] || { echo "no test summary at $file (make test writes it)" >&2; exit 1; }
echo
echo "== make test: summary (full output of each suite in build/logs/)"
cat "$file"
awk '/^[^ ]/ && / passed, / {
        for (i = 1; i <= NF; i++) {
            if ($(i + 1) ~ /^passed/) p += $i
            if ($(i + 1) ~ /^failed/) f += $i
            if ($(i + 1) ~ /^skipped/) s += $i
        }
     }
     /^[^ ]/ { n++; if ($2 != "ok") bad++ }
     END { printf "total: %d suites (%d failed), %d tests passed, %d failed, %d skipped\n", n, bad, p, f, s }' "$file"
