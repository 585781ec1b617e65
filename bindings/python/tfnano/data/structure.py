"""Element structures as tf.data carries them: nested tuples (namedtuples too) and
dicts of tensors; a list is one leaf (tf.data turns it into a tensor). Dict leaves
are flattened in sorted key order, as tf.nest does."""
import numpy as np

from .._tensor import Tensor, as_tensor, constant, tf_shape  # noqa: F401 (structure.tf_shape)


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


def _packed(items):
    """A list holding tensors as TensorFlow packs it: the first tensor's dtype, every
    tensor of that dtype, Python values converted to it."""
    leaves, stack = [], [items]
    while stack:
        v = stack.pop()
        if isinstance(v, (list, tuple)):
            stack.extend(reversed(v))
        else:
            leaves.append(v)
    tensors = [(i, v) for i, v in enumerate(leaves) if isinstance(v, Tensor)]
    dt = tensors[0][1].dtype
    for i, v in tensors:
        if v.dtype != dt:
            from ..errors import InvalidArgumentError
            tf_names = {"float32": "float", "float64": "double"}  # TF's kernel names
            name = lambda d: tf_names.get(np.dtype(d).name, np.dtype(d).name)  # noqa: E731
            raise InvalidArgumentError(None, None, "cannot compute Pack as input #%d"
                                       "(zero-based) was expected to be a %s tensor but is "
                                       "a %s tensor" % (i, name(dt), name(v.dtype)))
    return as_tensor(np.array(items, dtype=np.dtype(dt)))


def to_tensor(x):
    if isinstance(x, Tensor):
        return x
    if isinstance(x, list) and x and any(isinstance(v, Tensor) for v in x):
        return _packed(x)
    if isinstance(x, np.ndarray):
        return as_tensor(x)
    if hasattr(x, "_tfn_joined") or hasattr(x, "_tfn_views"):  # record batches stay lazy
        return x
    if type(x).__name__ in _COMPOSITE:  # sparse / ragged values pass as they are
        return x
    if isinstance(x, list) and _holds_arrays(x):
        # a list of tensors is packed keeping their dtype (convert_to_tensor packs it)
        return as_tensor(_packed(x))
    return constant(x)


def _holds_arrays(x):
    return any(_holds_arrays(v) if isinstance(v, list) else isinstance(v, np.ndarray)
               for v in x)


def _packed(x):
    return np.stack([_packed(v) for v in x]) if isinstance(x, list) else np.asarray(x)


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




# ---- element specs (structures of _trace.Spec; None where unknown)

def spec_of_value(x):
    from .._trace import CompositeSpec, Spec
    if hasattr(x, "_tfn_joined") or hasattr(x, "_tfn_views"):
        return Spec(object, (None,))
    kind = type(x).__name__
    if kind == "RaggedRow":  # a row of a ragged-rank-1 RaggedTensor (TF: ragged_rank 0)
        a = x.view(np.ndarray)
        return CompositeSpec("ragged", a.dtype, (None,) + a.shape[1:], 0,
                             getattr(x, "_tfn_splits_dtype", np.dtype(np.int64)))
    if kind == "SparseTensor" and hasattr(x, "dense_shape"):
        return CompositeSpec("sparse", np.asarray(x.values).dtype,
                             tuple(int(d) for d in np.asarray(x.dense_shape)))
    if kind == "RaggedTensor" and hasattr(x, "flat_values"):
        flat = np.asarray(x.flat_values)
        return CompositeSpec("ragged", flat.dtype, (int(x.nrows()),) +
                             (None,) * x.ragged_rank + flat.shape[1:], x.ragged_rank,
                             np.asarray(x.row_splits).dtype)
    a = np.asarray(x)
    return Spec(a.dtype, a.shape)


def element_spec_of(element):
    return map_structure(spec_of_value, element)


def batch_spec(spec, size=None):
    """The spec of a batch of elements of `spec` (record axis first)."""
    from .._trace import CompositeSpec, Spec
    if spec is None:
        return None
    return map_structure(
        lambda s: s.batched(size) if isinstance(s, CompositeSpec) else
        Spec(s.dtype, None if s.shape is None else (size,) + s.shape), spec)


def unbatch_spec(spec):
    from .._trace import CompositeSpec, Spec

    def unbatched(s):
        shape = None if not s.shape else s.shape[1:]
        if isinstance(s, CompositeSpec):
            return CompositeSpec(s.kind, s.dtype, shape, max(s.ragged_rank - 1, 0),
                                 s.row_splits_dtype)
        return Spec(s.dtype, shape)
    if spec is None:
        return None
    return map_structure(unbatched, spec)


def to_type_spec(spec):
    """The public element_spec of an internal one: each _trace.Spec leaf becomes
    tf.TensorSpec, SparseTensorSpec or RaggedTensorSpec, as TensorFlow prints them. A
    leaf whose dtype is unknown (a py_function declared without Tout) stays as it is."""
    if spec is None:
        return None
    from .._trace import CompositeSpec, Spec
    from ..ops.specs import RaggedTensorSpec, SparseTensorSpec, TensorSpec

    def convert(s):
        if not isinstance(s, Spec) or s.dtype is None:
            return s
        if isinstance(s, CompositeSpec):
            if s.kind == "sparse":
                return SparseTensorSpec(s.shape, s.dtype)
            shape = s.shape if s.shape is not None else None
            rank = s.ragged_rank if shape is None or s.ragged_rank < len(shape) else \
                len(shape) - 1
            return RaggedTensorSpec(shape, s.dtype, rank,
                                    s.row_splits_dtype if s.row_splits_dtype is not None
                                    else np.int64)
        return TensorSpec(s.shape, s.dtype)
    return map_structure(convert, spec)


def from_type_spec(spec):
    """An internal spec (_trace.Spec leaves) from a structure of TensorSpec /
    SparseTensorSpec / RaggedTensorSpec (or internal specs, kept)."""
    if spec is None:
        return None
    from .. import dtypes
    from .._trace import CompositeSpec, Spec

    def convert(s):
        if isinstance(s, Spec) or not hasattr(s, "dtype") or not hasattr(s, "shape"):
            return s
        shape = None if s.shape is None or s.shape.rank is None else tuple(s.shape.as_list())
        dtype = dtypes.as_dtype(s.dtype).as_numpy_dtype
        kind = type(s).__name__
        if kind == "SparseTensorSpec":
            return CompositeSpec("sparse", dtype, shape)
        if kind == "RaggedTensorSpec":
            return CompositeSpec("ragged", dtype, shape, s.ragged_rank,
                                 dtypes.as_dtype(s.row_splits_dtype).as_numpy_dtype)
        return Spec(dtype, shape)
    return map_structure(convert, spec)


def merge_specs(a, b):
    """The spec of elements of either `a` or `b` (concatenate): the same structure and
    dtypes, each size kept where both agree; None when they differ or one is unknown."""
    from .._trace import CompositeSpec, Spec
    if a is None or b is None:
        return None
    la, lb = flatten(a), flatten(b)
    if len(la) != len(lb) or _shape_of_structure(a) != _shape_of_structure(b):
        return None
    out = []
    for x, y in zip(la, lb):
        if type(x) is not type(y) or x.dtype != y.dtype:
            return None
        shape = None if x.shape is None or y.shape is None or len(x.shape) != len(y.shape) \
            else tuple(p if p == q else None for p, q in zip(x.shape, y.shape))
        if isinstance(x, CompositeSpec):
            if (x.kind, x.ragged_rank) != (y.kind, y.ragged_rank):
                return None
            out.append(CompositeSpec(x.kind, x.dtype, shape, x.ragged_rank,
                                     x.row_splits_dtype))
        else:
            out.append(Spec(x.dtype, shape))
    return pack(a, out)


def _shape_of_structure(s):
    if isinstance(s, dict):
        return ("dict", tuple((k, _shape_of_structure(s[k])) for k in sorted(s)))
    if isinstance(s, tuple):
        return ("tuple", tuple(_shape_of_structure(v) for v in s))
    return None


def stand_in(spec, unknown=0):
    """An element of `spec` made of zero-filled tensors (b"" for strings, unknown sizes
    `unknown`): what a function that returns a dataset is called with to learn that dataset's
    element_spec, as TensorFlow traces it with symbolic inputs. None when a leaf is a
    composite or its rank or dtype is unknown."""
    from .._trace import CompositeSpec
    if spec is None:
        return None
    leaves = flatten(spec)
    if any(isinstance(s, CompositeSpec) or s is None or s.shape is None or s.dtype is None
           for s in leaves):
        return None

    def zero(s):
        shape = tuple(unknown if d is None else d for d in s.shape)
        if s.dtype == object:
            a = np.empty(shape, object)
            a.fill(b"")
            return as_tensor(a)
        return as_tensor(np.zeros(shape, s.dtype))
    return map_structure(zero, spec)


def merged_spec(a, b):
    """Two specs of one structure as one: a dimension where they differ is unknown
    (the spec of a function's result whatever the unknown sizes of its input)."""
    from .._trace import Spec
    if a is None or b is None:
        return None
    try:
        fa, fb = flatten(a), flatten(b)
    except Exception:  # noqa: BLE001
        return None
    if len(fa) != len(fb):
        return None
    out = []
    for x, y in zip(fa, fb):
        if type(x) is not Spec or type(y) is not Spec or x.shape is None or \
                y.shape is None or len(x.shape) != len(y.shape):
            out.append(x)
            continue
        out.append(Spec(x.dtype, tuple(d if d == e else None for d, e in
                                       zip(x.shape, y.shape))))
    return pack(a, out)


def returned_spec(make_dataset):
    """The element_spec (internal form) of the dataset `make_dataset()` returns, or None
    when it fails or returns something else: the call only builds a plan (nothing is
    read until it is iterated), and any error means "unknown", never a failure."""
    try:
        ds = make_dataset()
        node = getattr(ds, "_node", None)
        return None if node is None else node.element_spec()
    except Exception:  # noqa: BLE001 - a function that needs real input: spec unknown
        return None
