"""``tf.data``: Dataset and TFRecordDataset with the chainable methods notebooks use
(map, batch, padded_batch, shuffle, repeat, take, skip, cache, prefetch, filter,
unbatch, interleave, shard, with_options ...). Elements are nested structures (tuples
and dicts) of numpy-backed Tensors, as tf.data carries them.

A Dataset is a plan (data/plan.py); user functions are traced when they can be
(data/structured_function.py), ``map(f).batch(n)`` runs f once per batch when its
ops have batched forms, and reading, parsing and batching run in C calls that
release the GIL, on worker threads. ``Dataset.explain()`` shows what runs how.
"""
from . import experimental  # noqa: F401
from .dataset import Dataset
from .autotune import cpu_count as _cpu_count  # noqa: F401
from .options import OptimizationOptions, Options, ThreadingOptions  # noqa: F401
from .plan import AUTOTUNE, INFINITE, UNKNOWN
from .readers import TFRecordDataset
from .line_readers import FixedLengthRecordDataset, TextLineDataset

__all__ = ["AUTOTUNE", "Dataset", "Options", "TFRecordDataset", "TextLineDataset",
           "FixedLengthRecordDataset", "experimental",
           "INFINITE", "UNKNOWN"]
