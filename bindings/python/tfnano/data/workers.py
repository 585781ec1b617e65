"""Daemon worker threads for the parallel stages. Workers never hold the stage that
owns them (only queues and the work), so dropping a stage's iterator lets it be
collected, and its close() stops the threads. Results travel as (ok, value) pairs:
an error is one element's value, not the end of the stream."""
import queue
import threading
import time

from .plan import Stage


class Result:
    """One task's outcome; wait() returns it (re-raising the task's error)."""
    __slots__ = ("_ev", "ok", "value")

    def __init__(self):
        self._ev = threading.Event()
        self.ok = None
        self.value = None

    def set(self, ok, value):
        self.ok, self.value = ok, value
        self._ev.set()

    def done(self):
        return self._ev.is_set()

    def wait(self):
        self._ev.wait()
        if not self.ok:
            raise self.value
        return self.value


def _worker(tasks):
    while True:
        item = tasks.get()
        if item is None:
            return
        fn, arg, res = item
        try:
            res.set(True, fn(arg))
        except BaseException as e:  # handed to the consumer with this element
            res.set(False, e)
        del item, fn, arg, res


class Pool:
    """`size` daemon threads started on first use; submit(fn, arg) -> Result."""

    def __init__(self, size, name="tfnano-data"):
        self.size = max(1, int(size))
        self._name = name
        self._tasks = None
        self._threads = []

    def submit(self, fn, arg):
        if self._tasks is None:
            self._tasks = queue.SimpleQueue()
            for i in range(self.size):
                t = threading.Thread(target=_worker, args=(self._tasks,), daemon=True,
                                     name="%s-%d" % (self._name, i))
                t.start()
                self._threads.append(t)
        res = Result()
        self._tasks.put((fn, arg, res))
        return res

    def close(self, timeout=5.0):
        tasks, self._tasks = self._tasks, None
        if tasks is None:
            return
        for _ in self._threads:
            tasks.put(None)
        deadline = time.monotonic() + timeout
        for t in self._threads:
            if t is not threading.current_thread():
                t.join(max(0.0, deadline - time.monotonic()))
        self._threads = []


_END = object()


def _produce(upstream, q, stop):
    """The prefetch thread: elements (and errors, one element each) into q."""
    try:
        while not stop.is_set():
            try:
                item = (True, next(upstream))
            except StopIteration:
                item = (True, _END)
            except BaseException as e:
                item = (False, e)
            while not stop.is_set():
                try:
                    q.put(item, timeout=0.05)
                    break
                except queue.Full:
                    continue
            if item[1] is _END:
                return
            del item
    finally:
        close = getattr(upstream, "close", None)
        if close is not None:
            try:
                close()
            except Exception:
                pass


class Producer:
    """Runs `upstream` on a daemon thread, up to `size` elements ahead."""

    def __init__(self, upstream, size, name="tfnano-prefetch"):
        self._upstream = upstream
        self._size = size
        self._name = name
        self._q = None
        self._stop = threading.Event()
        self._t = None
        self._ended = False

    def next(self):
        if self._ended:
            raise StopIteration
        if self._t is None:
            self._q = queue.Queue(maxsize=self._size)
            self._t = threading.Thread(target=_produce, daemon=True, name=self._name,
                                       args=(self._upstream, self._q, self._stop))
            self._upstream = None  # owned by the thread from now on
            self._t.start()
        ok, value = self._q.get()
        if ok and value is _END:
            self._ended = True
            self._t.join()
            raise StopIteration
        if not ok:
            raise value
        return value

    def close(self, timeout=5.0):
        self._stop.set()
        t = self._t
        if t is None:
            up, self._upstream = self._upstream, None
            if up is not None and hasattr(up, "close"):
                up.close()
            return
        # unblock a producer waiting on a full queue, then wait for it to close upstream
        try:
            while True:
                self._q.get_nowait()
        except queue.Empty:
            pass
        if t is not threading.current_thread():
            t.join(timeout)


class ParallelStage(Stage):
    """Chunks of upstream elements through `work((fn, [(ok, element)...]))` on
    `workers` threads or inline, whichever measures faster; errors (upstream's and
    the function's) are delivered at their element's place."""

    PROBE = 8          # tasks per measurement
    PERIOD = 64        # tasks between re-measurements

    def __init__(self, upstream, work, fn, workers, ordered, chunk=16):
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
        Stage.close(self)
