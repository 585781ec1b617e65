"""cache(filename): the elements of the first complete pass kept in memory (a
filename is accepted; the cache is in memory either way)."""
from .. import columns, plan


class CacheNode(plan.Node):
    op = "cache"

    def __init__(self, input, filename=""):
        super().__init__(input)
        self.store = {"done": None}  # shared by the plan's copies

    def cardinality(self):
        return self.inputs[0].cardinality()

    def notes(self):
        state = "filled" if self.store["done"] is not None else "empty until a full pass"
        return [state + ("; holds columns" if self.columnar() else "; holds elements")]

    def columnar(self):
        return self.inputs[0].columnar()

    def stage(self, ctx):
        done = self.store["done"]
        if self.columnar():  # the cache holds the columns it was given
            if done is not None:
                return columns.ReplayStage(done)
            return columns.CacheFillStage(ctx.stage(self.inputs[0]), self.store)
        if done is not None:
            return plan.IterStage(iter(done))
        return _CacheFillStage(ctx.stage(self.inputs[0]), self.store)


class _CacheFillStage(plan.Stage):
    def __init__(self, upstream, store):
        self.upstreams = (upstream,)
        self._store = store
        self._seen = []

    def __next__(self):
        try:
            el = next(self.upstreams[0])
        except StopIteration:
            if self._seen is not None:
                self._store["done"], self._seen = self._seen, None
            raise
        if self._seen is not None:
            self._seen.append(el)
        return el
