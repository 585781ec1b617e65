"""TF1 conveniences removed in TF2: to_float / to_int32 / to_int64."""
from ..._tensor import cast


def to_float(x, name="ToFloat"):
    return cast(x, "float32")


def to_int32(x, name="ToInt32"):
    return cast(x, "int32")


def to_int64(x, name="ToInt64"):
    return cast(x, "int64")


def string_split(source, sep=None, skip_empty=True, delimiter=None, result_type="SparseTensor",
                 name=None):
    raise NotImplementedError("tf.compat.v1.string_split gives a SparseTensor; use "
                              "tf.strings.split (tfnano implements it) instead")
