"""lib/arrow from Python: Arrow record batches (the C data interface's capsules, no
Arrow library) encoded as serialized Examples by one C pass (tfn_arrow_encode)."""
import ctypes

import numpy as np

from .. import _c

ffi = _c.ffi
lib = _c.lib

# what the encoder's statuses mean for a table (as the column checks of before)
_ERRORS = {lib.TFN_E_INVALID_ARG: ValueError, lib.TFN_E_TYPE: TypeError,
           lib.TFN_E_OUT_OF_RANGE: ValueError}

_bytes_per_example = [0.0]

_capsule_pointer = ctypes.pythonapi.PyCapsule_GetPointer
_capsule_pointer.restype = ctypes.c_void_p
_capsule_pointer.argtypes = [ctypes.py_object, ctypes.c_char_p]


def encode_capsules(schema_capsule, array_capsule):
    """(data uint8 ndarray, offsets uint64 ndarray) of one exported record batch."""
    schema = ffi.cast("struct ArrowSchema *", _capsule_pointer(schema_capsule, b"arrow_schema"))
    array = ffi.cast("struct ArrowArray *", _capsule_pointer(array_capsule, b"arrow_array"))
    n = int(array.length)
    err = _c.new_error()
    offsets = np.empty(n + 1, dtype=np.uint64)
    offs_ptr = ffi.cast("uint64_t *", ffi.from_buffer(offsets))
    written = ffi.new("size_t *")
    if _bytes_per_example[0]:
        cap = int(_bytes_per_example[0] * n * 1.125) + 4096
    else:
        total = ffi.new("uint64_t *")
        _c.check(lib.tfn_arrow_encode_size(schema, array, ffi.NULL, total, err), err,
                   _ERRORS)
        cap = max(int(total[0]), 1)
    block = np.empty(cap, dtype=np.uint8)
    rc = lib.tfn_arrow_encode(schema, array, ffi.from_buffer(block), cap, offs_ptr, written,
                              err)
    if rc == lib.TFN_E_BUF_TOO_SMALL:
        block = np.empty(max(int(written[0]), 1), dtype=np.uint8)
        rc = lib.tfn_arrow_encode(schema, array, ffi.from_buffer(block), len(block), offs_ptr,
                                  written, err)
    _c.check(rc, err, _ERRORS)
    size = int(written[0])
    if n:
        _bytes_per_example[0] = size / n
    return block[:size], offsets
