"""``tf.io.read_file``, ``tf.io.write_file``, ``tf.io.matching_files``: whole files as
0-d string tensors, through tfnano.io.gfile (local paths and the URLs it knows)."""
import os

import numpy as np

from .._trace import traceable
from ..errors import FailedPreconditionError, NotFoundError
from ._common import to_array, wrap


def _path(filename):
    a = to_array(filename)
    if a.dtype != object:
        raise TypeError("Cannot convert %r to EagerTensor of dtype string" % (filename,))
    if a.ndim != 0:
        from ..errors import InvalidArgumentError
        raise InvalidArgumentError(None, None, "Input filename tensor must be scalar, but had "
                                   "shape: [%s]" % ",".join(map(str, a.shape)))
    return a[()].decode("utf-8")


def _read(path):
    from ..io.gfile import gfile
    if "://" not in path:
        if os.path.isdir(path):
            raise FailedPreconditionError(None, None, "%s; Is a directory" % path)
        if not os.path.exists(path):
            raise NotFoundError(None, None, "%s; No such file or directory" % path)
    try:
        with gfile.GFile(path, "rb") as f:
            return f.read()
    except FileNotFoundError:
        raise NotFoundError(None, None, "%s; No such file or directory" % path) from None


def _read_batch(filename, name=None):
    names = np.asarray(filename).reshape(-1)
    out = np.empty(len(names), object)
    for i, n in enumerate(names):
        out[i] = _read(n.decode("utf-8") if isinstance(n, bytes) else str(n))
    return out.reshape(np.shape(filename))


def _read_infer(filename, name=None):
    # what read_file gives is known without running it on a stand-in (a stand-in
    # string is a zero, which has no path to read)
    from .._trace import Spec, Symbol
    if isinstance(filename, Symbol):
        if filename.spec.dtype is not None and np.dtype(filename.spec.dtype) != object:
            raise TypeError("Cannot convert a %s tensor to EagerTensor of dtype string"
                            % np.dtype(filename.spec.dtype).name)
        if filename.spec.shape not in (None, ()):
            _path(np.empty(filename.spec.shape, object))  # TF's shape error
    return Spec(np.dtype(object), ())


@traceable("io.read_file", batch=_read_batch, infer=_read_infer)
def read_file(filename, name=None):
    """``tf.io.read_file``: the file's bytes as a 0-d string tensor (NotFoundError when
    missing, FailedPreconditionError for a directory)."""
    return wrap(np.array(_read(_path(filename)), object))


def write_file(filename, contents, name=None):
    """``tf.io.write_file``: writes `contents` (a 0-d string), creating missing parent
    directories, as TensorFlow does."""
    from ..io.gfile import gfile
    path = _path(filename)
    data = to_array(contents)
    if data.dtype != object or data.ndim != 0:
        from ..errors import InvalidArgumentError
        raise InvalidArgumentError(None, None, "Contents tensor must be scalar, but had shape:"
                                   " [%s]" % ",".join(map(str, data.shape)))
    parent = os.path.dirname(path)
    if parent and not gfile.exists(parent):
        gfile.makedirs(parent)
    with gfile.GFile(path, "wb") as f:
        f.write(data[()])


def matching_files(pattern, name=None):
    """``tf.io.matching_files``: the sorted paths matching a glob pattern (or each of a
    list of patterns), a 1-D string tensor."""
    from ..io.gfile import gfile
    pats = to_array(pattern).reshape(-1)
    found = []
    for p in pats:
        found.extend(gfile.glob(p.decode("utf-8")))
    out = sorted(set(f.encode("utf-8") if isinstance(f, str) else f for f in found))
    arr = np.empty(len(out), object)
    arr[:] = out
    return wrap(arr)


__all__ = ["read_file", "write_file", "matching_files"]
