"""Grain (JAX's data loader) over TFRecord files, without TensorFlow. Grain itself is
not imported by this package: the source and the transform follow its protocols.

- ``TFRecordDataSource(files, features=None)``: Grain's random-access data source
  (``len``, ``src[i]`` and the batched ``_getitems``) over the files' record indexes.
  Without features a record is its serialized bytes, held in a 0-d numpy object array
  so that ``.batch()`` keeps every byte (numpy's fixed-width bytes would drop trailing
  zero bytes); with features a record is parsed: ``{key: ndarray}``.
- ``ParseBatch(features)``: a batch-level parse, one C call per batch of records::

      ds = (grain.MapDataset.source(TFRecordDataSource(files)).shuffle(seed=0)
            .batch(256).map(ParseBatch(features)))

See docs/grain.md.
"""
_LAZY = {
    "TFRecordDataSource": "._source",
    "ParseBatch": "._parse",
}

__all__ = sorted(_LAZY)


def __getattr__(name):
    mod = _LAZY.get(name)
    if mod is None:
        raise AttributeError("module 'tfnano.grain' has no attribute %r" % name)
    import importlib
    value = getattr(importlib.import_module(mod, __name__), name)
    globals()[name] = value
    return value


def __dir__():
    return sorted(list(globals()) + list(_LAZY))
