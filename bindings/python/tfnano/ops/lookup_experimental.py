"""``tf.lookup.experimental``: the mutable tables (MutableHashTable, DenseHashTable)."""
from .mutable_lookup_ops import DenseHashTable, MutableHashTable


def __getattr__(name):
    if name.startswith("__"):
        raise AttributeError(name)
    raise AttributeError(
        "module 'tfnano.lookup.experimental' has no attribute %r: tfnano implements "
        "MutableHashTable and DenseHashTable there; tf.lookup.experimental.%s is not part "
        "of it. See docs/compat.md." % (name, name))


__all__ = ["MutableHashTable", "DenseHashTable"]
