"""write_shards: a dataset into numbered TFRecord shards, the common notebook job.

Shard sizes follow the Kaggle / TensorFlow guidance for TPU and GPU input pipelines:
tens to hundreds of files of tens to hundreds of MB each, so that files can be read in
parallel and each read is large. Each shard is written under a temporary name and
renamed when everything has been written, so a failed run leaves no file that looks
finished."""
import os

import numpy as np

from .._progress import Progress
from .tf_record import TFRecordWriter, record_bytes

DEFAULT_BYTES_PER_SHARD = 100 * 1000 * 1000  # ~100 MB before compression
_FRAMING = 16
_CHUNK_ROWS = 8192


def _sliceable(col):
    """Row slices of it are columns of their own ((values, row_splits) pairs are not)."""
    return isinstance(col, (np.ndarray, list))


def _column_records(columns):
    """(total rows, iterator of (data, offsets) chunks) for a dict of columns."""
    from .._c.columns import num_rows, encode_columns
    n = num_rows(columns)
    if not all(_sliceable(c) for c in columns.values()):
        return n, iter([encode_columns(columns, n)])

    def chunks():
        for start in range(0, n, _CHUNK_ROWS):
            part = {k: c[start:start + _CHUNK_ROWS] for k, c in columns.items()}
            yield encode_columns(part, min(_CHUNK_ROWS, n - start))
    return n, chunks()


def _as_record(item):
    if hasattr(item, "SerializeToString"):
        return item.SerializeToString()
    return record_bytes(item)


def _records(data):
    """(total or None, iterator of record bytes)."""
    if isinstance(data, dict):
        total, chunks = _column_records(data)

        def each():
            for blob, offsets in chunks:
                o = offsets.tolist()
                view = memoryview(blob)
                for i in range(len(o) - 1):
                    yield view[o[i]:o[i + 1]]
        return total, each()
    total = len(data) if hasattr(data, "__len__") else None
    return total, (_as_record(x) for x in data)


def _fs():
    from .gfile import gfile
    return gfile


def write_shards(data, pattern, records_per_shard=None, bytes_per_shard=None,
                 compression=None, progress=None):
    """Writes records into numbered TFRecord shards and returns their paths in order.

    data: a dict of numpy columns (as ``tfnano.serialize_columns`` takes), or any
    iterable of records (bytes, str, tf.train.Example, scalar string tensors).
    pattern: a path or URL with ``{shard}`` and optionally ``{num_shards}``, e.g.
    ``"out/train-{shard:05d}-of-{num_shards:05d}.tfrec"``.
    records_per_shard / bytes_per_shard: where to cut (at most one; neither means
    bytes_per_shard=100 MB of records before compression).
    compression: None, "GZIP" or "ZLIB" (as tf.io.TFRecordOptions).
    progress: True / False, or None for a progress line on a terminal after 1 s.

    Shards are written under temporary names and renamed only when all are complete;
    on an error the temporary files are removed and nothing is renamed."""
    if records_per_shard is not None and bytes_per_shard is not None:
        raise ValueError("give records_per_shard or bytes_per_shard, not both")
    if records_per_shard is not None and int(records_per_shard) < 1:
        raise ValueError("records_per_shard must be >= 1, got %r" % (records_per_shard,))
    if bytes_per_shard is not None and int(bytes_per_shard) < 1:
        raise ValueError("bytes_per_shard must be >= 1, got %r" % (bytes_per_shard,))
    pattern = os.fspath(pattern)
    try:
        if pattern.format(shard=0, num_shards=2) == pattern.format(shard=1, num_shards=2):
            raise ValueError("pattern %r has no {shard} field: shards would overwrite "
                             "each other" % pattern)
    except (KeyError, IndexError) as e:
        raise ValueError("pattern %r: unknown field %s (use {shard} and {num_shards})"
                         % (pattern, e)) from None
    if records_per_shard is None and bytes_per_shard is None:
        bytes_per_shard = DEFAULT_BYTES_PER_SHARD
    gfile = _fs()
    parent = os.path.dirname(pattern.format(shard=0, num_shards=1))
    if parent and not gfile.exists(parent):
        gfile.makedirs(parent)
    tmp_names = []
    writer = None
    in_shard = shard_bytes = 0
    total, records = _records(data)
    try:
        with Progress("write_shards", total=total, enabled=progress) as bar:
            for rec in records:
                if writer is not None and (
                        (records_per_shard is not None and in_shard >= records_per_shard)
                        or (bytes_per_shard is not None and shard_bytes >= bytes_per_shard)):
                    writer.close()
                    writer = None
                if writer is None:
                    final = pattern.format(shard=len(tmp_names), num_shards=0)
                    tmp = "%s.tmp-%d" % (final, os.getpid())
                    tmp_names.append(tmp)
                    writer = TFRecordWriter(tmp, options=compression)
                    in_shard = shard_bytes = 0
                writer.write(rec if rec.__class__ is bytes else bytes(rec))
                in_shard += 1
                shard_bytes += len(rec) + _FRAMING
                bar.update(records=1, nbytes=len(rec) + _FRAMING)
            if writer is not None:
                writer.close()
                writer = None
        finals = [pattern.format(shard=i, num_shards=len(tmp_names))
                  for i in range(len(tmp_names))]
        for tmp, final in zip(tmp_names, finals):
            gfile.rename(tmp, final, overwrite=True)
        tmp_names = []
        return finals
    finally:
        if writer is not None:
            try:
                writer.close()
            except Exception:
                pass
        for tmp in tmp_names:
            try:
                gfile.remove(tmp)
            except Exception:
                pass
