#!/usr/bin/env bash
# Compiles every file of lib/ for macOS (arm64 and x86-64) with zig's clang and its
# bundled macOS SDK headers: Linux-only calls must stay behind their shims. Only a
# compile (no link, no run: there is no macOS here). Strict warnings, -Werror.
#   check-macos.sh PYTHON   (a Python with PyPI's ziglang installed)
set -euo pipefail
cd "$(dirname "$0")/../.."
py=${1:?usage: check-macos.sh PYTHON-WITH-ZIGLANG}
out=build/macos
inc=$out/include
rm -rf "$out" && mkdir -p "$inc"
# The third-party headers lib/ includes (zlib, libjpeg, libpng, giflib, nanopb), and
# nothing else of the host's /usr/include: the C library's come from zig's SDK.
for h in zlib.h zconf.h jpeglib.h jerror.h jmorecfg.h jconfig.h png.h pngconf.h \
         pnglibconf.h gif_lib.h pb.h pb_common.h pb_decode.h pb_encode.h; do
    src=$(ls /usr/include/"$h" /usr/include/*-linux-gnu/"$h" /usr/include/libpng16/"$h" \
          2>/dev/null | head -n 1 || true)
    [ -n "$src" ] || { echo "check-macos: $h not found (make deps installs it)" >&2; exit 1; }
    ln -s "$src" "$inc/$h"
done
flags=(-std=c11 -O1 -Werror -Wall -Wextra -Wpedantic -Wshadow -Wstrict-prototypes
       -Wmissing-prototypes -Wcast-qual -Wpointer-arith -Wvla -Wformat=2 -Wundef
       -Wwrite-strings -Wconversion -Wsign-conversion -fvisibility=hidden
       -Iinclude -isystem "$inc" -include lib/nanopb_rename.h)
srcs=(lib/*/*.c lib/example/proto/example.pb.c)
for target in aarch64-macos x86_64-macos; do
    start=$(date +%s)
    mkdir -p "$out/$target"
    for f in "${srcs[@]}"; do
        o=$out/$target/$(echo "$f" | tr / _).o
        w=()
        [ "$f" = lib/example/proto/example.pb.c ] && w=(-Wno-conversion -Wno-sign-conversion)
        "$py" -m ziglang cc -target "$target" "${flags[@]}" "${w[@]}" -c "$f" -o "$o"
    done
    echo "check-macos: lib/ compiles for $target (${#srcs[@]} files, $(($(date +%s) - start)) s)"
done
