"""filter(predicate): the elements for which the predicate is true."""
import numpy as np

from .. import plan
from ..structured_function import StructuredFunction


class FilterNode(plan.Node):
    op = "filter"

    def __init__(self, input, predicate):
        super().__init__(input)
        self.fn = StructuredFunction(predicate, input.element_spec(), "filter")

    def notes(self):
        return [self.fn.describe(), "per element"]

    def stage(self, ctx):
        return _FilterStage(ctx.stage(self.inputs[0]), self.fn)


def truth(value):
    a = np.asarray(value)
    if a.shape != ():
        from ... import errors
        raise errors.InvalidArgumentError(
            None, None, "`predicate` return type must be convertible to a scalar boolean "
            "tensor. Was TensorSpec(shape=%s, dtype=%s, name=None)." % (a.shape, a.dtype))
    return bool(a)


class _FilterStage(plan.Stage):
    def __init__(self, upstream, fn):
        self.upstreams = (upstream,)
        self._fn = fn

    def __next__(self):
        up, fn = self.upstreams[0], self._fn
        while True:
            el = next(up)
            if truth(fn.raw(el)):
                return el
