"""One compiled Example spec (lib/example's tfn_spec) with a parser per thread: what
both the dense parser (tfnano._parsing) and the Sparse / Ragged one (io/_kinds) run."""
import threading

from . import check, ffi, lib, new_error


class CompiledSpec:
    """tfn_spec_new over a tfn_feature_config[n] the caller filled: `spec` (freed with
    this object), `strides` (values per record of each output) and `parser()`, this
    thread's tfn_parser (made once per thread: a parser is not shared between threads)."""

    def __init__(self, cfg, n):
        out = ffi.new("tfn_spec **")
        err = new_error()
        check(lib.tfn_spec_new(cfg, n, ffi.NULL, out, err), err)
        self.spec = ffi.gc(out[0], lib.tfn_spec_free)
        self.strides = [lib.tfn_spec_stride(self.spec, j) for j in range(n)]
        self._local = threading.local()

    def parser(self):
        p = getattr(self._local, "p", None)
        if p is None:
            p = lib.tfn_parser_new(self.spec, ffi.NULL)
            if p == ffi.NULL:
                raise MemoryError("tfn_parser_new")
            p = ffi.gc(p, lib.tfn_parser_free)
            self._local.p = p
        return p
