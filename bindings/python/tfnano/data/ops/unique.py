"""unique(): the first occurrence of each element (scalar int32 / int64 / string
elements, as TensorFlow allows)."""
import numpy as np

from .. import plan


class UniqueNode(plan.Node):
    op = "unique"

    def __init__(self, input):
        super().__init__(input)
        spec = input.element_spec()
        from ..._trace import Spec
        if isinstance(spec, Spec) and spec.dtype is not None and \
                spec.dtype.kind not in "iuO":
            raise TypeError("Unique does not support type %s." % spec.dtype)
        if spec is not None and not isinstance(spec, Spec):
            raise TypeError("Unique does not support tuples or dicts of elements.")

    def stage(self, ctx):
        return _UniqueStage(ctx.stage(self.inputs[0]))


class _UniqueStage(plan.Stage):
    def __init__(self, upstream):
        self.upstreams = (upstream,)
        self._seen = set()

    def __next__(self):
        while True:
            el = next(self.upstreams[0])
            a = np.asarray(el)
            if a.ndim != 0:
                from ... import errors
                raise errors.InvalidArgumentError(
                    None, None, "Unique expects a scalar element, got shape %s" % list(a.shape))
            key = a.item()
            if key not in self._seen:
                self._seen.add(key)
                return el
