"""take_while(predicate): elements up to (not including) the first one for which the
predicate is False."""
import numpy as np

from .. import plan, structure


class TakeWhileNode(plan.Node):
    op = "take_while"

    def __init__(self, input, predicate):
        super().__init__(input)
        self.predicate = predicate

    def attrs(self):
        return {"predicate": getattr(self.predicate, "__name__", "?")}

    def stage(self, ctx):
        return _TakeWhileStage(ctx.stage(self.inputs[0]), self.predicate)


class _TakeWhileStage(plan.Stage):
    def __init__(self, upstream, predicate):
        self.upstreams = (upstream,)
        self._pred, self._done = predicate, False

    def __next__(self):
        if self._done:
            raise StopIteration
        el = next(self.upstreams[0])
        keep = np.asarray(structure.call(self._pred, el))
        if keep.shape != () or keep.dtype != np.bool_:
            raise ValueError("Invalid `predicate`. `predicate` must return a `tf.bool` scalar "
                             "tensor, but its return type is %s." % keep.dtype)
        if not bool(keep):
            self._done = True
            raise StopIteration
        return el
