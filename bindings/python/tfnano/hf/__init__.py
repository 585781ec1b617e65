"""Hugging Face ``datasets`` and TFRecord files, without TensorFlow (datasets and
pyarrow are imported on first use; tfnano does not depend on them).

- ``load_tfrecord(files, features=None)`` -> ``datasets.Dataset``: the records parsed by
  tfnano.arrow into an Arrow file in the cache, memory-mapped by the Dataset, with the
  Example features as HF feature types (``Value``, ``List``).
- ``to_tfrecord(dataset, pattern, num_shards=1)``: a Dataset's rows as tf.train.Example
  records in TFRecord shards (bytes identical to building each tf.train.Example and
  calling SerializeToString()).
- ``hf_features(features)``: the ``datasets.Features`` those columns get.

See docs/hf.md.
"""
_LAZY = {
    "load_tfrecord": "._load",
    "hf_features": "._load",
    "to_tfrecord": "._write",
}

__all__ = sorted(_LAZY)


def __getattr__(name):
    mod = _LAZY.get(name)
    if mod is None:
        raise AttributeError("module 'tfnano.hf' has no attribute %r" % name)
    import importlib
    value = getattr(importlib.import_module(mod, __name__), name)
    globals()[name] = value
    return value


def __dir__():
    return sorted(list(globals()) + list(_LAZY))
