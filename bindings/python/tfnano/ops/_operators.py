"""The Python operators of tensors (``x + y``, ``x[i]``, ``~m`` ...) as TensorFlow
defines them: one table used twice, by :class:`tfnano.Tensor` (eager) and, through
``_trace.OPERATORS``, by traced values in a tf.data map function."""
from . import array_ops, math_ops

# dunder name -> op(self, other) (binary) or op(self) (unary).
BINARY = {
    "__add__": math_ops.add,
    "__sub__": math_ops.subtract,
    "__mul__": math_ops.multiply_operator,
    "__truediv__": math_ops.truediv,
    "__floordiv__": math_ops.floordiv,
    "__mod__": math_ops.floormod,
    "__pow__": math_ops.pow,
    "__matmul__": None,  # filled below (linalg)
    "__and__": math_ops.logical_or_bitwise_and,
    "__or__": math_ops.logical_or_bitwise_or,
    "__xor__": math_ops.logical_or_bitwise_xor,
    "__lt__": math_ops.less,
    "__le__": math_ops.less_equal,
    "__gt__": math_ops.greater,
    "__ge__": math_ops.greater_equal,
    "__eq__": math_ops.tensor_equals,
    "__ne__": math_ops.tensor_not_equals,
    "__getitem__": array_ops.getitem,
}
UNARY = {
    "__neg__": math_ops.negative,
    "__abs__": math_ops.abs,
    "__invert__": math_ops.logical_or_bitwise_invert,
}
# Methods TensorFlow's tensors have beside the operators (x.shape is static already).
METHODS = {}


def _matmul(a, b):
    from . import linalg
    return linalg.matmul(a, b)


BINARY["__matmul__"] = _matmul


def register_symbol_operators():
    """Fills _trace.OPERATORS, so traced values answer the operators."""
    from .. import _trace
    _trace.OPERATORS.update({k: v for k, v in BINARY.items()})
    _trace.OPERATORS.update(UNARY)
    _trace.OPERATORS.update(METHODS)
