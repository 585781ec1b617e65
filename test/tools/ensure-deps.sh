#!/usr/bin/env bash
# Installs the Debian packages tfnano's build and tests need, when they are missing.
# As root it runs apt-get itself (apt-get update once per machine); otherwise it
# prints the command to run and fails. Usage: ensure-deps.sh [extra-package ...]
set -euo pipefail

packages=(libnanopb-dev nanopb zlib1g-dev libjpeg62-turbo-dev libpng-dev libgif-dev pkg-config python3-venv "$@")
missing=()
for p in "${packages[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0

if [ "$(id -u)" -ne 0 ]; then
    echo "tfnano: missing Debian packages: ${missing[*]}" >&2
    echo "tfnano: install them with: sudo apt-get install -y ${missing[*]}" >&2
    exit 1
fi
echo "tfnano: installing Debian packages: ${missing[*]}"
stamp=/var/lib/apt/periodic/tfnano-update-stamp
if [ ! -f "$stamp" ] || ! apt-get install -y -q --no-install-recommends "${missing[@]}" >/dev/null 2>&1; then
    apt-get update -q >/dev/null
    mkdir -p "$(dirname "$stamp")" && touch "$stamp"
    DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends "${missing[@]}"
fi
