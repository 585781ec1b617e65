"""window(size, shift, stride, drop_remainder): each element a structure of Datasets
(one per component) holding `size` consecutive input elements taken every `stride`,
windows starting every `shift` elements; the last windows may be shorter unless
drop_remainder. Streams: at most one window of input is held."""
import collections

from .. import plan, structure
from ..plan import INFINITE, UNKNOWN


class ListNode(plan.Node):
    """A source of the given elements (the inside of a window or a group)."""
    op = "elements"

    def __init__(self, elements, spec=None):
        super().__init__()
        self.elements, self.spec = list(elements), spec

    def cardinality(self):
        return len(self.elements)

    def element_spec(self):
        if self.spec is not None:
            return self.spec
        return structure.element_spec_of(self.elements[0]) if self.elements else None

    def attrs(self):
        return {"n": len(self.elements)}

    def stage(self, ctx):
        return plan.IterStage(iter(self.elements))


def dataset_of(elements, spec=None):
    from ..dataset import Dataset
    return Dataset(ListNode(elements, spec))


def _positive(name, v):
    from ... import errors
    v = int(v)
    if v <= 0:
        raise errors.invalid("%s must be greater than zero." % name)
    return v


class WindowNode(plan.Node):
    op = "window"

    def __init__(self, input, size, shift, stride, drop_remainder):
        super().__init__(input)
        self.size = _positive("Window size", size)
        self.shift = self.size if shift is None else _positive("Window shift", shift)
        self.stride = _positive("Window stride", stride)
        self.drop = bool(drop_remainder)

    def attrs(self):
        return {"size": self.size, "shift": self.shift, "stride": self.stride,
                "drop_remainder": self.drop}

    def cardinality(self):
        n = self.inputs[0].cardinality()
        if n == INFINITE or n == UNKNOWN:
            return n
        span = (self.size - 1) * self.stride + 1
        if self.drop:
            return 0 if n < span else (n - span) // self.shift + 1
        return -(-n // self.shift)

    def element_spec(self):
        return None  # a structure of Datasets

    def stage(self, ctx):
        return _WindowStage(ctx.stage(self.inputs[0]), self)


class _WindowStage(plan.Stage):
    def __init__(self, upstream, node):
        self.upstreams = (upstream,)
        self._n = node
        self._buf = collections.deque()
        self._skip = 0      # input elements still to drop before the next window
        self._done = False

    def _fill(self, want):
        while len(self._buf) < want and not self._done:
            try:
                el = next(self.upstreams[0])
            except StopIteration:
                self._done = True
                break
            if self._skip:
                self._skip -= 1
                continue
            self._buf.append(el)

    def __next__(self):
        n = self._n
        span = (n.size - 1) * n.stride + 1
        while self._skip and not self._done:
            try:
                next(self.upstreams[0])
                self._skip -= 1
            except StopIteration:
                self._done = True
        self._fill(span)
        if not self._buf or (n.drop and len(self._buf) < span):
            raise StopIteration
        picked = [self._buf[i] for i in range(0, min(span, len(self._buf)), n.stride)]
        drop = min(n.shift, len(self._buf))
        for _ in range(drop):
            self._buf.popleft()
        self._skip = n.shift - drop
        leaves = [structure.flatten(el) for el in picked]
        datasets = [dataset_of([lv[c] for lv in leaves]) for c in range(len(leaves[0]))]
        return structure.pack(picked[0], datasets)
