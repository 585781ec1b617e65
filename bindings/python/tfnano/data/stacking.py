"""Stacking elements into a batch, as batch does (TensorFlow's errors when shapes
differ), and reading a gathered batch-in-waiting (a list of elements, a record batch,
or data/columns.py's Columns) back as elements or as one stacked input. Shared by
ops/batch.py, the fused nodes and data/columns.py."""
import numpy as np

from .. import errors
from .._tensor import as_tensor
from . import composite, structure


def stack_column(col, c=0):
    """Per-element values of component c -> one Tensor, record axis first."""
    if len(col) == 1 and (hasattr(col[0], "_tfn_joined") or hasattr(col[0], "_tfn_views")):
        return col[0]
    batched = composite.batch_column(col, c)
    if batched is not None:  # SparseTensor / RaggedTensor components
        return batched
    arrs = [np.asarray(x) for x in col]
    shape = arrs[0].shape
    for i, a in enumerate(arrs):
        if a.shape != shape:
            raise errors.InvalidArgumentError(
                None, None, "Cannot batch tensors with different shapes in component "
                "%d. First element had shape %s and element %d had shape %s."
                % (c, structure.tf_shape(shape), i, structure.tf_shape(a.shape)))
    if arrs[0].dtype == object:
        st = np.empty((len(arrs),) + shape, dtype=object)
        for i, a in enumerate(arrs):
            st[i] = a.item() if a.ndim == 0 else a  # a 0-d array would be stored whole
    else:
        st = np.stack(arrs)
    return as_tensor(st)


def stack_mapped(fn, items):
    """fn of each item, batched as TensorFlow's fused map-and-batch batches them: the
    first element's shape is the batch's; an element with another number of values
    in a component fails the batch with "Cannot add tensor to the batch: number of
    elements does not match. Shapes are: [tensor]: [3], [batch]: [2]", one with as many
    values in another shape is copied in with the first element's shape (TensorFlow
    copies the values into the batch's slot). The first failure in element order (the
    function's own error or a size) is raised, as TensorFlow reports the smallest
    offset."""
    out, first = [], None
    for el in items:
        res = fn(el)
        leaves = structure.flatten(res)
        if first is None:
            first = [None if type(x).__name__ in structure.COMPOSITE else np.shape(x)
                     for x in leaves]
        else:
            fixed = False
            for c, x in enumerate(leaves):
                want = first[c]
                if want is None or type(x).__name__ in structure.COMPOSITE:
                    continue
                shape = np.shape(x)
                if shape == want:
                    continue
                if int(np.prod(shape)) != int(np.prod(want)):
                    raise errors.InvalidArgumentError(
                        None, None, "Cannot add tensor to the batch: number of elements does "
                        "not match. Shapes are: [tensor]: %s, [batch]: %s"
                        % (structure.tf_shape(shape), structure.tf_shape(want)))
                leaves[c] = as_tensor(np.reshape(np.asarray(x), want))
                fixed = True
            if fixed:
                res = structure.pack(res, leaves)
        out.append(res)
    return stack(out)


def stack(chunk):
    """Elements -> one batched element."""
    leaves = [structure.flatten(el) for el in chunk]
    out = [stack_column([lv[c] for lv in leaves], c) for c in range(len(leaves[0]))]
    return structure.pack(chunk[0], out)


def is_records(raw):
    return hasattr(raw, "_tfn_views") or hasattr(raw, "_tfn_joined")


def elements(raw):
    """The elements of a gathered batch, one by one."""
    if hasattr(raw, "_tfn_columns"):  # data/columns.py
        return [raw.element(i) for i in range(raw.n)]
    if is_records(raw):
        from .._tensor import scalar_string
        return [scalar_string(b) for b in raw.numpy().tolist()]
    return raw


def stacked_input(raw):
    if hasattr(raw, "_tfn_columns"):
        return raw.batched()
    return raw if is_records(raw) else stack(raw)
