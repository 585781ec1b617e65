"""``tf.io.decode_csv``: CSV lines into one tensor per column, typed by
`record_defaults` (a default per column; an empty one makes the column required).
Runs batched as it is: a batch of lines is just a larger string tensor."""
import re

import numpy as np

from .. import dtypes as _dt
from .._trace import Spec, Symbol, traceable
from ..errors import invalid
from ._common import plain, to_array, wrap

_INT = re.compile(r"^\s*[-+]?\d+\s*$")


def _split_line(line, delim, use_quote):
    fields, i, n = [], 0, len(line)
    while True:
        if use_quote and i < n and line[i] == '"':
            j, buf = i + 1, []
            while True:
                if j >= n:
                    raise invalid("Quoted field has to end with "
                                  "quote followed by delim or end")
                if line[j] == '"':
                    if j + 1 < n and line[j + 1] == '"':
                        buf.append('"')
                        j += 2
                        continue
                    break
                buf.append(line[j])
                j += 1
            if j + 1 < n and line[j + 1] != delim:
                raise invalid("Quoted field has to end with quote "
                              "followed by delim or end")
            fields.append("".join(buf))
            i = j + 2
            if j + 1 >= n:
                return fields
        else:
            k = line.find(delim, i)
            if k < 0:
                fields.append(line[i:])
                return fields
            fields.append(line[i:k])
            i = k + 1


def _defaults(record_defaults):
    out = []
    for d in record_defaults:
        a = to_array(d)
        if a.size > 1:
            raise invalid("Each record default should be at most "
                          "rank 1")
        out.append((a.dtype, None if a.size == 0 else a.reshape(-1)[0]))
    return out


def _convert(text, dtype, default, col, rec, na_value):
    if text == "" or (na_value and text == na_value):
        if default is None:
            raise invalid("Field %d is required but missing in "
                          "record %d!" % (col, rec))
        return default
    kind = np.dtype(dtype).kind
    name = _dt.as_dtype(dtype).name
    if kind == "O":
        return text.encode("utf-8")
    if kind in "iu":
        if not _INT.match(text):
            raise invalid("Field %d in record %d is not a valid %s: %s"
                          % (col, rec, name, text))
        return int(text)
    try:
        return float(text)
    except ValueError:
        raise invalid("Field %d in record %d is not a valid %s: %s"
                      % (col, rec, {"float32": "float", "float64": "double"}.get(
                          name, name), text)) from None


def _infer(records, record_defaults, field_delim=",", use_quote_delim=True, name=None,
           na_value="", select_cols=None):
    shape = records.spec.shape if isinstance(records, Symbol) else np.shape(records)
    return [Spec(object if to_array(d).dtype == object else to_array(d).dtype, shape)
            for d in record_defaults]


def _decode_csv_batch(records, record_defaults, *args, **kwargs):
    return _decode_csv(records, record_defaults, *args, **kwargs)  # lines are elementwise


def _decode_csv(records, record_defaults, field_delim=",", use_quote_delim=True, name=None,
               na_value="", select_cols=None):
    """``tf.io.decode_csv``: a list of tensors shaped like `records`, one per column."""
    recs = to_array(records, dtype=_dt.string) if not isinstance(records, np.ndarray) \
        else plain(records)
    defaults = _defaults(record_defaults)
    cols = None if select_cols is None else [int(c) for c in select_cols]
    outs = [np.empty(recs.shape, dtype) for dtype, _ in defaults]
    for r, idx in enumerate(np.ndindex(recs.shape)):
        line = recs[idx]
        line = line.decode("utf-8") if isinstance(line, bytes) else str(line)
        # an empty line has no fields (Expect n fields but have 0)
        fields = _split_line(line, field_delim, use_quote_delim) if line else []
        if cols is not None:
            if max(cols) >= len(fields):
                raise invalid("Expect %d fields but have %d in record "
                              "%d" % (max(cols) + 1, len(fields), r))
            fields = [fields[c] for c in cols]
        if len(fields) != len(defaults):
            raise invalid("Expect %d fields but have %d in record %d"
                          % (len(defaults), len(fields), r))
        for c, (text, (dtype, default)) in enumerate(zip(fields, defaults)):
            outs[c][idx] = _convert(text, dtype, default, c, r, na_value)
    return [wrap(o) for o in outs]


decode_csv = traceable("io.decode_csv", batch=_decode_csv_batch, infer=_infer)(_decode_csv)
