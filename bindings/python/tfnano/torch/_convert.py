"""numpy -> torch for tfnano's outputs, and `collate`.

torch's default_convert / default_collate convert only objects whose type lives in
the ``numpy`` module, so ``tfnano.Tensor`` (an ndarray subclass) would pass through
unconverted. tfnano.torch therefore hands torch plain tensors: numeric arrays become
tensors sharing the numpy memory (``torch.from_numpy``, no copy); bytes features stay
numpy object arrays (torch has no string tensor). JAX needs nothing: jnp.asarray
takes any ndarray, tfnano.Tensor included.
"""
import numpy as np


def _torch():
    import torch
    return torch


def to_torch(value):
    """tfnano / numpy outputs -> torch tensors (dicts, lists and tuples walked);
    numeric arrays are shared, not copied; object (bytes) arrays stay numpy."""
    if isinstance(value, np.ndarray):
        if value.dtype == object:
            return value.view(np.ndarray)
        torch = _torch()
        a = value.view(np.ndarray)
        if not a.flags.writeable:  # torch warns on read-only memory: copy instead
            a = a.copy()
        return torch.from_numpy(a)
    if isinstance(value, np.generic):
        return to_torch(np.asarray(value))
    if isinstance(value, dict):
        return {k: to_torch(v) for k, v in value.items()}
    if isinstance(value, tuple) and hasattr(value, "_fields"):
        return type(value)(*(to_torch(v) for v in value))
    if isinstance(value, (list, tuple)):
        return type(value)(to_torch(v) for v in value)
    return value


def _int32_keys(int32, batch):
    if int32 is True:
        return {k for k, v in batch.items() if getattr(v, "dtype", None) in (np.int64,)}
    return set(int32 or ())


def _stack(values):
    """Stacks per-record arrays, zero-padding ragged leading dimensions (sequence
    features) to the longest."""
    arrs = [np.asarray(v) for v in values]
    if all(a.shape == arrs[0].shape for a in arrs):
        return np.stack(arrs)
    rank = arrs[0].ndim
    if rank == 0 or any(a.ndim != rank for a in arrs):
        raise ValueError("collate: records of different ranks: %s"
                         % sorted({a.shape for a in arrs}))
    shape = tuple(max(a.shape[d] for a in arrs) for d in range(rank))
    fill = b"" if arrs[0].dtype == object else 0
    out = np.full((len(arrs),) + shape, fill, dtype=arrs[0].dtype)
    for i, a in enumerate(arrs):
        out[(i,) + tuple(slice(0, d) for d in a.shape)] = a
    return out


def collate(batch, int32=False, output="torch"):
    """Stacks a list of parsed records (dicts of arrays or tensors) into one batch:
    {key: tensor of shape (n, ...)}; sequence features are zero-padded to the longest.
    int32: True casts every int64 feature to int32, or a collection of keys. A batch
    from TFRecordMapDataset.__getitems__ is already stacked (no copy). output="numpy"
    keeps numpy arrays (JAX, or anything else)."""
    stacked = getattr(batch, "stacked", None)
    if stacked is not None:
        out = dict(stacked)
    else:
        if not len(batch):
            return {}
        first = batch[0]
        if not isinstance(first, dict):
            raise TypeError("collate takes parsed records (dicts), got %s"
                            % type(first).__name__)
        out = {}
        for k in first:
            vals = [r[k] for r in batch]
            if hasattr(vals[0], "numpy") and not isinstance(vals[0], np.ndarray):
                vals = [v.numpy() for v in vals]  # torch tensors
            out[k] = _stack(vals)
    keys = _int32_keys(int32, out)
    for k in keys:
        a = out[k]
        if getattr(a, "dtype", None) == np.int64:
            if a.size and (a.min() < -2 ** 31 or a.max() >= 2 ** 31):
                raise ValueError("collate: feature %r has values outside int32" % k)
            out[k] = a.astype(np.int32)
    return to_torch(out) if output == "torch" else out
