"""Loads a built libtfnano.so through cffi's ABI mode, for tests and conformance
checks of the C library that must run before (or without) the Python package.

Which build: $TFN_LIB if set, else the first of build/test, build/release.
"""
import importlib.util
import os
from pathlib import Path

import cffi

ROOT = Path(__file__).resolve().parents[2]


def _load_cdef_module():
    # Loaded by path: putting bindings/python on sys.path would make the uncompiled
    # tfnano sources importable as if tfnano were installed.
    path = ROOT / "bindings" / "python" / "cdef.py"
    spec = importlib.util.spec_from_file_location("tfn_cdef", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


read_cdef = _load_cdef_module().read_cdef


def _library_path() -> Path:
    if os.environ.get("TFN_LIB"):
        return Path(os.environ["TFN_LIB"])
    for mode in ("test", "release"):
        p = ROOT / "build" / mode / "libtfnano.so"
        if p.exists():
            return p
    raise FileNotFoundError("libtfnano.so not built: run `make lib MODE=test` first")


ffi = cffi.FFI()
ffi.cdef(read_cdef())
lib = ffi.dlopen(str(_library_path()))


def error_text(err) -> str:
    return ffi.string(err.msg).decode("utf-8", "replace")
