#!/usr/bin/env bash
# Runs every C test binary given as arguments (optionally through $TFN_TEST_WRAPPER,
# e.g. valgrind), echoes their output and ends with one total "N passed, N failed".
set -u
passed=0; failed=0; crashed=0
for t in "$@"; do
    out=$(${TFN_TEST_WRAPPER:-} "$t" 2>&1); rc=$?
    printf '%s\n' "$out" | sed "s|^|[$(basename "$t")] |"
    line=$(printf '%s\n' "$out" | grep -E '^[0-9]+ passed, [0-9]+ failed$' | tail -n 1)
    if [ -z "$line" ]; then
        echo "[$(basename "$t")] exited with status $rc before reporting" >&2
        crashed=$((crashed + 1)); continue
    fi
    p=${line%% passed*}; f=${line#*, }; f=${f%% failed*}
    passed=$((passed + p)); failed=$((failed + f))
    [ $rc -ne 0 ] && [ "$f" -eq 0 ] && crashed=$((crashed + 1))
done
failed=$((failed + crashed))
echo "C tests: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
