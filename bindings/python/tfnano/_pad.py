"""keras ``pad_sequences`` (exact keras 3 semantics and errors), the fast ``pad``
returning (padded, mask, lengths), and ``bucket_plan``, over the C library's
tfn_pad / tfn_bucket_plan_* (lib/pad/pad.c, lib/pad/bucket.c; see docs/padding.md).

A list (or tuple) of rows is walked in C (bindings/python/pyapi_pad.c): numpy int32 /
int64 arrays are read where they lie (their fields, checked once against numpy's own
reports by use_array_fields; else the buffer protocol, Python >= 3.11), lists of
Python ints converted on the way, and every row padded by tfn_pad_rows into the
output. Other ragged integer input is flattened once (values + offsets) and padded by
one tfn_pad call; both write every cell of the output, padding included. Inputs the C
padder does not take (other dtypes, nested sequences, strings, values numpy would
wrap) go through keras' own per-row algorithm, so the results and errors stay keras'."""
import itertools

import numpy as np

from ._c import PY_API as _PY_API
from ._c import pad as _cpad
from ._c.outbuf import Carver

# Lists of rows walked in C (bindings/python/pyapi_pad.c); arrays need bit 2 (Python 3.11+).
WALK = bool(_PY_API & 1)
_ARRAY_KINDS = (np.ndarray, np.dtype(np.int32), np.dtype(np.int64))  # what pyapi_pad.c reads
if WALK:
    from ._native import learn_layout as _learn_layout
    from ._native import pad_into as _pad_into, pad_lengths as _pad_lengths


def use_array_fields(enable=True):
    """Lets the walker read numpy rows' data pointer, length and stride from the array
    objects themselves (no buffer export per row: ~0.1 us less per W3 row) once it has
    checked, on probe arrays, that it reads there what numpy reports. Returns whether
    it does; False leaves the buffer protocol (3.11+) or numpy's path."""
    if not WALK:
        return False
    probes = []
    if enable:
        whole = np.arange(12, dtype=np.int64)
        for a in (np.arange(5, dtype=np.int32), whole, whole[1::3], whole[::-1],
                  np.empty(0, dtype=np.int32), whole.reshape(3, 4)[1], whole.reshape(3, 4),
                  np.zeros((), dtype=np.int32)):
            probes.append((a, a.__array_interface__["data"][0], a.ndim,
                           a.shape[0] if a.ndim else 0, a.strides[0] if a.ndim else 0))
    return _learn_layout(_ARRAY_KINDS, probes)


ARRAY_FIELDS = use_array_fields()


_SIDES = {"pre": 0, "post": 1, "left": 0, "right": 1}


def _flatten_fast(sequences, out_dtype="int64"):
    """(flat values, lengths) when every sequence is a 1-D run of integers, else None."""
    n = len(sequences)
    if n == 0:
        return None
    if set(map(type, sequences)) == {np.ndarray}:
        # One concatenation does numpy's own checks: arrays of another rank fail or
        # give a non-1-D result, non-integer ones a non-integer dtype.
        try:
            lengths = np.fromiter(map(len, sequences), dtype=np.int64, count=n)
            flat = np.concatenate(sequences)
        except (TypeError, ValueError):
            return None
        if flat.ndim != 1 or flat.dtype.kind not in "iu":
            return None
        return flat, lengths
    if set(map(type, sequences)) <= {list, tuple}:
        # Python ints (and bools, and floats for integer outputs) convert exactly as
        # keras' per-row np.asarray(row, dtype) does; anything else (nested lists,
        # strings, None, huge values) raises here and takes keras' own path.
        lengths = np.fromiter(map(len, sequences), dtype=np.int64, count=n)
        total = int(lengths.sum())
        kind = np.dtype(out_dtype).kind
        if kind not in "iuf":
            return None
        try:
            flat = np.fromiter(itertools.chain.from_iterable(sequences),
                               dtype=np.int64 if kind in "iu" else np.float64, count=total)
        except (TypeError, ValueError, OverflowError):
            return None
        return flat, lengths
    return None


def _c_values(flat, out_dtype):
    """`flat` as a contiguous int32 / int64 / float32 array the C padder converts
    exactly as numpy would into out_dtype, or None."""
    dt = flat.dtype
    if dt not in _cpad.DTYPES:
        if dt.kind in "iu" and np.can_cast(dt, np.int64):
            flat = flat.astype(np.int64)
        elif dt.kind == "f" and out_dtype == np.float32:
            flat = flat.astype(np.float32)  # numpy's own double -> float rounding
        else:
            return None
    elif dt.kind == "f" and out_dtype != np.float32:
        return None
    return np.ascontiguousarray(flat)


def _c_fill(value, out_dtype):
    """The fill value as the double tfn_pad takes when numpy's np.full would store
    the same (integer outputs truncate it toward zero in both), else None."""
    if isinstance(value, (str, bytes)) or value is None:
        return None
    try:
        v = float(value)
        if isinstance(value, (int, np.integer)):
            exact = int(v) == int(value)
        else:
            exact = v != v or v == value
    except (TypeError, ValueError, OverflowError):
        return None
    return v if exact else None


def _pad_c(flat, lengths, maxlen, multiple, out, padding, truncating, value, mask=None,
           strict=False):
    """Pads in one tfn_pad call into `out` (every cell written). Returns True, or False
    when C does not take these types or (unless `strict`) refuses a value as out of
    range, so that keras' numpy rules decide; raises for anything else."""
    if out.dtype not in _cpad.DTYPES or out.ndim != 2 or not out.flags.c_contiguous:
        return False
    fill = _c_fill(value, out.dtype)
    values = _c_values(flat, out.dtype)
    if fill is None or values is None:
        return False
    return _cpad.pad(values, lengths, out, maxlen, _SIDES[padding], _SIDES[truncating],
                     fill, multiple, mask, strict)


def _pad_walk(sequences, maxlen, multiple, dtype, padding, truncating, value, mask=False,
              lengths=False):
    """(out, mask, lengths) padded by the C walker (pyapi_pad.c pad_into: one tfn_pad_rows
    call per 256 rows, each row read where it lies), or None when it does not take
    these rows, types or values (the caller's other paths decide then). maxlen None:
    the longest row. lengths: int64 len() of every row."""
    if not WALK or type(sequences) not in (list, tuple) or not sequences:
        return None
    out_dtype = np.dtype(dtype)
    if out_dtype not in _cpad.DTYPES:
        return None
    fill = _c_fill(value, out_dtype)
    if fill is None:
        return None
    n = len(sequences)
    lens = np.empty(n, dtype=np.int64) if lengths or maxlen is None else None
    if maxlen is None:
        maxlen = _pad_lengths(sequences, _ARRAY_KINDS, _cpad.address(lens))
        if maxlen is None:
            return None
    width = -(-maxlen // multiple) * multiple if multiple else maxlen
    # outputs of 256 KiB or more come from tfnano's recycled pool (as parse outputs):
    # once an earlier output is garbage its memory is reused, without a page fault per
    # 4 KiB of fresh memory (about half of the time at W3's sizes)
    carver = Carver()
    carver.add((n, width), out_dtype)
    if mask:
        carver.add((n, width), np.bool_)
    arrays = carver.arrays()
    out, m = arrays[0], arrays[1] if mask else None
    if not _pad_into(sequences, _ARRAY_KINDS, _cpad.address(out), _cpad.DTYPES[out_dtype],
                     width, maxlen, multiple, _SIDES[padding], _SIDES[truncating], fill,
                     _cpad.address(m) if mask else 0, _cpad.address(lens) if lengths else 0):
        return None
    return out, m, lens


def _place(flat, lengths, maxlen, out, padding, truncating, mask=None):
    """Writes each sequence's kept part into its row of a pre-filled `out` (numpy, for
    the dtypes the C padder does not take)."""
    n = len(lengths)
    kept = np.minimum(lengths, maxlen)
    dst = (out.shape[1] - kept) if padding == "pre" else np.zeros(n, dtype=np.int64)
    starts = np.zeros(n, dtype=np.int64)
    if n > 1:
        np.cumsum(lengths[:-1], out=starts[1:])
    src = starts + (lengths - kept if truncating == "pre" else 0)
    for r, d, k, sr in zip(range(n), dst.tolist(), kept.tolist(), src.tolist()):
        if k:
            out[r, d:d + k] = flat[sr:sr + k]
            if mask is not None:
                mask[r, d:d + k] = True


def _full(x, value):
    """np.full's fill (unsafe casting) into an existing array."""
    np.copyto(x, value, casting="unsafe")
    return x


def pad_sequences(sequences, maxlen=None, dtype="int32", padding="pre",
                  truncating="pre", value=0.0):
    """``keras.utils.pad_sequences``: pads/truncates to a common length (default: the
    longest); padding and truncating "pre" (default) or "post"."""
    if not hasattr(sequences, "__len__"):
        raise ValueError("`sequences` must be iterable.")
    num_samples = len(sequences)
    fast = None
    if (num_samples and not isinstance(value, str) and dtype is not object
            and np.dtype(dtype).kind in "iuf"):
        if (padding in ("pre", "post") and truncating in ("pre", "post")
                and (maxlen is None or (isinstance(maxlen, (int, np.integer))
                                        and not isinstance(maxlen, bool) and maxlen > 0))):
            walked = _pad_walk(sequences, None if maxlen is None else int(maxlen), 0, dtype,
                               padding, truncating, value)
            # keras takes maxlen None over empty rows only to fail or give width 0
            if walked is not None and walked[0].shape[1]:
                return walked[0]
        fast = _flatten_fast(sequences, dtype)
    if fast is not None:
        flat, lengths = fast
        sample_shape = ()
    else:
        lengths = []
        sample_shape = ()
        flag = True
        for x in sequences:
            try:
                lengths.append(len(x))
                if flag and len(x):
                    sample_shape = np.asarray(x).shape[1:]
                    flag = False
            except TypeError as e:
                raise ValueError("`sequences` must be a list of iterables. "
                                 "Found non-iterable: %s" % str(x)) from e
    if maxlen is None:
        maxlen = np.max(lengths)
    is_dtype_str = np.issubdtype(dtype, np.str_) or np.issubdtype(dtype, np.bytes_)
    if isinstance(value, str) and dtype is not object and not is_dtype_str:
        raise ValueError("`dtype` %s is not compatible with `value`'s type: %s\n"
                         "You should set `dtype=object` for variable length strings."
                         % (dtype, type(value)))
    shape = (num_samples, maxlen) + tuple(sample_shape)
    if fast is not None and int(maxlen) > 0 and padding in ("pre", "post") \
            and truncating in ("pre", "post"):
        x = np.empty(shape, dtype=dtype)
        if _pad_c(flat, lengths, int(maxlen), 0, x, padding, truncating, value):
            return x
        _full(x, value)
    else:
        x = np.full(shape, value, dtype=dtype)
    for idx, s in enumerate(sequences):
        if not len(s):
            continue
        if truncating == "pre":
            trunc = s[-maxlen:]
        elif truncating == "post":
            trunc = s[:maxlen]
        else:
            raise ValueError('Truncating type "%s" not understood' % truncating)
        trunc = np.asarray(trunc, dtype=dtype)
        if trunc.shape[1:] != tuple(sample_shape):
            raise ValueError("Shape of sample %s of sequence at position %s is different "
                             "from expected shape %s"
                             % (trunc.shape[1:], idx, tuple(sample_shape)))
        if padding == "post":
            x[idx, :len(trunc)] = trunc
        elif padding == "pre":
            x[idx, -len(trunc):] = trunc
        else:
            raise ValueError('Padding type "%s" not understood' % padding)
    return x


def pad(sequences, maxlen=None, dtype="int32", padding="post", truncating="post",
        value=0, pad_to_multiple_of=None):
    """The fast path: pads integer sequences (lists or 1-D arrays) in one C call.

    Returns ``(padded, mask, lengths)``: padded is (n, width) of `dtype`, mask is a
    bool (n, width) array, True where a real token is, lengths the int64 original
    lengths (before truncation). maxlen=None pads to the longest. Defaults are
    "post"/"post" (right padding, keep the start), as transformer models expect;
    pass "pre" for keras' defaults. The HuggingFace/torch spellings "left" (= "pre") and
    "right" (= "post") are accepted too. pad_to_multiple_of rounds the width up to a
    multiple; maxlen still limits the tokens kept per row (HuggingFace's rule).
    Values that do not fit `dtype` (e.g. int64 ids above 2**31 for int32) raise
    InvalidArgumentError (a ValueError) naming the row and the value.
    """
    if padding not in _SIDES:
        raise ValueError('Padding type "%s" not understood' % padding)
    if truncating not in _SIDES:
        raise ValueError('Truncating type "%s" not understood' % truncating)
    padding = "pre" if _SIDES[padding] == 0 else "post"
    truncating = "pre" if _SIDES[truncating] == 0 else "post"
    if not hasattr(sequences, "__len__"):
        raise ValueError("`sequences` must be iterable.")
    multiple = 0
    if pad_to_multiple_of:
        multiple = int(pad_to_multiple_of)
        if multiple <= 0:
            raise ValueError("pad_to_multiple_of must be > 0")
    if maxlen is not None and int(maxlen) < 0:
        raise ValueError("negative dimensions are not allowed")
    walked = _pad_walk(sequences, None if maxlen is None else int(maxlen), multiple, dtype,
                       padding, truncating, value, mask=True, lengths=True)
    if walked is not None:
        return walked
    fast = _flatten_fast(sequences, dtype) if len(sequences) else (np.empty(0, np.int64),
                                                            np.empty(0, np.int64))
    if fast is None:
        seqs = [np.asarray(s).reshape(-1) for s in sequences]
        lengths = np.fromiter(map(len, seqs), dtype=np.int64, count=len(seqs))
        flat = np.concatenate(seqs) if seqs else np.empty(0)
    else:
        flat, lengths = fast
    if maxlen is None:
        maxlen = int(lengths.max()) if len(lengths) else 0
    maxlen = int(maxlen)
    width = -(-maxlen // multiple) * multiple if multiple else maxlen
    out = np.empty((len(lengths), width), dtype=dtype)
    mask = np.empty((len(lengths), width), dtype=np.bool_)
    if _pad_c(flat, lengths, maxlen, multiple, out, padding, truncating, value, mask,
              strict=True):
        return out, mask, lengths
    _full(out, value)
    mask[...] = False
    _place(flat.astype(out.dtype, copy=False), lengths, maxlen, out, padding, truncating, mask)
    return out, mask, lengths


def bucket_plan(lengths, boundaries, batch_size, pad_to_multiple_of=None, maxlen=None,
                seed=None, drop_remainder=False):
    """Length bucketing (dynamic batching): groups rows of similar length so each
    batch is padded only to its own longest row (the C planner, tfn_bucket_plan_new).

    lengths: the row lengths; boundaries: increasing bucket edges (a row of length L
    goes to bucket i = number of edges <= L, as tf.data's bucket_by_sequence_length);
    rows are shuffled within their bucket, and the batches' order shuffled, by a
    PRNG seeded with `seed` (an int >= 0; the same seed gives the same plan on every
    machine) when `seed` is given, else kept in order; then cut into batches of
    `batch_size` (the last partial batch of a bucket kept unless drop_remainder).
    Each batch's length is its longest row, capped at maxlen, rounded up to a
    multiple of pad_to_multiple_of.

    Returns (bucket_ids, batches): bucket_ids an int64 array per row, batches a list of
    (rows: int64 ndarray, length: int). Pad one with
    ``pad([seqs[i] for i in rows], maxlen=length)``."""
    lengths = np.ascontiguousarray(np.asarray(lengths, dtype=np.int64).reshape(-1))
    bounds = np.ascontiguousarray(np.asarray(boundaries, dtype=np.int64).reshape(-1))
    if bounds.size > 1 and np.any(np.diff(bounds) <= 0):
        raise ValueError("boundaries must be strictly increasing")
    if int(batch_size) <= 0:
        raise ValueError("batch_size must be > 0")
    if pad_to_multiple_of is not None and int(pad_to_multiple_of) <= 0:
        raise ValueError("pad_to_multiple_of must be > 0")
    if maxlen is not None and int(maxlen) < 0:
        raise ValueError("maxlen must be >= 0")
    if lengths.size and lengths.min() < 0:
        raise ValueError("lengths must be >= 0")
    if seed is not None and int(seed) < 0:
        raise ValueError("seed must be >= 0")
    return _cpad.bucket_plan(lengths, bounds, int(batch_size),
                             None if maxlen is None else int(maxlen),
                             int(pad_to_multiple_of or 0), drop_remainder, seed)
