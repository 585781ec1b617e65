#!/usr/bin/env bash
# What `make test-aarch64` needs: Debian's aarch64 cross compiler, qemu-user-static to
# run its programs, and the arm64 builds of the libraries tfnano links (Debian
# multiarch: zlib, libjpeg-turbo, libpng, giflib). nanopb's arm64 archive is unpacked
# into build/aarch64-nanopb instead of installed: an arm64 libprotobuf-nanopb.a under
# /usr/lib/aarch64-linux-gnu would come first in the native build's search for it.
# Usage (as root, like ensure-deps.sh): ensure-aarch64.sh
set -euo pipefail
cd "$(dirname "$0")/../.."
if ! dpkg --print-foreign-architectures | grep -qx arm64; then
    [ "$(id -u)" -eq 0 ] || { echo "tfnano: run as root: dpkg --add-architecture arm64 && apt-get update" >&2; exit 1; }
    echo "tfnano: adding Debian's arm64 architecture (dpkg --add-architecture arm64)"
    dpkg --add-architecture arm64
    apt-get update -q >/dev/null
fi
test/tools/ensure-deps.sh gcc-aarch64-linux-gnu libc6-dev-arm64-cross qemu-user-static \
    zlib1g-dev:arm64 libjpeg62-turbo-dev:arm64 libpng-dev:arm64 libgif-dev:arm64
nanopb=build/aarch64-nanopb
if [ ! -f "$nanopb/usr/lib/aarch64-linux-gnu/libprotobuf-nanopb.a" ]; then
    echo "tfnano: unpacking libnanopb-dev:arm64 into $nanopb"
    rm -rf "$nanopb" && mkdir -p "$nanopb/deb"
    (cd "$nanopb/deb" && apt-get download -q "libnanopb-dev:arm64=$(dpkg-query -W -f='${Version}' libnanopb-dev)" >/dev/null)
    dpkg -x "$nanopb"/deb/*.deb "$nanopb"
fi
