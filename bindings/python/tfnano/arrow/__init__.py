"""tfnano.arrow: tf.train.Examples <-> Apache Arrow (pip install 'tfnano[arrow]').

    to_arrow(records, features=None) -> pyarrow.RecordBatch   (C batch parser)
    to_arrow(records, context, sequence_features=...)         (SequenceExamples)
    from_arrow(batch_or_table)       -> serialized Examples   (tfn_arrow_encode: one C pass)
    infer_features(records)          -> {key: feature config}  (the inferred schema)
    TFRecordReader(files, features)  -> Arrow stream (__arrow_c_stream__) of shards

pyarrow is imported on first use; the C library links no Arrow library (it reads
Arrow memory through the Arrow C data interface). See
docs/scale.md for the type mapping and the Dask, Beam, Spark and Ray recipes.
"""
from ._from_arrow import from_arrow
from ._reader import TFRecordReader
from ._to_arrow import to_arrow


def infer_features(records, sample=1000):
    """The feature configs to_arrow infers for `records` (from the first `sample`):
    {key: FixedLenFeature / VarLenFeature}, usable as ``features=`` later."""
    from . import _features as F
    from ._to_arrow import infer_columns, records_of
    return F.to_features(infer_columns(records_of(records), sample))


def schema(features, large_lists=False):
    """The pyarrow.Schema to_arrow gives for these feature configs."""
    from . import _features as F
    from ._to_arrow import _pa
    return F.arrow_schema(_pa(), F.normalize(features), large_lists)


__all__ = ["to_arrow", "from_arrow", "infer_features", "schema", "TFRecordReader"]
