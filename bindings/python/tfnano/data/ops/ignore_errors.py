"""ignore_errors(): drops the elements whose production raised a tf.errors error.
Upstream stages deliver errors per element (parallel map, prefetch and parallel
reads included), so exactly the failing elements are dropped."""
import warnings

from ... import errors
from .. import plan


class IgnoreErrorsNode(plan.Node):
    op = "ignore_errors"

    def __init__(self, input, log_warning=False):
        super().__init__(input)
        self.log_warning = bool(log_warning)

    def stage(self, ctx):
        return _IgnoreErrorsStage(ctx.stage(self.inputs[0]), self.log_warning)


class _IgnoreErrorsStage(plan.Stage):
    def __init__(self, upstream, log):
        self.upstreams = (upstream,)
        self._log = log

    def __next__(self):
        up = self.upstreams[0]
        while True:
            try:
                return next(up)
            except errors.OpError as e:
                if self._log:
                    warnings.warn("tf.data: ignoring an error: %s" % e, RuntimeWarning)
