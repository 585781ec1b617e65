"""Element structures as tf.data carries them: nested tuples (namedtuples too) and
dicts of tensors; a list is one leaf (tf.data turns it into a tensor). Dict leaves
are flattened in sorted key order, as tf.nest does."""
import numpy as np

from .._tensor import Tensor, as_tensor, constant


def is_namedtuple(x):
    return isinstance(x, tuple) and hasattr(x, "_fields")


def flatten(s):
    if isinstance(s, dict):
        out = []
        for k in sorted(s):
            out.extend(flatten(s[k]))
        return out
    if isinstance(s, tuple):
        out = []
        for v in s:
            out.extend(flatten(v))
        return out
    return [s]


def pack(template, leaves):
    return _build(template, iter(leaves))


def _build(t, it):
    # A module-level function on purpose: a nested recursive closure refers to itself
    # through its cell, and that cycle kept every element's leaves (whole batches)
    # alive until the garbage collector ran.
    if isinstance(t, dict):
        vals = {k: _build(t[k], it) for k in sorted(t)}
        return type(t)((k, vals[k]) for k in t) if type(t) is not dict else \
            {k: vals[k] for k in t}
    if isinstance(t, tuple):
        vals = [_build(v, it) for v in t]
        return type(t)(*vals) if is_namedtuple(t) else tuple(vals)
    return next(it)


def map_structure(fn, s):
    return pack(s, [fn(x) for x in flatten(s)])


COMPOSITE = _COMPOSITE = ("SparseTensor", "RaggedTensor")


def to_tensor(x):
    if isinstance(x, Tensor):
        return x
    if isinstance(x, np.ndarray):
        return as_tensor(x)
    if hasattr(x, "_tfn_joined") or hasattr(x, "_tfn_views"):  # record batches stay lazy
        return x
    if type(x).__name__ in _COMPOSITE:  # sparse / ragged values pass as they are
        return x
    return constant(x)


def normalize(element):
    """Python and numpy values of an element -> Tensors (TensorFlow's conversions)."""
    return map_structure(to_tensor, element)


def to_numpy(x):
    if hasattr(x, "numpy"):
        return x.numpy()
    return x


def call(fn, element):
    """Calls a user function on an element as tf.data does: a plain tuple is spread
    over the positional arguments."""
    if isinstance(element, tuple) and not is_namedtuple(element):
        return fn(*element)
    return fn(element)


def tf_shape(shape):
    return "[" + ",".join("?" if d is None else str(d) for d in shape) + "]"


# ---- element specs (structures of _trace.Spec; None where unknown)

def spec_of_value(x):
    from .._trace import Spec
    if hasattr(x, "_tfn_joined") or hasattr(x, "_tfn_views"):
        return Spec(object, (None,))
    a = np.asarray(x)
    return Spec(a.dtype, a.shape)


def element_spec_of(element):
    return map_structure(spec_of_value, element)


def batch_spec(spec, size=None):
    """The spec of a batch of elements of `spec` (record axis first)."""
    from .._trace import Spec
    if spec is None:
        return None
    return map_structure(
        lambda s: Spec(s.dtype, None if s.shape is None else (size,) + s.shape), spec)


def unbatch_spec(spec):
    from .._trace import Spec
    if spec is None:
        return None
    return map_structure(
        lambda s: Spec(s.dtype, None if not s.shape else s.shape[1:]), spec)
