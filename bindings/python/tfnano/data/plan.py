"""The pipeline plan: each Dataset holds one :class:`Node`; a node keeps its inputs,
its attributes and what it knows statically (cardinality, element spec). Iterating
a Dataset hands its node to ``execute``, which rewrites the plan (fusions) and asks
each node for a :class:`Stage`, the iterator that does the work.

``explain()`` prints the plan after rewriting: one line per node, with how its user
function runs (traced, vectorized, fused, or per-record Python and why).
"""
AUTOTUNE = -1
INFINITE = -1
UNKNOWN = -2


class Node:
    """One transformation (or source) in a plan.

    Subclasses set ``op`` (the name explain() prints) and implement ``stage(ctx)``;
    they may override ``cardinality()``, ``element_spec()`` (a structure of
    ``_trace.Spec`` or None when unknown), ``attrs()`` (shown by explain()) and
    ``notes()`` (how it runs)."""
    op = "node"

    def __init__(self, *inputs):
        self.inputs = inputs

    def cardinality(self):
        return UNKNOWN

    def element_spec(self):
        return self.inputs[0].element_spec() if self.inputs else None

    def attrs(self):
        return {}

    def notes(self):
        return []

    def columnar(self):
        """Whether this node's stage hands out elements as columns (data/columns.py):
        a vectorized map, and the transformations that move columns after it."""
        return False

    def stage(self, ctx):
        raise NotImplementedError(type(self).__name__)

    def __repr__(self):
        a = ", ".join("%s=%s" % (k, _fmt(v)) for k, v in self.attrs().items())
        return "%s(%s)" % (self.op, a)


def _fmt(v):
    if v == AUTOTUNE and isinstance(v, int) and not isinstance(v, bool):
        return "AUTOTUNE"
    r = repr(v)
    return r if len(r) <= 60 else r[:57] + "..."


class Stage:
    """The running form of a node: an iterator whose ``__next__`` may raise an error
    for one element and stay usable (``ignore_errors()`` then asks for the next),
    and whose ``close()`` releases threads and files, its own and upstream's."""
    upstreams = ()

    def __iter__(self):
        return self

    def __next__(self):
        raise NotImplementedError

    def close(self):
        for u in self.upstreams:
            close = getattr(u, "close", None)
            if close is not None:
                close()

    def next_records(self, n):
        """Up to n elements as one batch-in-waiting: a list of elements by default;
        record sources return a record batch (no Python object per record). None at
        the end. An error drops what was gathered, as tf.data's batch does."""
        out = []
        for _ in range(n):
            try:
                out.append(next(self))
            except StopIteration:
                break
        return out or None


class IterStage(Stage):
    """Wraps a plain Python iterator (generator sources)."""

    def __init__(self, it):
        self._it = it

    def __next__(self):
        return next(self._it)

    def close(self):
        close = getattr(self._it, "close", None)
        if close is not None:
            close()


def explain_lines(node, depth=0):
    lines = ["%s%r" % ("  " * depth, node)]
    for n in node.notes():
        lines.append("%s  | %s" % ("  " * depth, n))
    for i in node.inputs:
        lines.extend(explain_lines(i, depth + 1))
    return lines


def with_inputs(node, inputs):
    import copy
    out = copy.copy(node)
    out.inputs = tuple(inputs)
    return out


Node.with_inputs = with_inputs
