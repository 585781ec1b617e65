"""``tf.compat``: ``v1`` (TF1-era input code: python_io, parse_single_example,
FixedLenFeature, gfile, logging, data.make_one_shot_iterator), ``v2`` (tfnano
itself) and the text helpers ``as_bytes`` / ``as_text`` / ``as_str``."""
import importlib
import os


def as_bytes(bytes_or_text, encoding="utf-8"):
    """str -> bytes (encoded), bytes-like -> bytes; anything else TypeError."""
    if isinstance(bytes_or_text, bytearray):
        return bytes(bytes_or_text)
    if isinstance(bytes_or_text, str):
        return bytes_or_text.encode(encoding)
    if isinstance(bytes_or_text, bytes):
        return bytes_or_text
    raise TypeError("Expected binary or unicode string, got %r" % (bytes_or_text,))


def as_text(bytes_or_text, encoding="utf-8"):
    """bytes -> str (decoded), str -> str; anything else TypeError."""
    if isinstance(bytes_or_text, str):
        return bytes_or_text
    if isinstance(bytes_or_text, bytes):
        return bytes_or_text.decode(encoding)
    raise TypeError("Expected binary or unicode string, got %r" % (bytes_or_text,))


as_str = as_text


def as_str_any(value, encoding="utf-8"):
    return as_str(value, encoding) if isinstance(value, bytes) else str(value)


def path_to_str(path):
    return os.fspath(path) if hasattr(path, "__fspath__") else path


def dimension_value(dimension):
    """A shape entry as an int (None stays None): TensorShape dims, ints, Dimension."""
    if dimension is None or isinstance(dimension, int):
        return dimension
    return getattr(dimension, "value", dimension)


def forward_compatible(year, month, day):
    return True


def __getattr__(name):
    if name == "v1":
        mod = importlib.import_module("tfnano.compat.v1")
    elif name == "v2":
        mod = importlib.import_module("tfnano")
    else:
        raise AttributeError("module 'tfnano.compat' has no attribute %r: tfnano implements "
                             "tf.compat.v1 (input code), tf.compat.v2 and the as_bytes / "
                             "as_text helpers; see docs/compat.md" % name)
    globals()[name] = mod
    return mod
