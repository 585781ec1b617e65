"""Sources from Python values: range, from_tensor_slices, from_tensors,
from_generator."""
import numpy as np

from ... import errors
from ..._tensor import as_tensor
from .. import columns, composite, plan, structure


class RangeNode(plan.Node):
    op = "range"

    def __init__(self, r, dtype):
        super().__init__()
        self.r, self.dtype = r, dtype

    def cardinality(self):
        return len(self.r)

    def element_spec(self):
        from ..._trace import Spec
        return Spec(self.dtype, ())

    def attrs(self):
        return {"start": self.r.start, "stop": self.r.stop, "step": self.r.step}

    def columnar(self):
        return True

    def stage(self, ctx):
        return _RangeColumns(self.r, self.dtype)


class _RangeStage(plan.Stage):
    def __init__(self, r, dtype):
        self._it = iter(r)
        self._dtype = dtype

    def __next__(self):
        return as_tensor(np.asarray(next(self._it), dtype=self._dtype))


class _RangeColumns(columns.ColumnStage):
    """range as columns: a chunk of the range at a time."""

    def __init__(self, r, dtype):
        self._r, self._dtype, self._i = r, dtype, 0

    def _pull(self, n):
        i = self._i
        if i >= len(self._r):
            return None
        j = min(len(self._r), i + max(n, 1))
        self._i = j
        a = np.asarray(self._r[i:j], dtype=self._dtype)
        return columns.Columns(a, [a], j - i)


class _SlicesColumns(columns.ColumnStage):
    def __init__(self, template, leaves, n):
        self._t, self._leaves, self._n, self._i = template, leaves, n, 0

    def _pull(self, n):
        i = self._i
        if i >= self._n:
            return None
        j = min(self._n, i + max(n, 1))
        self._i = j
        return columns.Columns(self._t, [a[i:j] for a in self._leaves], j - i)


class SlicesNode(plan.Node):
    op = "from_tensor_slices"

    def __init__(self, template, leaves):
        super().__init__()
        self.template, self.leaves = template, leaves
        self.n = len(leaves[0]) if leaves else 0

    def cardinality(self):
        return self.n

    def element_spec(self):
        from ..._trace import Spec
        return structure.pack(self.template, [
            Spec(a.dtype, a.shape[1:]) if isinstance(a, np.ndarray) else
            a.element_spec() if hasattr(a, "element_spec") else  # composite rows
            structure.unbatch_spec(structure.spec_of_value(a)) for a in self.leaves])

    def attrs(self):
        return {"n": self.n}

    def columnar(self):
        return bool(self.leaves) and all(isinstance(a, np.ndarray) for a in self.leaves)

    def stage(self, ctx):
        if self.columnar():
            return _SlicesColumns(self.template, self.leaves, self.n)
        return _SlicesStage(self.template, self.leaves, self.n)


class _SlicesStage(plan.Stage):
    def __init__(self, template, leaves, n):
        self._t, self._leaves, self._n, self._i = template, leaves, n, 0

    def __next__(self):
        i = self._i
        if i >= self._n:
            raise StopIteration
        self._i = i + 1
        return structure.pack(self._t, [_slice(a, i) for a in self._leaves])

    def next_records(self, n):
        i = self._i
        if i >= self._n:
            return None
        j = min(self._n, i + n)
        self._i = j
        return [structure.pack(self._t, [_slice(a, k) for a in self._leaves])
                for k in range(i, j)]


def _slice(a, i):
    if isinstance(a, np.ndarray):
        return as_tensor(a[i:i + 1].reshape(a.shape[1:]))
    return structure.to_tensor(a[i])  # the rows of a SparseTensor / RaggedTensor


def _leaf(x):
    rows = composite.rows_of(x)
    return np.asarray(structure.to_tensor(x)) if rows is None else rows


def slices(tensors):
    leaves = [_leaf(x) for x in structure.flatten(tensors)]
    n = len(leaves[0]) if leaves else 0
    for leaf in leaves:
        if len(leaf) != n:
            raise errors.InvalidArgumentError(
                None, None, "Dimensions %d and %d are not compatible" % (n, len(leaf)))
    return SlicesNode(tensors, leaves)


class TensorsNode(plan.Node):
    op = "from_tensors"

    def __init__(self, element):
        super().__init__()
        self.element = element

    def cardinality(self):
        return 1

    def element_spec(self):
        return structure.element_spec_of(self.element)

    def stage(self, ctx):
        return plan.IterStage(iter([self.element]))


class GeneratorNode(plan.Node):
    op = "from_generator"

    def __init__(self, generator, args):
        super().__init__()
        self.generator, self.args = generator, args

    def attrs(self):
        return {"generator": getattr(self.generator, "__name__", "?")}

    def element_spec(self):
        return None

    def stage(self, ctx):
        gen = self.generator(*self.args) if self.args else self.generator()
        return _GeneratorStage(iter(gen))


class _GeneratorStage(plan.IterStage):
    def __next__(self):
        return structure.normalize(next(self._it))
