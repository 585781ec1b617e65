"""from_arrow: Arrow record batches -> serialized Examples.

Each record batch goes to tfn_arrow_encode through the Arrow C data interface (the
batch's ``__arrow_c_array__`` capsules): one C pass over the Arrow buffers writes every
row's Example, nulls becoming absent features. No Python object per row or value, no
copy of the Arrow data.
"""
import re

import numpy as np

from .._c import arrow as _carrow
from ._to_arrow import _pa

def _encode_capsules(schema_capsule, array_capsule):
    """(data uint8 ndarray, offsets uint64 ndarray) of one exported record batch."""
    return _carrow.encode_capsules(schema_capsule, array_capsule)


def _plain_type(pa, t):
    """`t` with every dictionary type replaced by its value type (None: no dictionary)."""
    if pa.types.is_dictionary(t):
        return _plain_type(pa, t.value_type) or t.value_type
    if pa.types.is_fixed_size_list(t) or pa.types.is_list(t) or pa.types.is_large_list(t):
        inner = _plain_type(pa, t.value_type)
        if inner is None:
            return None
        if pa.types.is_fixed_size_list(t):
            return pa.list_(inner, t.list_size)
        return pa.large_list(inner) if pa.types.is_large_list(t) else pa.list_(inner)
    return None


def _decode_dictionaries(pa, batch):
    """Dictionary-encoded columns decoded (the C encoder reads plain values)."""
    plain = [_plain_type(pa, f.type) for f in batch.schema]
    if not any(p is not None for p in plain):
        return batch
    cols = [c if p is None else c.cast(p) for c, p in zip(batch.columns, plain)]
    return pa.RecordBatch.from_arrays(cols, names=batch.schema.names)


def _batches(data):
    """The record batches of `data`, each an object with __arrow_c_array__."""
    mod = type(data).__module__ or ""
    if mod.startswith("pyarrow"):
        pa = _pa()
        if isinstance(data, pa.RecordBatch):
            return [_decode_dictionaries(pa, data)]
        if isinstance(data, pa.Table):
            return [_decode_dictionaries(pa, b) for b in data.to_batches()]
    if hasattr(data, "__arrow_c_array__"):
        return [data]
    if hasattr(data, "__arrow_c_stream__"):
        pa = _pa()
        return (_decode_dictionaries(pa, b) for b in pa.RecordBatchReader.from_stream(data))
    raise TypeError("from_arrow expects a pyarrow RecordBatch or Table (or an object "
                    "with __arrow_c_stream__ / __arrow_c_array__), got %s"
                    % type(data).__name__)


_ROW = re.compile(r"', row (\d+):")  # the C messages' "column '<key>', row <i>: "


def encode_arrow(data):
    """[(data, offsets)] per record batch of `data`."""
    chunks, first = [], 0
    for b in _batches(data):
        try:
            chunks.append(_encode_capsules(*b.__arrow_c_array__()))
        except (ValueError, TypeError) as e:
            if not first:
                raise
            # the C message counts rows from the batch's start: name the table's row
            msg = _ROW.sub(lambda m: "', row %d:" % (int(m.group(1)) + first), str(e),
                           count=1)
            raise type(e)(msg) from None
        first += len(chunks[-1][1]) - 1
    return chunks


def from_arrow(data, *, as_buffer=False, as_arrow=False):
    """A pyarrow RecordBatch or Table -> serialized tf.train.Examples, one per row.

    Columns: integers and bool -> Int64List, floats -> FloatList, binary / string ->
    BytesList; a FixedSizeList or List of those -> a list feature (FixedSizeLists of
    FixedSizeLists are flattened row-major). A null row of a column leaves that
    feature out of that Example. Bytes are identical to building each
    tf.train.Example and calling SerializeToString(). Any object exporting the Arrow
    C data interface (``__arrow_c_array__`` of a struct array, ``__arrow_c_stream__``)
    is read the same way.

    Returns a list of bytes; ``as_buffer=True``: (data, offsets) with record i at
    data[offsets[i]:offsets[i+1]]; ``as_arrow=True``: a pyarrow (Large)BinaryArray of
    the records, built on the same buffer (what Spark's mapInArrow / Ray want).
    """
    chunks = encode_arrow(data)
    if len(chunks) == 1:
        blob, offsets = chunks[0]
    else:
        blob = np.concatenate([c[0] for c in chunks]) if chunks else np.empty(0, np.uint8)
        pieces, base = [np.zeros(1, np.uint64)], 0
        for d, o in chunks:
            pieces.append(o[1:] + np.uint64(base))
            base += len(d)
        offsets = np.concatenate(pieces)
    if as_arrow:
        pa = _pa()
        large = len(blob) > (1 << 31) - 1
        o = offsets.astype(np.int64 if large else np.int32)
        return pa.Array.from_buffers(pa.large_binary() if large else pa.binary(),
                                     len(o) - 1, [None, pa.py_buffer(o),
                                                  pa.py_buffer(blob)])
    if as_buffer:
        return blob, offsets
    view = memoryview(blob)
    o = offsets.tolist()
    return [view[o[i]:o[i + 1]].tobytes() for i in range(len(o) - 1)]
