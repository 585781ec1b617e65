"""to_tfrecord: a datasets.Dataset -> TFRecord shards of tf.train.Examples."""
import os

from ..arrow import from_arrow
from ..io import TFRecordWriter


def _pattern_paths(pattern, num_shards):
    pattern = os.fspath(pattern)
    if num_shards == 1 and "{" not in pattern:
        return [pattern]
    paths = [pattern.format(shard=i, num_shards=num_shards) for i in range(num_shards)]
    if len(set(paths)) != num_shards:
        raise ValueError("pattern %r has no {shard} field: %d shards would overwrite "
                         "each other" % (pattern, num_shards))
    return paths


def to_tfrecord(dataset, pattern, num_shards=1, *, compression=None, batch_size=10000):
    """Writes the rows of a ``datasets.Dataset`` (its current selection and order) as
    tf.train.Example records into num_shards TFRecord files of consecutive rows, and
    returns their paths.

    pattern: a path for one shard, or a pattern with ``{shard}`` and optionally
    ``{num_shards}``, e.g. ``"out/train-{shard:05d}-of-{num_shards:05d}.tfrecord"``.
    Columns: integers and bool -> Int64List, floats -> FloatList, binary / string ->
    BytesList, (nested) lists of those -> a list feature, flattened (as
    tfnano.arrow.from_arrow); a null value leaves the feature out of that Example.
    compression: None, "GZIP" or "ZLIB"."""
    num_shards = int(num_shards)
    if num_shards < 1:
        raise ValueError("num_shards must be >= 1, got %r" % (num_shards,))
    paths = _pattern_paths(pattern, num_shards)
    n = len(dataset)
    arrow = dataset.with_format("arrow")
    for i, path in enumerate(paths):
        parent = os.path.dirname(path)
        if parent:
            os.makedirs(parent, exist_ok=True)
        start, stop = n * i // num_shards, n * (i + 1) // num_shards
        with TFRecordWriter(path, compression) as w:
            for s in range(start, stop, batch_size):
                table = arrow[s:min(s + batch_size, stop)]
                w.write_many(from_arrow(table))
    return paths
