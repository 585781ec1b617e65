"""``tf.cond``, ``tf.case``, ``tf.switch_case``, ``tf.while_loop``: eager, they call the
chosen function (as TensorFlow does eagerly). A predicate known only per record (a
traced value inside a tf.data map) makes the trace stop with that reason, so the map
runs per record in Python, where these work unchanged."""
import numpy as np

from .._trace import Symbol, TraceError
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
        return pairs[-1][1]()
    return default()


def switch_case(branch_index, branch_fns, default=None, name="switch_case"):
    """``tf.switch_case``: branch_fns[branch_index]() (default() when out of range)."""
    if isinstance(branch_index, Symbol):
        raise TraceError("tf.switch_case on a value known only per record; the map "
                         "function runs per record instead")
    i = int(np.asarray(plain(branch_index) if isinstance(branch_index, np.ndarray)
                       else branch_index))
    fns = dict(branch_fns) if isinstance(branch_fns, dict) else dict(enumerate(branch_fns))
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
