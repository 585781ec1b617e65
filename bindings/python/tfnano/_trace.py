"""Tracing user functions into graphs of tfnano ops (what ``tf.function`` does for
tf.data): the function is called once with :class:`Symbol` stand-ins, every op it
calls that is declared with :func:`traceable` records a node instead of computing,
and the recorded :class:`Graph` can then run per record or on a whole batch at once.

An op opts in with the decorator::

    @traceable("cast", batch="elementwise")
    def cast(x, dtype, name=None): ...            # the eager implementation

``batch`` says how the op runs on a batch of records (every Symbol argument then holds
the batch, with the record axis first):

- ``"elementwise"``: the eager function itself, applied to the batched arrays after
  each symbolic argument is reshaped so that numpy's broadcasting gives exactly the
  per-record result (needs the ranks of the symbolic arguments);
- a callable ``batch_fn(*args, **kwargs)`` taking batched arguments, returning batched
  results (e.g. ``parse_single_example`` -> ``parse_example``; ops with an ``axis``);
- ``None``: the op can be traced but not vectorized; a graph holding it runs per record.

Values whose per-record length varies (``tf.strings.split`` of a line: a 1-D tensor
of tokens per record) are batched as a RaggedTensor whose rows are the records
("rows"). An op declared ``rows="make"`` gives such a batch from ordinary batched
inputs (split of a batch of lines); ``rows="map"``: its batch rule takes rows and gives
rows (ngrams, a slice ``tokens[:n]``); ``rows="reduce"``: takes rows and gives one value
per record (``tf.size``, ``tokens[0]``); ``rows`` may also be a function of the node
that says which. Elementwise ops run on rows as they are: on the values, the row
partition kept (other traced arguments must be per-record scalars, repeated along
each row; constants scalars). A graph where rows reach any other op is not
vectorized (``Graph.rows_check`` says why; it then runs per record).

``infer(*args, **kwargs)`` (optional) gives the output structure as Symbol specs
(``Spec(dtype, shape)`` leaves); without it the eager function is run on zero-filled
stand-ins built from the argument specs, which is right for ops whose output shape
and dtype depend only on their inputs' shapes and dtypes.

Anything a trace cannot express (``bool(x)``, ``np.asarray(x)``, ``len(x)``, iterating,
``x.numpy()``, a numpy function on a Symbol) raises :class:`TraceError` with the
reason; the caller then runs the function per record in Python and reports the reason.
This module knows no op and no Dataset: ops import it, tf.data uses it.
"""
import copy
import functools
import threading

import numpy as np

_STATE = threading.local()


class TraceError(Exception):
    """The function cannot be traced; ``str(e)`` says why, in words for the user."""


def user_error(exc):
    """Marks `exc` as an error TensorFlow raises while tracing (e.g. tf.cond branches
    that disagree): trace() lets it through to the caller instead of falling back to
    running the function per record."""
    exc._tfn_trace_time_error = True
    return exc


class Spec:
    """What is known of a traced value: numpy dtype (None: unknown) and shape (a tuple
    with None for unknown sizes, or None when even the rank is unknown)."""
    __slots__ = ("dtype", "shape")

    def __init__(self, dtype, shape):
        self.dtype = None if dtype is None else np.dtype(dtype)
        self.shape = None if shape is None else tuple(shape)

    @property
    def rank(self):
        return None if self.shape is None else len(self.shape)

    def __repr__(self):
        return "Spec(%s, %s)" % (self.dtype, self.shape)


class CompositeSpec(Spec):
    """A traced SparseTensor (kind "sparse") or RaggedTensor (kind "ragged"): dtype of
    its values, its shape (None for sizes that vary), and for a RaggedTensor its
    ragged_rank and row-splits dtype. Only ops declared with ``composites=True`` take
    such a value; any other op refuses it with a TraceError (the function then runs
    per record)."""
    __slots__ = ("kind", "ragged_rank", "row_splits_dtype")

    def __init__(self, kind, dtype, shape, ragged_rank=0, row_splits_dtype=None):
        Spec.__init__(self, dtype, shape)
        self.kind = kind
        self.ragged_rank = ragged_rank
        self.row_splits_dtype = row_splits_dtype

    def with_dtype(self, dtype):
        return CompositeSpec(self.kind, dtype, self.shape, self.ragged_rank,
                             self.row_splits_dtype)

    def batched(self, size=None):
        """The spec of a batch of such values (tf.data's batch rules)."""
        shape = None if self.shape is None else (size,) + self.shape
        rank = self.ragged_rank + 1 if self.kind == "ragged" else 0
        return CompositeSpec(self.kind, self.dtype, shape, rank, self.row_splits_dtype)

    @property
    def type_name(self):
        return "SparseTensor" if self.kind == "sparse" else "RaggedTensor"

    def __repr__(self):
        return "%sSpec(%s, %s)" % (self.type_name, self.dtype, self.shape)


def is_composite(x):
    """True for a Symbol standing for a SparseTensor or RaggedTensor."""
    return isinstance(x, Symbol) and isinstance(x.spec, CompositeSpec)


def composite_spec(x, kind):
    """The CompositeSpec of traced `x`, which must stand for a `kind` ("sparse" or
    "ragged") tensor."""
    s = x.spec
    if not isinstance(s, CompositeSpec) or s.kind != kind:
        raise TraceError("expected a traced %s" % ("SparseTensor" if kind == "sparse"
                                                    else "RaggedTensor"))
    return s


# The tracer's lengths table, set by tf.data's vectorized padded_batch on its thread:
# {(address, shape): lengths} of the batched outputs whose records have row counts
# (FixedLenSequenceFeature outputs, a VarLenFeature's to_dense), so that batch checks
# them and padded_batch re-pads them.
LENGTHS = threading.local()


class Symbol:
    """A value of the traced function that exists only once the data flows: one
    record's tensor. Supports the operators and methods that have traceable ops."""
    __slots__ = ("graph", "index", "spec", "__weakref__")
    __array_priority__ = 1000  # numpy defers binary operators to us

    def __init__(self, graph, spec):
        self.graph = graph
        self.index = len(graph.symbols)
        self.spec = spec
        graph.symbols.append(self)

    # TensorFlow-like attributes (static information only).
    @property
    def dtype(self):
        from . import dtypes
        return None if self.spec.dtype is None else dtypes.as_dtype(self.spec.dtype)

    @property
    def shape(self):
        return self.spec.shape

    @property
    def ndim(self):
        return self.spec.rank

    def get_shape(self):
        return self.spec.shape

    def set_shape(self, shape):
        """Refines the static shape (unknown dimensions take the given sizes)."""
        from ._set_shape import merged_shape
        merged = merged_shape(self.spec.shape, shape)
        if merged != self.spec.shape:
            spec = copy.copy(self.spec)
            spec.shape = merged
            self.spec = spec

    def __repr__(self):
        return "<traced value #%d %s>" % (self.index, self.spec)

    # What a graph cannot hold: values seen by Python itself.
    def _refuse(self, what):
        raise TraceError("%s of a traced tensor: its value is only known per record "
                         "(Python control flow and conversions run once, at trace time)"
                         % what)

    def __bool__(self):
        self._refuse("bool()")

    def __len__(self):
        self._refuse("len()")

    def __iter__(self):
        self._refuse("iterating")

    def __index__(self):
        self._refuse("using as an index")

    def __int__(self):
        self._refuse("int()")

    def __float__(self):
        self._refuse("float()")

    def __array__(self, dtype=None, copy=None):
        self._refuse("numpy conversion (np.asarray, a numpy function)")

    def __array_function__(self, func, types, args, kwargs):
        self._refuse("numpy function %s()" % getattr(func, "__name__", func))

    def __array_ufunc__(self, ufunc, method, *inputs, **kwargs):
        self._refuse("numpy ufunc %s" % ufunc.__name__)

    def numpy(self):
        self._refuse(".numpy()")

    # Operators and methods: resolved through ops registered under these names, so
    # that this module needs no op of its own (see OPERATORS).
    def __getattr__(self, name):
        if isinstance(self.spec, CompositeSpec):  # ops registered as "sparse.values"
            op = OPERATORS.get("%s.%s" % (self.spec.kind, name))
            if op is None:
                if name.startswith("__"):
                    raise AttributeError(name)
                raise TraceError("%s.%s is not available on a traced %s"
                                 % (self.spec.type_name, name, self.spec.type_name))
            # properties (.values, .indices) are computed at once, methods bound
            return op(self) if getattr(op, "_tfn_property", False) else \
                functools.partial(op, self)
        op = OPERATORS.get(name)
        if op is None:
            raise AttributeError("%r: attribute %r is not available on a traced tensor"
                                 % (self, name))
        return functools.partial(op, self)


def _binary(name, reflected=False):
    def method(self, other):
        op = OPERATORS.get(name)
        if op is None:
            raise TraceError("operator %s is not supported on a traced tensor" % name)
        return op(other, self) if reflected else op(self, other)
    method.__name__ = name
    return method


def _unary(name):
    def method(self):
        op = OPERATORS.get(name)
        if op is None:
            raise TraceError("operator %s is not supported on a traced tensor" % name)
        return op(self)
    method.__name__ = name
    return method


# name -> traceable op taking the Symbol first; filled in by the modules that define
# the ops (e.g. OPERATORS["__add__"] = math_ops.add). Dunder methods must live on the
# class, so each is a thin door to the registry.
OPERATORS = {}
for _n in ("add", "sub", "mul", "truediv", "floordiv", "mod", "pow", "and", "or", "xor",
           "lt", "le", "gt", "ge", "eq", "ne", "matmul", "getitem"):
    setattr(Symbol, "__%s__" % _n, _binary("__%s__" % _n))
    if _n not in ("lt", "le", "gt", "ge", "eq", "ne", "getitem"):
        setattr(Symbol, "__r%s__" % _n, _binary("__%s__" % _n, reflected=True))
for _n in ("neg", "pos", "abs", "invert"):
    setattr(Symbol, "__%s__" % _n, _unary("__%s__" % _n))
Symbol.__hash__ = object.__hash__  # __eq__ is an op; Symbols stay usable as dict keys


class Node:
    """One recorded call: op, arguments (Symbols in place), outputs (a structure)."""
    __slots__ = ("op", "args", "kwargs", "outputs")

    def __init__(self, op, args, kwargs, outputs):
        self.op, self.args, self.kwargs, self.outputs = op, args, kwargs, outputs

    def __repr__(self):
        return "%s(%s)" % (self.op.name, ", ".join(
            [_short(a) for a in self.args] + ["%s=%s" % (k, _short(v))
                                                for k, v in self.kwargs.items()]))


def _short(v):
    if isinstance(v, Symbol):
        return "#%d" % v.index
    if isinstance(v, (list, tuple)):
        return "[%s]" % ", ".join(_short(x) for x in v)
    if isinstance(v, dict):
        return "{%s}" % ", ".join("%s: %s" % (k, _short(x)) for k, x in v.items())
    r = repr(v)
    return r if len(r) < 40 else r[:37] + "..."


class Graph:
    """The recorded computation of one traced function."""

    def __init__(self):
        self.symbols = []
        self.nodes = []
        self.inputs = None   # structure of Symbols given to the function
        self.outputs = None  # structure the function returned (Symbols and constants)

    def placeholder(self, spec):
        return Symbol(self, spec)

    def vectorizable(self):
        """None if every node has a batch rule, else the name of the first that has not."""
        for n in self.nodes:
            if n.op.batch is None:
                return n.op.name
        return None

    def __repr__(self):
        return "\n".join("%s = %s" % (_short(n.outputs), n) for n in self.nodes)

    def rows_check(self, input_rows=()):
        """Whether batched runs can carry rows (per-record values of varying length,
        batched as RaggedTensors; see the module docstring) through this graph:
        (None, positions of the output leaves that are rows) or (the reason, None).
        `input_rows`: positions of the input leaves that arrive as rows."""
        origin = {}  # symbol index -> the node (or input) whose row partition it has
        for pos, sym in enumerate(_leaves(self.inputs)):
            if pos in input_rows and isinstance(sym, Symbol):
                origin[sym.index] = ("input", pos)
        for node in self.nodes:
            made = _nested_rows_op(node)
            if made is not None:
                return ("%s() inside %s() gives values whose length varies per record"
                        % (made, node.op.name)), None
            syms = [x for x in _leaves((node.args, node.kwargs)) if isinstance(x, Symbol)]
            rows = [x for x in syms if x.index in origin]
            outs = [x for x in _leaves(node.outputs) if isinstance(x, Symbol)]
            kind = rows_kind(node)
            if kind == "make" and not rows:
                for x in outs:
                    origin[x.index] = id(node)
                continue
            if not rows:
                continue
            from_op = _origin_name(self, origin[rows[0].index])
            if kind in ("map", "reduce") and len(rows) == 1 and (len(syms) == 1 or (
                    callable(node.op.rows) and all(
                        x.spec.shape is not None and None not in x.spec.shape
                        for x in syms if x.index not in origin))):
                # one rows argument (an op that says so per node may take per-record
                # values of a known shape beside it)
                for x in outs if kind == "map" else ():
                    origin[x.index] = id(node)
                continue
            why = _rows_refusal(node, rows, syms, origin)
            if why is not None:
                return ("%s() %s (values whose length varies per record, from %s)"
                        % (node.op.name, why, from_op)), None
            for x in outs:
                origin[x.index] = origin[rows[0].index]
        out_rows = {pos for pos, x in enumerate(_leaves(self.outputs))
                    if isinstance(x, Symbol) and x.index in origin}
        return None, out_rows

    # -- execution
    def run(self, inputs, batched=False):
        """Computes the outputs for concrete `inputs` (the structure of self.inputs):
        one record's values, or (batched=True) whole batches with the record axis first."""
        env = {}
        for sym, val in _pairs(self.inputs, inputs):
            env[sym.index] = val

        def value(x):
            return _map(lambda s: env[s.index] if isinstance(s, Symbol) else s, x)

        for node in self.nodes:
            args, kwargs = value(node.args), value(node.kwargs)
            if batched:
                out = node.op.run_batch(node, args, kwargs)
            else:
                out = node.op.fn(*args, **kwargs)
            for sym, val in _pairs(node.outputs, out):
                env[sym.index] = val
        return value(self.outputs)


def rows_kind(node):
    """What `node`'s op does with rows: "make" (gives rows from ordinary batches),
    "map" (rows in, rows out), "reduce" (rows in, one value per record out) or None.
    An op's ``rows`` may be a function of the node (e.g. indexing: a slice maps rows,
    an integer index reduces them, anything else has no rows form)."""
    rows = node.op.rows
    return rows(node) if callable(rows) else rows


def _nested_rows_op(node):
    """The name of an op that makes rows inside a nested branch of `node` (tf.cond's
    traced branches), or None."""
    for x in _leaves((node.args, node.kwargs)):
        if isinstance(x, Symbol):
            continue
        for inner in getattr(x, "nodes", None) or ():
            if isinstance(inner, Node):
                if rows_kind(inner) == "make":
                    return inner.op.name
                found = _nested_rows_op(inner)
                if found is not None:
                    return found
    return None


def _origin_name(graph, origin):
    if isinstance(origin, tuple):
        return "the function's input"
    for node in graph.nodes:
        if id(node) == origin:
            return node.op.name + "()"
    return "an earlier op"


def _rows_refusal(node, rows, syms, origin):
    """Why an op cannot run on rows (None: it can: elementwise, rows of one partition,
    other traced arguments per-record scalars, array constants scalars)."""
    if node.op.batch != "elementwise":
        return "has no batched form for them"
    if any(isinstance(x, Symbol) and x.index in origin for x in _leaves(node.kwargs)):
        return "takes them as a keyword argument"
    if len({origin[x.index] for x in rows}) > 1:
        return "combines rows of different lengths"
    for x in syms:
        if x.index not in origin and x.spec.rank != 0:
            return "combines them with a per-record value of rank %s" % x.spec.rank
    for a in node.args:
        if isinstance(a, _ARRAYLIKE) and np.ndim(a) != 0:
            return "combines them with a constant of rank %d" % np.ndim(a)
    shape = rows[0].spec.shape
    for x in _leaves(node.outputs):
        if isinstance(x, Symbol) and x.spec.shape != shape:
            return "changes their shape"
    return None


def is_rows(sym, value):
    """True when `value`, the batched value of `sym`, is rows: a RaggedTensor whose
    rows are the records of a per-record dense value."""
    return isinstance(sym, Symbol) and not isinstance(sym.spec, CompositeSpec) and \
        type(value).__name__ == "RaggedTensor" and hasattr(value, "row_splits")


def _run_rows(op, node, args, kwargs):
    """An elementwise op on rows: on their values, each per-record scalar repeated
    along its record's row; the result has the same row partition."""
    first = next(v for a, v in zip(node.args, args) if is_rows(a, v))
    splits = np.asarray(first.row_splits)
    lengths = None
    flat = []
    for a, v in zip(node.args, args):
        if is_rows(a, v):
            if v is not first and not np.array_equal(np.asarray(v.row_splits), splits):
                raise ValueError("rows of different lengths")
            flat.append(v.values)
        elif isinstance(a, Symbol):
            if lengths is None:
                lengths = np.diff(splits)
            flat.append(np.repeat(np.asarray(v), lengths, axis=0))
        else:
            flat.append(v)
    return first.with_values(op.fn(*flat, **kwargs))


def _pairs(template, value):
    """(Symbol, value) for each Symbol of `template`, walking `value` alongside: a
    Symbol's value is taken whole, even when it is a list (a batched value whose
    records differ in shape may be a Python list of per-record arrays)."""
    if isinstance(template, Symbol):
        yield template, value
    elif isinstance(template, dict):
        for k in _dict_keys(template):
            yield from _pairs(template[k], value[k])
    elif isinstance(template, (list, tuple)):
        for t, v in zip(template, value):
            yield from _pairs(t, v)


def _dict_keys(d):
    """Keys in sorted order (as tf.nest flattens dicts), so that two dicts with the
    same keys inserted in different orders pair up leaf by leaf."""
    try:
        return sorted(d)
    except TypeError:
        return list(d)


def _leaves(s):
    if isinstance(s, dict):
        return [x for k in _dict_keys(s) for x in _leaves(s[k])]
    if isinstance(s, (list, tuple)):
        return [x for v in s for x in _leaves(v)]
    return [s]


def _map(fn, s):
    if isinstance(s, dict):
        return type(s)((k, _map(fn, v)) for k, v in s.items()) if type(s) is not dict \
            else {k: _map(fn, v) for k, v in s.items()}
    if isinstance(s, tuple):
        vals = [_map(fn, v) for v in s]
        return type(s)(*vals) if hasattr(s, "_fields") else tuple(vals)
    if isinstance(s, list):
        return [_map(fn, v) for v in s]
    return fn(s)


def has_symbol(*structures):
    return any(isinstance(x, Symbol) for s in structures for x in _leaves(s))


def active_graph():
    """The graph being recorded on this thread, or None."""
    return getattr(_STATE, "graph", None)


class _Op:
    def __init__(self, name, fn, batch, infer, composites=False, rows=None):
        self.name, self.fn, self.batch, self.infer = name, fn, batch, infer
        self.composites = composites
        self.rows = rows

    def specs(self, args, kwargs):
        if self.infer is not None:
            return self.infer(*args, **kwargs)
        # Run the eager op on zero stand-ins (unknown sizes as 1) to learn what it gives.
        def stand_in(x):
            if not isinstance(x, Symbol):
                return x
            if x.spec.shape is None or x.spec.dtype is None:
                raise TraceError("%s() needs the rank and dtype of its inputs, which "
                                 "are unknown here" % self.name)
            return np.zeros([1 if d is None else d for d in x.spec.shape], x.spec.dtype)
        out = self.fn(*_map(stand_in, args), **_map(stand_in, kwargs))
        unknown_dims = any(isinstance(x, Symbol) and x.spec.shape is not None and
                           None in x.spec.shape for x in _leaves((args, kwargs)))

        def spec_of(v):
            a = np.asarray(v)
            shape = tuple(None for _ in a.shape) if unknown_dims else a.shape
            return Spec(a.dtype, shape)
        return _map(spec_of, out)

    def run_batch(self, node, args, kwargs):
        if callable(self.batch):
            return self.batch(*args, **kwargs)
        if self.batch == "elementwise":
            if any(is_rows(a, v) for a, v in zip(node.args, args)):
                return _run_rows(self, node, args, kwargs)
            return self.fn(*_align(node, args), **kwargs)
        raise TraceError("%s() has no batched form" % self.name)


_ARRAYLIKE = (np.ndarray, np.generic, int, float, complex, list)


def _align(node, args):
    """Batched arguments of an elementwise op, each Symbol's batch reshaped to
    (n, 1, ..., 1, *record_shape) so that numpy broadcasting over the record dims
    matches the per-record result exactly (constants broadcast from the right)."""
    ranks = [np.ndim(a) for a in node.args if isinstance(a, _ARRAYLIKE)]
    ranks += [a.spec.rank for a in node.args if isinstance(a, Symbol)]
    if any(r is None for r in ranks):
        raise TraceError("%s(): rank of an input unknown" % node.op.name)
    top = max(ranks) if ranks else 0
    out = []
    for sym, val in zip(node.args, args):
        if isinstance(sym, Symbol) and sym.spec.rank < top:
            val = np.asarray(val)
            val = val.reshape((val.shape[0],) + (1,) * (top - sym.spec.rank) + val.shape[1:])
        out.append(val)
    return out


def traceable(name, batch=None, infer=None, composites=False, rows=None):
    """Declares `fn` a tfnano op: eager as written; recorded when called with Symbols
    during a trace. See the module docstring for `batch`, `infer` and `rows`;
    `composites`: the op takes traced SparseTensors / RaggedTensors (its `infer`
    handles their CompositeSpec, its batch rule their batched values)."""
    def wrap(fn):
        op = _Op(name, fn, batch, infer, composites, rows)

        @functools.wraps(fn)
        def call(*args, **kwargs):
            graph = active_graph()
            if graph is None or not has_symbol(args, kwargs):
                return fn(*args, **kwargs)
            if not composites:
                for x in _leaves((args, kwargs)):
                    if is_composite(x):
                        raise TraceError("%s() does not take a traced %s"
                                         % (name, x.spec.type_name))
            specs = op.specs(args, kwargs)
            outputs = _map(lambda s: graph.placeholder(s), specs)
            graph.nodes.append(Node(op, args, kwargs, outputs))
            # The caller gets its own copy of the structure: user code may mutate it
            # (BERT's `example[name] = tf.cast(...)`) without rewiring the node.
            return _map(lambda s: s, outputs)
        call._tfn_op = op
        return call
    return wrap


def trace(fn, input_specs, call_args=True):
    """Traces `fn` on Symbols shaped like `input_specs` (a structure of Spec). With
    `call_args`, a tuple structure is spread over the positional arguments, as
    tf.data does. Returns the Graph; raises TraceError with the reason."""
    graph = Graph()
    graph.inputs = _map(lambda s: graph.placeholder(s), input_specs)
    prev = active_graph()
    _STATE.graph = graph
    try:
        if call_args and isinstance(graph.inputs, tuple) and not hasattr(graph.inputs, "_fields"):
            out = fn(*_map(lambda s: s, graph.inputs))  # a copy: fn may mutate it
        else:
            out = fn(_map(lambda s: s, graph.inputs))  # (`features.pop("label")`)
    except TraceError:
        raise
    except Exception as e:  # an op or the user's code refused a Symbol
        if getattr(e, "_tfn_trace_time_error", False):
            raise
        raise TraceError("%s: %s" % (type(e).__name__, e)) from e
    finally:
        _STATE.graph = prev
    graph.outputs = out
    for leaf in _leaves(out):
        if isinstance(leaf, Symbol) and leaf.graph is not graph:
            raise TraceError("the function returned a value traced elsewhere")
    return graph
