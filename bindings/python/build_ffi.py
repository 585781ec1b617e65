"""cffi builder for tfnano._native (API mode, out of line).

Used by setup.py (`cffi_modules=["bindings/python/build_ffi.py:ffibuilder"]`), so
`pip install .` needs no make step. The C library is compiled into the extension:
every lib/<job>/*.c plus the generated lib/example/proto/example.pb.c, with nanopb's runtime from
Debian/Ubuntu's libnanopb-dev merged in under renamed symbols (tfn__pb_*), exactly as
the Makefile does, so the wheel needs no nanopb at run time. The cdef is cut from
include/tfnano.h (bindings/python/cdef.py), so the binding and the header cannot
drift.

Paths are relative to the project root (the directory holding setup.py): setuptools
then keeps its object files inside build/.

Environment:
  NANOPB_A   path of libprotobuf-nanopb.a (default: searched in /usr/lib/*/ ...)
  TFN_CFLAGS extra compiler flags (e.g. "-O3 -march=native")
"""
import glob
import os
import shlex
import shutil
import subprocess
import sys

from cffi import FFI

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, HERE)
from cdef import read_cdef  # noqa: E402

NANOPB_FIX = (
    "  Debian/Ubuntu:  apt-get install -y libnanopb-dev\n"
    "  or set NANOPB_A to a libprotobuf-nanopb.a built with -fPIC and NANOPB_INC to the\n"
    "  folder holding pb.h, pb_encode.h and pb_decode.h.\n"
    "  No root? Install the prebuilt wheel instead (make wheel; pip install tfnano-*.whl):\n"
    "  it needs no compiler and no nanopb."
)
NANOPB_HELP = ("tfnano: nanopb's runtime library (libprotobuf-nanopb.a) was not found.\n"
               + NANOPB_FIX)


def _stop(message):
    """Ends the build with the message alone: no traceback for a missing dependency."""
    raise SystemExit(message)


# The headers of the libraries the C code links, and the Debian / Ubuntu package of each.
HEADERS = (("zlib.h", "zlib", "zlib1g-dev"),
           ("jpeglib.h", "libjpeg-turbo", "libjpeg62-turbo-dev"),
           ("png.h", "libpng", "libpng-dev"),
           ("gif_lib.h", "giflib", "libgif-dev"))


_ABSOLUTE = False  # ffi.compile() (used by `python build_ffi.py`) runs in a temp dir


def _rel(path):
    return os.path.abspath(path) if _ABSOLUTE else os.path.relpath(path, ROOT)


def find_nanopb_archive():
    env = os.environ.get("NANOPB_A")
    if env:
        if not os.path.isfile(env):
            _stop("tfnano: NANOPB_A=%s does not exist.\n%s" % (env, NANOPB_FIX))
        return env
    pattern = ("/usr/lib/*/libprotobuf-nanopb.a", "/usr/lib/libprotobuf-nanopb.a",
               "/usr/local/lib/libprotobuf-nanopb.a")
    for pat in pattern:
        hits = sorted(glob.glob(pat))
        if hits:
            return hits[0]
    _stop("tfnano: nanopb's runtime library libprotobuf-nanopb.a was not found in %s.\n%s"
          % (", ".join(pattern), NANOPB_FIX))


def _nanopb_include():
    inc = os.environ.get("NANOPB_INC", "/usr/include")
    if not os.path.isfile(os.path.join(inc, "pb.h")):
        _stop("tfnano: nanopb's header pb.h was not found in %s (NANOPB_INC).\n%s"
              % (inc, NANOPB_FIX))
    return inc


def _check_headers(inc_dirs):
    """Stops the build with one message per missing library header."""
    dirs = inc_dirs + ["/usr/include", "/usr/local/include"]
    missing = [(h, lib, pkg) for h, lib, pkg in HEADERS
               if not any(os.path.isfile(os.path.join(d, h)) for d in dirs)]
    if missing:
        _stop("\n".join("tfnano: %s's development files (%s) were not found." % (lib, h)
                        for h, lib, _ in missing)
              + "\n  Debian/Ubuntu:  apt-get install -y "
              + " ".join(pkg for _, _, pkg in missing))


def renamed_nanopb_object(archive, out_dir):
    """Merges the archive into one relocatable object and renames its pb_* symbols to
    tfn__pb_* (lib/nanopb.syms), matching `-include lib/nanopb_rename.h`."""
    os.makedirs(out_dir, exist_ok=True)
    merged = os.path.join(out_dir, "nanopb-merged.o")
    out = os.path.join(out_dir, "nanopb.o")
    ld = os.environ.get("LD", "ld")
    objcopy = os.environ.get("OBJCOPY", "objcopy")
    for tool in (ld, objcopy):
        if shutil.which(tool) is None:
            _stop("tfnano: `%s` (binutils) is needed to build from source: "
                  "apt-get install -y binutils" % tool)
    syms = os.path.join(ROOT, "lib", "nanopb.syms")
    subprocess.check_call([ld, "-r", "--whole-archive", archive, "-o", merged])
    subprocess.check_call([objcopy, "--redefine-syms=" + syms, merged, out])
    os.remove(merged)
    return out


# The Python functions the C library calls back (tfn_io for Python file objects):
# one call per buffer, never per record.
PY_CALLBACKS = """
extern "Python" {
    int64_t tfn_py_read(void *ctx, void *buf, size_t len);
    int64_t tfn_py_write(void *ctx, const void *buf, size_t len);
    int tfn_py_flush(void *ctx);
}
"""


# The built-ins that take Python objects (bindings/python/pyapi*.c: lists of rows and
# strings walked in C); tfn_py_install() adds them to the module at import (pyapi.h).
PY_API = """
int tfn_py_install(const char *module, int buffers);
"""
PY_SOURCES = ("pyapi.c", "pyapi_buffer.c", "pyapi_pad.c", "pyapi_pad_threads.c",
              "pyapi_record.c", "pyapi_strs.c", "pyapi_strings.c", "pyapi_string_split.c")


def lib_sources():
    srcs = sorted(glob.glob(os.path.join(ROOT, "lib", "*", "*.c")))
    srcs.append(os.path.join(ROOT, "lib", "example", "proto", "example.pb.c"))
    return [_rel(s) for s in srcs]


def make_builder(extra_sources=(), module="tfnano._native"):
    nanopb_inc = _nanopb_include()
    _check_headers([nanopb_inc])
    obj_dir = os.path.join(ROOT, "build", "cffi-nanopb")
    nanopb_obj = renamed_nanopb_object(find_nanopb_archive(), obj_dir)

    ffi = FFI()
    ffi.cdef(read_cdef() + PY_CALLBACKS + PY_API)
    extra = shlex.split(os.environ.get("TFN_CFLAGS", ""))
    ffi.set_source(
        module,
        '#include "tfnano.h"\n#include "pyapi.h"\n',
        sources=lib_sources() + [_rel(os.path.join(HERE, f)) for f in PY_SOURCES]
        + list(extra_sources),
        include_dirs=[_rel(os.path.join(ROOT, d))
                      for d in ("include", os.path.join("bindings", "python"))]
        + [nanopb_inc],
        extra_compile_args=["-std=c11", "-O2", "-fvisibility=hidden",
                            "-include", _rel(os.path.join(ROOT, "lib", "nanopb_rename.h"))]
        + extra,
        extra_objects=[_rel(nanopb_obj)],
        libraries=["z", "m", "jpeg", "png16", "gif", "pthread"],
    )
    return ffi


if os.getcwd() != ROOT:
    # setuptools runs builders from the project root; anything else (e.g. importing
    # this file from a test) still gets root-relative paths right.
    os.chdir(ROOT)

ffibuilder = make_builder()

if __name__ == "__main__":
    # Developer shortcut: build tfnano/_native*.so next to the sources.
    _ABSOLUTE = True
    make_builder().compile(tmpdir=os.path.join(ROOT, "build", "cffi-inplace"), verbose=True)
