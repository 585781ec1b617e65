"""The thin layer over the C library: the cffi module, and the one place where a
failing tfn_status becomes a Python exception."""
import errno as _errno
import sys as _sys

from .. import _native, errors
from .._native import ffi, lib

# The built-ins of bindings/python/pyapi*.c (Python objects walked in C: lists of rows
# to pad) are added to tfnano._native here. Bit 1: installed; bit 2: numpy arrays are
# read through the buffer protocol, in the limited API from Python 3.11 (before it,
# lists of arrays take the numpy path). 0 on PyPy and free-threaded builds.
PY_API = lib.tfn_py_install(_native.__name__.encode(), _sys.version_info >= (3, 11))

# status -> default exception class; callers may override per call (e.g. the parser
# reports every data problem as InvalidArgumentError, as TensorFlow's kernel does).
_DEFAULT = {
    lib.TFN_E_INVALID_ARG: errors.InvalidArgumentError,
    lib.TFN_E_NOMEM: errors.ResourceExhaustedError,
    lib.TFN_E_BUF_TOO_SMALL: errors.InternalError,
    lib.TFN_E_CORRUPT: errors.DataLossError,
    lib.TFN_E_DATA_LOSS: errors.DataLossError,
    lib.TFN_E_DATA_LOSS_LENGTH: errors.DataLossError,
    lib.TFN_E_TRUNCATED: errors.DataLossError,
    lib.TFN_E_TYPE: errors.InvalidArgumentError,
    lib.TFN_E_NOT_FOUND: errors.InvalidArgumentError,
    lib.TFN_E_LIMIT: errors.InvalidArgumentError,
    lib.TFN_E_OUT_OF_RANGE: errors.InvalidArgumentError,
    lib.TFN_E_CLOSED: errors.FailedPreconditionError,
}

_ERRNO = {
    _errno.ENOENT: errors.NotFoundError,
    _errno.ENOTDIR: errors.NotFoundError,
    _errno.EACCES: errors.PermissionDeniedError,
    _errno.EPERM: errors.PermissionDeniedError,
    _errno.EEXIST: errors.AlreadyExistsError,
    _errno.ENOMEM: errors.ResourceExhaustedError,
    _errno.ENOSPC: errors.ResourceExhaustedError,
}


def new_error():
    return ffi.new("tfn_error *")


def message(err):
    return ffi.string(err.msg).decode("utf-8", "replace")


def exception(rc, err, overrides=None, where=None):
    """The exception for status `rc` with the details in `err` (a tfn_error *).
    overrides: {status: class} for this call; where: what err.record_index counts
    ("example"), to name it in str()."""
    msg = message(err) if err is not None else ""
    if not msg:
        msg = ffi.string(lib.tfn_status_str(rc)).decode()
    if overrides and rc in overrides:
        cls = overrides[rc]
    elif rc == lib.TFN_E_IO:
        cls = _ERRNO.get(err.sys_errno, errors.UnknownError) if err is not None else errors.UnknownError
    else:
        cls = _DEFAULT.get(rc, errors.UnknownError)
    if not (isinstance(cls, type) and issubclass(cls, errors.OpError)):
        return cls(msg)
    exc = cls(None, None, msg, status=rc,
              offset=int(err.offset) if err is not None else None,
              record_index=int(err.record_index) if err is not None else None)
    if rc == lib.TFN_E_IO and err is not None and isinstance(exc, OSError):
        exc.errno = err.sys_errno
    if where is not None and err is not None:
        errors.locate(exc, None, int(err.record_index), record_label=where)
    return exc


def check(rc, err, overrides=None, where=None):
    """Raises for a negative status; returns rc (TFN_OK or TFN_END) otherwise."""
    if rc < 0:
        raise exception(rc, err, overrides, where)
    return rc
