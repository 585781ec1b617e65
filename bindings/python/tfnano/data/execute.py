"""Runs a plan: rewrites it (data/optimize.py), builds one Stage per node and hands
the user a :class:`DatasetIterator` that owns them. Dropping the iterator (end of a
loop, ``break``, an exception, garbage collection, Ctrl-C, interpreter exit) closes
every stage: worker threads stop and files close."""
import atexit
import threading
import weakref

from . import plan
from .autotune import cpu_count, cycle_length  # noqa: F401 - where they were

_LIVE = weakref.WeakSet()  # iterators that may own threads, closed at exit
_LIVE_LOCK = threading.Lock()


class Context:
    """What stages need at build time: the pipeline's options."""

    def __init__(self, options):
        self.options = options

    @property
    def deterministic(self):
        return self.options.deterministic is not False

    def stage(self, node):
        return node.stage(self)


# How long a blocked consumer sleeps between looks at pending signals: a signal
# delivered to another thread only sets a flag, which the main thread acts on when it
# next runs Python code, so no wait of the main thread may be unbounded.
WAIT_SLICE = 0.1


def acquire(lock):
    """lock.acquire() in slices, so that Ctrl-C reaches a thread waiting for it."""
    while not lock.acquire(timeout=WAIT_SLICE):
        pass


class DatasetIterator:
    """The iterator of one pass over a Dataset. Any number of threads may share it,
    as tf.data's: each element goes to exactly one of them, and once the input is
    exhausted every caller gets StopIteration."""

    def __init__(self, node, options):
        from .optimize import optimize
        self._lock = threading.Lock()
        self._stage = Context(options).stage(optimize(node, options))
        with _LIVE_LOCK:
            _LIVE.add(self)

    def __iter__(self):
        return self

    def __next__(self):
        # one caller at a time: the stages keep per-iterator state (queues, pending
        # results, end markers) that only one consumer may advance
        lock = self._lock
        acquire(lock)
        try:
            stage = self._stage
            if stage is None:
                raise StopIteration
            try:
                return next(stage)
            except StopIteration:
                # the end is final for every thread; free threads and files now
                self._stage = None
                stage.close()
                raise
        finally:
            lock.release()

    def get_next(self):
        return next(self)

    def close(self):
        # not under the lock: close() may come from another thread (or a signal
        # handler) while a caller is blocked in next(); the stages' close() wakes it
        stage, self._stage = self._stage, None
        if stage is not None:
            stage.close()

    def __del__(self):
        try:
            self.close()
        except Exception:
            pass


@atexit.register
def _close_all():
    with _LIVE_LOCK:
        live = list(_LIVE)
    for it in live:
        try:
            it.close()
        except Exception:
            pass
