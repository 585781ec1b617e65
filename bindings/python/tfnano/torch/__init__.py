"""PyTorch datasets over TFRecord files (torch is imported on first use; tfnano does
not depend on it).

- ``TFRecordIterableDataset(files, features, batch_size=..., shuffle=..., seed=...)``:
  parsed batches, every record once per epoch across DataLoader workers and
  distributed ranks, ``set_epoch``, resumable (``get_state`` / ``set_state``).
- ``TFRecordMapDataset(files, features)``: ``len``, ``ds[i]`` and a batched
  ``__getitems__`` over the files' indexes, for DistributedSampler / RandomSampler.
- ``collate``: stacks parsed records into tensors (int64 -> int32 where asked).
- ``to_torch``: numpy / tfnano outputs -> torch tensors without copying.

See docs/pytorch.md.
"""
_LAZY = {
    "TFRecordIterableDataset": "._iterable",
    "TFRecordMapDataset": "._map",
    "ParsedBatch": "._map",
    "collate": "._convert",
    "to_torch": "._convert",
    "OrderPlan": "._plan",
}

__all__ = sorted(_LAZY)


def __getattr__(name):
    mod = _LAZY.get(name)
    if mod is None:
        raise AttributeError("module 'tfnano.torch' has no attribute %r" % name)
    import importlib
    value = getattr(importlib.import_module(mod, __name__), name)
    globals()[name] = value
    return value


def __dir__():
    return sorted(list(globals()) + list(_LAZY))
