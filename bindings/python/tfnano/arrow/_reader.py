"""TFRecordReader: TFRecord shards as a stream of Arrow RecordBatches, exported through
the Arrow PyCapsule stream interface (``__arrow_c_stream__``), so polars, DuckDB,
pandas and pyarrow itself read TFRecord files without a copy through Python objects."""
import glob as _glob
import os

from ..io.tf_record import RecordBatch, is_url, open_reader
from . import _features as F
from ._to_arrow import _pa, columns_to_batch, infer_columns, parse_var_len, records_of


def expand_paths(paths):
    """A path, glob pattern or URL, or a list of them -> sorted concrete paths."""
    items = [paths] if isinstance(paths, (str, bytes, os.PathLike)) else list(paths)
    out = []
    for p in items:
        p = os.fsdecode(os.fspath(p))
        if any(ch in p for ch in "*?["):
            if is_url(p):
                from ..io.gfile import gfile
                out.extend(sorted(gfile.glob(p)))
            else:
                out.extend(sorted(_glob.glob(p)))
        else:
            out.append(p)
    return out


def read_record_batches(path, compression=None, batch_size=65536):
    """Yields tfnano RecordBatch objects (one buffer + offsets) of one file."""
    r = open_reader(path, compression or "", 256 << 10)
    try:
        while True:
            got = r.read_batch(batch_size)
            if got is None:
                return
            yield RecordBatch(*got)
    finally:
        r.close()


class TFRecordReader:
    """TFRecord shards read as Arrow RecordBatches of parsed Examples.

    ``TFRecordReader(files, features=None, compression=None, batch_size=65536)``;
    files: a path, glob pattern or URL, or a list of them. Without features the schema
    is inferred from the first records of the first file (``.features`` reports it).
    Iterate it for pyarrow.RecordBatch objects, or hand it to anything that reads the
    Arrow C stream interface: ``pa.table(r)``, ``polars.from_arrow(r)``,
    ``duckdb.sql("select * from r")``, ``pa.RecordBatchReader.from_stream(r)``.
    ``read_all()`` gives a pyarrow Table, ``to_pandas()`` a DataFrame.
    """

    def __init__(self, files, features=None, compression=None, batch_size=65536,
                 large_lists=False):
        self.files = expand_paths(files)
        self.compression = compression
        self.batch_size = int(batch_size)
        self.large_lists = large_lists
        if features is None:
            self._cols = self._infer()
        else:
            self._cols = F.normalize(features)
        self.features = F.to_features(self._cols) if features is None else features
        self.schema = F.arrow_schema(_pa(), self._cols, large_lists)

    def _infer(self):
        for path in self.files:
            for batch in read_record_batches(path, self.compression, 1000):
                return infer_columns(records_of(batch), 1000)
        raise ValueError("cannot infer a schema: no record in %r; pass features"
                         % (self.files,))

    def _parse(self, records):
        pa = _pa()
        recs = records_of(records)
        parsed = parse_var_len(recs, self._cols)
        return columns_to_batch(pa, self._cols, parsed, recs.n, self.schema,
                                self.large_lists)

    def iter_file(self, path):
        """RecordBatches of one file."""
        for batch in read_record_batches(path, self.compression, self.batch_size):
            yield self._parse(batch)

    def __iter__(self):
        for path in self.files:
            yield from self.iter_file(path)

    def to_reader(self):
        """A pyarrow.RecordBatchReader over every file."""
        return _pa().RecordBatchReader.from_batches(self.schema, iter(self))

    def __arrow_c_stream__(self, requested_schema=None):
        return self.to_reader().__arrow_c_stream__(requested_schema)

    def read_all(self):
        return self.to_reader().read_all()

    def to_pandas(self, **kwargs):
        return self.read_all().to_pandas(**kwargs)
