"""A user function given to map / filter / ..., wrapped once (tf.data's
structured_function.py): traced with tfnano._trace against the input's element
spec when that spec is known. A traced function runs as its recorded graph, per
record or, when every op has a batch rule, on a whole batch at once (vectorized).
A function that cannot be traced runs per record in Python; the reason is given
once as a :class:`TracingFallbackWarning` and shown by ``Dataset.explain()``.

Debug switch: ``tf.data.experimental.enable_debug_mode()`` (or the environment
variable TFNANO_DATA_DEBUG=1) runs every function per record in Python, untraced,
as TensorFlow's debug mode runs them eagerly.
"""
import os
import threading
import warnings

import numpy as np

from .. import _trace
from . import structure

_DEBUG = [os.environ.get("TFNANO_DATA_DEBUG", "") not in ("", "0")]
_WARNED = set()
_WARNED_LOCK = threading.Lock()


class TracingFallbackWarning(UserWarning):
    """A tf.data function could not be traced and runs per record in Python."""


def enable_debug_mode():
    _DEBUG[0] = True


def disable_debug_mode():
    _DEBUG[0] = False


def _load_ops():
    """tfnano.ops registers the operators of traced values (x + 1, x[0])."""
    if not _trace.OPERATORS:
        try:
            from .. import ops  # noqa: F401
        except ImportError:
            pass


def _fn_name(fn):
    name = getattr(fn, "__qualname__", None) or getattr(fn, "__name__", None) or repr(fn)
    code = getattr(fn, "__code__", None)
    if code is not None:
        name += " (%s:%d)" % (os.path.basename(code.co_filename), code.co_firstlineno)
    return name


def _lists_with_symbols(s):
    if isinstance(s, dict):
        return any(_lists_with_symbols(v) for v in s.values())
    if isinstance(s, tuple):
        return any(_lists_with_symbols(v) for v in s)
    if isinstance(s, list):
        return _trace.has_symbol(s)
    return False


def _unpackable_list(s):
    """A list in a traced result whose tensors TensorFlow cannot pack into one (items
    of different ranks or dtypes): TensorFlow refuses the function when it traces it."""
    if isinstance(s, dict):
        return any(_unpackable_list(v) for v in s.values())
    if isinstance(s, tuple):
        return any(_unpackable_list(v) for v in s)
    if not (isinstance(s, list) and _trace.has_symbol(s)):
        return False
    specs = [v.spec if isinstance(v, _trace.Symbol) else
             structure.spec_of_value(structure.to_tensor(v)) for v in s]
    if any(not isinstance(x, _trace.Spec) or x.shape is None for x in specs):
        return False
    first = next(v.spec for v in s if isinstance(v, _trace.Symbol))
    return len({len(x.shape) for x in specs}) > 1 or any(
        isinstance(v, _trace.Symbol) and v.spec.dtype != first.dtype for v in s)


def _packed_spec(specs):
    """The spec of the tensor a list of tensors packs into: the first tensor's dtype,
    the list's length, then the items' shape (a dimension unknown where they differ)."""
    typed = [x for x in specs if isinstance(x, _trace.Spec)]
    if not typed or any(getattr(x, "shape", None) is None for x in typed):
        return None
    first = typed[0]
    shapes = {tuple(x.shape) for x in typed}
    if len({len(sh) for sh in shapes}) != 1:
        return None
    inner = tuple(d[0] if len(set(d)) == 1 else None for d in zip(*shapes)) \
        if shapes else ()
    return _trace.Spec(first.dtype, (len(specs),) + inner)


def _pack_lists(graph, out):
    """Each Python list holding traced tensors inside the returned structure becomes
    one stacked tensor, recorded in the graph (tf.data converts such a list with
    convert_to_tensor, which packs it): ``return image, [t0, t1, t2, t3]`` gives an
    int64 tensor of shape [4] per element, traced and batched like any other op."""
    if isinstance(out, list):
        if not _trace.has_symbol(out):
            return out
        from ..ops.array_ops import stack
        items = [_pack_lists(graph, x) for x in out]
        like = next(x for x in items if isinstance(x, _trace.Symbol))
        # Python numbers take the tensors' dtype, as convert_to_tensor's packing does
        items = [x if isinstance(x, _trace.Symbol) else np.asarray(x, like.spec.dtype)
                 for x in items]
        prev = _trace.active_graph()
        _trace._STATE.graph = graph
        try:
            return stack(items)
        finally:
            _trace._STATE.graph = prev
    if isinstance(out, dict):
        return type(out)((k, _pack_lists(graph, v)) for k, v in out.items()) \
            if type(out) is not dict else {k: _pack_lists(graph, v) for k, v in out.items()}
    if isinstance(out, tuple):
        vals = [_pack_lists(graph, v) for v in out]
        return type(out)(*vals) if structure.is_namedtuple(out) else tuple(vals)
    return out


class StructuredFunction:
    """`func` as tf.data calls it on elements of `input_spec` (None: unknown)."""

    def __init__(self, func, input_spec, transformation):
        self.func = func
        self.transformation = transformation
        self.graph = None
        self.reason = None          # why it runs as Python (None: traced)
        self.batch_reason = None    # why the traced graph cannot run batched
        if _DEBUG[0]:
            self.reason = "debug mode is on (tf.data.experimental.enable_debug_mode)"
            return
        if input_spec is None:
            self.reason = ("the structure of its input is unknown (an upstream function "
                           "runs in Python)")
            return
        _load_ops()
        try:
            graph = _trace.trace(func, input_spec)
        except _trace.TraceError as e:
            self.reason = str(e)
            self._warn()
            return
        if type(graph.outputs) is list:  # as TensorFlow packs a returned list
            graph.outputs = tuple(graph.outputs)
        if self.transformation == "map" and _unpackable_list(graph.outputs):
            raise TypeError("Unsupported return value from function passed to "
                            "Dataset.map(): %r." % (graph.outputs,))
        try:
            graph.outputs = _pack_lists(graph, graph.outputs)
        except Exception as e:  # TF's convert_to_tensor would refuse this list too
            self.reason = "a returned list cannot be packed into one tensor: %s" % e
            self._warn()
            return
        self.graph = graph
        self.batch_reason = graph.vectorizable()
        if self.batch_reason is not None:
            self.batch_reason = "%s() has no batched form" % self.batch_reason
        elif _lists_with_symbols(graph.outputs):
            self.batch_reason = "it returns a Python list of tensors"
        else:
            self.batch_reason, self.rows_out = graph.rows_check()

    def _warn(self):
        key = (getattr(self.func, "__code__", self.func), self.reason)
        with _WARNED_LOCK:
            if key in _WARNED:
                return
            _WARNED.add(key)
        warnings.warn("tf.data: the function %s given to %s() runs per record in Python, "
                      "not traced: %s" % (_fn_name(self.func), self.transformation,
                                         self.reason), TracingFallbackWarning, stacklevel=5)

    rows_out = None  # output leaves batched as rows (RaggedTensors), see _trace

    def rows(self, input_rows):
        """(reason or None, output rows) when the input leaves at `input_rows` arrive
        as rows (a fused map before this one gives them)."""
        if not input_rows:
            return self.batch_reason, self.rows_out
        return self.graph.rows_check(input_rows)

    @property
    def traced(self):
        return self.graph is not None

    @property
    def vectorized(self):
        return self.graph is not None and self.batch_reason is None

    def output_spec(self):
        if self.graph is None:
            return None

        def spec(x):
            if isinstance(x, _trace.Symbol):
                return x.spec
            return structure.spec_of_value(structure.to_tensor(x))
        def walk(x):  # a list is one leaf: the tensor TensorFlow packs it into
            if isinstance(x, dict):
                return type(x)((k, walk(v)) for k, v in x.items())
            if isinstance(x, tuple) and not structure.is_namedtuple(x):
                return tuple(walk(v) for v in x)
            if isinstance(x, list) and _trace.has_symbol(x):
                return _packed_spec([spec(v) for v in x])
            return spec(x)
        try:
            if _lists_with_symbols(self.graph.outputs):
                return walk(self.graph.outputs)
            return _trace._map(spec, self.graph.outputs)
        except Exception:
            return None

    def describe(self):
        if self.graph is None:
            return "python per record: %s" % self.reason
        ops = [n.op.name for n in self.graph.nodes] or ["restructuring only"]
        counted = []
        for name in ops:
            if not counted or counted[-1][0] != name:
                counted.append([name, 0])
            counted[-1][1] += 1
        text = " -> ".join(n if c == 1 else "%s x%d" % (n, c) for n, c in counted)
        if self.batch_reason is None:
            return "traced: %s (vectorized)" % text
        return "traced: %s (not vectorized: %s)" % (text, self.batch_reason)

    # ---- running
    # How often it ran per element and on batches (what explain() claims is checked
    # against these by the tests; a plain += under the GIL: a count, not a lock).
    element_runs = 0
    batch_runs = 0

    def __call__(self, element):
        """One element -> the normalized result."""
        self.element_runs += 1
        if self.graph is None:
            out = structure.call(self.func, element)
            if type(out) is list:  # TensorFlow makes a returned list a tuple
                out = tuple(out)
            return structure.normalize(out)
        return structure.normalize(self.graph.run(element))

    def raw(self, element):
        """One element -> the function's result, unnormalized (filter's predicate)."""
        self.element_runs += 1
        if self.graph is None:
            return structure.call(self.func, element)
        return self.graph.run(element)

    def run_batch(self, batch, n):
        """A batch of n elements (record axis first) -> the batched results, equal to
        stacking the per-record results."""
        self.batch_runs += 1
        g = self._batch_graph
        if g is None:
            g = self._batch_graph = fuse_int32_casts(self.graph)
        out = g.run(batch, batched=True)
        return _batched_normalize(self.graph.outputs, out, n)

    _batch_graph = None


def _args_symbols(node):
    return [x for x in _trace._leaves((node.args, node.kwargs))
            if isinstance(x, _trace.Symbol)]


def _passthrough(x, *args, **kwargs):
    return x


_CAST_IN_PARSER = _trace._Op("cast (done by the parser)", _passthrough, _passthrough, None)


def fuse_int32_casts(graph):
    """The graph for batched runs, with each ``cast(parsed int64, int32)`` folded into
    the parser (it writes int32 directly, one pass less over the data). Values the
    parser cannot fit in int32 make it fail, and the batch then runs per record,
    where cast wraps them as TensorFlow does."""
    import numpy as np
    consumers = {}
    for node in graph.nodes:
        for s in _args_symbols(node):
            consumers.setdefault(s.index, []).append(node)
    outputs = {s.index for s in _trace._leaves(graph.outputs) if isinstance(s, _trace.Symbol)}
    new_nodes = []
    replaced = {}
    for node in graph.nodes:
        if node.op.name != "parse_single_example" or not isinstance(node.outputs, dict):
            new_nodes.append(node)
            continue
        keys = []
        for key, sym in node.outputs.items():
            users = consumers.get(sym.index, [])
            if sym.spec.dtype != np.int64 or not users or sym.index in outputs or \
                    isinstance(sym.spec, _trace.CompositeSpec):
                continue
            if all(u.op.name == "cast" and u.args and u.args[0] is sym and
                   _is_int32(u.args[1:], u.kwargs) for u in users):
                keys.append(key)
                for u in users:
                    replaced[id(u)] = _trace.Node(_CAST_IN_PARSER, u.args, u.kwargs,
                                                  u.outputs)
        if keys:
            kwargs = dict(node.kwargs, _tfn_int32=tuple(sorted(keys)))
            node = _trace.Node(node.op, node.args, kwargs, node.outputs)
        new_nodes.append(node)
    if not replaced:
        return graph
    g = _trace.Graph()
    g.symbols, g.inputs, g.outputs = graph.symbols, graph.inputs, graph.outputs
    g.nodes = [replaced.get(id(n), n) for n in new_nodes]
    return g


def _is_int32(args, kwargs):
    import numpy as np
    from .. import dtypes
    dt = kwargs.get("dtype", args[0] if args else None)
    try:
        return dtypes.as_dtype(dt).as_numpy_dtype == np.int32
    except Exception:
        return False


def _batched_normalize(template, out, n):
    leaves_t = structure.flatten(template)
    leaves = structure.flatten(out)
    res = []
    for c, (t, v) in enumerate(zip(leaves_t, leaves)):
        if isinstance(t, _trace.Symbol):
            res.append(stack_leaf(v, c))
        else:  # a constant: the same value for every record
            one = np.asarray(structure.to_tensor(v))
            res.append(structure.to_tensor(np.broadcast_to(one, (n,) + one.shape).copy()))
    return structure.pack(template, res)


def stack_leaf(v, component=0):
    """A batched value -> a Tensor; a Python list of per-record arrays is stacked
    (TensorFlow's error when their shapes differ)."""
    if hasattr(v, "_tfn_joined") or hasattr(v, "_tfn_views"):
        return v
    if type(v).__name__ in ("SparseTensor", "RaggedTensor"):  # batched as tf.data does
        return v
    if isinstance(v, list):
        from .. import _parsing
        from .ops.batch import stack_column  # lazy door: fusion (to go to data/optimize.py)
        out = stack_column(v, component)
        table = getattr(_parsing.LENGTHS, "table", None)
        if table is not None:  # the records' shapes were checked equal by stacking
            a = np.asarray(out)
            table[(a.__array_interface__["data"][0], a.shape)] = STACKED
        return out
    return structure.to_tensor(np.asarray(v) if not isinstance(v, np.ndarray) else v)


STACKED = "stacked"  # in the lengths table: a per-record list stacked, shapes equal


def compose(first, second):
    """map(f).map(g) as one function (map fusion), when both are traced."""
    return _Composed(first, second)


class _Composed:
    def __init__(self, f, g):
        self.f, self.g = f, g
        self.func = g.func
        self.graph = True
        self.reason = None
        self.batch_reason = f.batch_reason or g.batch_reason
        self.rows_out = None
        if self.batch_reason is None:
            self.batch_reason, self.rows_out = g.rows(f.rows_out)
        self.traced = True
        self.vectorized = self.batch_reason is None

    def rows(self, input_rows):
        reason, mid = self.f.rows(input_rows)
        return (reason, None) if reason is not None else self.g.rows(mid)

    def output_spec(self):
        return self.g.output_spec()

    def describe(self):
        text = "%s, then %s" % (self.f.describe(), self.g.describe())
        if self.batch_reason is not None and not (self.f.batch_reason or self.g.batch_reason):
            text += " (together not vectorized: %s)" % self.batch_reason
        return text

    def __call__(self, element):
        return self.g(self.f(element))

    def raw(self, element):
        return self.g.raw(self.f(element))

    def run_batch(self, batch, n):
        return self.g.run_batch(self.f.run_batch(batch, n), n)
