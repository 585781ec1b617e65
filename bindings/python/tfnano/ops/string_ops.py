"""``tf.strings``: string tensors are numpy object arrays of ``bytes`` (what
TensorFlow's ``.numpy()`` gives). Elementwise ops run batched as they are; ops whose
output length depends on the value (split, bytes_split, unicode_decode, unicode_split)
give a 1-D tensor for a scalar input; in a traced map, their batch rule gives a
RaggedTensor whose rows are the records (tfnano._trace's rows), which elementwise ops,
lookups and ngrams then run on, and batch / padded_batch / ragged_batch take as is."""
import re

import numpy as np

from .._c import strviews as _sv
from .. import dtypes as _dt
from .._trace import traceable
from ..errors import InvalidArgumentError, invalid
from ._common import (kernel_name, lenient_infer, plain, same_shape_infer, shift_axis, to_array,
                      wrap)


def _strings(x, op="string op"):
    a = to_array(x)
    if a.dtype != object and a.size == 0 and not isinstance(x, (np.ndarray, np.generic)):
        return np.empty(a.shape, object)  # [] is an empty string tensor
    if a.dtype != object and not isinstance(x, (np.ndarray, np.generic)):
        raise TypeError("Cannot convert %r to EagerTensor of dtype string" % (x,))
    if a.dtype != object:
        raise invalid("cannot compute %s as input #0(zero-based) was "
                      "expected to be a string tensor but is a %s tensor"
                      % (op, kernel_name(a.dtype)))
    return a


def _text(v):
    return v.encode("utf-8") if isinstance(v, str) else bytes(v)


def _map(fn, a, otype=object):
    if otype is not object:
        return np.fromiter(map(fn, a.reshape(-1).tolist()), otype, a.size).reshape(a.shape)
    out = np.empty(a.size, object)
    out[:] = list(map(fn, a.reshape(-1).tolist()))
    return out.reshape(a.shape)


def _bytes_map(a, op):
    """An ASCII map (tfnano._c.strviews: lower, upper, strip) of every string of `a`."""
    return _sv.bytes_map(a, op).reshape(a.shape)


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


def _rows_batch(name):
    """The batch rule of an op that gives a 1-D tensor per scalar string: the op on
    the batch of scalars gives a RaggedTensor whose rows are the records (rows, see
    tfnano._trace)."""
    def batch(*args, **kwargs):
        return globals()[name](*args, **kwargs)
    return batch


@traceable("strings.split", batch=_rows_batch("split"), infer=_split_infer(object),
           rows="make")
def split(input, sep=None, maxsplit=-1, name=None):  # noqa: A002
    """``tf.strings.split``: on runs of ASCII whitespace (sep None or "") or on `sep`,
    with TensorFlow's maxsplit rules (tfnano._c.strviews.split_one); a 1-D tensor for a
    scalar, else a RaggedTensor with one more dimension. The tokens are made in C."""
    a = _strings(input, "StringSplitV2")
    if isinstance(sep, np.ndarray):
        sep = sep.reshape(()).item() if sep.size == 1 else sep
    s = None if sep is None else _text(sep)
    values, splits = _sv.split(a.reshape(-1), s, maxsplit)
    if a.ndim == 0:
        return wrap(values)
    from ..ragged import RaggedTensor
    rt = RaggedTensor.from_row_splits(values, splits, validate=False)
    for dim in reversed(a.shape[1:]):  # leading dense dims of a rank > 1 input
        rt = RaggedTensor.from_uniform_row_length(rt, dim)
    return rt


@traceable("strings.bytes_split", batch=_rows_batch("bytes_split"),
           infer=_split_infer(object), rows="make")
def bytes_split(input, name=None):  # noqa: A002
    """``tf.strings.bytes_split``: one-byte strings."""
    a = _strings(input, "UnicodeDecode")
    return _ragged_or_flat([[v[i:i + 1] for i in range(len(v))] for v in a.reshape(-1)],
                           a, object)


def _decode(v, encoding, errors, replacement_char):
    codec = {"UTF-8": "utf-8", "UTF-16-BE": "utf-16-be", "UTF-32-BE": "utf-32-be"}.get(
        encoding.upper() if isinstance(encoding, str) else encoding)
    if codec is None:
        raise invalid("Could not create converter for input "
                      "encoding: %s" % encoding)
    if errors == "strict":
        try:
            text = v.decode(codec)
        except UnicodeDecodeError:
            raise invalid("Invalid formatting on input string")
        return [ord(c) for c in text]
    text = v.decode(codec, errors="replace")
    out = [ord(c) for c in text]
    if errors == "ignore":
        return [c for c in out if c != 0xFFFD or "\ufffd".encode(codec) in v]
    return [replacement_char if c == 0xFFFD else c for c in out]


@traceable("strings.unicode_decode", batch=_rows_batch("unicode_decode"),
           infer=_split_infer(np.int32), rows="make")
def unicode_decode(input, input_encoding, errors="replace", replacement_char=65533,  # noqa
                   replace_control_characters=False, name=None):
    """``tf.strings.unicode_decode``: code points, int32."""
    a = _strings(input, "UnicodeDecode")
    return _ragged_or_flat([_decode(v, input_encoding, errors, replacement_char)
                            for v in a.reshape(-1)], a, np.int32)


@traceable("strings.unicode_split", batch=_rows_batch("unicode_split"),
           infer=_split_infer(object), rows="make")
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
        raise invalid("pos %d out of range for string %r at index %d"
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
            raise invalid("StringToNumberOp could not correctly "
                          "convert string: %s" % v.decode("utf-8", "replace"))
        return float(v)
    text = v.strip()
    if not re.fullmatch(rb"[-+]?\d+", text):
        raise invalid("StringToNumberOp could not correctly convert "
                      "string: %s" % v.decode("utf-8", "replace"))
    n = int(text)
    info = np.iinfo(out_type)
    if n < info.min or n > info.max:
        raise invalid("StringToNumberOp could not correctly convert "
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
        raise invalid("Invalid pattern: %s, error: %s"
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


def _strings_in_infer(kernel):
    """An `infer` for an op of one string input: a traced input of another dtype is
    refused while tracing, with TensorFlow's TypeError (as its graph builder does)."""
    same = same_shape_infer(object)

    def infer(input, *args, **kwargs):  # noqa: A002
        from .._trace import Symbol, user_error
        dt = input.spec.dtype if isinstance(input, Symbol) else None
        if dt is not None and dt != np.dtype(object):
            raise user_error(TypeError(
                "Input 'input' of '%s' Op has type %s that does not match expected type "
                "of string." % (kernel, _dt.as_dtype(dt).name)))
        return same(input, *args, **kwargs)
    return infer


@traceable("strings.lower", batch="elementwise", infer=_strings_in_infer("StringLower"))
def lower(input, encoding="", name=None):  # noqa: A002
    """``tf.strings.lower``: ASCII letters (all letters with encoding="utf-8")."""
    a = _strings(input, "StringLower")
    if encoding:
        return wrap(_map(lambda v: v.decode("utf-8").lower().encode("utf-8"), a))
    return wrap(_bytes_map(a, _sv.LOWER))


@traceable("strings.upper", batch="elementwise", infer=_strings_in_infer("StringUpper"))
def upper(input, encoding="", name=None):  # noqa: A002
    """``tf.strings.upper``: ASCII letters (all letters with encoding="utf-8")."""
    a = _strings(input, "StringUpper")
    if encoding:
        return wrap(_map(lambda v: v.decode("utf-8").upper().encode("utf-8"), a))
    return wrap(_bytes_map(a, _sv.UPPER))


@traceable("strings.strip", batch="elementwise", infer=_strings_in_infer("StringStrip"))
def strip(input, name=None):  # noqa: A002
    """``tf.strings.strip``: leading and trailing ASCII whitespace."""
    return wrap(_bytes_map(_strings(input, "StringStrip"), _sv.STRIP))


@traceable("strings.join", batch="elementwise",
           infer=lenient_infer(lambda *a, **k: _join(*a, **k)))
def _join(*inputs, separator=""):
    arrays = [_strings(x, "StringJoin") for x in inputs]
    try:
        shape = np.broadcast_shapes(*[a.shape for a in arrays])
    except ValueError:
        raise invalid("Input shapes do not match: %s vs. %s"
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
    "true"/"false" for bools; strings as they are (padded to `width`)."""
    a = to_array(input)
    if a.dtype == object:  # strings pass through, right-justified to `width` with spaces
        w = max(int(width), 0)
        return wrap(_map(lambda v: v.rjust(w) if isinstance(v, bytes) else
                         str(v).encode().rjust(w), a))
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


# ------------------------------------------------------------------ hash buckets
# The hashes are C (lib/base/hash.c, bit-exact with TensorFlow): the strings are handed
# to one tfn_hash_views call where they lie (tfnano._c.strviews).

_FINGERPRINT64, _TF_HASH64, _SIPHASH24 = 1, 2, 3  # tfn_hash_kind


def _num_buckets(num_buckets, op, input_name="input"):
    n = int(plain(num_buckets)) if isinstance(num_buckets, np.ndarray) else int(num_buckets)
    if not -2 ** 63 <= n < 2 ** 63:  # TensorFlow's failed int64 conversion gives -1
        n = -1
    if n < 1:
        raise InvalidArgumentError(
            None, None, "Value for attr 'num_buckets' of %d must be at least minimum 1\n\t; "
            "NodeDef: {{node %s}}; Op<name=%s; signature=%s:string -> output:int64; "
            "attr=num_buckets:int,min=1>" % (n, op, op, input_name))
    return n


def hash_flat(flat, kind=_FINGERPRINT64, num_buckets=0, key=None, tensor=None):
    """The hash (`num_buckets` 0) or bucket of each string of a 1-D object array of
    bytes, as uint64, in one C call over views of the strings (tfnano._c.strviews;
    `tensor`, the tensor `flat` comes from, lends its packed strings)."""
    from .._c.strviews import hash_strings
    return hash_strings(flat, kind, num_buckets, key, tensor)


def _hash_buckets(input, num_buckets, kind, op, key=None, input_name="input"):  # noqa: A002
    if type(input).__name__ == "RaggedTensor" and hasattr(input, "with_flat_values"):
        return input.with_flat_values(
            _hash_buckets(input.flat_values, num_buckets, kind, op, key, input_name))
    n = _num_buckets(num_buckets, op, input_name)
    a = _strings(input, op)
    out = hash_flat(a.reshape(-1), kind, n, key, input)  # buckets < num_buckets fit int64
    return wrap(out.view(np.int64).reshape(a.shape))


@traceable("strings.to_hash_bucket_fast", batch="elementwise",
           infer=same_shape_infer(np.int64))
def to_hash_bucket_fast(input, num_buckets, name=None):  # noqa: A002
    """``tf.strings.to_hash_bucket_fast``: FarmHash Fingerprint64 of each string modulo
    `num_buckets` (int64, the input's shape), bit-exact with TensorFlow."""
    return _hash_buckets(input, num_buckets, _FINGERPRINT64, "StringToHashBucketFast")


@traceable("strings.to_hash_bucket_strong", batch="elementwise",
           infer=same_shape_infer(np.int64))
def to_hash_bucket_strong(input, num_buckets, key, name=None):  # noqa: A002
    """``tf.strings.to_hash_bucket_strong``: SipHash-2-4 keyed by `key` (two integers)
    of each string modulo `num_buckets`."""
    if not isinstance(key, (list, tuple)):
        raise TypeError("Expected list for 'key' argument to 'string_to_hash_bucket_strong' "
                        "Op, not %r." % (key,))
    words = []
    for k in key:
        k = int(k)
        if not -2 ** 63 <= k < 2 ** 63:  # an int64 list attribute
            raise OverflowError("int too big to convert")
        words.append(k % 2 ** 64)  # the same 64 bits, as TensorFlow's memcpy
    n = _num_buckets(num_buckets, "StringToHashBucketStrong")
    if len(words) != 2:
        raise invalid("Key must have 2 elements")
    return _hash_buckets(input, n, _SIPHASH24, "StringToHashBucketStrong",
                         key=np.asarray(words, np.uint64))


@traceable("strings.to_hash_bucket", batch="elementwise", infer=same_shape_infer(np.int64))
def to_hash_bucket(input, num_buckets, name=None):  # noqa: A002
    """``tf.strings.to_hash_bucket`` (TensorFlow's deprecated StringToHashBucket op):
    TensorFlow's own 64-bit hash (seed 0xDECAFCAFFE) modulo `num_buckets`."""
    return _hash_buckets(input, num_buckets, _TF_HASH64, "StringToHashBucket",
                         input_name="string_tensor")


# ------------------------------------------------------------------ n-grams

def _ngrams_infer(data, *args, **kwargs):
    from .._trace import Spec, TraceError
    shape = data.spec.shape
    if shape is None or len(shape) == 0:
        raise TraceError("strings.ngrams needs input of known rank > 0")
    return Spec(object, tuple(shape[:-1]) + (None,))


def _ngrams_batch(data, *args, **kwargs):
    if isinstance(data, list):  # records of different lengths
        return [ngrams(d, *args, **kwargs) for d in data]
    return ngrams(data, *args, **kwargs)


def _ngram_rows(rows, widths, separator, left_pad, right_pad, pad_width, preserve_short):
    """TensorFlow's StringNGrams kernel over rows (lists of bytes): a list per row."""
    def pad_of(width):
        return min(width - 1 if pad_width < 0 else pad_width, width - 1)

    def count(length, width):
        return max(0, length + 2 * pad_of(width) - width + 1)

    def make(row, num, width):
        p = pad_of(width)
        out = []
        for i in range(num):
            left = max(0, p - i)
            right = max(0, p - (num - (i + 1)))
            tokens = width - left - right
            start = 0 if left > 0 else i - p
            parts = [left_pad] * left + row[start:start + max(tokens, 0)] + [right_pad] * right
            out.append(separator.join(parts))
        return out

    if not any(rows):  # no data at all: no n-grams, even with padding
        return [[] for _ in rows]
    result = []
    for row in rows:
        grams = []
        for width in widths:
            grams.extend(make(row, count(len(row), width), width))
        if preserve_short and not grams and row:
            if pad_width < 0:
                raise InvalidArgumentError(
                    None, None, "Pad width should be >= 0 when preserve_short_sequences is "
                    "True and ngram_widths are not provided, got %d" % pad_width)
            grams = make(row, 1, len(row) + 2 * pad_width)
        result.append(grams)
    return result


@traceable("strings.ngrams", batch=_ngrams_batch, infer=_ngrams_infer, rows="map")
def ngrams(data, ngram_width, separator=" ", pad_values=None, padding_width=None,
           preserve_short_sequences=False, name=None):
    """``tf.strings.ngrams``: n-grams of the last axis, joined by `separator`, with
    TensorFlow's padding rules; a Tensor gives a Tensor (last axis replaced), a
    RaggedTensor a RaggedTensor."""
    if pad_values is None:
        left_pad = right_pad = b""
    elif isinstance(pad_values, (list, tuple)):
        if not (isinstance(pad_values[0], (bytes, str)) and
                isinstance(pad_values[1], (bytes, str))):
            raise TypeError("pad_values must be a string, tuple of strings, or None.")
        left_pad, right_pad = _text(pad_values[0]), _text(pad_values[1])
    else:
        if not isinstance(pad_values, (bytes, str)):
            raise TypeError("pad_values must be a string, tuple of strings, or None.")
        left_pad = right_pad = _text(pad_values)
    if padding_width is not None and padding_width < 1:
        raise ValueError("padding_width must be greater than 0.")
    if padding_width is not None and pad_values is None:
        raise ValueError("pad_values must be provided if padding_width is set.")
    ragged = type(data).__name__ == "RaggedTensor" and hasattr(data, "row_splits")
    if not ragged:
        a = _strings(data, "StringNGrams")
        if a.ndim == 0:
            raise ValueError("Data must have rank>0")
    widths = list(ngram_width) if isinstance(ngram_width, (list, tuple)) else [ngram_width]
    pad_width = 0 if pad_values is None else (-1 if padding_width is None else padding_width)
    for w in widths:
        if w < 1:
            raise ValueError("All ngram_widths must be greater than 0. Got %s" % (ngram_width,))
    sep = _text(separator)
    if ragged:
        if data.ragged_rank > 1:
            return data.with_values(ngrams(data.values, ngram_width, separator, pad_values,
                                           padding_width, preserve_short_sequences))
        values = _strings(data.values, "StringNGrams").tolist()
        splits = np.asarray(data.row_splits)
        rows = [values[splits[i]:splits[i + 1]] for i in range(len(splits) - 1)]
        grams = _ngram_rows(rows, widths, sep, left_pad, right_pad, pad_width,
                            preserve_short_sequences)
        from ..ragged import RaggedTensor
        lengths = np.fromiter(map(len, grams), splits.dtype, len(grams))
        out_splits = np.zeros(len(grams) + 1, splits.dtype)
        np.cumsum(lengths, out=out_splits[1:])
        flat = np.empty(int(out_splits[-1]), object)
        flat[:] = [g for row in grams for g in row]
        return RaggedTensor.from_row_splits(flat, out_splits, validate=False)
    rows = a.reshape(int(np.prod(a.shape[:-1])), a.shape[-1]).tolist()
    grams = _ngram_rows(rows, widths, sep, left_pad, right_pad, pad_width,
                        preserve_short_sequences)
    width = len(grams[0]) if grams else 0
    flat = np.empty((len(grams), width), object)
    for i, row in enumerate(grams):
        flat[i, :] = row
    return wrap(flat.reshape(a.shape[:-1] + (width,)))
