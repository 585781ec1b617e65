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


class DatasetIterator:
    """The iterator of one pass over a Dataset."""

    def __init__(self, node, options):
        from .optimize import optimize
        self._stage = Context(options).stage(optimize(node, options))
        with _LIVE_LOCK:
            _LIVE.add(self)

    def __iter__(self):
        return self

    def __next__(self):
        stage = self._stage
        if stage is None:
            raise StopIteration
        return next(stage)

    def get_next(self):
        return next(self)

    def close(self):
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
