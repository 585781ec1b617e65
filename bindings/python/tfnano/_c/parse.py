"""The Example parser's shared pieces from Python (lib/example): dtype codes, the
error a failing parser call raises, string outputs (tfn_bytes views) made bytes
objects, and the feature lists of SequenceExamples (tfn_sequence_lists)."""
import numpy as np

from .. import _c, errors
from .. import dtypes as _dt
from . import malloc

ffi = _c.ffi
lib = _c.lib

NATIVE_DTYPE = {"int64": lib.TFN_INT64, "float32": lib.TFN_FLOAT32, "string": lib.TFN_BYTES}
NP_OUT = {lib.TFN_INT64: np.int64, lib.TFN_FLOAT32: np.float32, lib.TFN_INT32: np.int32}


# every data problem of a parser call is InvalidArgumentError, as TensorFlow's kernel
# reports it
_PARSE_AS = dict.fromkeys((lib.TFN_E_CORRUPT, lib.TFN_E_TYPE, lib.TFN_E_NOT_FOUND,
                           lib.TFN_E_INVALID_ARG, lib.TFN_E_OUT_OF_RANGE),
                          errors.InvalidArgumentError)


def parse_error(rc, err):
    """The exception for a failing parser call; str() names the example (the parser
    has no offset)."""
    return _c.exception(rc, err, _PARSE_AS, where="example")


_BIG_STRINGS = 1 << 20  # string outputs of a batch worth tuning malloc for


def bytes_objects(views_arr, count):
    """tfn_bytes views (a uint64 (count, 2) array) -> numpy object array of bytes."""
    out = np.empty(count, dtype=object)
    if count == 0:
        return out
    if count <= 8:  # a few strings (a small batch): no numpy pass over the views
        buffer, cast = ffi.buffer, ffi.cast
        out[:] = [buffer(cast("char *", p), ln)[:] if ln else b""
                  for p, ln in views_arr[:count].tolist()]
        return out
    lens = views_arr[:, 1].astype(np.int64)
    total = int(lens.sum())
    if count <= 32 or total >= count * 4096:
        # a few strings, or big ones (images): one slice each, a single copy, beats
        # the copy-out call (which copies twice more to make the bytes objects)
        if total >= _BIG_STRINGS and malloc._state is None:
            malloc.tune()  # freed batches of them stay mapped for the next (see _c/malloc)
        buffer, cast = ffi.buffer, ffi.cast
        out[:] = [buffer(cast("char *", p), ln)[:] if ln else b""
                  for p, ln in views_arr.tolist()]
        return out
    width = int(lens.max())
    if width * count <= 2 * total + 16 * count:  # little padding: numpy's fixed width
        return _bytes_fixed(views_arr, count, lens, width)
    buf = bytearray(total)
    offs = np.zeros(count + 1, dtype=np.uint64)
    needed = ffi.new("size_t *")
    err = _c.new_error()
    rc = lib.tfn_bytes_copy_out(ffi.cast("tfn_bytes *", ffi.from_buffer(views_arr)), count,
                                ffi.from_buffer(buf), total,
                                ffi.cast("uint64_t *", ffi.from_buffer(offs)), needed, err)
    _c.check(rc, err)
    data = bytes(buf)
    o = offs.tolist()
    out[:] = [data[o[i]:o[i + 1]] for i in range(count)]
    return out


def _bytes_fixed(views_arr, count, lens, width):
    """The strings as rows of an "S<width>" array (one C call), made bytes objects by
    numpy in one pass (a Python slice per string costs several times more); numpy
    drops trailing NUL bytes, so the strings that end in one are cut out again."""
    if width == 0:
        return np.full(count, b"", dtype=object)
    rows = np.empty(count * width, dtype=np.uint8)
    err = _c.new_error()
    _c.check(lib.tfn_bytes_copy_fixed(ffi.cast("tfn_bytes *", ffi.from_buffer(views_arr)),
                                        count, ffi.from_buffer(rows), width, rows.size, err),
               err)
    out = rows.view("S%d" % width).astype(object)
    rows = rows.reshape(count, width)
    last = rows[np.arange(count), np.maximum(lens - 1, 0)]
    for i in np.nonzero((last == 0) & (lens > 0))[0].tolist():
        out[i] = rows[i, :lens[i]].tobytes()
    return out


def sequence_lists(recs, names_v, configs, per_record):
    """tfn_sequence_lists for the whole batch of `recs` (views of the records):
    [example_splits, step_splits, values, present] per (key, kind, feature, dtype) of
    `configs`. Buffers are sized from `per_record` (the last batch's counts per record
    by (key, dtype), updated here; a counting pass first when there is none), one
    retry when short."""
    k = len(configs)
    n = recs.n
    cfg = ffi.new("tfn_list_config[]", max(k, 1))
    keep = []
    for j, (key, _, _, dt) in enumerate(configs):
        kb = ffi.new("char[]", key.encode("utf-8"))
        keep.append(kb)
        cfg[j].key, cfg[j].key_len = kb, len(key.encode("utf-8"))
        cfg[j].dtype = NATIVE_DTYPE[dt.name]
    outs = ffi.new("tfn_list_output[]", max(k, 1))
    err = _c.new_error()
    sizes = []
    for key, _, _, dt in configs:
        g = per_record.get((key, dt.name))
        sizes.append(None if g is None else (int(g[0] * n * 1.25) + 8, int(g[1] * n * 1.25) + 8))
    if any(sz is None for sz in sizes):  # no guess yet: count first
        rc = lib.tfn_sequence_lists(recs.views, n, names_v, cfg, k, outs, err)
        if rc < 0:
            raise parse_error(rc, err)
        sizes = [(outs[j].steps, outs[j].values) for j in range(k)]
    for attempt in range(2):
        result, post = [], []
        for j, (key, _, _, dt) in enumerate(configs):
            steps, nvals = sizes[j]
            ex_splits = np.empty(n + 1, dtype=np.int64)
            st_splits = np.empty(steps + 1, dtype=np.int64)
            present = np.empty(max(n, 1), dtype=np.uint8)
            if dt is _dt.string:
                vals = np.zeros((max(nvals, 1), 2), dtype=np.uint64)
                post.append((j, vals))
            else:
                vals = np.empty(max(nvals, 1), dtype=dt.as_numpy_dtype)
            o = outs[j]
            o.steps, o.values = steps, nvals
            o.example_splits = ffi.cast("int64_t *", ffi.from_buffer(ex_splits))
            o.step_splits = ffi.cast("int64_t *", ffi.from_buffer(st_splits))
            o.values_out = ffi.from_buffer(vals)
            o.present = ffi.cast("uint8_t *", ffi.from_buffer(present))
            keep.extend((ex_splits, st_splits, vals, present))
            result.append([ex_splits, st_splits, vals, present[:n]])
        rc = lib.tfn_sequence_lists(recs.views, n, names_v, cfg, k, outs, err)
        if rc == lib.TFN_E_BUF_TOO_SMALL and attempt == 0:
            sizes = [(outs[j].steps, outs[j].values) for j in range(k)]
            continue
        if rc < 0:
            raise parse_error(rc, err)
        break
    for j, (key, _, _, dt) in enumerate(configs):
        steps, nvals = outs[j].steps, outs[j].values
        if n:
            per_record[(key, dt.name)] = (steps / n, nvals / n)
        r = result[j]
        r[1] = r[1][:steps + 1]
        r[2] = r[2][:nvals]
    for j, vals in post:
        nvals = outs[j].values
        result[j][2] = bytes_objects(vals[:nvals], nvals)
    return result


def scan_batch(parser, views, n, err):
    """tfn_parser_scan of n records (tfn_bytes views) as one batch: the parser then
    knows each output's size (max_rows) for fill()."""
    rc = lib.tfn_parser_scan(parser, views, n, ffi.NULL, lib.TFN_PARSE_BATCH, err)
    if rc < 0:
        raise parse_error(rc, err)


def max_rows(parser, j):
    """The most rows feature j has in a record of the batch scanned last."""
    return int(lib.tfn_parser_max_rows(parser, j))


def fill(parser, outs, err):
    """tfn_parser_fill: writes the scanned batch into `outs` (tfn_output[])."""
    rc = lib.tfn_parser_fill(parser, outs, err)
    if rc < 0:
        raise parse_error(rc, err)
