"""map(map_func, num_parallel_calls, deterministic): the function applied to each
element. The function is traced when it can be (see structured_function); a
vectorized one runs on chunks of elements (data/columns.py). Fusions with what
follows (map-and-batch, two maps in a row) are rules of data/optimize.py.

num_parallel_calls runs elements on worker threads, a chunk of elements per task.
Because an untraced Python function mostly holds the GIL, the stage measures
itself: it alternates between the workers and running inline, and keeps whichever
gives more elements per second, so a parallel map is never slower than a
sequential one."""
from .. import plan
from ..plan import AUTOTUNE
from ..structured_function import StructuredFunction
from ..workers import ParallelStage

CHUNK = 16          # elements per worker task
CHUNK_ROWS = 256    # elements per run of a vectorized graph


class MapNode(plan.Node):
    op = "map"

    def __init__(self, input, map_func, num_parallel_calls=None, deterministic=None,
                 fn=None):
        super().__init__(input)
        self.fn = fn if fn is not None else StructuredFunction(
            map_func, input.element_spec(), "map")
        self.num_parallel_calls = num_parallel_calls
        self.deterministic = deterministic

    def attrs(self):
        a = {}
        if self.num_parallel_calls not in (None, 1):
            a["num_parallel_calls"] = self.num_parallel_calls
        if self.deterministic is not None:
            a["deterministic"] = self.deterministic
        return a

    def notes(self):
        if self.columnar():
            how = "vectorized: the graph runs once per chunk of %d elements" % CHUNK_ROWS
        elif self.fn.traced:
            how = "per element: %s" % self.per_element_reason()
        else:
            how = "per element"
        return [self.fn.describe(), how]

    def per_element_reason(self):
        from ..columns import fixed_dense
        if not self.fn.vectorized:
            return "the graph has no batched form"
        if not fixed_dense(self.fn.output_spec()):
            return "its output shapes vary per element"
        return "its input's shapes vary per element"

    def columnar(self):
        """A vectorized function whose input and output have fixed shapes runs on
        chunks of elements, whatever follows it."""
        from ..columns import fixed_dense
        if type(self) is not MapNode or not self.fn.vectorized or \
                not fixed_dense(self.fn.output_spec()):
            return False
        up = self.inputs[0]
        return up.columnar() or fixed_dense(up.element_spec())

    def cardinality(self):
        return self.inputs[0].cardinality()

    def element_spec(self):
        return self.fn.output_spec()

    def workers(self, ctx=None):
        """Worker threads: num_parallel_calls (AUTOTUNE: the usable cores). Without
        it, a traced function (stateless) is parallelized as TensorFlow's default
        map_parallelization does, unless the options turn that off."""
        from ..autotune import cpu_count
        p = self.num_parallel_calls
        if p is None and ctx is not None and self.fn.traced and \
                ctx.options.experimental_optimization.map_parallelization is not False:
            p = AUTOTUNE
        if p is None or p == 1:
            return 1
        return cpu_count() if p == AUTOTUNE else max(1, int(p))

    def stage(self, ctx):
        up = ctx.stage(self.inputs[0])
        w = self.workers(ctx)
        if self.columnar():
            from ..columns import MapColumnsStage
            return MapColumnsStage(up, self.fn, w, CHUNK_ROWS)
        if w == 1:
            return _MapStage(up, self.fn)
        ordered = self.deterministic if self.deterministic is not None else \
            ctx.deterministic
        # elements that are whole batches go one per task
        spec = self.inputs[0].element_spec()
        batched = spec is not None and any(
            s.shape is None or len(s.shape) > 0 for s in _flat(spec))
        return ParallelStage(up, _run_chunk, self.fn, w, ordered is not False,
                             chunk=1 if batched else CHUNK)


def _flat(spec):
    from ..structure import flatten
    return flatten(spec)


class _MapStage(plan.Stage):
    def __init__(self, upstream, fn):
        self.upstreams = (upstream,)
        self._fn = fn

    def __next__(self):
        return self._fn(next(self.upstreams[0]))


def _run_chunk(task):
    fn, items = task
    out = []
    for ok, el in items:
        if ok:
            try:
                el = fn(el)
            except BaseException as e:
                ok, el = False, e
        out.append((ok, el))
    return out


