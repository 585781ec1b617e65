"""tfnano.io.verify_records: reads a TFRecord file to its end in skip mode and reports
what is damaged (the byte ranges skipped, a truncated tail, a broken compressed
stream), for `tfnano verify` and for anyone checking shards before training."""
import collections
import os

from .._c.record import DamagedRange, DamagedRecordsWarning  # noqa: F401 (tfnano.io's)

VerifyReport = collections.namedtuple(
    "VerifyReport", "path compression records payload_bytes damaged skipped_bytes error ok")
VerifyReport.__doc__ = """What verify_records found in one file.

path, compression: the file and its compression ("", "ZLIB" or "GZIP"; detected when
    not given).
records, payload_bytes: good records (CRCs match) and their payload bytes.
damaged: the ranges skipped, a list of DamagedRange(offset, length, record_index,
    reason) in the (decompressed) stream; the first 10,000.
skipped_bytes: their total size.
error: None, or what ended reading before the end: a truncated last record
    ("truncated record at ...", offset in the message) or a broken compressed stream
    ("inflate() failed ..."); str() of the error, naming file, record and offset.
ok: no damage and no error."""


def verify_records(path, compression=None, buffer_size=1 << 20):
    """Reads every record of `path` (a path or a binary file object) with damaged
    ranges skipped, and returns a VerifyReport. compression: None detects it (plain,
    ZLIB or GZIP), else "", "ZLIB" or "GZIP" as TFRecordDataset's compression_type.
    Raises only when the file cannot be opened (NotFoundError, ...)."""
    from .. import errors
    from .._c import record as _crecord
    from .tf_record import tf_compression
    comp = "AUTO" if compression is None else tf_compression(compression)
    source = path if hasattr(path, "read") else os.fspath(path)
    if isinstance(source, bytes):
        source = os.fsdecode(source)
    r = _crecord.Reader(source, comp, buffer_size, on_damage="skip")
    records = payload = 0
    error = None
    try:
        while True:
            try:
                got = r.read_batch(4096)
            except errors.OpError as e:
                error = str(e)
                break
            if got is None:
                break
            data, offsets = got
            records += len(offsets) - 1
            payload += len(data)
        detected = r.compression()
    finally:
        skipped, skipped_bytes = list(r.skipped), r.skipped_bytes
        r.close()
    return VerifyReport(path=r.name, compression=detected if detected in ("ZLIB", "GZIP") else "", records=records,
                        payload_bytes=payload, damaged=skipped, skipped_bytes=skipped_bytes,
                        error=error, ok=not skipped and error is None)
