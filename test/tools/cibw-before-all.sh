#!/bin/sh
# cibuildwheel's before-all step (pyproject.toml [tool.cibuildwheel.linux]): the C
# libraries tfnano's extension links, inside a manylinux container (AlmaLinux 8 for
# manylinux_2_28, x86_64 or aarch64). zlib, libjpeg-turbo, libpng and giflib come from
# the distribution (auditwheel then bundles those outside the manylinux set); nanopb's
# runtime is built from its release tag, the version Debian 12 ships (0.4.7), whose
# symbols lib/nanopb.syms renames, as a position-independent static archive.
set -eu
NANOPB_VERSION=0.4.7
dnf install -y zlib-devel libjpeg-turbo-devel libpng-devel cmake git
# giflib-devel is in the PowerTools repository on EL8
dnf install -y --enablerepo=powertools giflib-devel || dnf install -y giflib-devel
git clone --depth 1 --branch "$NANOPB_VERSION" https://github.com/nanopb/nanopb /tmp/nanopb
cmake -S /tmp/nanopb -B /tmp/nanopb/build -DCMAKE_BUILD_TYPE=Release \
    -DCMAKE_POSITION_INDEPENDENT_CODE=ON -Dnanopb_BUILD_GENERATOR=OFF \
    -DBUILD_SHARED_LIBS=OFF -DCMAKE_INSTALL_PREFIX=/usr/local -DCMAKE_INSTALL_LIBDIR=lib
cmake --build /tmp/nanopb/build -j "$(nproc)"
cmake --install /tmp/nanopb/build
test -f /usr/local/lib/libprotobuf-nanopb.a && test -f /usr/local/include/pb.h
