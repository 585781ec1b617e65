"""scan(initial_state, scan_func): (new_state, output) = scan_func(state, element);
the outputs are the elements."""
from .. import plan, structure


class ScanNode(plan.Node):
    op = "scan"

    def __init__(self, input, initial_state, scan_func):
        super().__init__(input)
        self.initial_state = structure.normalize(initial_state)
        self.scan_func = scan_func

    def attrs(self):
        return {"scan_func": getattr(self.scan_func, "__name__", "?")}

    def cardinality(self):
        return self.inputs[0].cardinality()

    def element_spec(self):
        return None

    def stage(self, ctx):
        return _ScanStage(ctx.stage(self.inputs[0]), self.initial_state, self.scan_func)


class _ScanStage(plan.Stage):
    def __init__(self, upstream, state, fn):
        self.upstreams = (upstream,)
        self._state, self._fn = state, fn

    def __next__(self):
        el = next(self.upstreams[0])
        args = (self._state,) + (tuple(el) if isinstance(el, tuple) and
                                 not structure.is_namedtuple(el) else (el,))
        out = self._fn(*args)
        if not isinstance(out, (tuple, list)) or len(out) != 2:
            raise TypeError("The scan function must return a pair comprising the new state "
                            "and the output value.")
        self._state = structure.normalize(out[0])
        return structure.normalize(out[1])
