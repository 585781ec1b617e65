#!/usr/bin/env bash
# make conformance: tfnano against real TensorFlow.
#
# TensorFlow is a test oracle only: it goes into its own virtualenv (build/venv-tf,
# PyPI tensorflow-cpu, never a dependency of tfnano) together with what the tests
# need. The C library is loaded from build/test (make conformance builds it first);
# the notebook-parity test runs the tfnano half in build/venv (make python).
#
# When PyPI cannot be reached under CI, the suite is reported as skipped, loudly,
# instead of failing; anywhere else that is an error.
set -euo pipefail
cd "$(dirname "$0")/../.."

PYTHON=${PYTHON:-python3}
VENV=build/venv-tf
TF_SPEC=${TF_SPEC:-tensorflow-cpu}
STAMP=$VENV/.stamp

skip_or_fail() {
    if [ "${CI:-}" = "true" ]; then
        printf '\n!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!\n'
        printf '!!! conformance SKIPPED: %s\n' "$1"
        printf '!!! tfnano was NOT compared with TensorFlow in this run.\n'
        printf '!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!\n\n'
        exit 0
    fi
    echo "conformance: $1" >&2
    exit 1
}

# Shared between checkouts (test/tools/venv.sh --shared): a fresh clone with the same
# requirements links the machine's copy instead of downloading TensorFlow again.
if [ ! -f "$STAMP" ] || [ test/conformance/requirements.txt -nt "$STAMP" ]; then
    log=build/venv-tf-install.log
    mkdir -p build
    if ! PYTHON=$PYTHON test/tools/venv.sh --shared "$VENV" "$TF_SPEC" \
           -r test/conformance/requirements.txt >"$log" 2>&1; then
        cat "$log" >&2
        rm -rf "$VENV"
        skip_or_fail "could not install $TF_SPEC from PyPI (see the pip output above)"
    fi
    cat "$log"
    touch "$STAMP"
fi

# The tfnano half of the notebook-parity test runs in build/venv.
make --no-print-directory python

"$VENV/bin/python" -c 'import tensorflow as tf; print("conformance: TensorFlow", tf.__version__)'
TF_CPP_MIN_LOG_LEVEL=2 "$VENV/bin/python" -m pytest -q -p no:cacheprovider test/conformance "$@"
