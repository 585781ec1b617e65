"""``tf.data.experimental.CsvDataset`` and ``make_csv_dataset``.

CsvDataset reads each file whole (decompressed when asked) and splits it into records
as TensorFlow's CSV reader does: a record ends at an unquoted newline, "\\r" outside
quotes is dropped, a quoted field may hold the delimiter, newlines and doubled quotes,
an empty line is a record of one empty field. Errors carry TensorFlow's texts (they do
not number the record). make_csv_dataset follows TensorFlow's recipe: files sorted by
name (shuffled when `shuffle`), column names from the header, column types inferred
from the first rows as TensorFlow infers them, then shuffle / repeat / batch and a dict
of columns per batch."""
import collections
import csv
import gzip
import zlib

import numpy as np

from .. import dtypes as _dt
from .. import errors
from .._tensor import as_tensor
from . import plan
from .readers import _filenames

_INT_TEXT = __import__("re").compile(rb"^\s*[-+]?\d+\s*$")


def _column_default(d):
    """(numpy dtype, default or None when the column is required) of one entry."""
    if isinstance(d, _dt.DType) or isinstance(d, type) or isinstance(d, np.dtype):
        return np.dtype(_dt.as_dtype(d).as_numpy_dtype), None
    from .._tensor import constant
    a = np.asarray(constant(d) if not isinstance(d, np.ndarray) else d)
    if a.size > 1:
        raise errors.invalid("Each record default should be at most rank 1")
    if a.dtype.kind in "SUO":
        return np.dtype(object), (None if a.size == 0 else _as_bytes(a.reshape(-1)[0]))
    if a.dtype.name not in ("int32", "int64", "float32", "float64"):
        raise TypeError("Unsupported CSV column type %s" % a.dtype.name)
    return a.dtype, (None if a.size == 0 else a.reshape(-1)[0])


def _as_bytes(v):
    return v.encode("utf-8") if isinstance(v, str) else bytes(v)


def _read_all(name, compression):
    if hasattr(name, "read"):
        data = name.read()
    else:
        from ..io.gfile import gfile
        with gfile.GFile(name, "rb") as f:
            data = f.read()
    if compression == "GZIP":
        return gzip.decompress(data)
    if compression == "ZLIB":
        return zlib.decompress(data)
    return data


def _records(data, delim, use_quote):
    """The fields (bytes) of each record of a file's bytes."""
    n, pos, q = len(data), 0, ord('"')
    d, nl, cr = ord(delim), 10, 13
    while pos < n:
        fields = []
        while True:
            if use_quote and pos < n and data[pos] == q:
                buf, j = bytearray(), pos + 1
                while True:
                    if j >= n:
                        raise errors.invalid("Reached end of file without closing quoted field "
                                              "in record")
                    c = data[j]
                    if c == q:
                        if j + 1 < n and data[j + 1] == q:
                            buf.append(q)
                            j += 2
                            continue
                        if j + 1 >= n or data[j + 1] in (d, nl, cr):
                            j += 1
                            break
                        j += 1  # a lone quote inside: the field goes on
                        continue
                    buf.append(c)
                    j += 1
                while j < n and data[j] == cr:
                    j += 1
                fields.append(bytes(buf))
                pos = j
            else:
                j = pos
                while j < n and data[j] != d and data[j] != nl:
                    j += 1
                fields.append(data[pos:j].replace(b"\r", b""))
                pos = j
            if pos >= n or data[pos] == nl:
                pos += 1
                break
            pos += 1  # the delimiter
        yield fields


def _convert(text, dtype, default, idx, na_value):
    if text == b"" or (na_value and text == na_value):
        if default is None:
            raise errors.invalid("Field %d is required but missing in record!" % idx)
        return default
    if dtype.kind == "O":
        return text
    shown = text.decode("utf-8", "replace")
    if dtype.kind == "i":
        ok = _INT_TEXT.match(text) is not None
        if ok:
            v = int(text)
            info = np.iinfo(dtype)
            ok = info.min <= v <= info.max
        if not ok:
            raise errors.invalid("Field %d in record is not a valid %s: %s"
                                 % (idx, dtype.name, shown))
        return v
    try:
        if b"_" in text:
            raise ValueError
        return float(text)
    except ValueError:
        raise errors.invalid("Field %d in record is not a valid %s: %s" % (
                   idx, "float" if dtype == np.float32 else "double", shown)) from None


class CsvNode(plan.Node):
    op = "csv_dataset"

    def __init__(self, files, columns, compression, header, delim, use_quote, na_value,
                 select):
        super().__init__()
        self.files, self.columns, self.compression = files, columns, compression
        self.header, self.delim, self.use_quote = header, delim, use_quote
        self.na_value, self.select = na_value, select

    def element_spec(self):
        from .._trace import Spec
        return tuple(Spec(dt, ()) for dt, _ in self.columns)

    def attrs(self):
        return {"files": len(self.files), "columns": len(self.columns)}

    def stage(self, ctx):
        return plan.IterStage(self._rows())

    def _rows(self):
        ncols = len(self.columns)
        for name in self.files:
            recs = _records(_read_all(name, self.compression), self.delim, self.use_quote)
            if self.header:
                next(recs, None)
            for fields in recs:
                # Fields are converted as they are read, so a bad value is reported
                # before a wrong field count (as TensorFlow's reader does).
                if self.select is None:
                    picked = fields[:ncols]
                else:
                    picked = [fields[c] for c in self.select if c < len(fields)]
                values = tuple(
                    as_tensor(np.asarray(_convert(t, dt, dflt, i, self.na_value), dtype=dt))
                    for i, (t, (dt, dflt)) in enumerate(zip(picked, self.columns)))
                if self.select is None and len(fields) > ncols:
                    raise errors.invalid("Expect %d fields but have more in record" % ncols)
                if len(picked) < ncols:
                    raise errors.invalid("Expect %d fields but have %d in record"
                                          % (ncols, len(picked)))
                yield values


def CsvDataset(filenames, record_defaults, compression_type=None, buffer_size=None,  # noqa: N802
               header=False, field_delim=",", use_quote_delim=True, na_value="",
               select_cols=None, exclude_cols=None, name=None):
    """``tf.data.experimental.CsvDataset``: one tuple of scalars per CSV record, typed
    by `record_defaults` (a dtype, or an empty default, makes the column required)."""
    from .dataset import Dataset
    from .line_readers import _compression
    columns = [_column_default(d) for d in record_defaults]
    if select_cols is not None and exclude_cols is not None:
        raise errors.invalid("Either select_cols or exclude_cols should be empty")
    select = None
    if select_cols is not None:
        select = [int(c) for c in np.asarray(select_cols).reshape(-1)]
        if len(select) != len(columns):
            raise errors.invalid("select_cols should match output size")
        if any(b <= a for a, b in zip(select, select[1:])):
            raise errors.invalid("select_cols is not strictly increasing.")
        if select and select[0] < 0:
            raise errors.invalid("select_cols contains negative values.")
    elif exclude_cols is not None:
        skip = {int(c) for c in np.asarray(exclude_cols).reshape(-1)}
        select, c = [], 0
        while len(select) < len(columns):
            if c not in skip:
                select.append(c)
            c += 1
    na = _as_bytes(na_value) if na_value else b""
    return Dataset(CsvNode(_filenames(filenames), columns, _compression(compression_type),
                           bool(header), field_delim, bool(use_quote_delim), na, select))


# --- make_csv_dataset ------------------------------------------------------------

def _file_names(file_pattern):
    from ..io.gfile import gfile
    if isinstance(file_pattern, list):
        if not file_pattern:
            raise ValueError("Argument `file_pattern` should not be empty.")
        names = [n for p in file_pattern for n in gfile.glob(p)]
    else:
        names = list(gfile.glob(file_pattern))
    if not names:
        raise ValueError("No files match `file_pattern` %s." % (file_pattern,))
    return sorted(names)


def _open_text(compression, encoding):
    if compression == "GZIP":
        return lambda n: gzip.open(n, "rt", encoding=encoding)
    return lambda n: open(n, "r", encoding=encoding, newline="")


def _csv_kwargs(delim, use_quote):
    return {"delimiter": delim,
            "quoting": csv.QUOTE_MINIMAL if use_quote else csv.QUOTE_NONE}


def _header_names(files, delim, use_quote, opener):
    names = None
    for i, f in enumerate(files):
        with opener(f) as fh:
            try:
                row = next(csv.reader(fh, **_csv_kwargs(delim, use_quote)))
            except StopIteration:
                raise ValueError("Failed when reading the header line of %s. Is it an "
                                 "empty file?" % f) from None
        if i == 0:
            names = row
        elif row != names:
            raise ValueError("All input CSV files should have the same column names in the "
                             "header row. File %s has different column names." % f)
    return names


def _kind_of(text, na_value, prev):
    """The narrowest of int32, int64, float32, float64, string that holds `text` and
    every earlier value of the column (TensorFlow's inference order)."""
    if text in ("", na_value):
        return prev
    order = ["int32", "int64", "float32", "float64", "string"]

    def fits(kind):
        try:
            if kind == "int32":
                return np.int32(text) == np.int64(text)
            if kind == "int64":
                np.int64(text)
                return True
            if kind in ("float32", "float64"):
                return getattr(np, kind)(text) < np.inf
            return True
        except (ValueError, OverflowError):
            return False
    for i, kind in enumerate(order):
        if fits(kind) and (prev is None or prev in order[:i + 1]):
            return kind
    return "string"


def _infer_defaults(files, ncols, delim, use_quote, na_value, header, nrows, select, opener):
    cols = list(range(ncols)) if select is None else select
    kinds = [None] * len(cols)
    seen = 0
    for f in files:
        with opener(f) as fh:
            rdr = csv.reader(fh, **_csv_kwargs(delim, use_quote))
            row_num = 1
            if header:
                next(rdr, None)
                row_num += 1
            for row in rdr:
                if nrows is not None and seen >= nrows:
                    break
                if len(row) != ncols:
                    raise ValueError("Problem inferring types: CSV row %d has %d number of "
                                     "fields. Expected: %d." % (row_num, len(row), ncols))
                row_num += 1
                for j, c in enumerate(cols):
                    kinds[j] = _kind_of(row[c], na_value, kinds[j])
                seen += 1
        if nrows is not None and seen >= nrows:
            break
    return [[""] if (k or "string") == "string" else np.array([0], dtype=k) for k in kinds]


def _select_indices(select_columns, names):
    index = {n: i for i, n in enumerate(names)}
    out = []
    for v in select_columns:
        if isinstance(v, int):
            if v < 0 or v >= len(names):
                raise ValueError("Column index %d specified in `select_columns` should be > 0 "
                                 " and <= %d, which is the number of columns." % (v, len(names)))
            out.append(v)
        elif v not in index:
            raise ValueError("Column %s specified in `select_columns` must be of one of the "
                             "columns: %s." % (v, index.keys()))
        else:
            out.append(index[v])
    result = sorted(set(out))
    if len(result) != len(select_columns):
        # TensorFlow looks for the duplicates in the already de-duplicated list, so its
        # message always shows an empty set; kept for the same text.
        raise ValueError("The `select_columns` argument contains duplicate columns: %s."
                         % set(a for a, b in zip(result[:-1], result[1:]) if a == b))
    return result


def make_csv_dataset(file_pattern, batch_size, column_names=None, column_defaults=None,
                     label_name=None, select_columns=None, field_delim=",",
                     use_quote_delim=True, na_value="", header=True, num_epochs=None,
                     shuffle=True, shuffle_buffer_size=10000, shuffle_seed=None,
                     prefetch_buffer_size=None, num_parallel_reads=None, sloppy=False,
                     num_rows_for_inference=100, compression_type=None, ignore_errors=False,
                     encoding="utf-8"):
    """``tf.data.experimental.make_csv_dataset``: batches of {column: values} (and the
    label column apart when `label_name` is given) from CSV files with a header."""
    from .dataset import Dataset
    from .plan import AUTOTUNE
    num_parallel_reads = 1 if num_parallel_reads is None else num_parallel_reads
    files = _file_names(file_pattern)
    ds = Dataset.from_tensor_slices(files)
    if shuffle:
        ds = ds.shuffle(len(files), shuffle_seed)
    comp = compression_type or ""
    if comp not in ("", "GZIP", "ZLIB"):
        raise ValueError("Received unknown `compression_type` %s. Expected: GZIP, ZLIB or "
                         " (empty string)." % compression_type)
    opener = _open_text(comp, encoding)
    if column_names is None or column_defaults is None:
        if comp == "ZLIB":
            raise ValueError("`compression_type` %s is not supported for probing columns."
                             % compression_type)
    if column_names is None:
        if not header:
            raise ValueError("Expected `column_names` or `header` arguments. Neither is "
                             "provided.")
        column_names = _header_names(files, field_delim, use_quote_delim, opener)
    column_names = list(column_names)
    if len(column_names) != len(set(column_names)):
        s = sorted(column_names)
        raise ValueError("Either `column_names` argument or CSV header row contains "
                         "duplicate column names: %s." % set(a for a, b in zip(s[:-1], s[1:])
                                                             if a == b))
    if select_columns is not None:
        select_columns = _select_indices(select_columns, column_names)
    if column_defaults is None:
        column_defaults = _infer_defaults(files, len(column_names), field_delim,
                                          use_quote_delim, na_value, header,
                                          num_rows_for_inference, select_columns, opener)
    if select_columns is not None and len(column_defaults) != len(select_columns):
        raise ValueError("If specified, `column_defaults` and `select_columns` must have the "
                         "same length: `column_defaults` has length %d, `select_columns` has "
                         "length %d." % (len(column_defaults), len(select_columns)))
    if select_columns is not None and len(column_names) > len(select_columns):
        column_names = [column_names[i] for i in select_columns]
    if label_name is not None and label_name not in column_names:
        raise ValueError("`label_name` provided must be one of the columns: %s. Received: %s."
                         % (column_names, label_name))

    def per_file(filename):
        d = CsvDataset(filename, column_defaults, compression_type=compression_type,
                       header=header, field_delim=field_delim, use_quote_delim=use_quote_delim,
                       na_value=na_value, select_cols=select_columns)
        return d.ignore_errors() if ignore_errors else d

    ds = ds.interleave(per_file, cycle_length=num_parallel_reads, block_length=1)
    if shuffle:
        ds = ds.shuffle(shuffle_buffer_size, shuffle_seed)
    if num_epochs != 1:
        ds = ds.repeat(num_epochs)
    ds = ds.batch(batch_size, drop_remainder=num_epochs is None)
    names = list(column_names)

    def to_dict(*columns):
        features = collections.OrderedDict(zip(names, columns))
        if label_name is not None:
            label = features.pop(label_name)
            return features, label
        return features

    ds = ds.map(to_dict)
    return ds.prefetch(AUTOTUNE if prefetch_buffer_size is None else prefetch_buffer_size)
