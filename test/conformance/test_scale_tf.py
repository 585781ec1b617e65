"""The scale adapters against real TensorFlow: shards written by tfnano.arrow
(from_arrow), tfnano.dask (to_tfrecord) and tfnano.beam (WriteExamples) are read by
tf.data.TFRecordDataset + tf.io.parse_example with identical values, and shards
TensorFlow writes are read by tfnano.arrow.TFRecordReader with the values
tf.io.parse_example gives.

The adapters' dependencies (pyarrow, dask, apache-beam) live in build/venv-scale and
build/venv-beam (make conformance builds them), not beside TensorFlow: each adapter runs
there in a subprocess, and the files and an .npz of the values cross over.
"""
import json
import os
import subprocess
from pathlib import Path

import numpy as np
import pytest

tf = pytest.importorskip("tensorflow")

ROOT = Path(__file__).resolve().parents[2]
VENVS = {"scale": ROOT / "build" / "venv-scale" / "bin" / "python",
         "beam": ROOT / "build" / "venv-beam" / "bin" / "python"}
N = 120

# Runs in the adapters' venvs: makes the rows (seeded) and writes them with one adapter.
WRITER = r'''
import glob, json, sys
import numpy as np
import pyarrow as pa
sys.path.insert(0, sys.argv[1])
adapter, out = sys.argv[2], sys.argv[3]
n = int(sys.argv[4])
rng = np.random.default_rng(42)
ids = rng.integers(-2**62, 2**62, n)
score = rng.normal(size=n).astype(np.float32)
vec = rng.normal(size=(n, 3)).astype(np.float32)
names = [bytes(rng.integers(0, 256, int(k), dtype=np.uint8)) for k in rng.integers(0, 12, n)]
lens = rng.integers(0, 7, n)
tokens = [rng.integers(0, 50000, int(k)).tolist() for k in lens]
table = pa.table({"id": pa.array(ids), "score": pa.array(score),
                  "vec": pa.FixedSizeListArray.from_arrays(pa.array(vec.reshape(-1)), 3),
                  "name": pa.array(names, pa.binary()),
                  "tokens": pa.array(tokens, pa.list_(pa.int64()))})
splits = np.concatenate([[0], np.cumsum(lens)]).astype(np.int64)
np.savez(out + "/expected.npz", id=ids, score=score, vec=vec,
         name=np.array(names, dtype=object), tokens=np.concatenate(
             [np.asarray(t, np.int64) for t in tokens]) if splits[-1] else np.zeros(0, np.int64),
         splits=splits, allow_pickle=True)
if adapter == "arrow":
    import tfnano as tf
    from tfnano.arrow import from_arrow
    with tf.io.TFRecordWriter(out + "/arrow.tfrec") as w:
        for r in from_arrow(table):
            w.write(r)
    files = [out + "/arrow.tfrec"]
elif adapter in ("dask", "dask1"):
    import dask, dask.dataframe as dd
    from tfnano.dask import to_tfrecord
    dask.config.set({"dataframe.convert-string": False})
    one = adapter == "dask1"  # one partition, uncompressed: comparable byte for byte
    ddf = dd.from_pandas(table.to_pandas(types_mapper=__import__("pandas").ArrowDtype),
                        npartitions=1 if one else 4)
    files = to_tfrecord(ddf, out + "/dask/train-*.tfrec", compression=None if one else "GZIP")
elif adapter in ("beam", "beam1"):
    import apache_beam as beam
    from tfnano.beam import WriteExamples
    parts = [table] if adapter == "beam1" else [table.slice(0, n // 2), table.slice(n // 2)]
    with beam.Pipeline() as p:
        (p | beam.Create(parts, reshuffle=False)
           | WriteExamples(out + "/beam/train", file_name_suffix=".tfrec", num_shards=1))
    files = sorted(glob.glob(out + "/beam/train-*"))
print(json.dumps(files))
'''

# Runs in venv-scale: reads TF-written shards with tfnano.arrow, saves the columns.
READER = r'''
import sys
import numpy as np
sys.path.insert(0, sys.argv[1])
import tfnano as tf
from tfnano.arrow import TFRecordReader
feats = {"id": tf.io.FixedLenFeature([], tf.int64),
         "vec": tf.io.FixedLenFeature([3], tf.float32),
         "name": tf.io.FixedLenFeature([], tf.string),
         "tokens": tf.io.VarLenFeature(tf.int64),
         "d": tf.io.FixedLenFeature([], tf.int64, default_value=-7)}
t = TFRecordReader(sys.argv[2], feats, compression=sys.argv[4] or None,
                   batch_size=37).read_all()
tok = t.column("tokens").combine_chunks()
np.savez(sys.argv[3], id=t.column("id").to_numpy(),
         vec=np.asarray(t.column("vec").combine_chunks().flatten()).reshape(-1, 3),
         name=np.array(t.column("name").to_pylist(), dtype=object),
         tokens=np.asarray(tok.flatten()), splits=np.asarray(tok.offsets),
         d=t.column("d").to_numpy(), allow_pickle=True)
'''


def run_in(venv, script, *args):
    python = VENVS[venv]
    if not python.exists():
        pytest.fail("%s is missing: run `make venv-%s` (make conformance builds it)"
                    % (python.parent.parent, venv))
    env = dict(os.environ, PYTHONPATH=str(ROOT / "bindings" / "python"))
    proc = subprocess.run([str(python), "-c", script, str(ROOT / "bindings" / "python")]
                          + [str(a) for a in args], capture_output=True, text=True,
                          env=env, timeout=600)
    assert proc.returncode == 0, proc.stderr[-4000:]
    return proc.stdout


FEATURES = {"id": tf.io.FixedLenFeature([], tf.int64),
            "score": tf.io.FixedLenFeature([], tf.float32),
            "vec": tf.io.FixedLenFeature([3], tf.float32),
            "name": tf.io.FixedLenFeature([], tf.string),
            "tokens": tf.io.VarLenFeature(tf.int64)}


@pytest.mark.parametrize("adapter", ["arrow", "dask", "beam"])
def test_tensorflow_reads_what_the_adapters_write(adapter, tmp_path):
    venv = "beam" if adapter == "beam" else "scale"
    files = json.loads(run_in(venv, WRITER, adapter, tmp_path, N).strip().splitlines()[-1])
    assert files
    comp = "GZIP" if adapter == "dask" else ""
    ds = tf.data.TFRecordDataset(files, compression_type=comp).batch(1000)
    parsed = [tf.io.parse_example(b, FEATURES) for b in ds]
    got = {k: tf.concat([p[k] for p in parsed], 0) if k != "tokens" else
           tf.sparse.concat(0, [p[k] for p in parsed]) for k in FEATURES}
    want = np.load(tmp_path / "expected.npz", allow_pickle=True)
    order = np.argsort(got["id"].numpy())  # Beam does not keep the order
    expect = np.argsort(want["id"])
    np.testing.assert_array_equal(got["id"].numpy()[order], want["id"][expect])
    np.testing.assert_array_equal(got["score"].numpy()[order], want["score"][expect])
    np.testing.assert_array_equal(got["vec"].numpy()[order], want["vec"][expect])
    assert got["name"].numpy()[order].tolist() == want["name"][expect].tolist()
    ragged = tf.RaggedTensor.from_sparse(got["tokens"]).to_list()
    splits = want["splits"]
    tokens = [want["tokens"][splits[i]:splits[i + 1]].tolist() for i in range(N)]
    assert [ragged[i] for i in order] == [tokens[i] for i in expect]


def test_the_adapters_write_byte_identical_shards(tmp_path):
    """The same table, in one partition / element and one shard, gives the same file
    from tfnano.arrow, tfnano.dask and tfnano.beam; TensorFlow reads it."""
    contents = []
    for adapter, venv in (("arrow", "scale"), ("dask1", "scale"), ("beam1", "beam")):
        out = tmp_path / adapter
        out.mkdir()
        files = json.loads(run_in(venv, WRITER, adapter, out, N).strip().splitlines()[-1])
        assert len(files) == 1
        contents.append(Path(files[0]).read_bytes())
    assert contents[0] == contents[1] == contents[2]
    path = tmp_path / "arrow" / "arrow.tfrec"
    assert sum(1 for _ in tf.data.TFRecordDataset(str(path))) == N


@pytest.mark.parametrize("compression", ["", "GZIP"])
def test_tfnano_arrow_reads_what_tensorflow_writes(compression, tmp_path):
    rng = np.random.default_rng(5)
    path = str(tmp_path / "tf.tfrec")
    with tf.io.TFRecordWriter(path, options=compression or None) as w:
        for i in range(N):
            f = tf.train
            feats = {"id": f.Feature(int64_list=f.Int64List(value=[int(rng.integers(1e9))])),
                     "vec": f.Feature(float_list=f.FloatList(value=rng.normal(size=3))),
                     "name": f.Feature(bytes_list=f.BytesList(value=[b"n%d" % i])),
                     "tokens": f.Feature(int64_list=f.Int64List(
                         value=rng.integers(0, 99, int(rng.integers(0, 5))).tolist()))}
            if i % 4 == 0:
                feats["d"] = f.Feature(int64_list=f.Int64List(value=[i]))
            w.write(f.Example(features=f.Features(feature=feats)).SerializeToString())
    out = tmp_path / "got.npz"
    run_in("scale", READER, path, out, compression)
    got = np.load(out, allow_pickle=True)
    recs = list(tf.data.TFRecordDataset(path, compression_type=compression).batch(N))[0]
    ref = tf.io.parse_example(recs, {
        "id": tf.io.FixedLenFeature([], tf.int64), "vec": tf.io.FixedLenFeature([3], tf.float32),
        "name": tf.io.FixedLenFeature([], tf.string), "tokens": tf.io.VarLenFeature(tf.int64),
        "d": tf.io.FixedLenFeature([], tf.int64, default_value=-7)})
    np.testing.assert_array_equal(got["id"], ref["id"].numpy())
    np.testing.assert_array_equal(got["vec"], ref["vec"].numpy())
    np.testing.assert_array_equal(got["d"], ref["d"].numpy())
    assert got["name"].tolist() == ref["name"].numpy().tolist()
    rt = tf.RaggedTensor.from_sparse(ref["tokens"])
    np.testing.assert_array_equal(got["tokens"], rt.values.numpy())
    np.testing.assert_array_equal(got["splits"], rt.row_splits.numpy())
