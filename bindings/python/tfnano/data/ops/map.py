"""map(map_func, num_parallel_calls, deterministic): the function applied to each
element. The function is traced when it can be (see structured_function); a map
followed by batch runs as one fused stage (ops/batch.py), two traced maps in a row
as one function.

num_parallel_calls runs elements on worker threads, a chunk of elements per task.
Because an untraced Python function mostly holds the GIL, the stage measures
itself: it alternates between the workers and running inline, and keeps whichever
gives more elements per second, so a parallel map is never slower than a
sequential one."""
import time

from .. import plan
from ..plan import AUTOTUNE
from ..structured_function import StructuredFunction, compose
from ..workers import Pool

CHUNK = 16          # elements per worker task


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
        return [self.fn.describe()]

    def cardinality(self):
        return self.inputs[0].cardinality()

    def element_spec(self):
        return self.fn.output_spec()

    def workers(self, ctx=None):
        """Worker threads: num_parallel_calls (AUTOTUNE: the usable cores). Without
        it, a traced function (stateless) is parallelized as TensorFlow's default
        map_parallelization does, unless the options turn that off."""
        from ..execute import cpu_count
        p = self.num_parallel_calls
        if p is None and ctx is not None and self.fn.traced and \
                ctx.options.experimental_optimization.map_parallelization is not False:
            p = AUTOTUNE
        if p is None or p == 1:
            return 1
        return cpu_count() if p == AUTOTUNE else max(1, int(p))

    def rewrite(self, options):
        up = self.inputs[0]
        from .batch import BatchNode  # lazy door: fusion (to go to data/optimize.py)
        if type(self) is MapNode and type(up) is BatchNode:
            from .. import native  # lazy door: fusion (to go to data/optimize.py)
            if native.enabled():
                settings, _ = native.route(self, up.inputs[0], "parse_example")
                if settings is not None:
                    return native.BatchParseNode(self, up, settings)
        if isinstance(up, MapNode) and up.fn.traced and self.fn.traced and \
                type(up) is MapNode:  # map fusion
            par = self.num_parallel_calls if self.workers() >= up.workers() else \
                up.num_parallel_calls
            return MapNode(up.inputs[0], None, par, self.deterministic,
                           fn=compose(up.fn, self.fn))
        return self

    def stage(self, ctx):
        up = ctx.stage(self.inputs[0])
        w = self.workers(ctx)
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


class ParallelStage(plan.Stage):
    """Chunks of upstream elements through `work((fn, [(ok, element)...]))` on
    `workers` threads or inline, whichever measures faster; errors (upstream's and
    the function's) are delivered at their element's place."""

    PROBE = 8          # tasks per measurement
    PERIOD = 64        # tasks between re-measurements

    def __init__(self, upstream, work, fn, workers, ordered, chunk=CHUNK):
        self.upstreams = (upstream,)
        self._work, self._fn, self._chunk = work, fn, chunk
        self._pool = Pool(workers)
        self._inflight = workers * 2
        self._ordered = ordered
        self._pending = []     # Results (or finished lists) in submission order
        self._out = []         # (ok, value) ready to hand out, reversed
        self._ended = False
        # adaptive mode: "pool" or "inline"; rates measured in elements per second
        self._mode = "pool"
        self._rates = {}
        self._count = 0
        self._t0 = None
        self._n0 = 0
        self._done = 0

    def _gather(self):
        items = []
        up = self.upstreams[0]
        while len(items) < self._chunk:
            try:
                items.append((True, next(up)))
            except StopIteration:
                self._ended = True
                break
            except BaseException as e:
                items.append((False, e))
        return items

    def _switch(self):
        """Every PERIOD tasks: measure both modes for PROBE tasks, keep the faster."""
        self._count += 1
        phase = self._count % self.PERIOD
        now = time.perf_counter()
        if phase == 1:
            self._t0, self._n0 = now, self._done
            self._mode = "pool"
        elif phase == 1 + self.PROBE:
            self._rates["pool"] = (self._done - self._n0) / max(now - self._t0, 1e-9)
            self._t0, self._n0 = now, self._done
            self._mode = "inline"
        elif phase == 1 + 2 * self.PROBE:
            self._rates["inline"] = (self._done - self._n0) / max(now - self._t0, 1e-9)
            self._mode = "pool" if self._rates["pool"] >= self._rates["inline"] else "inline"

    def _refill(self):
        while not self._ended and len(self._pending) < (
                self._inflight if self._mode == "pool" else 1):
            items = self._gather()
            if not items:
                break
            self._switch()
            if self._mode == "pool":
                self._pending.append(self._pool.submit(self._work, (self._fn, items)))
            else:
                self._pending.append(self._work((self._fn, items)))

    def __next__(self):
        while not self._out:
            self._refill()
            if not self._pending:
                raise StopIteration
            res = self._pending.pop(0) if self._ordered else self._first_done()
            got = res.wait() if not isinstance(res, list) else res
            self._done += len(got)
            got.reverse()
            self._out = got
        ok, value = self._out.pop()
        if not ok:
            raise value
        return value

    def _first_done(self):
        for i, r in enumerate(self._pending):
            if isinstance(r, list) or r.done():
                return self._pending.pop(i)
        return self._pending.pop(0)

    def close(self):
        self._pool.close()
        self._pending = []
        self._out = []
        plan.Stage.close(self)
