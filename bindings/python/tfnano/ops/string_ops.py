"""``tf.strings``: string tensors are numpy object arrays of ``bytes`` (what
TensorFlow's ``.numpy()`` gives). Elementwise ops run batched as they are; ops whose
output length depends on the value (split, bytes_split, unicode_decode) give a 1-D
tensor for a scalar input and run per record in a traced map."""
import re

import numpy as np

from .. import dtypes as _dt
from .._trace import traceable
from ..errors import InvalidArgumentError
from ._common import lenient_infer, plain, same_shape_infer, shift_axis, to_array, wrap


def _strings(x, op="string op"):
    a = to_array(x)
    if a.dtype != object and not isinstance(x, (np.ndarray, np.generic)):
        raise TypeError("Cannot convert %r to EagerTensor of dtype string" % (x,))
    if a.dtype != object:
        raise InvalidArgumentError(None, None, "cannot compute %s as input #0(zero-based) was "
                                   "expected to be a string tensor but is a %s tensor"
                                   % (op, _dt.as_dtype(a.dtype).name))
    return a


def _text(v):
    return v.encode("utf-8") if isinstance(v, str) else bytes(v)


def _map(fn, a, otype=object):
    out = np.empty(a.shape, otype)
    flat_in, flat_out = a.reshape(-1), out.reshape(-1)
    for i, v in enumerate(flat_in):
        flat_out[i] = fn(v)
    return out


def _ragged_or_flat(pieces, a, dtype):
    """A scalar input gives a 1-D tensor; a batch of inputs gives a RaggedTensor."""
    if a.ndim == 0:
        return wrap(np.array(pieces[0] + [None], dtype)[:-1] if dtype == object
                    else np.asarray(pieces[0], dtype))
    try:
        from ..ragged import RaggedTensor
    except ImportError:
        from ..errors import UnimplementedError
        raise UnimplementedError(None, None, "this result is a tf.RaggedTensor, which this "
                                 "tfnano build lacks; call the op per string") from None
    flat = np.empty(sum(len(p) for p in pieces), dtype)
    pos = 0
    for p in pieces:
        flat[pos:pos + len(p)] = p
        pos += len(p)
    lengths = np.asarray([len(p) for p in pieces], np.int64)
    rt = RaggedTensor.from_row_lengths(flat, lengths)
    for dim in reversed(a.shape[1:]):  # leading dense dims of a rank > 1 input
        rt = RaggedTensor.from_uniform_row_length(rt, dim)
    return rt


def _split_infer(dtype):
    def infer(input, *args, **kwargs):  # noqa: A002
        from .._trace import Spec, Symbol, TraceError
        rank = input.spec.rank if isinstance(input, Symbol) else np.ndim(input)
        if rank != 0:
            raise TraceError("a string op giving a RaggedTensor (input of rank %s) inside a "
                             "traced function" % rank)
        return Spec(dtype, (None,))
    return infer


@traceable("strings.split", batch=None, infer=_split_infer(object))
def split(input, sep=None, maxsplit=-1, name=None):  # noqa: A002
    """``tf.strings.split``: on whitespace runs (sep None) or on `sep`."""
    a = _strings(input, "StringSplitV2")
    s = None if sep is None else _text(sep)
    if s == b"":
        s = None
    pieces = []
    for v in a.reshape(-1):
        pieces.append(v.split(s, maxsplit) if maxsplit is not None and maxsplit >= 0
                      else v.split(s))
    return _ragged_or_flat(pieces, a, object)


@traceable("strings.bytes_split", batch=None, infer=_split_infer(object))
def bytes_split(input, name=None):  # noqa: A002
    """``tf.strings.bytes_split``: one-byte strings."""
    a = _strings(input, "UnicodeDecode")
    return _ragged_or_flat([[v[i:i + 1] for i in range(len(v))] for v in a.reshape(-1)],
                           a, object)


def _decode(v, encoding, errors, replacement_char):
    codec = {"UTF-8": "utf-8", "UTF-16-BE": "utf-16-be", "UTF-32-BE": "utf-32-be"}.get(
        encoding.upper() if isinstance(encoding, str) else encoding)
    if codec is None:
        raise InvalidArgumentError(None, None, "Could not create converter for input "
                                   "encoding: %s" % encoding)
    if errors == "strict":
        try:
            text = v.decode(codec)
        except UnicodeDecodeError:
            raise InvalidArgumentError(None, None, "Invalid formatting on input string")
        return [ord(c) for c in text]
    text = v.decode(codec, errors="replace")
    out = [ord(c) for c in text]
    if errors == "ignore":
        return [c for c in out if c != 0xFFFD or "\ufffd".encode(codec) in v]
    return [replacement_char if c == 0xFFFD else c for c in out]


@traceable("strings.unicode_decode", batch=None, infer=_split_infer(np.int32))
def unicode_decode(input, input_encoding, errors="replace", replacement_char=65533,  # noqa
                   replace_control_characters=False, name=None):
    """``tf.strings.unicode_decode``: code points, int32."""
    a = _strings(input, "UnicodeDecode")
    return _ragged_or_flat([_decode(v, input_encoding, errors, replacement_char)
                            for v in a.reshape(-1)], a, np.int32)


@traceable("strings.unicode_split", batch=None, infer=_split_infer(object))
def unicode_split(input, input_encoding, errors="replace", replacement_char=65533,  # noqa
                  name=None):
    """``tf.strings.unicode_split``: one string per character."""
    a = _strings(input, "UnicodeDecode")
    return _ragged_or_flat([[chr(c).encode("utf-8") for c in _decode(
        v, input_encoding, errors, replacement_char)] for v in a.reshape(-1)], a, object)


@traceable("strings.unicode_encode", batch=None)
def unicode_encode(input, output_encoding, errors="replace", replacement_char=65533,  # noqa
                   name=None):
    """``tf.strings.unicode_encode``: code points (last axis) to strings."""
    a = to_array(input)
    codec = {"UTF-8": "utf-8", "UTF-16-BE": "utf-16-be", "UTF-32-BE": "utf-32-be"}[
        output_encoding]
    flat = a.reshape(-1, a.shape[-1]) if a.ndim else a.reshape(1, 1)
    out = np.empty(len(flat), object)
    for i, row in enumerate(flat):
        out[i] = "".join(chr(c) if 0 <= c < 0x110000 else chr(replacement_char)
                         for c in row.tolist()).encode(codec)
    return wrap(out.reshape(a.shape[:-1]) if a.ndim else out.reshape(()))


@traceable("strings.length", batch="elementwise", infer=same_shape_infer(np.int32))
def length(input, unit="BYTE", name=None):  # noqa: A002
    """``tf.strings.length``: int32 bytes (unit "BYTE") or code points ("UTF8_CHAR")."""
    a = _strings(input, "StringLength")
    if unit == "BYTE":
        return wrap(_map(len, a, np.int32))
    if unit != "UTF8_CHAR":
        raise ValueError('unit must be one of "BYTE", "UTF8_CHAR"')
    return wrap(_map(lambda v: len(v.decode("utf-8", errors="replace")), a, np.int32))


def _substr_one(v, pos, n, unit, index):
    text = v.decode("utf-8", errors="replace") if unit == "UTF8_CHAR" else v
    size = len(text)
    if pos > size or pos < -size:
        raise InvalidArgumentError(None, None, "pos %d out of range for string %r at index %d"
                                   % (pos, v, index))
    start = pos if pos >= 0 else size + pos
    piece = text[start:start + max(n, 0)]
    return piece.encode("utf-8") if unit == "UTF8_CHAR" else piece


@traceable("strings.substr", batch="elementwise", infer=same_shape_infer(object))
def substr(input, pos, len, unit="BYTE", name=None):  # noqa: A002
    """``tf.strings.substr``: `len` bytes (or characters) from `pos` (negative: from
    the end); pos past the end is InvalidArgumentError."""
    a = _strings(input, "Substr")
    p = np.broadcast_to(np.asarray(plain(pos)), a.shape)
    n = np.broadcast_to(np.asarray(plain(len)), a.shape)
    out = np.empty(a.shape, object)
    for i, idx in enumerate(np.ndindex(a.shape)):
        out[idx] = _substr_one(a[idx], int(p[idx]), int(n[idx]), unit, i)
    return wrap(out)


_NUMBER = re.compile(rb"^\s*[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?\s*$|"
                     rb"^\s*[-+]?(inf|infinity|nan)\s*$", re.I)


_HEX = re.compile(rb"^\s*[-+]?0[xX][0-9a-fA-F]+(\.[0-9a-fA-F]*)?([pP][-+]?\d+)?\s*$")


def _number(v, out_type):
    if out_type.kind == "f":
        if _HEX.match(v):  # strtod reads hexadecimal too
            return float.fromhex(v.strip().decode())
        if not _NUMBER.match(v):
            raise InvalidArgumentError(None, None, "StringToNumberOp could not correctly "
                                       "convert string: %s" % v.decode("utf-8", "replace"))
        return float(v)
    text = v.strip()
    if not re.fullmatch(rb"[-+]?\d+", text):
        raise InvalidArgumentError(None, None, "StringToNumberOp could not correctly convert "
                                   "string: %s" % v.decode("utf-8", "replace"))
    n = int(text)
    info = np.iinfo(out_type)
    if n < info.min or n > info.max:
        raise InvalidArgumentError(None, None, "StringToNumberOp could not correctly convert "
                                   "string: %s" % v.decode("utf-8", "replace"))
    return n


@traceable("strings.to_number", batch="elementwise", infer=same_shape_infer(
    lambda a, kw: _dt.as_dtype(a[1] if len(a) > 1 else kw.get("out_type", _dt.float32))
    .as_numpy_dtype))
def to_number(input, out_type=_dt.float32, name=None):  # noqa: A002
    """``tf.strings.to_number``: float32 unless `out_type` (int32/int64/float64)."""
    a = _strings(input, "StringToNumber")
    t = np.dtype(_dt.as_dtype(out_type).as_numpy_dtype)
    with np.errstate(over="ignore"):
        return wrap(_map(lambda v: _number(v, t), a, object).astype(t))


def _python_rewrite(rewrite):
    # RE2 rewrites spell groups \1..\9 as Python's re does; \0 is the whole match.
    return _text(rewrite).replace(b"\\0", b"\\g<0>")


@traceable("strings.regex_replace", batch="elementwise", infer=same_shape_infer(object))
def regex_replace(input, pattern, rewrite, replace_global=True, name=None):  # noqa: A002
    """``tf.strings.regex_replace``: Python's re stands in for RE2 (same syntax for
    the common subset: classes, groups, anchors, \\1 rewrites)."""
    a = _strings(input, "StaticRegexReplace")
    try:
        rx = re.compile(_text(pattern))
    except re.error as e:
        raise InvalidArgumentError(None, None, "Invalid pattern: %s, error: %s"
                                   % (_text(pattern).decode(), e)) from None
    rw = _python_rewrite(rewrite)
    count = 0 if replace_global else 1
    return wrap(_map(lambda v: rx.sub(rw, v, count=count), a))


@traceable("strings.regex_full_match", batch="elementwise",
           infer=same_shape_infer(np.bool_))
def regex_full_match(input, pattern, name=None):  # noqa: A002
    """``tf.strings.regex_full_match``: bool, the whole string must match."""
    a = _strings(input, "StaticRegexFullMatch")
    rx = re.compile(_text(pattern))
    return wrap(_map(lambda v: rx.fullmatch(v) is not None, a, np.bool_))


@traceable("strings.lower", batch="elementwise", infer=same_shape_infer(object))
def lower(input, encoding="", name=None):  # noqa: A002
    """``tf.strings.lower``: ASCII letters (all letters with encoding="utf-8")."""
    a = _strings(input, "StringLower")
    if encoding:
        return wrap(_map(lambda v: v.decode("utf-8").lower().encode("utf-8"), a))
    return wrap(_map(bytes.lower, a))


@traceable("strings.upper", batch="elementwise", infer=same_shape_infer(object))
def upper(input, encoding="", name=None):  # noqa: A002
    """``tf.strings.upper``: ASCII letters (all letters with encoding="utf-8")."""
    a = _strings(input, "StringUpper")
    if encoding:
        return wrap(_map(lambda v: v.decode("utf-8").upper().encode("utf-8"), a))
    return wrap(_map(bytes.upper, a))


@traceable("strings.strip", batch="elementwise", infer=same_shape_infer(object))
def strip(input, name=None):  # noqa: A002
    """``tf.strings.strip``: leading and trailing ASCII whitespace."""
    return wrap(_map(lambda v: v.strip(b" \t\n\v\f\r"), _strings(input, "StringStrip")))


@traceable("strings.join", batch="elementwise",
           infer=lenient_infer(lambda *a, **k: _join(*a, **k)))
def _join(*inputs, separator=""):
    arrays = [_strings(x, "StringJoin") for x in inputs]
    try:
        shape = np.broadcast_shapes(*[a.shape for a in arrays])
    except ValueError:
        raise InvalidArgumentError(None, None, "Input shapes do not match: %s vs. %s"
                                   % (list(arrays[0].shape), list(arrays[1].shape))) from None
    sep = _text(separator)
    parts = [np.broadcast_to(a, shape) for a in arrays]
    out = np.empty(shape, object)
    for idx in np.ndindex(shape):
        out[idx] = sep.join(p[idx] for p in parts)
    return wrap(out)


def join(inputs, separator="", name=None):
    """``tf.strings.join``: elementwise concatenation of a list of string tensors
    (broadcasting scalars)."""
    return _join(*inputs, separator=separator)


def _reduce_join_impl(inputs, axis=None, keepdims=False, separator="", name=None):
    a = _strings(inputs, "ReduceJoin")
    sep = _text(separator)
    axes = tuple(range(a.ndim)) if axis is None else tuple(
        int(x) % a.ndim for x in np.asarray(plain(axis)).reshape(-1))
    moved = np.moveaxis(a, axes, list(range(a.ndim - len(axes), a.ndim)))
    lead = moved.shape[:a.ndim - len(axes)]
    flat = moved.reshape(lead + (-1,))
    out = np.empty(lead, object)
    for idx in np.ndindex(lead):
        out[idx] = sep.join(flat[idx])
    if keepdims:
        out = out.reshape(tuple(1 if i in axes else d for i, d in enumerate(a.shape)))
    return wrap(out)


reduce_join = traceable("strings.reduce_join", batch=lambda inputs, axis=None, keepdims=False,
                        separator="", name=None: _reduce_join_impl(
    inputs, tuple(range(1, np.ndim(inputs))) if axis is None else shift_axis(
        np.asarray(plain(axis)).reshape(-1).tolist()), keepdims, separator))(_reduce_join_impl)
reduce_join.__doc__ = "``tf.strings.reduce_join``: joins along `axis` (all axes if None)."


def _as_string_one(v, kind, precision, scientific, shortest, width, fill):
    if kind == "b":
        s = "true" if v else "false"
    elif kind in "iu":
        s = "%d" % v
    else:
        if shortest:
            s = ("%g" if precision < 0 else "%%.%dg" % precision) % v
        elif scientific:
            s = ("%e" if precision < 0 else "%%.%de" % precision) % v
        else:
            s = ("%f" if precision < 0 else "%%.%df" % precision) % v
        s = s.replace("inf", "inf").replace("nan", "nan")
    if width > 0 and len(s) < width:
        s = s.rjust(width, fill or " ") if fill != "0" or kind not in "iuf" else \
            ("-" + s[1:].rjust(width - 1, "0") if s.startswith("-") else s.rjust(width, "0"))
    return s.encode("ascii")


@traceable("strings.as_string", batch="elementwise", infer=same_shape_infer(object))
def as_string(input, precision=-1, scientific=False, shortest=False, width=-1, fill="",
              name=None):  # noqa: A002
    """``tf.strings.as_string``: "%d" for integers, "%f" (6 decimals) for floats,
    "true"/"false" for bools."""
    a = to_array(input)
    if a.dtype == object:
        raise InvalidArgumentError(None, None, "Value for attr 'T' of string is not in the "
                                   "list of allowed values")
    return wrap(_map(lambda v: _as_string_one(v, a.dtype.kind, precision, scientific,
                                              shortest, width, fill), a))


def _format_value(a, summarize, top=True):
    a = np.asarray(a)
    if top and a.size == 0:
        return "" if a.dtype.kind == "b" else "[]"  # as TensorFlow prints them
    if a.ndim == 0:
        v = a.item()
        if isinstance(v, bytes):
            return '"%s"' % v.decode("utf-8", "replace")
        if isinstance(v, float) or a.dtype.kind == "f":
            return np.format_float_positional(a, trim="-") if np.isfinite(a) else str(v)
        return str(int(v)) if a.dtype.kind == "b" else str(v)
    n = a.shape[0]
    if summarize >= 0 and n > 2 * summarize:
        items = [_format_value(a[i], summarize, False) for i in range(summarize)] + ["..."] + \
            [_format_value(a[i], summarize, False) for i in range(n - summarize, n)]
    else:
        items = [_format_value(a[i], summarize, False) for i in range(n)]
    sep = " " if a.ndim == 1 else "\n" + " " * 1
    return "[" + sep.join(items) + "]"


@traceable("strings.format", batch=None, infer=lambda *a, **k: _spec_scalar_string())
def format(template, inputs, placeholder="{}", summarize=3, name=None):  # noqa: A001
    """``tf.strings.format``: each `placeholder` replaced by a tensor printed as
    TensorFlow prints it ([1 2 3], at most `summarize` items per end)."""
    if not isinstance(inputs, (list, tuple)):
        inputs = [inputs]
    parts = template.split(placeholder)
    if len(parts) - 1 != len(inputs):
        raise ValueError("The template expects %d tensors, but the inputs only has %d."
                         % (len(parts) - 1, len(inputs)))
    out = parts[0]
    for value, tail in zip(inputs, parts[1:]):
        out += _format_value(plain(to_array(value)), summarize) + tail
    return wrap(np.array(out.encode("utf-8"), object))


def _spec_scalar_string():
    from .._trace import Spec
    return Spec(object, ())


def to_hash_bucket_fast(input, num_buckets, name=None):  # noqa: A002
    raise NotImplementedError(
        "tf.strings.to_hash_bucket_fast uses FarmHash Fingerprint64, which tfnano does "
        "not implement; hash strings yourself (e.g. hashlib) or keep this step in "
        "TensorFlow")


to_hash_bucket = to_hash_bucket_strong = to_hash_bucket_fast
