#!/usr/bin/env bash
# Runs one suite of `make test` and records how it went.
#
#   suite.sh NAME COMMAND...     (NAME: one word, e.g. python, c-asan)
#
# The command's output is shown as it comes and kept in build/logs/NAME.log. When
# TFN_TEST_SUMMARY names a file (make test sets it), one line is added to it: the
# suite, ok / FAILED, its passed / failed / skipped counts read from the output
# (pytest's closing line, run-c-tests.sh's "C tests: N passed, N failed", C tests'
# "SKIP name: reason" lines), its time, then one indented line per skip reason
# (pytest -rs). A failing suite prints the summary so far, since make stops there.
# Any new suite: add `@$(SUITE) name $(MAKE) --no-print-directory target` to make test.
set -uo pipefail
name=$1; shift
case $name in *[!A-Za-z0-9_.-]*|"") echo "suite.sh: NAME must be one word: '$name'" >&2; exit 2;; esac
mkdir -p build/logs
log=build/logs/$name.log
start=$(date +%s)
PYTHONUNBUFFERED=1 "$@" 2>&1 | tee "$log"
rc=${PIPESTATUS[0]}
secs=$(($(date +%s) - start))

# pytest's closing lines ("3 failed, 120 passed, 2 skipped in 4.10s", maybe with
# "(0:01:46)" after a minute, maybe inside ===), summed over every pytest run of the suite; C runners' totals.
counts=$(awk '
    /^(=+ )?[0-9]+ [a-z]+(,| in ).*[0-9.]+s( \([0-9:]+\))?( =+)?$/ {
        n = split($0, w, /[ ,=]+/)
        for (i = 1; i < n; i++) if (w[i] ~ /^[0-9]+$/) {
            k = w[i + 1]; if (k == "errors") k = "error"; c[k] += w[i]
        }
        seen = 1
    }
    /^C tests: [0-9]+ passed, [0-9]+ failed$/ { c["passed"] += $3; c["failed"] += $5; seen = 1 }
    /^\[[^]]*\] SKIP [^ ]+: / { c["skipped"]++ }
    END {
        if (seen) printf "%d passed, %d failed, %d skipped", c["passed"], c["failed"] + c["error"], c["skipped"]
    }' "$log")
status=ok
[ "$rc" -eq 0 ] || status=FAILED
[ -n "$counts" ] || counts="(no test counts: a build or check step)"

if [ -n "${TFN_TEST_SUMMARY:-}" ]; then
    {
        printf '%-26s %-7s %s  (%d s)\n' "$name" "$status" "$counts" "$secs"
        # pytest -rs: "SKIPPED [2] test/x.py:12: reason"; C: "[test_x] SKIP name: reason"
        grep -E '^SKIPPED \[[0-9]+\] |^\[[^]]*\] SKIP [^ ]+: ' "$log" | sed -E \
            -e 's/^SKIPPED \[([0-9]+)\] /    skipped \1: /' \
            -e 's/^\[([^]]*)\] SKIP /    skipped 1: \1 /' || true
    } >> "$TFN_TEST_SUMMARY"
fi
if [ "$rc" -ne 0 ]; then
    echo "$name: FAILED (exit status $rc; its output is in $log)" >&2
    [ -n "${TFN_TEST_SUMMARY:-}" ] && test/tools/test-summary.sh "$TFN_TEST_SUMMARY" >&2
fi
exit "$rc"
