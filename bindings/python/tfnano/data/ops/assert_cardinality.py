"""assert_cardinality(n): the input, checked to hold exactly n elements
(FailedPreconditionError with TensorFlow's text otherwise); cardinality() is n."""
from ... import errors
from .. import plan
from ..plan import INFINITE


def _count(n):
    return "infinite" if n == INFINITE else "%d" % n


class AssertCardinalityNode(plan.Node):
    op = "assert_cardinality"

    def __init__(self, input, expected):
        super().__init__(input)
        import numpy as np
        self.expected = int(np.asarray(expected))

    def attrs(self):
        return {"expected": self.expected}

    def cardinality(self):
        return self.expected

    def stage(self, ctx):
        return _AssertStage(ctx.stage(self.inputs[0]), self.expected)


class _AssertStage(plan.Stage):
    def __init__(self, upstream, expected):
        self.upstreams = (upstream,)
        self._expected, self._seen = expected, 0

    def __next__(self):
        try:
            el = next(self.upstreams[0])
        except StopIteration:
            if self._expected != INFINITE and self._seen < self._expected:
                raise errors.FailedPreconditionError(
                    None, None, "Input dataset was expected to contain %s elements but "
                    "contained only %d element%s." % (_count(self._expected), self._seen,
                                                      "" if self._seen == 1 else "s"))
            raise
        self._seen += 1
        if self._expected != INFINITE and self._seen > self._expected:
            raise errors.FailedPreconditionError(
                None, None, "Input dataset was expected to contain %s element%s but "
                "contained at least %d elements." % (_count(self._expected),
                                                     "" if self._expected == 1 else "s",
                                                     self._seen))
        return el
