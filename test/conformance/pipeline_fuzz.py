"""Random tf.data pipelines as plain data, built under TensorFlow or tfnano by the same
code, and what comes out of each, normalized for comparison.

A pipeline is (source, steps). Every part is a small tuple of names and Python values,
so a failing case prints as something that can be pasted into a regression test:

    source: ("range", args) | ("slices", structure) | ("records", rows)
    steps:  ("map", fn_name, arg) | ("filter", k) | ("batch", n, drop) |
            ("padded_batch", n, drop) | ("unbatch",) | ("take", n) | ("skip", n) |
            ("repeat", n) | ("shuffle", buffer, seed) | ("cache",) | ("enumerate",) |
            ("interleave", cycle, block) | ("prefetch", n)

Used by test_fuzz_pipelines_tf.py (a fixed, derandomized budget in make conformance)
and by make fuzz-pipelines (a longer random run)."""
import os
import re

import numpy as np

from hypothesis import strategies as st

# ----------------------------------------------------------------- what a source holds

DTYPES = ["int32", "int64", "float32", "float64", "bool", "string"]


def _leaf_values(dtype, shape, seed):
    rng = np.random.default_rng(seed)
    n = int(np.prod(shape)) if shape else 1
    if dtype == "string":
        words = [b"", b"a", b"bc", b"hello", b"x y", b"\xc3\xa9t\xc3\xa9"]
        return np.array([words[i] for i in rng.integers(0, len(words), n)],
                        dtype=object).reshape(shape)
    if dtype == "bool":
        return (rng.integers(0, 2, n) == 1).reshape(shape)
    if dtype.startswith("float"):
        return rng.normal(0, 10, n).round(2).astype(dtype).reshape(shape)
    return rng.integers(-50, 50, n).astype(dtype).reshape(shape)


@st.composite
def leaves(draw, rows):
    dtype = draw(st.sampled_from(DTYPES))
    inner = draw(st.sampled_from([(), (2,), (3,), (2, 2)]))
    return ("leaf", dtype, (rows,) + inner, draw(st.integers(0, 1000)))


@st.composite
def structures(draw, rows, depth=0):
    kind = draw(st.sampled_from(["leaf", "leaf", "tuple", "dict"] if depth < 2 else ["leaf"]))
    if kind == "leaf":
        return draw(leaves(rows))
    n = draw(st.integers(1, 3))
    parts = [draw(structures(rows, depth + 1)) for _ in range(n)]
    if kind == "tuple":
        return ("tuple",) + tuple(parts)
    return ("dict",) + tuple(("k%d" % i, p) for i, p in enumerate(parts))


def realize(struct):
    """A structure spec as the numpy values given to from_tensor_slices."""
    if struct[0] == "leaf":
        return _leaf_values(struct[1], struct[2], struct[3])
    if struct[0] == "tuple":
        return tuple(realize(p) for p in struct[1:])
    return {k: realize(p) for k, p in struct[1:]}


@st.composite
def sources(draw):
    kind = draw(st.sampled_from(["range", "slices", "slices", "records"]))
    if kind == "range":
        args = draw(st.sampled_from([(0,), (1,), (7,), (12,), (2, 9), (10, 0, -3), (0, 11, 4)]))
        return ("range", args)
    rows = draw(st.integers(0, 9))
    if kind == "slices":
        return ("slices", draw(structures(rows)))
    return ("records", tuple(
        (draw(st.lists(st.integers(-2 ** 40, 2 ** 40), max_size=3).map(tuple)),
         draw(st.lists(st.floats(-1e6, 1e6, width=32, allow_subnormal=False), min_size=2, max_size=2).map(tuple)),
         draw(st.binary(max_size=6)))
        for _ in range(rows)))


# ----------------------------------------------------------------- map functions

def _first(lib, x):
    return lib.nest.flatten(x)[0]


def _numeric(lib, x):
    """A numeric tensor from any leaf (string length for strings)."""
    if x.dtype == lib.string:
        return lib.strings.length(x)
    if x.dtype == lib.bool:
        return lib.cast(x, lib.int32)
    return x


def _each(lib, fn):
    return lambda *a: lib.nest.map_structure(fn, a[0] if len(a) == 1 else a)


MAPS = {
    # name: (what it does to the element, given the library and a Python argument)
    "identity": lambda lib, k: (lambda *a: a[0] if len(a) == 1 else a),
    "as_list": lambda lib, k: (lambda *a: list(a)),
    "pair": lambda lib, k: (lambda *a: (a[0], k)),
    "nested_dict": lambda lib, k: (lambda *a: {"x": a[0], "y": [a[-1], k], "z": (k,)}),
    "cast_float": lambda lib, k: _each(lib, lambda x: lib.cast(_numeric(lib, x), lib.float32)),
    "cast_int64": lambda lib, k: _each(lib, lambda x: lib.cast(_numeric(lib, x), lib.int64)),
    "times": lambda lib, k: _each(lib, lambda x: x * k),
    "plus_scalar": lambda lib, k: _each(lib, lambda x: _numeric(lib, x) + k),
    "one_hot": lambda lib, k: _each(lib, lambda x: lib.one_hot(
        lib.cast(_numeric(lib, x), lib.int32) % 4, 4)),
    "reshape_flat": lambda lib, k: _each(lib, lambda x: lib.reshape(x, [-1])),
    "expand": lambda lib, k: _each(lib, lambda x: lib.expand_dims(x, 0)),
    "slice_first": lambda lib, k: _each(lib, lambda x: x[:1]),
    "index_zero": lambda lib, k: _each(lib, lambda x: x[0]),
    "as_string": lambda lib, k: _each(lib, lambda x: lib.strings.as_string(x)),
    "join": lambda lib, k: _each(lib, lambda x: lib.strings.join(
        [lib.strings.as_string(_numeric(lib, x)), "|"], separator="-")),
    "upper": lambda lib, k: _each(lib, lambda x: lib.strings.upper(x)),
    "reduce_sum": lambda lib, k: _each(lib, lambda x: lib.reduce_sum(_numeric(lib, x))),
    "shape": lambda lib, k: _each(lib, lambda x: lib.shape(x)),
    "fill_like": lambda lib, k: _each(lib, lambda x: lib.fill(lib.shape(x), k)),
    "stack_two": lambda lib, k: _each(lib, lambda x: lib.stack([x, x])),
    "where_pos": lambda lib, k: _each(lib, lambda x: lib.where(
        _numeric(lib, x) > 0, _numeric(lib, x), lib.zeros_like(_numeric(lib, x)))),
    "first_only": lambda lib, k: (lambda *a: _first(lib, a)),
}


def _record_map(lib, k):
    feats = {"i": lib.io.VarLenFeature(lib.int64),
             "f": lib.io.FixedLenFeature([2], lib.float32),
             "b": lib.io.FixedLenFeature([], lib.string, default_value=b"?")}

    def parse(r):
        ex = lib.io.parse_single_example(r, feats)
        return ex["f"], {"b": ex["b"], "n": lib.size(ex["i"].values)}, [ex["f"][0] * k]
    return parse


STEPS_AFTER_ANY = ["map", "map", "filter", "batch", "padded_batch", "unbatch", "take",
                   "skip", "repeat", "shuffle", "cache", "enumerate", "interleave",
                   "prefetch"]


@st.composite
def steps(draw):
    out = []
    for _ in range(draw(st.integers(0, 4))):
        kind = draw(st.sampled_from(STEPS_AFTER_ANY))
        if kind == "map":
            out.append(("map", draw(st.sampled_from(sorted(MAPS))),
                        draw(st.sampled_from([2, 3, -1, 0.5, True]))))
        elif kind == "filter":
            out.append(("filter", draw(st.integers(2, 3))))
        elif kind in ("batch", "padded_batch"):
            out.append((kind, draw(st.integers(1, 4)), draw(st.booleans())))
        elif kind in ("take", "skip", "repeat"):
            out.append((kind, draw(st.integers(-1, 4) if kind != "repeat" else
                                   st.integers(0, 3))))
        elif kind == "shuffle":
            out.append(("shuffle", draw(st.integers(1, 8)), draw(st.integers(0, 99))))
        elif kind == "interleave":
            out.append(("interleave", draw(st.integers(1, 3)), draw(st.integers(1, 2))))
        elif kind == "prefetch":
            out.append(("prefetch", draw(st.integers(1, 2))))
        else:
            out.append((kind,))
    return tuple(out)


pipelines = st.tuples(sources(), steps())


# ----------------------------------------------------------------- building one

def write_records(lib, path, rows):
    F = lib.train
    with lib.io.TFRecordWriter(path) as w:
        for ints, floats, raw in rows:
            feature = {"f": F.Feature(float_list=F.FloatList(value=list(floats))),
                       "i": F.Feature(int64_list=F.Int64List(value=list(ints)))}
            if raw:
                feature["b"] = F.Feature(bytes_list=F.BytesList(value=[raw]))
            w.write(F.Example(features=F.Features(feature=feature)).SerializeToString())


def build(lib, pipeline, tmpdir):
    """The pipeline's dataset under `lib` (tensorflow or tfnano)."""
    (kind, arg), todo = pipeline
    D = lib.data.Dataset
    if kind == "range":
        ds = D.range(*arg)
    elif kind == "slices":
        ds = D.from_tensor_slices(realize(arg))
    else:
        path = os.path.join(tmpdir, "%s.tfrec" % lib.__name__)
        write_records(lib, path, arg)
        ds = lib.data.TFRecordDataset(path).map(_record_map(lib, 2.0))
    for step in todo:
        op = step[0]
        if op == "map":
            ds = ds.map(MAPS[step[1]](lib, step[2]))
        elif op == "filter":
            k = step[1]
            ds = ds.filter(lambda *a: lib.reduce_sum(lib.cast(
                _numeric(lib, _first(lib, a)), lib.int64)) % k == 0)
        elif op == "batch":
            ds = ds.batch(step[1], drop_remainder=step[2])
        elif op == "padded_batch":
            ds = ds.padded_batch(step[1], drop_remainder=step[2])
        elif op == "unbatch":
            ds = ds.unbatch()
        elif op == "take":
            ds = ds.take(step[1])
        elif op == "skip":
            ds = ds.skip(step[1])
        elif op == "repeat":
            ds = ds.repeat(step[1])
        elif op == "shuffle":
            ds = ds.shuffle(step[1], seed=step[2])
        elif op == "cache":
            ds = ds.cache()
        elif op == "enumerate":
            ds = ds.enumerate()
        elif op == "interleave":
            ds = ds.interleave(lambda *a: D.from_tensors(a[0] if len(a) == 1 else a).repeat(2),
                               cycle_length=step[1], block_length=step[2])
        elif op == "prefetch":
            ds = ds.prefetch(step[1])
    return ds


# ----------------------------------------------------------------- comparing

def _value(x):
    """(python type of .numpy(), dtype, shape, values) of one component."""
    if hasattr(x, "to_list"):
        return ("ragged", x.to_list())
    if hasattr(x, "dense_shape"):
        return ("sparse", _value(x.indices), _value(x.values), _value(x.dense_shape))
    v = x.numpy()
    a = np.asarray(v)
    kind = type(v).__name__
    floats = a.dtype.kind == "f"
    vals = a.tolist() if not floats else np.where(np.isnan(a), "nan", a.astype(str)).tolist()
    return (kind, str(a.dtype), a.shape, vals)


def value(e):
    if isinstance(e, dict):
        return ("dict", tuple((k, value(v)) for k, v in sorted(e.items())))
    if isinstance(e, (tuple, list)):
        return (type(e).__name__, tuple(value(v) for v in e))
    return _value(e)


def spec_text(spec):
    """element_spec as structure, class name, dtype and shape."""
    if isinstance(spec, dict):
        return {k: spec_text(v) for k, v in spec.items()}
    if isinstance(spec, (tuple, list)):
        return (type(spec).__name__,) + tuple(spec_text(v) for v in spec)
    if spec is None:
        return None
    shape = spec.shape
    dims = None if shape.rank is None else [d if d is None else int(d) for d in shape]
    return (type(spec).__name__, spec.dtype.name, dims)


def error_text(e):
    msg = getattr(e, "message", None) or str(e)
    if msg.startswith("in user code:"):  # TensorFlow's trace-time wrapper: its last line
        last = [ln for ln in msg.splitlines() if ln.strip()][-1].strip()
        msg = re.sub(r"^\w+(Error|Exception): ", "", last)
    if msg.startswith("Unsupported return value from function passed to "):
        msg = msg.split("():")[0] + "()"  # then the result's repr: graph tensors in TF
    msg = re.sub(r"\{\{function_node [^}]*\}\} ?", "", msg)
    msg = re.sub(r" \[Op:\w+\]( name: .*)?$", "", msg)
    return msg.strip().splitlines()[0] if msg.strip() else ""


def outcome(lib, pipeline, tmpdir, limit=200):
    """What one library does with the pipeline: its element_spec and elements, and the
    error (class, first line of the message) if one is raised, with where."""
    try:
        ds = build(lib, pipeline, tmpdir)
    except Exception as e:  # noqa: BLE001 - compared with the other library's
        return ("build error", type(e).__name__, error_text(e))
    got = [spec_text(ds.element_spec)]
    try:
        for i, e in enumerate(ds):
            if i >= limit:
                break
            got.append(value(e))
    except Exception as e:  # noqa: BLE001
        got.append(("iteration error", type(e).__name__, error_text(e)))
    return got


def deferred_trace_error(want, got):
    """TensorFlow refused a map / filter function while tracing it (an error when the
    dataset is made) and tfnano, which runs such a function per record, raised at the
    first element instead: a known difference (see docs/compat.md), told apart so that
    the fixed budget can look further; make fuzz-pipelines reports it too."""
    if not (isinstance(want, tuple) and want[0] == "build error"):
        return False
    if isinstance(got, tuple):
        return False  # both refused it when made: compared as they are
    untraced = len(got) >= 1 and _unknown_somewhere(got[0])  # tfnano went per record
    return untraced or any(isinstance(x, tuple) and x and x[0] == "iteration error"
                           for x in got[1:2])


def _unknown_somewhere(spec):
    if spec is None:
        return True
    if isinstance(spec, dict):
        return any(_unknown_somewhere(v) for v in spec.values())
    if isinstance(spec, tuple) and spec and spec[0] == "tuple":
        return any(_unknown_somewhere(v) for v in spec[1:])
    return False
