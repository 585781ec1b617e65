"""Routing a fused ``TFRecordDataset -> map(f) -> batch(n)`` to the C pipeline engine
(tfnano._cpipeline, lib/pipeline): reading, CRC checks, parsing, int32 casts and
batching on C threads, Python receiving finished batches.

A plan qualifies when the source is TFRecordDataset over local paths (on_damage
"raise" or "skip") and f traced to a single parse_single_example of the record with
FixedLenFeature configs, followed at most by cast(int64 -> int32) of its outputs,
returning those values in any structure (constants too). Anything else runs on
Python threads over the same C calls (ops/batch.py); ``explain()`` says which and why.
"""
import os

import numpy as np

from .. import _trace
from . import structure
from .ops.map import MapNode
from .readers import TFRecordNode
from .structured_function import StructuredFunction, _is_int32, fuse_int32_casts


def _is_int32_cast(node):
    import numpy as _np
    src = node.args[0]
    return isinstance(src, _trace.Symbol) and src.spec.dtype == _np.int64 and \
        _is_int32(node.args[1:], node.kwargs)


def _engine():
    try:
        from .. import _cpipeline
    except ImportError:
        return None
    return _cpipeline


def route(node, src=None, op="parse_single_example"):
    """(settings, None) for a MapBatchNode the C engine can run, else (None, reason).
    With op="parse_example": a map over batches of records (`src` the record source)."""
    src = node.inputs[0] if src is None else src
    if not isinstance(src, TFRecordNode):
        return None, "the input is not a TFRecordDataset"
    if _engine() is None:
        return None, "the C pipeline engine is not built"
    if src.on_damage not in ("raise", "skip"):
        return None, "on_damage=%r is handled by the Python reader" % src.on_damage
    for f in src.files:
        if not isinstance(f, str) or ("://" in f and not f.startswith("file://")):
            return None, "a file object or URL among the files"
    fn = node.fn
    if not isinstance(fn, StructuredFunction) or fn.graph is None:
        return None, "the function is not one traced function"
    if op == "parse_single_example" and not fn.vectorized:
        return None, "the function is not vectorized"
    g = fuse_int32_casts(fn.graph) if op == "parse_single_example" else fn.graph
    parse = [n for n in g.nodes if n.op.name == op]
    if len(parse) != 1 or parse[0].args[:1] != (g.inputs,) or len(parse[0].args) < 2 \
            or any(a is not None for a in parse[0].args[2:]) \
            or set(parse[0].kwargs) - {"_tfn_int32"}:  # (example_names, name: None)
        return None, "the function is not one %s of the records" % op
    p = parse[0]
    features = p.args[1]
    key_of = {s.index: ("key", k) for k, s in p.outputs.items()}
    for n in g.nodes:
        if n is p:
            continue
        folded = n.op.name == "cast (done by the parser)" or (
            n.op.name == "cast" and len(n.args) >= 1 and _is_int32_cast(n))
        if not folded or not isinstance(n.args[0], _trace.Symbol) or \
                n.args[0].index not in key_of:
            return None, "%s() after the parse runs in Python" % n.op.name
        # cast in numpy after the batch: it wraps values past int32 as tf.cast does
        # (the parser's int32 output would refuse them, with no per-record retry here)
        key_of[n.outputs.index] = ("int32", key_of[n.args[0].index][1])
    from .. import _parsing
    try:
        spec = _parsing.get_spec(features)
    except Exception as e:  # VarLen & co.
        return None, "features: %s" % e
    if op == "parse_single_example" and any(c.seq for c in spec.configs):
        return None, "FixedLenSequenceFeature rows must be checked per record"
    leaves = []
    for leaf in structure.flatten(g.outputs):
        if isinstance(leaf, _trace.Symbol):
            if leaf.index not in key_of:
                return None, "a returned value is not a parsed feature"
            leaves.append(key_of[leaf.index])
        else:
            leaves.append(("const", np.asarray(structure.to_tensor(leaf))))
    return {"spec": spec, "leaves": leaves, "template": fn.graph.outputs,
            "files": list(src.files), "compression": src.compression,
            "buffer_size": src.buffer_size, "cycle": src.cycle_length(),
            "on_damage": src.on_damage, "stats": src.stats,
            "parse_errors": "single" if op == "parse_single_example" else "batch"}, None


class CStage:
    """Batches from a CPipeline, packed into the function's output structure."""

    def __init__(self, settings, batch_size, drop_remainder, deterministic, workers):
        self._s = settings
        self._args = dict(
            compression=settings["compression"], buffer_size=settings["buffer_size"],
            cycle_length=settings["cycle"], block_length=1, deterministic=deterministic,
            batch_size=batch_size, drop_remainder=drop_remainder, spec=settings["spec"],
            num_threads=workers, on_damage=settings["on_damage"],
            parse_errors=settings["parse_errors"])
        self._p = None
        self.upstreams = ()

    def __iter__(self):
        return self

    def __next__(self):
        if self._p is None:
            self._p = _engine().CPipeline(self._s["files"], **self._args)
        cols = next(self._p)
        out = []
        n = None
        for kind, v in self._s["leaves"]:
            if kind == "const":
                out.append(None)
                continue
            a = cols[v]
            n = len(a)
            out.append(a.astype(np.int32) if kind == "int32" else a)
        if n is None:
            n = len(next(iter(cols.values())))
        res = []
        for (kind, v), a in zip(self._s["leaves"], out):
            if kind == "const":
                a = np.broadcast_to(v, (n,) + v.shape).copy()
            res.append(structure.to_tensor(a))
        return structure.pack(self._s["template"], res)

    def next_records(self, n):
        from .plan import Stage
        return Stage.next_records(self, n)

    def close(self):
        p, self._p = self._p, None
        if p is not None:
            stats = p.stats()
            self._s["stats"].skipped_records += stats.get("skipped_records", 0)
            self._s["stats"].skipped_bytes += stats.get("skipped_bytes", 0)
            p.close()

    def __del__(self):
        try:
            self.close()
        except Exception:
            pass


def workers_for(map_node):
    """num_threads for the engine: AUTOTUNE / None -> 0 (every core this process may
    use), else the map's num_parallel_calls."""
    if not isinstance(map_node, MapNode):
        return 0
    p = map_node.num_parallel_calls
    if p is None or p == -1:
        return 0
    return max(1, int(p))


# From this many usable cores the fused stage runs on the C engine by default. On one
# core C calls on Python threads (views of the read buffers, the int32 casts folded into
# the parser) are as fast or faster; from two cores the engine's workers parse in
# parallel with no Python per batch, and on an idle 2-core machine it beat the
# Python-thread form on every W4 pipeline (QUEST 11.1x TensorFlow against 8.0x, image
# records 3.2x against 1.5x, batch + parse_example 4.7x against 2.1x: docs/pipeline.md).
AUTO_MIN_CORES = 2


def enabled():
    """TFNANO_C_PIPELINE: "1" always routes to the C engine when the plan allows,
    "0" never; unset ("auto"): when this process may use AUTO_MIN_CORES or more."""
    v = os.environ.get("TFNANO_C_PIPELINE", "auto")
    if v in ("0", ""):
        return False
    if v == "auto":
        from .execute import cpu_count
        return cpu_count() >= AUTO_MIN_CORES
    return True


def disabled_reason():
    v = os.environ.get("TFNANO_C_PIPELINE", "auto")
    if v == "auto":
        return "auto: fewer than %d cores (TFNANO_C_PIPELINE=1 forces it)" % AUTO_MIN_CORES
    return "TFNANO_C_PIPELINE=%s" % v


class BatchParseNode(MapNode):
    """``batch(n) -> map(parse_example)`` over a TFRecordDataset, run by the C engine."""
    op = "batch_and_parse_example"

    def __init__(self, map_node, batch_node, settings):
        MapNode.__init__(self, batch_node.inputs[0], None, map_node.num_parallel_calls,
                         map_node.deterministic, fn=map_node.fn)
        self.batch_size = batch_node.batch_size
        self.drop_remainder = batch_node.drop_remainder
        self.batch_node = batch_node
        self.settings = settings

    def attrs(self):
        a = {"batch_size": self.batch_size}
        if self.drop_remainder:
            a["drop_remainder"] = True
        return a

    def notes(self):
        return [self.fn.describe(), "runs on C threads (lib/pipeline): read -> batch -> "
                "parse_example"]

    def cardinality(self):
        return self.batch_node.cardinality()

    def rewrite(self, options):
        return self

    def stage(self, ctx):
        ordered = self.deterministic
        if ordered is None:
            ordered = ctx.deterministic
        return CStage(self.settings, self.batch_size, self.drop_remainder,
                      ordered is not False, workers_for(self))
