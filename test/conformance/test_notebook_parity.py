"""The same notebook code, once with `import tensorflow as tf` and once with
`import tfnano as tf`: every output (values, dtypes, shapes, error types and
messages) must match.

Each half runs in its own subprocess: TensorFlow in this interpreter's environment
(build/venv-tf), tfnano in build/venv (where `make python` installs it). A cell's
outputs are recorded with `out(name, value)`; an exception ends the cell and is
recorded as (class name, TensorFlow's core message: without the
`{{function_node ...}}` prefix and the `[Op:...]` suffix).
"""
import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

PRELUDE = """
import json, math, os, re, sys, tempfile, traceback
import numpy as np
TMP = sys.argv[2]
RESULTS = {}
CELL = [None]

def _norm(v):
    if hasattr(v, "SerializeToString") and hasattr(v, "ListFields"):
        return {"proto": v.SerializeToString().hex()}
    if hasattr(v, "numpy"):
        v = v.numpy()
    if isinstance(v, dict):
        return {"dict": {str(k): _norm(x) for k, x in sorted(v.items())}}
    if isinstance(v, (tuple, list)):
        return {"seq": [_norm(x) for x in v]}
    if isinstance(v, bytes):
        return {"bytes": v.hex()}
    if isinstance(v, (np.ndarray, np.generic)):
        a = np.asarray(v)
        if a.dtype == object:
            return {"dtype": "string", "shape": list(a.shape),
                    "v": [x.hex() for x in a.reshape(-1).tolist()]}
        vals = [None if (isinstance(x, float) and math.isnan(x)) else x
                for x in a.reshape(-1).tolist()]
        return {"dtype": a.dtype.name, "shape": list(a.shape), "v": vals}
    if isinstance(v, float) and math.isnan(v):
        return {"nan": True}
    if isinstance(v, (int, float, str, bool)) or v is None:
        return v
    return {"repr": type(v).__name__}

def out(name, value):
    RESULTS[CELL[0] + ":" + name] = _norm(value)

def _core(msg):
    msg = re.sub(r"^\\{\\{function_node [^}]*\\}\\}\\s*", "", msg)
    msg = re.sub(r"\\s*\\[Op:[^\\]]*\\](\\s*name:.*)?$", "", msg, flags=re.S)
    return msg.strip()

def run_cell(name, src):
    CELL[0] = name
    try:
        exec(compile(src, name, "exec"), {"tf": tf, "np": np, "out": out, "TMP": TMP,
                                         "os": os})
    except Exception as e:
        RESULTS[name + ":error"] = [type(e).__name__, _core(getattr(e, "message", str(e)))]
"""

# Each cell is what a notebook user writes; `out()` marks what they would look at.
CELLS = {
    "build_and_serialize": """
ex = tf.train.Example(features=tf.train.Features(feature={
    "ids": tf.train.Feature(int64_list=tf.train.Int64List(value=[1, -2, 3])),
    "score": tf.train.Feature(float_list=tf.train.FloatList(value=[0.5, 1.25])),
    "name": tf.train.Feature(bytes_list=tf.train.BytesList(value=[b"q1"])),
}))
out("bytes", ex.SerializeToString(deterministic=True))
back = tf.train.Example.FromString(ex.SerializeToString())
out("ids", list(back.features.feature["ids"].int64_list.value))
out("kind", back.features.feature["name"].WhichOneof("kind"))
out("eq", back == ex)
""",
    "int64_float_rejected": "tf.train.Int64List(value=[1.5])",
    "int64_range": "tf.train.Int64List(value=[2**63])",
    "bytes_str_rejected": "tf.train.BytesList(value=['text'])",
    "numpy_values": """
f = tf.train.Feature(int64_list=tf.train.Int64List(value=np.arange(4, dtype=np.int32)))
out("v", list(f.int64_list.value))
f = tf.train.Feature(float_list=tf.train.FloatList(value=np.linspace(0, 1, 3)))
out("f", list(f.float_list.value))
""",
    "parse_example": """
def ex(i):
    return tf.train.Example(features=tf.train.Features(feature={
        "x": tf.train.Feature(int64_list=tf.train.Int64List(value=[i, i + 1])),
        "seq": tf.train.Feature(float_list=tf.train.FloatList(value=[0.5] * i)),
        "s": tf.train.Feature(bytes_list=tf.train.BytesList(value=[b"n%d" % i])),
    })).SerializeToString()
spec = {"x": tf.io.FixedLenFeature([2], tf.int64),
        "seq": tf.io.FixedLenSequenceFeature([], tf.float32, allow_missing=True),
        "s": tf.io.FixedLenFeature([], tf.string),
        "d": tf.io.FixedLenFeature([], tf.int64, default_value=-1)}
p = tf.io.parse_example([ex(0), ex(1), ex(3)], spec)
for k in sorted(p):
    out(k, p[k])
one = tf.io.parse_single_example(ex(2), spec)
for k in sorted(one):
    out("single_" + k, one[k])
""",
    "err_empty_list": """
raw = tf.train.Example(features=tf.train.Features(feature={
    "a": tf.train.Feature(int64_list=tf.train.Int64List(value=[]))})).SerializeToString()
tf.io.parse_example([raw], {"a": tf.io.FixedLenFeature([], tf.int64, default_value=7)})
""",
    "err_empty_list_single": """
raw = tf.train.Example(features=tf.train.Features(feature={
    "a": tf.train.Feature(int64_list=tf.train.Int64List(value=[]))})).SerializeToString()
tf.io.parse_single_example(raw, {"a": tf.io.FixedLenFeature([], tf.int64, default_value=7)})
""",
    "err_types": """
raw = tf.train.Example(features=tf.train.Features(feature={
    "a": tf.train.Feature(int64_list=tf.train.Int64List(value=[1]))})).SerializeToString()
tf.io.parse_single_example(raw, {"a": tf.io.FixedLenFeature([], tf.float32)})
""",
    "err_required": """
tf.io.parse_example([b""], {"a": tf.io.FixedLenFeature([2], tf.float32)}, example_names=["in1"])
""",
    "err_multiple": """
raw = tf.train.Example(features=tf.train.Features(feature={
    "a": tf.train.Feature(float_list=tf.train.FloatList(value=[1, 2, 3]))})).SerializeToString()
tf.io.parse_single_example(raw, {"a": tf.io.FixedLenSequenceFeature([2], tf.float32, allow_missing=True)})
""",
    "err_not_example": """
tf.io.parse_example([b"abc"], {"a": tf.io.FixedLenFeature([], tf.int64, default_value=0)})
""",
    "err_allow_missing": """
tf.io.parse_example([b""], {"a": tf.io.FixedLenSequenceFeature([], tf.int64)})
""",
    "err_first_dim": """
tf.io.parse_example([b""], {"a": tf.io.FixedLenFeature([None, 2], tf.int64)})
""",
    "err_inner_dim": """
tf.io.parse_example([b""], {"a": tf.io.FixedLenFeature([1, None], tf.int64)})
""",
    "err_missing_shape": """
tf.io.parse_example([b""], {"a": tf.io.FixedLenFeature(None, tf.int64)})
""",
    "err_no_features": "tf.io.parse_example([b''], {})",
    "err_no_features_single": "tf.io.parse_single_example(b'', {})",
    "err_default_count": """
tf.io.parse_example([b""], {"a": tf.io.FixedLenFeature([2], tf.int64, default_value=[1, 2, 3])})
""",
    "tfrecord_roundtrip": """
path = os.path.join(TMP, "a.tfrecord")
with tf.io.TFRecordWriter(path) as w:
    for i in range(5):
        w.write(b"rec%d" % i)
out("file", open(path, "rb").read())
out("records", [r for r in tf.data.TFRecordDataset(path)])
gz = os.path.join(TMP, "b.tfrecord.gz")
with tf.io.TFRecordWriter(gz, tf.io.TFRecordOptions(compression_type="GZIP")) as w:
    w.write(b"hello")
    w.write(b"")
out("gz_records", [r for r in tf.data.TFRecordDataset([gz], compression_type="GZIP")])
""",
    "tfrecord_options_error": "tf.io.TFRecordOptions('gzip')",
    "tfrecord_options_int": "out('t', tf.io.TFRecordOptions.get_compression_type_string(1))",
    "tfrecord_corrupt": """
path = os.path.join(TMP, "c.tfrecord")
with tf.io.TFRecordWriter(path) as w:
    w.write(b"hello")
data = bytearray(open(path, "rb").read())
data[13] ^= 1
open(path, "wb").write(bytes(data))
list(tf.data.TFRecordDataset(path))
""",
    "tfrecord_truncated": """
path = os.path.join(TMP, "t.tfrecord")
with tf.io.TFRecordWriter(path) as w:
    w.write(b"hello")
    w.write(b"world")
data = open(path, "rb").read()
open(path, "wb").write(data[:-1])
got = []
try:
    for r in tf.data.TFRecordDataset(path):
        got.append(r)
finally:
    out("before_error", got)
""",
    "writer_closed": """
w = tf.io.TFRecordWriter(os.path.join(TMP, "w.tfrecord"))
w.close()
w.close()
w.write(b"x")
""",
    "pipeline": """
path = os.path.join(TMP, "p.tfrecord")
with tf.io.TFRecordWriter(path) as w:
    for i in range(10):
        w.write(tf.train.Example(features=tf.train.Features(feature={
            "x": tf.train.Feature(int64_list=tf.train.Int64List(value=[i] * (i % 3 + 1))),
            "y": tf.train.Feature(float_list=tf.train.FloatList(value=[i / 2]))})).SerializeToString())
spec = {"x": tf.io.FixedLenSequenceFeature([], tf.int64, allow_missing=True),
        "y": tf.io.FixedLenFeature([], tf.float32)}
ds = (tf.data.TFRecordDataset([path]).batch(4)
      .map(lambda b: tf.io.parse_example(b, spec), num_parallel_calls=tf.data.AUTOTUNE)
      .prefetch(tf.data.AUTOTUNE))
for i, b in enumerate(ds):
    out("batch%d" % i, b)
ds2 = (tf.data.TFRecordDataset(path).map(lambda r: tf.io.parse_single_example(r, spec))
       .map(lambda d: (d["x"], d["y"])).cache().repeat(2).padded_batch(3))
for i, (x, y) in enumerate(ds2):
    out("pb%d" % i, (x, y))
""",
    "parallel_reads": """
files = []
for f in range(3):
    path = os.path.join(TMP, "par%d.tfrecord" % f)
    with tf.io.TFRecordWriter(path) as w:
        for i in range(f + 2):
            w.write(b"%d-%d" % (f, i))
    files.append(path)
out("interleave2", [r for r in tf.data.TFRecordDataset(files, num_parallel_reads=2)])
out("in_order", [r for r in tf.data.TFRecordDataset(files)])
out("glob", sorted(os.path.basename(f) for f in tf.io.gfile.glob(os.path.join(TMP, "par*.tfrecord"))))  # TF: directory order
""",
    "text_format": """
ex = tf.train.Example(features=tf.train.Features(feature={
    "b": tf.train.Feature(bytes_list=tf.train.BytesList(value=[b"x\\x00\\xff", b"q'"])),
}))
out("str", str(ex))
out("feature_str", str(ex.features.feature["b"]))
""",
    "strings_in_pipeline": """
ds = tf.data.Dataset.from_tensor_slices(np.array([b"a", b"bb", b"c"], dtype=object))
out("batched", [b for b in ds.batch(2)])
out("padded", [b for b in ds.map(lambda s: (s, tf.constant([1, 2]))).padded_batch(2)])
""",
    "shuffle_is_permutation": """
vals = [int(x) for x in tf.data.Dataset.range(20).shuffle(5, seed=1)]
out("sorted", sorted(vals))
""",
    "dataset_ops": """
ds = tf.data.Dataset.from_tensor_slices(({"a": np.arange(6)}, np.arange(6) * 2.0))
ds = ds.map(lambda d, y: (d["a"] + 1, y)).filter(lambda a, y: a % 2 == 0).batch(2)
for i, el in enumerate(ds):
    out("el%d" % i, el)
out("take", [int(x) for x in tf.data.Dataset.range(10).skip(2).take(3)])
out("interleave", [int(x) for x in tf.data.Dataset.range(1, 4).interleave(
    lambda x: tf.data.Dataset.from_tensors(x).repeat(2), cycle_length=2, block_length=1)])
""",
    "pad_sequences": """
ps = tf.keras.preprocessing.sequence.pad_sequences
out("default", ps([[1], [2, 3], [4, 5, 6]]))
out("post", ps([[1], [2, 3], [4, 5, 6]], maxlen=2, padding="post", truncating="post"))
out("float", ps([[1.7, -1.7, 2.5]]))
out("utils_same", tf.keras.utils.pad_sequences([[1, 2], [3]], value=-1).tolist())
""",
    "pad_error": "tf.keras.utils.pad_sequences([[1]], padding='middle')",
    "pad_shape_error": "tf.keras.utils.pad_sequences([[[1, 2]], [[3, 4, 5]]])",
    "constant_cast": """
out("c", tf.constant([1, 2]))
out("f", tf.constant(1.5))
out("s", tf.constant([b"a", b"bc"]))
out("cast", tf.cast(tf.constant([1.7, -1.7]), tf.int32))
out("dtype_eq", tf.constant([1], dtype=tf.int64).dtype == tf.int64)
""",
}


def _half(python, module, tmp, extra_env=None):
    code = "import %s as tf\n" % module + PRELUDE + textwrap.dedent("""
        cells = json.loads(open(sys.argv[1]).read())
        for name, src in cells.items():
            run_cell(name, src)
        print("RESULTS=" + json.dumps(RESULTS, sort_keys=True))
    """)
    cells = tmp / "cells.json"
    cells.write_text(json.dumps(CELLS))
    work = tmp / module
    work.mkdir()
    env = dict(os.environ, TF_CPP_MIN_LOG_LEVEL="3", **(extra_env or {}))
    res = subprocess.run([str(python), "-c", code, str(cells), str(work)],
                         capture_output=True, text=True, env=env, timeout=600)
    assert res.returncode == 0, res.stderr[-3000:]
    line = [x for x in res.stdout.splitlines() if x.startswith("RESULTS=")][-1]
    return json.loads(line[len("RESULTS="):])


def _tfnano_python():
    """build/venv's interpreter, where `make python` installs tfnano (run.sh runs it;
    this makes sure when the test is run alone). The TensorFlow venv never gets tfnano:
    `import tfnano` there could only find the uncompiled sources."""
    subprocess.run(["make", "--no-print-directory", "python"], cwd=str(ROOT), check=True)
    return ROOT / "build" / "venv" / "bin" / "python"


def test_notebook_parity(tmp_path):
    pytest.importorskip("tensorflow")
    ref = _half(Path(sys.executable), "tensorflow", tmp_path)
    ours = _half(_tfnano_python(), "tfnano", tmp_path)
    mismatches = []
    for key in sorted(set(ref) | set(ours)):
        if ref.get(key) != ours.get(key):
            mismatches.append("%s\n    tensorflow: %s\n    tfnano:     %s"
                              % (key, ref.get(key), ours.get(key)))
    assert not mismatches, "\n".join(mismatches)
