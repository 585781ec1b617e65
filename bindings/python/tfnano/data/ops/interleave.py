"""interleave(map_func, cycle_length, block_length) and flat_map(map_func): each
input element becomes a dataset; interleave takes `block_length` elements from each
of `cycle_length` open datasets in turn (a finished dataset's slot takes the next
input's, which gets its turn when the cycle comes back), flat_map reads them one
after the other."""
from .. import plan, structure


class InterleaveNode(plan.Node):
    op = "interleave"

    def __init__(self, input, map_func, cycle_length=None, block_length=None,
                 num_parallel_calls=None):
        super().__init__(input)
        self.num_parallel_calls = num_parallel_calls
        self.map_func = map_func
        self.cycle_length = cycle_length
        self.block_length = 1 if block_length is None else int(block_length)

    def attrs(self):
        return {"cycle_length": self.cycle_length, "block_length": self.block_length}

    def element_spec(self):
        # map_func called once on a stand-in element, as TensorFlow traces it when the
        # dataset is made; its dataset's spec (None when the call needs real input)
        if not hasattr(self, "_spec"):
            spec = self.inputs[0].element_spec()
            found = []
            unknown = spec is not None and any(
                getattr(s, "shape", None) is not None and None in s.shape
                for s in structure.flatten(spec))
            # unknown sizes as 0, then 1: what differs is unknown
            for size in ((0, 1) if unknown else (0,)):
                el = structure.stand_in(spec, size)
                found.append(None if el is None else structure.returned_spec(
                    lambda: structure.call(self.map_func, el)))
            self._spec = structure.merged_spec(*found) if unknown else found[0]
        return self._spec

    def stage(self, ctx):
        from ..autotune import cycle_length
        cycle = cycle_length(self.cycle_length, self.num_parallel_calls)
        return _InterleaveStage(ctx, ctx.stage(self.inputs[0]), self.map_func, cycle,
                                self.block_length)


class FlatMapNode(InterleaveNode):
    op = "flat_map"

    def __init__(self, input, map_func):
        super().__init__(input, map_func, 1, 1)

    def attrs(self):
        return {}


class _InterleaveStage(plan.Stage):
    def __init__(self, ctx, upstream, map_func, cycle, block):
        self._ctx = ctx
        self._in = upstream
        self._fn = map_func
        self._cycle, self._block = max(1, cycle), max(1, block)
        self._slots = None
        self._i = 0
        self._in_block = 0

    @property
    def upstreams(self):
        return (self._in,) + tuple(self._slots or ())

    def _open_next(self):
        try:
            el = next(self._in)
        except StopIteration:
            return None
        ds = structure.call(self._fn, el)
        return self._ctx.stage(ds._plan_node())

    def __next__(self):
        if self._slots is None:
            self._slots = []
            while len(self._slots) < self._cycle:
                s = self._open_next()
                if s is None:
                    break
                self._slots.append(s)
        slots = self._slots
        while slots:
            self._i %= len(slots)
            s = slots[self._i]
            try:
                el = next(s)
            except StopIteration:
                s.close()
                self._in_block = 0
                nxt = self._open_next()
                if nxt is None:
                    slots.pop(self._i)
                else:
                    slots[self._i] = nxt
                    self._i += 1
                continue
            self._in_block += 1
            if self._in_block >= self._block:
                self._in_block = 0
                self._i += 1
            return el
        raise StopIteration
