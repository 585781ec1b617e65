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

from .. import _ffi
from .. import _parsing

ffi = _ffi.ffi
lib = _ffi.lib

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


def parse_shared(state, recs):
    """{key: tensor in shared memory} for the records `recs` (a _parsing._Records)."""
    spec, features = state
    p = spec.parser()
    err = _ffi.new_error()
    n = recs.n
    rc = lib.tfn_parser_scan(p, recs.views, n, ffi.NULL, lib.TFN_PARSE_BATCH, err)
    if rc < 0:
        raise _parsing._parse_err(rc, err)
    outs = ffi.new("tfn_output[]", max(1, len(features)))
    result = {}
    for j, key, dtype, shape, stride, seq in features:
        if seq:
            rows = spec.maxlen if spec.maxlen is not None else lib.tfn_parser_max_rows(p, j)
            full = (n, rows) + shape
            outs[j].max_rows = rows if spec.maxlen is not None else -1
            if spec.masks:
                mask = torch.empty((n, rows), dtype=torch.bool).share_memory_()
                lengths = torch.empty((n,), dtype=torch.int64).share_memory_()
                outs[j].mask = ffi.cast("uint8_t *", mask.data_ptr())
                outs[j].lengths = ffi.cast("int64_t *", lengths.data_ptr())
                result[key + "_mask"] = mask
                result[key + "_length"] = lengths
        else:
            full = (n,) + shape
            outs[j].max_rows = -1
        t = torch.empty(full, dtype=dtype).share_memory_()
        outs[j].values = ffi.cast("void *", t.data_ptr())
        outs[j].capacity = int(np.prod(full, dtype=np.int64))
        result[key] = t
    rc = lib.tfn_parser_fill(p, outs, err)
    if rc < 0:
        raise _parsing._parse_err(rc, err)
    return result
