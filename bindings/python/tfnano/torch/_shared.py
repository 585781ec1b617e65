"""Parsing straight into shared-memory tensors, in DataLoader workers.

A worker's batch reaches the main process through shared memory: torch copies every
tensor that is not there yet into a new segment. Filling segments directly (the C
parser writes into ``torch.empty(...).share_memory_()``) skips that copy, which is
most of a worker's cost for W1 (4 MB per 256 records). Only batches of numeric
FixedLen / FixedLenSequence features take this path; anything else goes through
tfnano.Parser and torch's copy.
"""
import numpy as np
import torch

from .. import _c
from .. import _parsing
from .._c import parse as _cparse

ffi = _c.ffi
lib = _c.lib

_TORCH = {lib.TFN_INT64: torch.int64, lib.TFN_INT32: torch.int32,
          lib.TFN_FLOAT32: torch.float32}


def layout(parser, features):
    """Each feature's (j, key, torch dtype, record shape, stride, seq), or None when
    this parser's batches cannot be filled here."""
    try:
        spec = parser._spec
        if parser.num_threads > 1 or len(spec.configs) != len(features):
            return None
        out = []
        for j, c in enumerate(spec.configs):
            od = spec.out_dtype[j]
            if od not in _TORCH or not isinstance(c, _parsing._Config):
                return None
            out.append((j, c.key, _TORCH[od], tuple(int(d) for d in c.shape),
                        int(spec.strides[j]), bool(c.seq)))
        return spec, out
    except (AttributeError, TypeError, KeyError):
        return None


_ALIGN = 64


def parse_shared(state, recs):
    """{key: tensor} for the records `recs` (a _parsing._Records), every tensor a view
    of one shared-memory block: making a segment costs milliseconds (measured 3.6 ms
    in a DataLoader worker on the development VM), so one per batch, not one per
    tensor."""
    spec, features = state
    p = spec.parser()
    err = _c.new_error()
    n = recs.n
    _cparse.scan_batch(p, recs.views, n, err)
    outs = ffi.new("tfn_output[]", max(1, len(features)))
    # Pass 1: shapes and where each tensor goes in the block.
    plan = []
    total = 0

    def place(key, shape, dtype):
        nonlocal total
        count = int(np.prod(shape, dtype=np.int64))
        nbytes = count * torch.empty((), dtype=dtype).element_size()
        plan.append((key, shape, dtype, total, nbytes))
        total += -(-nbytes // _ALIGN) * _ALIGN
        return count

    slots = []
    for j, key, dtype, shape, stride, seq in features:
        if seq:
            rows = spec.maxlen if spec.maxlen is not None else _cparse.max_rows(p, j)
            full = (n, rows) + shape
            outs[j].max_rows = rows if spec.maxlen is not None else -1
            extra = None
            if spec.masks:
                extra = (len(plan), len(plan) + 1)
                place(key + "_mask", (n, rows), torch.bool)
                place(key + "_length", (n,), torch.int64)
        else:
            full = (n,) + shape
            outs[j].max_rows = -1
            extra = None
        outs[j].capacity = place(key, full, dtype)
        slots.append((j, len(plan) - 1, extra))
    block = torch.empty(max(total, 1), dtype=torch.uint8).share_memory_()
    base = block.data_ptr()
    result = {}
    tensors = []
    for key, shape, dtype, off, nbytes in plan:
        t = block[off:off + nbytes].view(dtype).view(shape)
        tensors.append(t)
        result[key] = t
    # Pass 2: point the C outputs at their places.
    for j, i, extra in slots:
        outs[j].values = ffi.cast("void *", base + plan[i][3])
        if extra is not None:
            outs[j].mask = ffi.cast("uint8_t *", base + plan[extra[0]][3])
            outs[j].lengths = ffi.cast("int64_t *", base + plan[extra[1]][3])
    _cparse.fill(p, outs, err)
    return result
