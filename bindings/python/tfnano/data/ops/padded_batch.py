"""padded_batch(batch_size, padded_shapes, padding_values, drop_remainder): each
component padded to the batch's largest shape (or `padded_shapes`) with
`padding_values` (0 / b"" by default), then stacked.

After a traced map whose per-record shapes vary only through parse_single_example's
FixedLenSequenceFeature outputs, the map runs vectorized: one parse_example of the
batch (rows padded by the parser), then the rows past each record's length are set
to the padding value. Values of varying length batched as rows (RaggedTensors whose
rows are the records: tf.strings.split and what elementwise ops, lookups and ngrams
make of it, see tfnano._trace) are padded to the longest row. Anything else runs per
element."""
import numpy as np

from ... import errors
from ..._tensor import Tensor, as_tensor
from .. import composite, plan, structure
from .batch import BatchStage, batch_cardinality, elements, lengths_of, run_with_lengths


def _spread(template, spec):
    """One entry of `spec` per leaf of `template`: a None (sub)structure gives None for
    all its leaves; a scalar (or, for shapes, a list of dims) applies to one leaf."""
    if spec is None:
        return [None] * len(structure.flatten(template))
    if isinstance(template, dict):
        out = []
        for k in sorted(template):
            out.extend(_spread(template[k], spec.get(k) if isinstance(spec, dict) else spec))
        return out
    if isinstance(template, tuple) and not isinstance(template, Tensor):
        if isinstance(spec, tuple) and len(spec) == len(template):
            out = []
            for t, sp in zip(template, spec):
                out.extend(_spread(t, sp))
            return out
        return [spec] * len(structure.flatten(template))
    return [spec]


def _want(want, rank):
    if want is None:
        return None
    return [want] if np.ndim(want) == 0 and rank == 1 else list(want)


def _pad_value(pv, dtype):
    if pv is None:
        return b"" if dtype == object else 0
    if isinstance(pv, str):
        return pv.encode()
    if isinstance(pv, bytes):
        return pv
    return np.asarray(pv).reshape(-1)[0]


def check_padding_values(template, dtypes, padding_values):
    """TensorFlow's checks of `padding_values` against the components (`dtypes`, one
    numpy dtype or None per leaf of `template`): each given value, converted as
    tf.convert_to_tensor converts it (a Python int is int32, a float float32), must be
    a scalar of the component's dtype exactly (TF's _padding_value_to_tensor)."""
    if padding_values is None:
        return
    from ... import dtypes as tf_dtypes
    from ..._tensor import convert_to_tensor
    for dtype, value in zip(dtypes, _spread(template, padding_values)):
        if value is None or dtype is None:
            continue
        t = convert_to_tensor(value)
        if np.shape(t) != ():
            raise ValueError("Invalid `padding_values`. `padding_values` values should be "
                             "scalars, but got %s." % (np.shape(t),))
        have, want = tf_dtypes.as_dtype(t.dtype), tf_dtypes.as_dtype(dtype)
        if have != want:
            raise TypeError("Invalid `padding_values`. `padding_values` values type %s does "
                            "not match type %s of the corresponding input component."
                            % (have, want))


def _spec_dtypes(spec):
    """The dtype of each leaf of an element spec (None: unknown, or a composite, which
    padded_batch refuses on its own)."""
    from ..._trace import CompositeSpec
    return [None if isinstance(s, CompositeSpec) else getattr(s, "dtype", None)
            for s in structure.flatten(spec)]


def pad_stack(chunk, padded_shapes, padding_values):
    first = chunk[0]
    leaves = [structure.flatten(el) for el in chunk]
    composite.refuse_padded(leaves[0])
    shapes = _spread(first, padded_shapes)
    values = _spread(first, padding_values)
    out = []
    for c in range(len(leaves[0])):
        arrs = [np.asarray(lv[c]) for lv in leaves]
        rank = arrs[0].ndim
        for a in arrs:
            if a.ndim != rank:
                raise errors.InvalidArgumentError(
                    None, None, "Cannot batch tensors with different ranks in component "
                    "%d." % c)
        target = [max(a.shape[d] for a in arrs) for d in range(rank)]
        _apply_want(target, _want(shapes[c], rank))
        dtype = arrs[0].dtype
        res = np.full([len(arrs)] + target, _pad_value(values[c], dtype), dtype=dtype)
        for i, a in enumerate(arrs):
            if a.ndim == 0:
                res[i] = a.item()
            else:
                res[(i,) + tuple(slice(0, s) for s in a.shape)] = a
        out.append(as_tensor(res))
    return structure.pack(first, out)


def _apply_want(target, want):
    if want is None:
        return
    for d, w in enumerate(want):
        if w is not None and int(w) >= 0:
            if target[d] > int(w):  # TensorFlow 2.21 raises this one as DataLossError
                raise errors.DataLossError(
                    None, None, "Attempted to pad to a smaller size than the input "
                    "element.")
            target[d] = int(w)


class PaddedBatchNode(plan.Node):
    op = "padded_batch"

    def __init__(self, input, batch_size, padded_shapes=None, padding_values=None,
                 drop_remainder=False, fused_map=None):
        super().__init__(input)
        batch_size = int(batch_size)
        if batch_size <= 0:
            raise errors.invalid("Batch size must be greater than "
                                 "zero.")
        self.batch_size = batch_size
        self.padded_shapes = padded_shapes
        self.padding_values = padding_values
        self.drop_remainder = bool(drop_remainder)
        self.fused_map = fused_map
        try:
            spec = (input if fused_map is None else fused_map).element_spec()
        except Exception:  # noqa: BLE001 - no static spec: elements are checked instead
            spec = None
        if spec is not None:  # a traced SparseTensor / RaggedTensor: TF refuses it now
            composite.refuse_padded_spec(structure.flatten(spec))
        # TensorFlow checks the padding values when the dataset is made; where the
        # element types are not known yet, the first batch checks them
        self.values_checked = padding_values is None
        if not self.values_checked and fused_map is None and spec is not None:
            check_padding_values(spec, _spec_dtypes(spec), padding_values)
            self.values_checked = True

    def attrs(self):
        a = {"batch_size": self.batch_size}
        if self.padded_shapes is not None:
            a["padded_shapes"] = self.padded_shapes
        if self.padding_values is not None:
            a["padding_values"] = self.padding_values
        if self.drop_remainder:
            a["drop_remainder"] = True
        return a

    def notes(self):
        if self.fused_map is None:
            return []
        fn = self.fused_map.fn
        return ["fused with map: " + fn.describe(),
                "vectorized: one run of the graph per batch" if fn.vectorized else
                "per element"]

    def cardinality(self):
        return batch_cardinality(self.inputs[0].cardinality(), self.batch_size,
                                 self.drop_remainder)

    def element_spec(self):
        """TensorFlow's: the batch size when drop_remainder (else None), then each
        component's `padded_shapes` entry (-1 / None: None), or without one the
        element's own dims (sizes that vary stay None)."""
        from ..._trace import CompositeSpec, Spec
        spec = self.inputs[0].element_spec() if self.fused_map is None else \
            self.fused_map.element_spec()
        if spec is None or any(isinstance(s, CompositeSpec)
                               for s in structure.flatten(spec)):
            return None
        batch = self.batch_size if self.drop_remainder else None
        out = []
        for s, want in zip(structure.flatten(spec), _spread(spec, self.padded_shapes)):
            dims = None if s.shape is None else list(s.shape)
            if dims is not None and want is not None:
                try:
                    given = [None if d is None or int(d) < 0 else int(d)
                             for d in _want(want, len(dims))]
                except (TypeError, ValueError):
                    given = None
                if given is not None and len(given) == len(dims):
                    dims = given
            out.append(Spec(s.dtype, None if dims is None else (batch,) + tuple(dims)))
        return structure.pack(spec, out)

    def stage(self, ctx):
        up = ctx.stage(self.inputs[0])
        shapes, values = self.padded_shapes, self.padding_values
        if self.fused_map is None:
            check = [not self.values_checked]

            def make_batch(raw):
                chunk = list(elements(raw))
                if check[0]:  # element types known only now
                    leaves = structure.flatten(chunk[0])
                    check_padding_values(chunk[0], [np.asarray(x).dtype for x in leaves],
                                         values)
                    check[0] = False
                return pad_stack(chunk, shapes, values)
            return BatchStage(up, self.batch_size, self.drop_remainder, make_batch)
        make = _VectorizedPadded(self.fused_map.fn, shapes, values)
        workers = self.fused_map.workers(ctx)
        fn = self.fused_map.fn

        def run_dropped(raw):  # TF maps a dropped remainder (errors), pads nothing
            for el in elements(raw):
                fn(el)
        if workers == 1:
            return BatchStage(up, self.batch_size, self.drop_remainder, make,
                              run_dropped=run_dropped)
        from .batch import ParallelBatches
        return ParallelBatches(up, make, workers, ctx.deterministic, self.batch_size,
                                self.drop_remainder, run_dropped=run_dropped)


class _VectorizedPadded:
    def __init__(self, fn, padded_shapes, padding_values):
        self.fn = fn
        self.shapes, self.values = padded_shapes, padding_values
        self.spec = fn.output_spec()
        self.per_element = self.spec is not None and any(
            hasattr(s, "kind") for s in structure.flatten(self.spec))

    def per_record(self, raw):
        fn = self.fn
        return pad_stack([fn(el) for el in elements(raw)], self.shapes, self.values)

    def __call__(self, raw):
        if self.per_element or self.spec is None:
            return self.per_record(raw)  # (a SparseTensor / RaggedTensor: TF's TypeError)
        n = len(raw)
        try:
            out, table = run_with_lengths(self.fn, raw, n)
        except Exception:
            return self.per_record(raw)
        specs = structure.flatten(self.spec)
        leaves = structure.flatten(out)
        shapes = _spread(out, self.shapes)
        values = _spread(out, self.values)
        res = []
        for c, (s, v) in enumerate(zip(specs, leaves)):
            if composite.is_ragged(v):  # rows (tfnano._trace): padded to the longest
                a = _rows_padded(v, _pad_value(values[c], np.asarray(v.values).dtype))
            else:
                a = np.asarray(v)
                if s.shape is None or None in s.shape:
                    lengths = lengths_of(table, a)
                    if isinstance(lengths, str):  # stacked per-record arrays: no padding
                        lengths = np.full(n, a.shape[1] if a.ndim > 1 else 0, np.int64)
                    if lengths is None or s.shape is None or None in s.shape[1:]:
                        self.per_element = True  # a varying shape not from the parser
                        return self.per_record(raw)
                    a = _repad(a, lengths, _pad_value(values[c], a.dtype))
            target = list(a.shape[1:])
            _apply_want(target, _want(shapes[c], a.ndim - 1))
            if target != list(a.shape[1:]):
                pv = _pad_value(values[c], a.dtype)
                big = np.full([n] + target, pv, dtype=a.dtype)
                big[(slice(None),) + tuple(slice(0, d) for d in a.shape[1:])] = a
                a = big
            res.append(as_tensor(a))
        return structure.pack(out, res)


def _rows_padded(rt, pv):
    """Rows (a RaggedTensor whose rows are records) padded with `pv` to the longest."""
    splits = np.asarray(rt.row_splits)
    lengths = np.diff(splits)
    values = np.asarray(rt.values)
    width = int(lengths.max()) if len(lengths) else 0
    out = np.full((len(lengths), width) + values.shape[1:], pv, dtype=values.dtype)
    if len(values):
        rowid = np.repeat(np.arange(len(lengths)), lengths)
        out[rowid, np.arange(len(values)) - splits[:-1][rowid]] = values
    return out


def _repad(a, lengths, pv):
    """Rows at or past each record's length -> the padding value."""
    rows = a.shape[1]
    past = np.arange(rows)[None, :] >= np.asarray(lengths)[:, None]
    if past.any():
        a = np.array(a)  # the parser's output may be shared with other components
        a[past] = pv
    return a


__all__ = ["PaddedBatchNode", "pad_stack"]
