"""load_tfrecord: TFRecord files -> a memory-mapped datasets.Dataset."""
import hashlib
import json
import os

from ..arrow import TFRecordReader, schema as arrow_schema


def _datasets():
    try:
        import datasets
    except ImportError:
        raise ImportError("tfnano.hf needs Hugging Face datasets: pip install datasets") \
            from None
    return datasets


def hf_features(features):
    """{key: tf.io.FixedLenFeature / VarLenFeature / ...} -> datasets.Features: int64 /
    float32 / bytes as Value("int64" / "float32" / "binary"); shape [k] as a List of
    length k; several dimensions flattened row-major (a List of their product, as
    tfnano.arrow stores them); sequence and variable-length features as a List."""
    return _datasets().Features.from_arrow_schema(arrow_schema(features))


def _key(paths, features, compression):
    """What the cache file depends on: the files (path, size, mtime) and the schema."""
    from ..io.gfile import gfile  # local paths and URLs (gs://, s3://, ...) alike
    h = hashlib.sha256()
    for p in paths:
        st = gfile.stat(p)
        name = p if "://" in p else os.path.abspath(p)
        h.update(json.dumps([name, st.length, st.mtime_nsec]).encode())
    h.update(repr(sorted((k, repr(v)) for k, v in (features or {}).items())).encode())
    h.update(repr(compression).encode())
    return h.hexdigest()[:24]


def _default_cache_dir():
    datasets = _datasets()
    return os.path.join(str(datasets.config.HF_DATASETS_CACHE), "tfnano")


def load_tfrecord(files, features=None, *, compression=None, cache_dir=None,
                  keep_in_memory=False, batch_size=65536):
    """TFRecord files of tf.train.Examples -> a ``datasets.Dataset``.

    files: a path, glob pattern or URL, or a list of them (read in sorted order).
    features: {key: FixedLenFeature / FixedLenSequenceFeature / VarLenFeature}, or None
      to infer the columns from the first records (as tfnano.arrow.infer_features).
    The records are parsed in batches by tfnano's C parser and written once as an Arrow
    stream file under cache_dir (default: datasets' cache folder, ``tfnano/``), which
    the Dataset memory-maps; the same files and features load from it again without
    parsing. keep_in_memory=True keeps the table in memory and writes nothing."""
    datasets = _datasets()
    import pyarrow as pa
    reader = TFRecordReader(files, features, compression=compression,
                            batch_size=batch_size)
    hf = datasets.Features.from_arrow_schema(reader.schema)
    if keep_in_memory:
        return datasets.Dataset(datasets.table.InMemoryTable(reader.read_all()),
                                info=datasets.DatasetInfo(features=hf))
    folder = os.fspath(cache_dir) if cache_dir is not None else _default_cache_dir()
    os.makedirs(folder, exist_ok=True)
    path = os.path.join(folder, "tfrecord-%s.arrow" % _key(reader.files, features,
                                                          compression))
    if not os.path.exists(path):
        # The schema carries HF's feature metadata, as datasets' own Arrow files do.
        schema = reader.schema.with_metadata(hf.arrow_schema.metadata)
        tmp = "%s.tmp-%d" % (path, os.getpid())
        try:
            with pa.OSFile(tmp, "wb") as sink, pa.ipc.new_stream(sink, schema) as out:
                for batch in reader:
                    out.write_batch(batch.cast(schema) if batch.schema != schema
                                    else batch)
            os.replace(tmp, path)
        finally:
            if os.path.exists(tmp):
                os.remove(tmp)
    return datasets.Dataset.from_file(path)
