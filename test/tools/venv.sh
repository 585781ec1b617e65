#!/usr/bin/env bash
# Makes a test virtualenv from PyPI, surviving a flaky network, and shares the heavy
# ones between checkouts.
#
#   venv.sh [--shared] DIR PIP-INSTALL-ARGS...
#
# Downloads are retried: pip resumes an interrupted file (--resume-retries) and the
# whole install is tried again, three times in all, before the step fails.
#
# --shared: the virtualenv is built once per machine under $TFNANO_VENV_CACHE
# (default ~/.cache/tfnano/venvs), in a folder named after DIR and a hash of the Python
# version and the install arguments (requirements files by content), and DIR becomes a
# symlink to it. A fresh clone (CI) with unchanged requirements reuses it instead of
# downloading torch, Ray, Beam or TensorFlow again; it says so on stdout. Only for
# virtualenvs that do not contain tfnano itself (the tests take tfnano from the tree).
# TFNANO_VENV_CACHE=off builds DIR in place.
set -euo pipefail

shared=0
if [ "${1:-}" = "--shared" ]; then shared=1; shift; fi
[ $# -ge 2 ] || { echo "usage: venv.sh [--shared] DIR PIP-INSTALL-ARGS..." >&2; exit 2; }
dir=$1; shift
PYTHON=${PYTHON:-python3}

pip_install() {  # pip_install VENV ARGS...: up to three attempts
    local venv=$1; shift
    local attempt resume=() progress=()
    # pip's own lines say what it fetches and installs; its bars only on a terminal
    [ -t 1 ] || progress=(--progress-bar off)
    # pip >= 25.1 resumes a broken download itself; older pip has no such option.
    if "$venv/bin/python" -m pip install --help 2>/dev/null | grep -q -- --resume-retries; then
        resume=(--resume-retries 20)
    fi
    for attempt in 1 2 3; do
        if "$venv/bin/python" -m pip install --disable-pip-version-check "${progress[@]}" \
            "${resume[@]}" "$@"; then
            return 0
        fi
        echo "tfnano: pip install into $venv failed (attempt $attempt of 3)" >&2
        sleep $((attempt * 10))
    done
    return 1
}

build() {  # build VENV: a new virtualenv with an up-to-date pip and the arguments
    local venv=$1; shift
    rm -rf "$venv"
    echo "tfnano: making the virtualenv $venv (pip install $*)"
    "$PYTHON" -m venv "$venv"
    pip_install "$venv" --upgrade pip
    pip_install "$venv" "$@"
}

cache=${TFNANO_VENV_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/tfnano/venvs}
if [ $shared -eq 0 ] || [ "$cache" = "off" ]; then
    [ -L "$dir" ] && rm -f "$dir"
    build "$dir" "$@"
    exit 0
fi

# The key: Python version, then each argument (a requirements file by its content).
key=$({
    "$PYTHON" -c 'import sys; print(sys.version)'
    prev=
    for a in "$@"; do
        if [ "$prev" = "-r" ] || [ "$prev" = "--requirement" ]; then cat "$a"; else echo "$a"; fi
        prev=$a
    done
} | sha256sum | cut -c1-16)
name=$(basename "$dir")
target=$cache/$name-$key
mkdir -p "$cache"

exec 9>"$cache/.lock"
flock 9
if [ -f "$target/.complete" ]; then
    echo "tfnano: $dir -> $target (shared virtualenv, same requirements; not downloaded again)"
else
    echo "tfnano: building the shared virtualenv $target for $dir"
    build "$target" "$@"
    touch "$target/.complete"
    # Other builds of this virtualenv, broken or unused for two weeks, go.
    for old in "$cache/$name"-*; do
        [ "$old" = "$target" ] || [ ! -d "$old" ] && continue
        [ -n "$(find "$old/.complete" -mtime -14 2>/dev/null)" ] || rm -rf "$old"
    done
fi
touch "$target/.complete"  # last use, for the clean-up above
rm -rf "$dir"
mkdir -p "$(dirname "$dir")"
ln -s "$target" "$dir"
