"""``tf.cond``, ``tf.case``, ``tf.switch_case``, ``tf.while_loop``: eager, they call the
chosen function (as TensorFlow does eagerly).

Inside a traced tf.data map, ``tf.cond`` on a per-record predicate is traced as
TensorFlow traces it: both branches are recorded (each into its own list of nodes),
their outputs must agree in structure and dtypes (TensorFlow's TypeError, raised at
``map()``), and one ``cond`` node stands for the whole. Per record it runs only the
branch the predicate picks; on a batch it runs both branches on the whole batch and
picks each record's result with ``where`` (when the batch fails, e.g. the branch not
taken fails on some record, the batch is run again per record, which gives exactly
TensorFlow's result). Branches whose outputs differ in static shape run per record.
tf.case and tf.switch_case are traced as nested conds (tf.case(exclusive=True) first
checks, per record, that at most one predicate holds); tf.while_loop on a per-record
value makes the trace stop with that reason, so the map runs per record in Python."""
import numpy as np

from .._trace import (Node, Spec, Symbol, TraceError, _leaves, _map, _Op, _pairs,
                      active_graph, traceable, user_error)
from ._common import plain


def _truth(pred, what):
    if isinstance(pred, Symbol):
        raise TraceError("%s on a value known only per record; the map function runs per "
                         "record instead" % what)
    a = np.asarray(plain(pred) if isinstance(pred, np.ndarray) else pred)
    if a.size != 1:
        raise ValueError("The truth value of an array with more than one element is "
                         "ambiguous. Use a.any() or a.all()")
    return bool(a.reshape(()))


def cond(pred, true_fn=None, false_fn=None, name=None):
    """``tf.cond``: true_fn() if pred else false_fn()."""
    if true_fn is None:
        raise TypeError("cond(): 'true_fn' argument required")
    if false_fn is None:
        raise TypeError("cond(): 'false_fn' argument required")
    if not callable(true_fn):
        raise TypeError("'true_fn' must be callable.")
    if not callable(false_fn):
        raise TypeError("'false_fn' must be callable.")
    if isinstance(pred, Symbol) and active_graph() is pred.graph:
        return _traced_cond(pred, true_fn, false_fn)
    return true_fn() if _truth(pred, "tf.cond") else false_fn()


def case(pred_fn_pairs, default=None, exclusive=False, strict=False, name="case"):
    """``tf.case``: the function of the first true predicate (all must be checked when
    `exclusive`), else default()."""
    pairs = list(pred_fn_pairs.items()) if isinstance(pred_fn_pairs, dict) else \
        list(pred_fn_pairs)
    for p in pairs:
        if not (isinstance(p, tuple) and len(p) == 2):
            raise TypeError("Each entry in pred_fn_pairs must be a 2-tuple")
        if not callable(p[1]):
            raise TypeError("fn for pred %s must be callable." % (p[0],))
    traced = [p for p, _ in pairs if isinstance(p, Symbol) and active_graph() is p.graph]
    if traced:
        if exclusive:
            _at_most_one_true(*[p for p, _ in pairs])
        return _case_as_conds(pairs, default)
    chosen = [fn for pred, fn in pairs if _truth(pred, "tf.case")]
    if exclusive and len(chosen) > 1:
        from ..errors import InvalidArgumentError
        raise InvalidArgumentError(None, None, "Input error: exclusive=True: more than 1 "
                                   "conditions (%d) evaluated as True" % len(chosen))
    if chosen:
        return chosen[0]()
    if default is None:
        if not pairs:
            raise ValueError("pred_fn_pairs must not be empty when default is None")
        from ..errors import InvalidArgumentError
        raise InvalidArgumentError(None, None, "Expected 'tf.Tensor(False, shape=(), "
                                   "dtype=bool)' to be true. Summarized data: b'Input error: "
                                   "None of conditions evaluated as True:'\n%s"
                                   % ", ".join("False" for _ in pairs))
    return default()


def _case_as_conds(pairs, default):
    """A traced tf.case: the first true predicate's function, as nested tf.cond (each a
    traced cond on the batch); TensorFlow's default: default(), else the last pair's
    function, whose predicate is then not looked at."""
    if default is None:
        # TensorFlow's: the last function, once its predicate is true; none true is
        # the assertion error, per record
        if not pairs:
            raise ValueError("pred_fn_pairs must not be empty when default is None")
        preds = [p for p, _ in pairs]
        (last_pred, last_fn), pairs = pairs[-1], pairs[:-1]

        def none_true():
            _none_true(*preds)
            return last_fn()

        def default():
            return cond(last_pred, last_fn, none_true)

    def chain(i):
        if i == len(pairs):
            return default()
        pred, fn = pairs[i]
        return cond(pred, fn, lambda: chain(i + 1))
    return chain(0)


def _case_assertion(message, preds):
    """tf.case's failed Assert as TensorFlow prints it: the message, then the flags."""
    from ..errors import InvalidArgumentError
    flags = " ".join(str(int(bool(np.asarray(p)))) for p in preds)
    return InvalidArgumentError(None, None, "assertion failed: [Input error: %s:] [%s]"
                                % (message, flags))


def _no_case_error(preds):
    return _case_assertion("None of conditions evaluated as True", preds)


def _none_true_record(*preds):
    raise _no_case_error(preds)


def _none_true_batch(*preds):
    # a batched cond runs every branch on every record: this one fails the batch, which
    # then runs per record, where it is reached only by records with no true predicate
    raise _no_case_error([np.asarray(p).reshape(-1)[0] for p in preds])


_none_true = traceable("case_none_true", batch=_none_true_batch,
                       infer=lambda *preds: Spec(np.bool_, ()))(_none_true_record)


def _exclusive_error(preds):
    # (TensorFlow's text also names the predicates' graph tensors, "(Greater:0, ...)")
    return _case_assertion("exclusive=True: more than 1 conditions evaluated as True", preds)


def _at_most_one_true_record(*preds):
    if sum(bool(np.asarray(p)) for p in preds) > 1:
        raise _exclusive_error(preds)
    return np.True_


def _at_most_one_true_batch(*preds):
    # the batch fails on its first record with two true predicates; the batch is then
    # run per record, which raises for that record with its own flags
    counts = sum(np.asarray(p, bool).reshape(-1).astype(np.int64) for p in preds)
    bad = np.flatnonzero(np.asarray(counts) > 1)
    if bad.size:
        raise _exclusive_error([np.asarray(p).reshape(-1)[bad[0]] for p in preds])
    return np.ones(np.shape(counts), bool)


# tf.case(exclusive=True) traced: the check of TensorFlow's Assert, before the conds
_at_most_one_true = traceable("case_exclusive_check", batch=_at_most_one_true_batch,
                              infer=lambda *preds: Spec(np.bool_, ()))(
                                  _at_most_one_true_record)


def switch_case(branch_index, branch_fns, default=None, name="switch_case"):
    """``tf.switch_case``: branch_fns[branch_index]() (default() when out of range)."""
    fns = dict(branch_fns) if isinstance(branch_fns, dict) else dict(enumerate(branch_fns))
    if isinstance(branch_index, Symbol) and active_graph() is branch_index.graph:
        spec = branch_index.spec
        if spec.dtype is None or spec.dtype.kind not in "iu" or spec.shape != ():
            raise TraceError("tf.switch_case on an index that is not an integer scalar; "
                             "the map function runs per record instead")
        # as tf.case over (index == k) in key order, out-of-range to the default
        # (else the last branch, as TensorFlow)
        keys = sorted(fns)
        return _case_as_conds([(branch_index == k, fns[k]) for k in keys],
                              default or fns[keys[-1]])
    if isinstance(branch_index, Symbol):
        raise TraceError("tf.switch_case on a value known only per record; the map "
                         "function runs per record instead")
    i = int(np.asarray(plain(branch_index) if isinstance(branch_index, np.ndarray)
                       else branch_index))
    if i in fns:
        return fns[i]()
    return (default or fns[max(fns)])()


def while_loop(cond, body, loop_vars, shape_invariants=None, parallel_iterations=10,
               back_prop=True, swap_memory=False, maximum_iterations=None, name=None):
    """``tf.while_loop``: loop_vars = body(*loop_vars) while cond(*loop_vars)."""
    single = not isinstance(loop_vars, (list, tuple))
    state = [loop_vars] if single else list(loop_vars)
    steps = 0
    while _truth(cond(*state), "tf.while_loop"):
        if maximum_iterations is not None and steps >= int(maximum_iterations):
            break
        out = body(*state)
        state = [out] if single else list(out) if isinstance(out, (list, tuple)) else [out]
        steps += 1
    if single:
        return state[0]
    return type(loop_vars)(state) if not hasattr(loop_vars, "_fields") else \
        type(loop_vars)(*state)


# ------------------------------------------------------------------ traced cond

class _Branch:
    """One traced branch: its nodes, its outputs (a structure of Symbols and
    constants), and the Symbols it reads from outside (held here, out of reach of
    Graph.run's argument mapping)."""
    __slots__ = ("nodes", "outputs")

    def __init__(self, nodes, outputs):
        self.nodes, self.outputs = nodes, outputs


class _Captures:
    __slots__ = ("symbols",)

    def __init__(self, symbols):
        self.symbols = symbols


def _record(graph, fn):
    start = len(graph.nodes)
    out = fn()
    nodes = graph.nodes[start:]
    del graph.nodes[start:]
    return _Branch(nodes, out)


def _node_symbols(node):
    return [x for x in _leaves((node.args, node.kwargs)) if isinstance(x, Symbol)]


def _captures(pred, branches):
    """Symbols the branches read that they do not make (in first-use order)."""
    made, seen, out = set(), set(), []
    for b in branches:
        for node in b.nodes:
            for x in _node_symbols(node):
                if x.index not in made and x.index not in seen:
                    seen.add(x.index)
                    out.append(x)
            for x in _leaves(node.outputs):
                if isinstance(x, Symbol):
                    made.add(x.index)
        for x in _leaves(b.outputs):
            if isinstance(x, Symbol) and x.index not in made and x.index not in seen:
                seen.add(x.index)
                out.append(x)
    return out  # the predicate too, when a branch reads it (tf.case's last default)


def _spec_of(x):
    if isinstance(x, Symbol):
        if isinstance(x.spec, Spec) and type(x.spec) is not Spec:
            raise TraceError("tf.cond branches returning a SparseTensor / RaggedTensor")
        return x.spec
    from .._tensor import convert_to_tensor
    a = np.asarray(convert_to_tensor(x))
    return Spec(a.dtype, a.shape)


def _flat_with_paths(s):
    """The leaves of a branch output in tf.nest order, and a comparable skeleton."""
    if isinstance(s, dict):
        keys = sorted(s)
        return [x for k in keys for x in _flat_with_paths(s[k])]
    if isinstance(s, (list, tuple)):
        return [x for v in s for x in _flat_with_paths(v)]
    return [s]


def _skeleton(s):
    if isinstance(s, dict):
        return ("dict", tuple((k, _skeleton(s[k])) for k in sorted(s)))
    if isinstance(s, (list, tuple)):
        return (type(s).__name__ if not hasattr(s, "_fields") else type(s),
                tuple(_skeleton(v) for v in s))
    return None


def _describe(s):
    from .. import dtypes

    def one(x):
        sp = _spec_of(x)
        return "Tensor(shape=%s, dtype=%s)" % (
            "<unknown>" if sp.shape is None else tuple(sp.shape),
            dtypes.as_dtype(sp.dtype).name if sp.dtype is not None else "?")
    return repr(_map(one, s)).replace("'Tensor(", "Tensor(").replace(")'", ")")


def _disagree(t, f, why):
    return user_error(TypeError(
        "true_fn and false_fn arguments to tf.cond must have the same number, type, and "
        "overall structure of return values.\n\ntrue_fn output: %s\nfalse_fn output: "
        "%s\n\nError details:\n%s" % (_describe(t), _describe(f), why)))


def _merged_shape(a, b):
    if a is None or b is None or len(a) != len(b):
        return None
    return tuple(x if x == y else None for x, y in zip(a, b))


def _traced_cond(pred, true_fn, false_fn):
    spec = pred.spec
    if spec.dtype is None or spec.dtype.kind != "b" or spec.shape != ():
        raise TraceError("tf.cond on a predicate that is not a scalar bool")
    graph = pred.graph
    tb, fb = _record(graph, true_fn), _record(graph, false_fn)
    if tb.outputs is None and fb.outputs is None:
        raise TraceError("tf.cond branches returning None")
    tl, fl = _flat_with_paths(tb.outputs), _flat_with_paths(fb.outputs)
    if len(tl) != len(fl):
        raise user_error(AssertionError([len(tl), len(fl)]))
    if _skeleton(tb.outputs) != _skeleton(fb.outputs):
        raise _disagree(tb.outputs, fb.outputs, "The two structures don't have the same "
                        "nested structure.")
    specs = []
    for a, b in zip(tl, fl):
        sa, sb = _spec_of(a), _spec_of(b)
        if sa.dtype != sb.dtype:
            raise _disagree(tb.outputs, fb.outputs, "dtypes differ: %s and %s"
                            % (sa.dtype, sb.dtype))
        specs.append(Spec(sa.dtype, _merged_shape(sa.shape, sb.shape)))
    caps = _captures(pred, (tb, fb))
    vectorizable = all(n.op.batch is not None for b in (tb, fb) for n in b.nodes) and all(
        _spec_of(a).shape == _spec_of(b).shape and _spec_of(a).shape is not None
        and None not in _spec_of(a).shape for a, b in zip(tl, fl))
    op = _Op("cond", _cond_record, _cond_batch if vectorizable else None, None)
    it = iter(specs)
    outputs = _map(lambda _: graph.placeholder(next(it)), tb.outputs)
    kwargs = {"branches": (tb, fb), "captures": _Captures(caps)}
    graph.nodes.append(Node(op, (pred, list(caps)), kwargs, outputs))
    return _map(lambda x: x, outputs)


def _run_branch(branch, captures, values, batched):
    env = {s.index: v for s, v in zip(captures.symbols, values)}

    def value(x):
        return _map(lambda s: env[s.index] if isinstance(s, Symbol) else s, x)
    for node in branch.nodes:
        args, kwargs = value(node.args), value(node.kwargs)
        out = node.op.run_batch(node, args, kwargs) if batched else node.op.fn(*args,
                                                                            **kwargs)
        for sym, val in _pairs(node.outputs, out):
            env[sym.index] = val
    return value(branch.outputs)


def _as_tensor_leaf(x):
    from .._tensor import convert_to_tensor
    return convert_to_tensor(x)


def _cond_record(pred, values, branches, captures):
    """One record: only the branch the predicate picks runs."""
    branch = branches[0] if bool(np.asarray(pred)) else branches[1]
    return _map(_as_tensor_leaf, _run_branch(branch, captures, values, False))


def _cond_batch(pred, values, branches, captures):
    """A batch: both branches on every record, each record's result picked."""
    from .._tensor import as_tensor
    p = np.asarray(pred).astype(bool).reshape(-1)
    n = len(p)
    leaves = []
    for branch in branches:
        out = _run_branch(branch, captures, values, True)
        leaves.append([_batched_leaf(v, n, isinstance(t, Symbol)) for t, v in zip(
            _flat_with_paths(branch.outputs), _flat_with_paths(out))])
    picked = []
    for a, b in zip(*leaves):
        if a.shape != b.shape:
            raise ValueError("tf.cond branches gave shapes %s and %s for a batch"
                             % (a.shape, b.shape))
        picked.append(as_tensor(np.where(p.reshape((n,) + (1,) * (a.ndim - 1)), a, b)))
    it = iter(picked)
    return _map(lambda _: next(it), branches[0].outputs)


def _batched_leaf(x, n, batched):
    """A branch result as a batch: computed ones are, constants are repeated."""
    a = np.asarray(x if batched else _as_tensor_leaf(x))
    return a if batched else np.broadcast_to(a, (n,) + a.shape)
