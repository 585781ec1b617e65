"""Routing a fused ``TFRecordDataset -> map(f) -> batch(n)`` to the C pipeline engine
(tfnano._c.pipeline, lib/pipeline): reading, CRC checks, parsing, int32 casts and
batching on C threads, Python receiving finished batches.

A plan qualifies when the source is TFRecordDataset over local paths (on_damage
"raise" or "skip") and f traced to a single parse_single_example of the record with
FixedLenFeature configs, followed at most by cast(int64 -> int32) of its outputs and
by image chains (below), returning those values in any structure (constants too).
Anything else runs on Python threads over the same C calls (ops/batch.py);
``explain()`` says which and why.

An image chain starts at a scalar bytes feature of the parse: decode_jpeg /
decode_png / decode_image (uint8, channels 1 or 3) -> resize (a constant size,
any method, no preserve_aspect_ratio) -> then, in any order TensorFlow's values
allow, cast(float32), convert_image_dtype(float32) and one normalisation: ``- c``,
``/ c`` or ``* c`` with a Python or float32 scalar ``c`` (``(x - a) / b`` too), and
at most one reshape() to a constant shape of as many values. Without a resize the
reshape is required (seed notebooks' ``decode_jpeg -> cast / 255 -> reshape([*SIZE,
3])``): the image keeps its size, its values are converted as its rows are decoded and
a record with another number of values fails with reshape's error. It becomes one image stage of the engine (lib/pipeline, tfn_pipeline_image): the
workers decode, resize and normalise each batch's images in C, the float operations
those ops make per record, so the values are the per-record ones.
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
        from .._c import pipeline as _cpipeline
    except ImportError:
        return None
    return _cpipeline


_DECODES = {"decode_jpeg": "DecodeJpeg", "decode_png": "DecodePng",
            "decode_image": None}


def _scalar(v):
    """A Python / numpy / tensor scalar of a float32 image's normalisation, as float32
    (what tf / tfnano convert it to), or None."""
    if isinstance(v, _trace.Symbol) or isinstance(v, bool):
        return None
    if isinstance(v, (int, float)):
        return np.float32(v)
    a = np.asarray(v)
    if a.shape == () and a.dtype == np.float32:
        return np.float32(a)
    return None


def _consumers(g):
    out = {}
    for n in g.nodes:
        for x in _trace._leaves((n.args, n.kwargs)):
            if isinstance(x, _trace.Symbol):
                out.setdefault(x.index, []).append(n)
    return out


def _resize_settings(rs):
    """([h, w], method, antialias, None) of a traced resize() the image stage takes,
    or (None, None, None, reason)."""
    from .._c import image as _cimage
    ra = dict(zip(("images", "size", "method", "preserve_aspect_ratio", "antialias"),
                  rs.args))
    ra.update(rs.kwargs)
    size = ra.get("size")
    if _trace.has_symbol(size) or ra.get("preserve_aspect_ratio") or \
            _trace.has_symbol(ra.get("method"), ra.get("antialias")):
        return None, None, None, "resize() with a traced size or preserve_aspect_ratio"
    try:
        hw = [int(v) for v in np.asarray(size).reshape(-1)]
    except Exception:
        return None, None, None, "resize() size is not two integers"
    method = getattr(ra.get("method", "bilinear"), "value", ra.get("method", "bilinear"))
    if len(hw) != 2 or min(hw) <= 0 or method not in _cimage.METHODS:
        return None, None, None, "resize() size or method the image stage does not take"
    return hw, method, bool(ra.get("antialias", False)), None


def _reshape_target(n):
    """The constant shape (a tuple of non-negative ints) of a traced reshape(), or None."""
    shape = n.args[1] if len(n.args) > 1 else n.kwargs.get("shape")
    if shape is None or _trace.has_symbol(shape):
        return None
    try:
        dims = tuple(int(v) for v in np.asarray(shape).reshape(-1))
    except Exception:
        return None
    return dims if all(d >= 0 for d in dims) else None


def _image_chain(g, dec, key_of, spec, users, outputs):
    """(stage, absorbed nodes, final Symbol) for the image chain starting at decode
    node `dec`, or (None, None, reason)."""
    from .. import dtypes
    from .._c import image as _cimage
    from ..image import _batch
    name = dec.op.name
    src = dec.args[0] if dec.args else dec.kwargs.get("contents")
    if not isinstance(src, _trace.Symbol) or src.index not in key_of or \
            key_of[src.index][0] != "key":
        return None, None, "%s() of a value that is not a parsed feature" % name
    key = key_of[src.index][1]
    cfg = [c for c in spec.configs if c.key == key][0]
    if cfg.dtype is not dtypes.string or cfg.seq or tuple(cfg.shape):
        return None, None, "%s() of feature %r, not a scalar bytes feature" % (name, key)
    try:
        kw = _decode_kwargs(name, dec.args[1:], dec.kwargs)
    except Exception as e:
        return None, None, "%s(): %s" % (name, e)
    if kw is None:
        return None, None, "%s() with arguments the image stage does not take" % name
    channels = kw.pop("channels")
    if channels not in (1, 3):  # 4: JPEG records must fail per record, PNG ones not
        return None, None, "%s() without channels=1 or 3" % name
    cur = dec.outputs
    absorbed = [dec]

    def only_user(sym):
        u = users.get(sym.index, [])
        if sym.index in outputs or len(u) != 1:
            return None
        return u[0]
    rs = only_user(cur)
    resized = rs is not None and rs.op.name == "resize" and rs.args[:1] == (cur,)
    if resized:
        hw, method, antialias, why = _resize_settings(rs)
        if why:
            return None, None, why
        absorbed.append(rs)
        cur = rs.outputs
        dtype = "uint8" if method == "nearest" else "float32"
    elif kw.get("gif") == "refuse":
        # decode_image(expand_animations=True) of a GIF is 4-D: a reshape may take it
        return None, None, "%s() of an animation may be 4-D: only a resize() fuses" % name
    else:
        # no resize: the image keeps its size and a reshape() below must fix the shape
        hw, method, antialias, dtype = None, "bilinear", False, "uint8"
    sub = mul = shape = None
    divide = False
    while True:
        n = only_user(cur)
        if n is None:
            break
        op = n.op.name
        nxt = None
        if op == "cast" and n.args[:1] == (cur,):
            try:
                target = dtypes.as_dtype(n.kwargs.get("dtype", n.args[1] if len(n.args) > 1
                                                      else None)).as_numpy_dtype
            except Exception:
                target = None
            if target == np.float32:
                dtype, nxt = "float32", n.outputs
            elif target == np.uint8 and dtype == "uint8":
                nxt = n.outputs
        elif op == "convert_image_dtype" and n.args[:1] == (cur,) and mul is None:
            try:
                target = dtypes.as_dtype(n.kwargs.get("dtype", n.args[1] if len(n.args) > 1
                                                      else None)).as_numpy_dtype
            except Exception:
                target = None
            if target == np.float32 and dtype == "float32":
                nxt = n.outputs
            elif target == np.float32 and dtype == "uint8" and sub is None:
                dtype, mul, divide, nxt = "float32", np.float32(1.0 / 255), False, n.outputs
        elif op == "reshape" and n.args[:1] == (cur,) and shape is None:
            shape = _reshape_target(n)
            nxt = None if shape is None else n.outputs
        elif dtype == "float32" and mul is None and len(n.args) == 2 and not n.kwargs.get(
                "name"):
            a, b = n.args
            if op in ("math.truediv", "math.divide") and a is cur:
                c = _scalar(b)
                if c is not None and c != 0:
                    mul, divide, nxt = c, True, n.outputs
            elif op == "math.multiply" and (a is cur or b is cur):
                c = _scalar(b if a is cur else a)
                if c is not None and c != 0:
                    mul, divide, nxt = c, False, n.outputs
            elif op == "math.subtract" and a is cur and sub is None:
                c = _scalar(b)
                if c is not None:
                    sub, nxt = c, n.outputs
        if nxt is None:
            break
        absorbed.append(n)
        cur = nxt
    if not resized and shape is None:
        return None, None, "%s() output used by other than one resize() or reshape()" % name
    if users.get(cur.index) and cur.index not in outputs:
        return None, None, "%s() after the image ops runs in Python" % \
            users[cur.index][0].op.name
    if users.get(cur.index):
        return None, None, "%s() of the image runs in Python" % users[cur.index][0].op.name
    count = None if shape is None else int(np.prod(shape, dtype=np.int64))
    if resized and count is not None and count != hw[0] * hw[1] * channels:
        return None, None, "reshape() of the resized image to another size runs in Python"
    if not resized:
        # the decoded image's values in order, converted as they are decoded; the
        # engine checks the count per record (reshape's error)
        if count == 0 or count % channels or count // channels >= 1 << 32:
            return None, None, "reshape() to a shape the image stage does not take"
        hw = [count // channels, 1]
    steps = [name] + (["resize"] if resized else []) + \
        ([] if shape is None else ["reshape"]) + \
        ([] if (sub, mul) == (None, None) else ["normalise"])
    stage = {"key": key, "channels": channels, "decode": kw, "op": _DECODES[name],
             "size": hw, "method": method, "antialias": antialias, "dtype": dtype,
             "sub": 0.0 if sub is None else float(sub),
             "mul": 1.0 if mul is None else float(mul), "divide": divide,
             "dct_scale": _batch.SETTINGS["dct_scaling"] and resized,
             "no_resize": not resized,
             "shape": None if shape is None else tuple(shape),
             "describe": " -> ".join(steps)}
    _cimage.decode_options(channels=channels, **kw)  # the op's own argument checks
    return stage, absorbed, cur


def _decode_kwargs(name, args, kwargs):
    """The decode options of a traced decode_* call (dtype uint8 only), or None."""
    from .._c import image as _codec
    names = {"decode_jpeg": ("channels", "ratio", "fancy_upscaling", "try_recover_truncated",
                             "acceptable_fraction", "dct_method", "name"),
             "decode_png": ("channels", "dtype", "name"),
             "decode_image": ("channels", "dtype", "name", "expand_animations")}[name]
    kw = dict(zip(names, args))
    kw.update(kwargs)
    if _trace.has_symbol(kw):
        return None
    kw.pop("name", None)
    # a GIF: decode_jpeg / decode_png take one-frame GIFs; decode_image its first
    # frame with expand_animations=False, and none in a batch of 3-D images otherwise
    expand = kw.pop("expand_animations", True)
    gif = "still" if name != "decode_image" else "refuse" if expand else "first"
    dtype = kw.pop("dtype", None)
    if dtype is not None and _codec.as_np_dtype(dtype) != np.uint8:
        return None
    kw.pop("acceptable_fraction", None)
    kw["channels"] = kw.get("channels") or 0
    if name == "decode_jpeg":
        from ..image._ops import _jpeg_kwargs
        kw = _jpeg_kwargs(kw["channels"], kw.get("ratio", 1), kw.get("fancy_upscaling", True),
                          kw.get("try_recover_truncated", False), kw.get("dct_method", ""))
    kw["gif"] = gif
    return kw


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
    from .. import _parsing
    try:
        spec = _parsing.get_spec(features)
    except Exception as e:  # VarLen & co.
        return None, "features: %s" % e
    images, absorbed = [], set()
    if op == "parse_single_example":
        users = _consumers(g)
        outputs = {x.index for x in _trace._leaves(g.outputs) if isinstance(x, _trace.Symbol)}
        for n in g.nodes:
            if n.op.name in _DECODES and id(n) not in absorbed:
                stage, nodes, last = _image_chain(g, n, key_of, spec, users, outputs)
                if stage is None:
                    return None, last
                absorbed.update(id(m) for m in nodes)
                key_of[last.index] = ("image", len(images))
                images.append(stage)
    for n in g.nodes:
        if n is p or id(n) in absorbed:
            continue
        folded = n.op.name == "cast (done by the parser)" or (
            n.op.name == "cast" and len(n.args) >= 1 and _is_int32_cast(n))
        if not folded or not isinstance(n.args[0], _trace.Symbol) or \
                n.args[0].index not in key_of:
            return None, "%s() after the parse runs in Python" % n.op.name
        # cast in numpy after the batch: it wraps values past int32 as tf.cast does
        # (the parser's int32 output would refuse them, with no per-record retry here)
        key_of[n.outputs.index] = ("int32", key_of[n.args[0].index][1])
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
    # bytes features only the image stages read are not copied into Python bytes
    returned = {v for kind, v in leaves if kind == "key"}
    hidden = {st["key"] for st in images} - returned
    return {"spec": spec, "leaves": leaves, "template": fn.graph.outputs,
            "images": images, "hidden": hidden,
            "files": list(src.files), "compression": src.compression,
            "buffer_size": src.buffer_size, "cycle": src.cycle_length(),
            "on_damage": src.on_damage, "stats": src.stats,
            "parse_errors": "single" if op == "parse_single_example" else "batch"}, None


def describe(settings):
    """What the engine runs for these settings, for explain()."""
    if settings.get("parse_errors") == "batch":
        return "read -> batch -> parse_example"
    steps = ["read", "parse"] + [st["describe"] for st in settings.get("images") or ()]
    return " -> ".join(steps + ["batch"])


class CStage:
    """Batches from a CPipeline, packed into the function's output structure."""

    def __init__(self, settings, batch_size, drop_remainder, deterministic, workers):
        self._s = settings
        self._args = dict(
            compression=settings["compression"], buffer_size=settings["buffer_size"],
            cycle_length=settings["cycle"], block_length=1, deterministic=deterministic,
            batch_size=batch_size, drop_remainder=drop_remainder, spec=settings["spec"],
            num_threads=workers, on_damage=settings["on_damage"],
            parse_errors=settings["parse_errors"], images=settings.get("images") or None,
            hidden=settings.get("hidden") or ())
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
            a = cols[("image", v) if kind == "image" else v]
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


def enabled(images=False):
    """TFNANO_C_PIPELINE: "1" always routes to the C engine when the plan allows,
    "0" never; unset ("auto"): when this process may use AUTO_MIN_CORES or more, or
    (images=True) for a plan with image stages on any number of cores: on one core
    the engine's image stage took 6 % less CPU per record than the Python-thread form
    on the flowers pipeline (1.67 against 1.77 ms, taskset -c 0, two runs each),
    which pays numpy's cast and division over whole batches."""
    v = os.environ.get("TFNANO_C_PIPELINE", "auto")
    if v in ("0", ""):
        return False
    if v == "auto":
        from .autotune import cpu_count
        return images or cpu_count() >= AUTO_MIN_CORES
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

    def stage(self, ctx):
        ordered = self.deterministic
        if ordered is None:
            ordered = ctx.deterministic
        return CStage(self.settings, self.batch_size, self.drop_remainder,
                      ordered is not False, workers_for(self))
