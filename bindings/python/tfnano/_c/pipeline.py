"""CPipeline: TFRecord files read, CRC-checked, parsed and batched on C threads.

The engine is lib/pipeline (include/tfnano.h, "Pipeline"): worker threads read the
files in tf.data's interleave order, parse each batch with their own tfn_parser and
hand finished batches over; Python only wraps them. Each item is

  - with ``spec`` (a ``tfnano._parsing._Spec``): ``{key: np.ndarray}``, equal to
    ``_parsing.run(spec, records, tensors=False)`` on the same records (numeric
    outputs are numpy views of the batch's C memory, no copy; bytes features are
    object arrays of bytes);
  - without: a ``tfnano.io.tf_record.RecordBatch`` (one buffer plus offsets, also views).

Errors are the exception classes and messages of tfnano's readers and parse_example,
raised at their place in the stream; iterating again goes on after them.
``next()`` waits in slices of 100 ms with the GIL released, so Ctrl-C works while it
waits. ``close()`` (also run by ``__del__`` and at the end) stops the threads and
closes the files.
"""
import os
import threading

import numpy as np

from .. import _c, errors

ffi = _c.ffi
lib = _c.lib

_WAIT_MS = 100
_COMPRESSION = {"": lib.TFN_COMPRESSION_NONE, "ZLIB": lib.TFN_COMPRESSION_ZLIB,
                "GZIP": lib.TFN_COMPRESSION_GZIP, "AUTO": lib.TFN_COMPRESSION_AUTO}
_ON_DAMAGE = {"raise": lib.TFN_ON_DAMAGE_RAISE, "skip": lib.TFN_ON_DAMAGE_SKIP}
_ON_PARSE_ERROR = {"raise": lib.TFN_ON_PARSE_ERROR_RAISE, "skip": lib.TFN_ON_PARSE_ERROR_SKIP}
_PARSE_STYLE = {"batch": lib.TFN_PARSE_BATCH, "single": lib.TFN_PARSE_SINGLE}
_READ_ERRORS = (lib.TFN_E_DATA_LOSS, lib.TFN_E_DATA_LOSS_LENGTH, lib.TFN_E_TRUNCATED,
                lib.TFN_E_IO)
_NP = {lib.TFN_INT64: np.int64, lib.TFN_INT32: np.int32, lib.TFN_FLOAT32: np.float32}
_BYTES = lib.TFN_BYTES


def _path(f):
    if isinstance(f, bytes):
        f = os.fsdecode(f)
    elif isinstance(f, np.ndarray) and f.ndim == 0:
        f = f.reshape(-1).tolist()[0]
        f = os.fsdecode(f) if isinstance(f, bytes) else str(f)
    f = os.fspath(f)
    if f.startswith("file://"):
        f = f[len("file://"):]
    elif "://" in f:
        raise errors.make(errors.UnimplementedError, "CPipeline reads local files only, "
                          "got %s" % f)
    return f


def _choice(name, value, table):
    key = value.lower() if isinstance(value, str) and table is not _COMPRESSION else value
    if key not in table:
        raise ValueError("%s must be one of %s, got %r" % (name, sorted(table), value))
    return table[key]


def _split_where(text, marker):
    """TensorFlow's text and the "file ..., record ..." part the C library appends."""
    head, sep, tail = text.rpartition(marker)
    return (head, tail) if sep else (text, None)


class _Held:
    """Memory of a C batch as numpy sees it (the array's base): holds the batch, which
    is freed when the last array goes. No Python code runs at that moment (an ffi.gc
    callback would, and a Ctrl-C arriving inside it is swallowed as "Exception
    ignored", so the loop it was meant to stop runs on)."""

    __slots__ = ("owner", "__array_interface__")

    def __init__(self, owner, ptr, count, dtype):
        self.owner = owner
        self.__array_interface__ = {"version": 3, "shape": (count,), "typestr": dtype.str,
                                    "data": (int(ffi.cast("uintptr_t", ptr)), False)}


class CPipeline:
    """Iterates batches of TFRecord files produced on C threads (see the module doc).

    Args mirror tf.data: ``cycle_length`` / ``block_length`` are
    ``interleave(...)``'s (``num_parallel_reads`` is cycle_length with block_length 1),
    ``deterministic=False`` hands batches out as they finish, ``num_threads=0`` (or
    AUTOTUNE, -1; also for cycle_length) uses every CPU this process may run on,
    ``prefetch`` finished batches are kept ready.
    ``on_damage`` / ``on_parse_error``: "raise" (TensorFlow) or "skip" (counted in
    ``stats()``). ``parse_errors="single"`` words parse errors as
    parse_single_example does (for a traced ``map(parse_single_example)``).
    ``error_fills_batch=True``: a read error takes one place of its batch and the
    batch is read to its full size and dropped, as TensorFlow's fused
    ``map(f).batch(n)`` does (default: as ``batch(n)``, the partial batch is dropped
    and the next one starts after the error).
    ``images``: image stages (with ``spec``), each a dict: ``key`` (a scalar bytes
    feature), ``channels``, ``decode`` (decode_jpeg's keyword arguments), ``size``,
    ``method``, ``antialias``, ``dtype`` ("float32" or "uint8"), ``sub`` / ``mul`` /
    ``divide`` (values ``(x - sub) / mul`` or ``(x - sub) * mul``), ``dct_scale``,
    ``op`` ("DecodeJpeg" / "DecodePng" refuse BMP, None decodes any format),
    ``on_error`` ("raise" or "skip"), ``no_resize`` (the image keeps its size: its
    ``size[0] * size[1] * channels`` values in decode order, a reshape of it) and
    ``shape`` (one image's shape in the batch, default (h, w, channels)). Stage k's
    batch is ``item[("image", k)]``, a (n,) + shape view of the batch's C memory. ``hidden``: bytes features not
    copied into Python bytes objects (read by the image stages only).
    """

    def __init__(self, files, *, compression="", buffer_size=262144, cycle_length=1,
                 block_length=1, deterministic=True, batch_size, drop_remainder=False,
                 spec=None, num_threads=0, prefetch=2, on_parse_error="raise",
                 on_damage="raise", parse_errors="batch", error_fills_batch=False,
                 images=None, hidden=(), max_record_size=None):
        self._p = None
        self._lock = threading.Lock()
        if isinstance(files, (str, bytes, os.PathLike)):
            files = [files]
        self._files = [_path(f) for f in files]
        if int(batch_size) <= 0:
            raise ValueError("batch_size must be > 0, got %r" % (batch_size,))
        opts = ffi.new("tfn_pipeline_options *")
        lib.tfn_pipeline_options_init(opts)
        keep = [ffi.new("char[]", os.fsencode(f)) for f in self._files]
        paths = ffi.new("const char *[]", keep or [ffi.NULL])
        opts.paths = paths
        opts.ninputs = len(keep)
        opts.compression = _choice("compression", (compression or "").upper(), _COMPRESSION)
        opts.buffer_size = max(int(buffer_size or 0), 64 * 1024)
        cycle_length = int(cycle_length)
        if cycle_length == -1:  # AUTOTUNE, as tf.data: the CPUs this process may use
            cycle_length = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") \
                else (os.cpu_count() or 1)
        opts.cycle_length = max(1, cycle_length)
        opts.block_length = max(1, int(block_length))
        opts.deterministic = 1 if deterministic or deterministic is None else 0
        opts.batch_size = int(batch_size)
        opts.drop_remainder = 1 if drop_remainder else 0
        opts.num_threads = max(0, int(num_threads or 0))
        opts.prefetch = max(1, int(prefetch)) if prefetch and int(prefetch) > 0 else 2
        opts.on_damage = _choice("on_damage", on_damage, _ON_DAMAGE)
        opts.on_parse_error = _choice("on_parse_error", on_parse_error, _ON_PARSE_ERROR)
        opts.parse_flags = _choice("parse_errors", parse_errors, _PARSE_STYLE)
        opts.error_fills_batch = 1 if error_fills_batch else 0
        from .record import max_record_size as _max_record
        opts.max_record_size = _max_record(max_record_size)
        self._spec = spec
        if spec is not None:
            opts.spec = spec.spec
            opts.max_rows = -1 if spec.maxlen is None else int(spec.maxlen)
            opts.masks = 1 if spec.masks else 0
            # per feature: (key, shape after the batch dim, is sequence, masks)
            self._layout = [(c.key, tuple(c.shape), c.seq) for c in spec.configs]
        self._hidden = frozenset(hidden)
        self._images = []
        if images:
            if spec is None:
                raise ValueError("image stages need a spec")
            stages, keep_opts = self._image_stages(images, spec)
            opts.images = stages
            opts.nimages = len(images)
        out = ffi.new("tfn_pipeline **")
        err = _c.new_error()
        rc = lib.tfn_pipeline_new(opts, ffi.NULL, out, err)
        if rc < 0:
            raise _c.exception(rc, err)
        self._p = out[0]
        self._pid = os.getpid()
        self._out = ffi.new("tfn_pipeline_batch **")
        self._err = err
        self._col = ffi.new("tfn_pipeline_column *")
        self._size = ffi.new("size_t *")
        self._rec = (ffi.new("const uint8_t **"), ffi.new("size_t *"),
                     ffi.new("const uint64_t **"))

    def _image_stages(self, images, spec):
        from . import image as _cimage
        keys = [c.key for c in spec.configs]
        stages = ffi.new("tfn_pipeline_image[]", len(images))
        keep = [stages]
        for k, st in enumerate(images):
            if st["key"] not in keys:
                raise ValueError("image stage %d: no feature %r in the spec" % (k, st["key"]))
            ch = int(st["channels"])
            dopt = _cimage.decode_options(channels=ch, **st.get("decode", {}))
            bo = _cimage.batch_options(st["size"], ch, method=st.get("method", "bilinear"),
                                      dtype=st.get("dtype", "float32"),
                                      dct_scale=st.get("dct_scale", False),
                                      on_error=st.get("on_error", "raise"), decode_opt=dopt,
                                      antialias=st.get("antialias", False))
            for j in range(ch):
                bo.sub[j] = st.get("sub", 0.0)
                bo.mul[j] = st.get("mul", 1.0)
            bo.divide = 1 if st.get("divide") else 0
            bo.no_resize = 1 if st.get("no_resize") else 0
            op = st.get("op")
            name = ffi.new("char[]", op.encode()) if op else ffi.NULL
            stages[k].feature = keys.index(st["key"])
            stages[k].image = bo
            stages[k].formats = 0 if op is None else \
                (1 << lib.TFN_IMAGE_JPEG) | (1 << lib.TFN_IMAGE_PNG) | (1 << lib.TFN_IMAGE_GIF)
            stages[k].op_name = name
            keep += [bo, dopt, name]
            h, w = (int(v) for v in st["size"])
            shape = tuple(st["shape"]) if st.get("shape") is not None else (h, w, ch)
            self._images.append((shape, _cimage.DTYPES[st.get("dtype", "float32")][1]))
        return stages, keep

    # ------------------------------------------------------------------ iteration

    def __iter__(self):
        return self

    def __next__(self):
        if self._p is not None and self._pid != os.getpid():
            raise RuntimeError("a CPipeline cannot be used in a forked child process: "
                               "its threads stayed in the parent (create it in the child)")
        while True:
            with self._lock:
                p = self._p
                if p is None:
                    raise StopIteration
                # the GIL is released during the call; between slices Python runs
                # its signal handlers (KeyboardInterrupt)
                rc = lib.tfn_pipeline_next(p, _WAIT_MS, self._out, self._err)
                # taken while the lock is held: another thread's call reuses _out/_err
                if rc == lib.TFN_OK:
                    batch = ffi.gc(self._out[0], lib.tfn_pipeline_batch_free)
                elif rc not in (lib.TFN_TIMEOUT, lib.TFN_END):
                    exc = self._exception(rc)
            if rc != lib.TFN_TIMEOUT:
                break
        if rc == lib.TFN_OK:
            if self._spec is None:
                return self._records(batch)
            return self._columns(batch)
        if rc == lib.TFN_END:
            self.close()
            raise StopIteration
        raise exc

    def _exception(self, rc):
        err = self._err
        text = _c.message(err)
        if rc in _READ_ERRORS:
            from .record import exception as _exception
            name = None
            if rc == lib.TFN_E_IO:
                name = text.split("; ", 1)[0]
            else:
                _, where = _split_where(text, "; file ")
                if where is not None:
                    name = where.rsplit(", record ", 1)[0]
            return _exception(rc, err, None, name, where=True)
        # a parse error: parse_example's class and text; str() adds where it was
        from .parse import parse_error
        exc = parse_error(rc, err)
        tf_text, where = _split_where(text, "; file ")
        if isinstance(exc, errors.OpError):
            exc = type(exc)(None, None, tf_text, status=rc, offset=int(err.offset),
                            record_index=int(err.record_index))
            if where is not None:
                name = where.rsplit(", record ", 1)[0]
                errors._locate(exc, name, int(err.record_index), int(err.offset))
        return exc

    # ------------------------------------------------------------------ batches

    @staticmethod
    def _view(owner, ptr, count, dtype):
        """count elements at ptr as a numpy array that keeps the batch alive."""
        dtype = np.dtype(dtype)
        if count == 0:
            return np.empty(0, dtype)
        return np.asarray(_Held(owner, ptr, count, dtype))

    def _records(self, batch):
        from ..io.tf_record import RecordBatch
        data_p, len_p, off_p = self._rec
        lib.tfn_pipeline_batch_records(batch, data_p, len_p, off_p)
        n = lib.tfn_pipeline_batch_count(batch)
        size = len_p[0]
        data = (memoryview(self._view(batch, data_p[0], size, np.uint8)) if size
                else b"")
        offsets = self._view(batch, off_p[0], n + 1, np.uint64).view(np.int64)
        return RecordBatch(data, offsets)

    def _columns(self, batch):
        from .parse import bytes_objects
        n = lib.tfn_pipeline_batch_count(batch)
        col = self._col
        result = {}
        post = []
        for j, (key, shape, seq) in enumerate(self._layout):
            if key in self._hidden:
                continue
            lib.tfn_pipeline_batch_column(batch, j, col)
            rows = col.rows
            full = (n, rows) + shape if seq else (n,) + shape
            count = col.count
            if col.mask != ffi.NULL:
                result[key + "_mask"] = self._view(batch, col.mask, n * rows,
                                                   np.bool_).reshape((n, rows))
                result[key + "_length"] = self._view(batch, col.lengths, n, np.int64)
            if col.dtype == _BYTES:
                views = (np.frombuffer(ffi.buffer(col.values, count * 16), np.uint64)
                         .reshape(count, 2) if count else np.zeros((0, 2), np.uint64))
                post.append((key, bytes_objects(views, count).reshape(full)))
            else:
                result[key] = self._view(batch, col.values, count,
                                         _NP[col.dtype]).reshape(full)
        for key, arr in post:
            result[key] = arr
        if self._images:
            size = self._size
            for k, (shape, dtype) in enumerate(self._images):
                ptr = lib.tfn_pipeline_batch_image(batch, k, size)
                result[("image", k)] = self._view(batch, ptr, size[0] // np.dtype(dtype).itemsize,
                                                  dtype).reshape((n,) + shape)
        return result

    # ------------------------------------------------------------------ teardown

    def stats(self):
        """Counters so far: records read, batches handed out, damaged regions and bytes
        skipped (on_damage="skip"), records dropped by on_parse_error="skip"."""
        st = ffi.new("tfn_pipeline_stats *")
        with self._lock:
            if self._p is not None:
                lib.tfn_pipeline_stats_get(self._p, st)
                self._last_stats = self._stats_dict(st)
        return dict(getattr(self, "_last_stats", None) or self._stats_dict(st))

    @staticmethod
    def _stats_dict(st):
        return {"records_read": int(st.records_read), "batches": int(st.batches),
                "skipped_records": int(st.damaged_regions),
                "skipped_bytes": int(st.damaged_bytes),
                "parse_skipped": int(st.parse_skipped),
                "image_skipped": int(st.image_skipped)}

    def close(self):
        """Stops the worker threads and closes the files (batches already handed out
        stay valid). Safe to call more than once."""
        lock = getattr(self, "_lock", None)
        if lock is None:
            return
        if getattr(self, "_pid", None) != os.getpid():
            # a forked child: the worker threads (and the state of the locks they
            # held) stayed in the parent; let the copy go without touching it
            self._p = None
            return
        with lock:
            p, self._p = self._p, None
            if p is not None:
                st = ffi.new("tfn_pipeline_stats *")
                lib.tfn_pipeline_stats_get(p, st)
                self._last_stats = self._stats_dict(st)
                lib.tfn_pipeline_free(p)  # joins the workers, GIL released

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def __del__(self):
        try:
            self.close()
        except Exception:
            pass
