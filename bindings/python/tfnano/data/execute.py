"""Runs a plan: rewrites it (data/optimize.py), builds one Stage per node and hands
the user a :class:`DatasetIterator` that owns them. Dropping the iterator (end of a
loop, ``break``, an exception, garbage collection, Ctrl-C, interpreter exit) closes
every stage: worker threads stop and files close."""
import atexit
import os
import threading
import weakref

from . import plan

_LIVE = weakref.WeakSet()  # iterators that may own threads, closed at exit
_LIVE_LOCK = threading.Lock()


def cpu_count():
    """The cores this process may use (what AUTOTUNE means)."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except (AttributeError, OSError):
        return max(1, os.cpu_count() or 1)


def cycle_length(cycle, num_parallel_calls=None, cores=None):
    """The cycle length tf.data uses for an interleave (TFRecordDataset's
    num_parallel_reads is cycle_length = num_parallel_calls = num_parallel_reads).
    AUTOTUNE (or None) resolves by TensorFlow's rule: a sequential interleave uses
    every usable core; a parallel one with a number of calls uses min(calls, cores);
    with both AUTOTUNE, ceil(cores / 3) (TF starts a thread for the element and two
    for prefetching future ones, per cycle slot). `cores`: cpu_count() by default."""
    if cycle is not None and cycle != plan.AUTOTUNE:
        return int(cycle)
    cores = cpu_count() if cores is None else int(cores)
    if num_parallel_calls is None:
        return cores
    if num_parallel_calls != plan.AUTOTUNE:
        return min(int(num_parallel_calls), cores)
    return -(-cores // 3)


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
