"""tfnano.dask: TFRecord datasets as Dask DataFrames (pip install 'tfnano[dask]').

    read_tfrecord(urlpath_or_glob, features=None, compression=None) -> dask DataFrame
        one partition per shard, parsed by tfnano's C batch parser into Arrow-backed
        pandas columns (pd.ArrowDtype: lists stay lists, bytes stay bytes);
    to_tfrecord(ddf, "out/train-*.tfrec", compression=None, records_per_shard=None)
        -> shard paths; one shard per partition (or per records_per_shard rows), encoded by tfnano's C columnar encoder, named as
        TensorFlow / Beam name shards (train-00000-of-00016.tfrec), each written under
        a temporary name and renamed when complete, plus a manifest of record counts.

dask, pandas and pyarrow are imported on first use. See docs/scale.md.
"""
import json
import os
import uuid

from ..arrow._reader import expand_paths

__all__ = ["read_tfrecord", "to_tfrecord", "shard_paths"]


def _dd():
    try:
        import dask.dataframe as dd
    except ImportError:
        raise ImportError("tfnano.dask needs dask: pip install 'tfnano[dask]'") from None
    return dd


# ----------------------------------------------------------------- reading

def _read_shard(path, features, compression, batch_size, large_lists):
    import pandas as pd
    from ..arrow import TFRecordReader
    reader = TFRecordReader([path], features, compression, batch_size, large_lists)
    return reader.read_all().to_pandas(types_mapper=pd.ArrowDtype)


def read_tfrecord(urlpath, features=None, compression=None, batch_size=65536,
                  large_lists=False):
    """TFRecord shards -> dask.dataframe.DataFrame, one partition per file.

    urlpath: a path, glob pattern or URL (gs://, s3:// through fsspec), or a list.
    features: {key: tf.io.FixedLenFeature / VarLenFeature / ...} as for
    tfnano.arrow.to_arrow; None infers them from the first records of the first file.
    compression: None, "GZIP" or "ZLIB". Columns are pandas ArrowDtype columns with
    the Arrow types of tfnano.arrow (missing fixed-length features are <NA>)."""
    dd = _dd()
    import pandas as pd
    from ..arrow import TFRecordReader
    files = expand_paths(urlpath)
    if not files:
        raise FileNotFoundError("no TFRecord file matches %r" % (urlpath,))
    if features is None:
        features = TFRecordReader(files[:1], None, compression).features
    from ..arrow import schema as arrow_schema
    meta = arrow_schema(features, large_lists).empty_table().to_pandas(
        types_mapper=pd.ArrowDtype)
    return dd.from_map(_read_shard, files, features=features, compression=compression,
                       batch_size=batch_size, large_lists=large_lists, meta=meta,
                       label="read-tfrecord", enforce_metadata=False)


# ----------------------------------------------------------------- writing

def shard_paths(pattern, num_shards):
    """The shard names for a pattern: ``*`` becomes ``SSSSS-of-NNNNN`` (TensorFlow's
    and Beam's naming, e.g. train-00003-of-00016.tfrec); ``{shard}`` and
    ``{num_shards}`` fields are also accepted."""
    pattern = os.fspath(pattern)
    if "{shard" in pattern:
        return [pattern.format(shard=i, num_shards=num_shards) for i in range(num_shards)]
    if pattern.count("*") != 1:
        raise ValueError("pattern %r: put exactly one * where the shard number goes "
                         "(e.g. out/train-*.tfrec)" % pattern)
    head, tail = pattern.split("*")
    return ["%s%05d-of-%05d%s" % (head, i, num_shards, tail) for i in range(num_shards)]


def _manifest_path(pattern):
    pattern = os.fspath(pattern)
    if "*" in pattern:
        return pattern.split("*")[0] + "manifest.json"
    return os.path.join(os.path.dirname(pattern), "manifest.json")


def _fs():
    from ..io.gfile import gfile
    return gfile


def write_partition(df, path, compression=None):
    """Writes one pandas DataFrame (or pyarrow Table) as one TFRecord shard, under a
    temporary name renamed to `path` when complete; returns {path, records, bytes}.
    A retried task rewrites the same bytes: the rename is the commit."""
    import pyarrow as pa
    from ..io.tf_record import TFRecordWriter
    from ..arrow._from_arrow import encode_arrow
    table = df if isinstance(df, (pa.Table, pa.RecordBatch)) else \
        pa.Table.from_pandas(df, preserve_index=False)
    gfile = _fs()
    parent = os.path.dirname(path)
    if parent and not gfile.exists(parent):
        gfile.makedirs(parent)
    tmp = "%s.tmp-%s" % (path, uuid.uuid4().hex[:12])
    records = nbytes = 0
    try:
        with TFRecordWriter(tmp, options=compression) as w:
            for data, offsets in encode_arrow(table):
                w._check_open()
                w._w.write_joined(data, offsets)
                records += len(offsets) - 1
                nbytes += len(data)
        gfile.rename(tmp, path, overwrite=True)
    except BaseException:
        try:
            gfile.remove(tmp)
        except Exception:
            pass
        raise
    return {"path": os.path.basename(path), "records": records, "bytes": nbytes}


def write_partition_chunks(df, paths, records_per_shard, compression=None):
    """Writes a partition as consecutive shards of records_per_shard rows (the last
    may be shorter), one per path; returns their manifest entries."""
    import pyarrow as pa
    table = df if isinstance(df, pa.Table) else pa.Table.from_pandas(df, preserve_index=False)
    return [write_partition(table.slice(k * records_per_shard, records_per_shard), path,
                            compression) for k, path in enumerate(paths)]


def _finish(results, pattern, paths, compression):
    """Writes the manifest and removes temporary files left by killed attempts."""
    gfile = _fs()
    for p in paths:
        for stale in gfile.glob(p + ".tmp-*"):
            try:
                gfile.remove(stale)
            except Exception:
                pass
    manifest = {
        "pattern": os.path.basename(os.fspath(pattern)),
        "num_shards": len(paths),
        "records": sum(r["records"] for r in results),
        "compression": compression or "",
        "shards": list(results),
    }
    mpath = _manifest_path(pattern)
    tmp = mpath + ".tmp-" + uuid.uuid4().hex[:12]
    with gfile.GFile(tmp, "w") as f:
        f.write(json.dumps(manifest, indent=1) + "\n")
    gfile.rename(tmp, mpath, overwrite=True)
    return paths


def to_tfrecord(ddf, pattern, compression=None, compute=True, records_per_shard=None):
    """Writes a dask DataFrame as TFRecord shards of tf.train.Examples, one per
    partition, in parallel; returns the shard paths (or, with compute=False, a
    dask Delayed that writes them).

    pattern: e.g. "out/train-*.tfrec" (or gs://...): * becomes 00003-of-00016.
    Columns map as tfnano.arrow.from_arrow: integers / bool -> int64, floats ->
    float32, bytes / str -> bytes, list columns -> lists; a null leaves the feature
    out of that Example. Next to the shards, "<prefix>manifest.json" (e.g.
    out/train-manifest.json) lists every shard with its record count.
    records_per_shard: cut each partition into shards of that many records instead
    (the last of a partition may be shorter); partition lengths are computed first,
    so persist the frame when computing it twice is costly."""
    from dask import compute as dask_compute, delayed
    parts = ddf.to_delayed()
    if records_per_shard is None:
        paths = shard_paths(pattern, ddf.npartitions)
        writes = [delayed(write_partition, pure=False)(part, path, compression)
                  for part, path in zip(parts, paths)]
    else:
        rps = int(records_per_shard)
        if rps < 1:
            raise ValueError("records_per_shard must be >= 1, got %r" % (records_per_shard,))
        lengths = dask_compute(*[delayed(len)(p) for p in parts])
        counts = [max(1, -(-n // rps)) if n else 0 for n in lengths]
        paths = shard_paths(pattern, sum(counts))
        writes, at = [], 0
        for part, c in zip(parts, counts):
            if c:
                writes.append(delayed(write_partition_chunks, pure=False)(
                    part, paths[at:at + c], rps, compression))
            at += c
        writes = delayed(lambda groups: [r for g in groups for r in g])(writes)
    done = delayed(_finish, pure=False)(writes, os.fspath(pattern), paths, compression)
    return done.compute() if compute else done
