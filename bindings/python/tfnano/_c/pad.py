"""The padder (lib/pad): ragged rows padded into a matrix (tfn_pad), the C walker's
dtype codes, and the length-bucketing planner (tfn_bucket_plan_*)."""
import numpy as np

from . import check, ffi, lib, new_error

# numpy dtype -> the tfn_dtype the padder reads and writes
DTYPES = {np.dtype(np.int32): lib.TFN_INT32, np.dtype(np.int64): lib.TFN_INT64,
          np.dtype(np.float32): lib.TFN_FLOAT32}


def address(a):
    """The address of a numpy array's memory as an int (0 when empty), as pyapi.c's
    walker takes it."""
    return int(ffi.cast("uintptr_t", ffi.from_buffer(a))) if a.size else 0


def pad(values, lengths, out, maxlen, padding, truncating, fill, multiple, mask=None,
        strict=False):
    """Pads the rows of `values` (flat, contiguous, a DTYPES dtype) of `lengths` into
    `out` (C-contiguous 2-D) in one tfn_pad call. padding / truncating: 0 pre, 1 post.
    Returns False when C refuses a value as out of range and not `strict` (the
    caller's numpy rules decide then); True when done; raises for anything else."""
    n = len(lengths)
    offsets = np.zeros(n + 1, dtype=np.int64)
    np.cumsum(lengths, out=offsets[1:])
    ragged = ffi.new("tfn_ragged *", {
        "values": ffi.from_buffer(values) if values.size else ffi.NULL,
        "dtype": DTYPES[values.dtype], "count": values.size,
        "offsets": ffi.cast("int64_t *", ffi.from_buffer(offsets)), "nrows": n})
    opt = ffi.new("tfn_pad_options *", {
        "maxlen": maxlen, "padding": padding, "truncating": truncating,
        "value": fill, "pad_to_multiple_of": multiple})
    err = new_error()
    rc = lib.tfn_pad(ragged, opt, ffi.from_buffer(out) if out.size else ffi.NULL,
                     DTYPES[out.dtype], out.shape[1],
                     ffi.cast("uint8_t *", ffi.from_buffer(mask)) if mask is not None
                     and mask.size else ffi.NULL, ffi.NULL, err)
    if rc == lib.TFN_E_OUT_OF_RANGE and not strict:
        return False
    check(rc, err)
    return True


def bucket_plan(lengths, bounds, batch_size, maxlen, multiple, drop_remainder, seed):
    """tfn_bucket_plan_new over int64 `lengths` and `bounds` (contiguous, checked by the
    caller). maxlen None: no cap; seed None: no shuffling. Returns (bucket_ids, batches),
    batches a list of (rows: int64 ndarray, width: int)."""
    opt = ffi.new("tfn_bucket_options *", {
        "boundaries": ffi.cast("int64_t *", ffi.from_buffer(bounds)) if bounds.size
        else ffi.NULL,
        "nboundaries": bounds.size, "batch_size": batch_size,
        "maxlen": lib.TFN_PAD_MAXLEN_UNSET if maxlen is None else maxlen,
        "pad_to_multiple_of": multiple,
        "drop_remainder": bool(drop_remainder), "shuffle": seed is not None,
        "seed": int(seed or 0) % (1 << 64)})
    out = ffi.new("tfn_bucket_plan **")
    err = new_error()
    n = lengths.size
    check(lib.tfn_bucket_plan_new(
        ffi.cast("int64_t *", ffi.from_buffer(lengths)) if n else ffi.NULL, n, opt,
        ffi.NULL, out, err), err)
    plan = out[0]
    try:
        ids = np.frombuffer(ffi.buffer(lib.tfn_bucket_plan_bucket_ids(plan), n * 8),
                            dtype=np.int64).copy() if n else np.empty(0, np.int64)
        count = ffi.new("size_t *")
        rows_p = lib.tfn_bucket_plan_rows(plan, count)
        rows = np.frombuffer(ffi.buffer(rows_p, count[0] * 8), dtype=np.int64).copy() \
            if count[0] else np.empty(0, np.int64)
        nb = lib.tfn_bucket_plan_batch_count(plan)
        size_t = "u%d" % ffi.sizeof("size_t")
        table = np.frombuffer(
            ffi.buffer(lib.tfn_bucket_plan_batches(plan), nb * ffi.sizeof("tfn_batch")),
            dtype=np.dtype([("start", size_t), ("count", size_t), ("width", size_t),
                            ("bucket", size_t)])) if nb else None
        batches = [] if table is None else [
            (rows[s:s + c], w) for s, c, w in zip(table["start"].tolist(),
                                                  table["count"].tolist(),
                                                  table["width"].tolist())]
    finally:
        lib.tfn_bucket_plan_free(plan)
    return ids, batches
