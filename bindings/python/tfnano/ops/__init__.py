"""Tensor ops at TensorFlow's names, backed by numpy: one module per job.

- ``array_ops``: shape / rank / size, reshape, expand_dims / squeeze, stack / concat /
  unstack / split, fill / zeros / ones / *_like, range, gather, where, one_hot,
  clip_by_value, transpose, tile, pad, boolean_mask, slicing (``x[i]``, ``tf.newaxis``).
- ``math_ops``: ``tf.math`` elementwise ops, comparisons, logic, reductions, scans.
- ``string_ops`` (``tf.strings``), ``random_ops`` (``tf.random``), ``control_flow``
  (cond / case / while_loop), ``nest`` (``tf.nest``), ``script_ops``
  (``tf.py_function`` / ``tf.numpy_function``), ``linalg``, ``specs`` (TensorSpec,
  TensorShape).

Every op follows TensorFlow's dtype rules (the inputs of one op share a dtype: no
silent upcasting), shapes and broadcasting, and raises TensorFlow's error types with
its messages. Results are :class:`tfnano.Tensor` (numpy arrays with ``.numpy()``).

Every op is declared with ``tfnano._trace.traceable``, so a tf.data map function
calling it is traced into a graph that runs per record or on a whole batch; the
operators of traced values (``x + 1``, ``x[0]``) resolve through ``_trace.OPERATORS``,
which importing this package fills (the tf.data planner imports it before tracing).
"""
from ._operators import register_symbol_operators

register_symbol_operators()
