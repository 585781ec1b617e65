"""What AUTOTUNE resolves to: the cores this process may use, and tf.data's cycle
length rule for interleaves (TFRecordDataset's num_parallel_reads included)."""
import os

from . import plan


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
