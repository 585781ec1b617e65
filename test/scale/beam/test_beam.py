"""tfnano.beam with the DirectRunner (multi-process): files byte-identical to
beam.io.WriteToTFRecord's, read back by tfnano and by ReadExamples."""
import glob
import os

import apache_beam as beam
import numpy as np
import pyarrow as pa
import pytest
from apache_beam.options.pipeline_options import PipelineOptions

import tfnano as tf
from tfnano import arrow as ta
from tfnano.beam import ExampleCoder, ReadExamples, WriteExamples

FEATURES = {"id": tf.io.FixedLenFeature([], tf.int64),
            "x": tf.io.FixedLenFeature([2], tf.float32),
            "name": tf.io.FixedLenFeature([], tf.string),
            "tokens": tf.io.VarLenFeature(tf.int64)}


def rows(n):
    rng = np.random.default_rng(7)
    return [{"id": i, "x": rng.random(2).astype(np.float32), "name": b"n%d" % i,
             "tokens": list(range(i % 4))} for i in range(n)]


def reference(row):
    """The Example tfnano.train builds for a row (byte-identical to TensorFlow's)."""
    f = tf.train
    feats = {"id": f.Feature(int64_list=f.Int64List(value=[row["id"]])),
             "x": f.Feature(float_list=f.FloatList(value=[float(v) for v in row["x"]])),
             "name": f.Feature(bytes_list=f.BytesList(value=[row["name"]])),
             "tokens": f.Feature(int64_list=f.Int64List(value=row["tokens"]))}
    return f.Example(features=f.Features(feature=feats)).SerializeToString()


def direct(multi):
    if multi:
        return PipelineOptions(["--runner=DirectRunner", "--direct_num_workers=2",
                                "--direct_running_mode=multi_processing"])
    return PipelineOptions(["--runner=DirectRunner"])


def test_example_coder_round_trip():
    coder = ExampleCoder()
    row = rows(3)[2]
    enc = coder.encode(row)
    assert enc == reference(row)
    dec = coder.decode(enc)
    assert dec["id"].tolist() == [2] and dec["tokens"].tolist() == [0, 1]
    assert dec["name"].tolist() == [b"n2"]
    np.testing.assert_array_equal(dec["x"], row["x"])


def test_files_are_byte_identical_to_write_to_tfrecord(tmp_path):
    data = rows(200)
    recs = [reference(r) for r in data]
    with beam.Pipeline(options=direct(False)) as p:
        pc = p | beam.Create(data, reshuffle=False)
        pc | "tfnano" >> WriteExamples(str(tmp_path / "a" / "train"), file_name_suffix=".tfrec",
                                      num_shards=1)
        (pc | beam.Map(reference)
            | "beam" >> beam.io.WriteToTFRecord(str(tmp_path / "b" / "train"),
                                                file_name_suffix=".tfrec", num_shards=1))
    (a,) = glob.glob(str(tmp_path / "a" / "*"))
    (b,) = glob.glob(str(tmp_path / "b" / "*"))
    assert os.path.basename(a) == os.path.basename(b) == "train-00000-of-00001.tfrec"
    got = [bytes(r.numpy()) for r in tf.data.TFRecordDataset(a)]
    assert sorted(got) == sorted(recs)
    ref = [bytes(r.numpy()) for r in tf.data.TFRecordDataset(b)]
    if got == ref:  # same element order: the whole files must match
        assert open(a, "rb").read() == open(b, "rb").read()
    else:  # per record framing identical whatever the order
        framed = {r: _framed(r) for r in recs}
        assert sorted(framed[r] for r in got) == sorted(framed[r] for r in ref)
        assert len(open(a, "rb").read()) == len(open(b, "rb").read())


def _framed(rec):
    import io
    buf = io.BytesIO()
    w = tf.io.TFRecordWriter(buf)
    w.write(rec)
    w.close()
    return buf.getvalue()


def test_multiprocess_write_then_read_arrow_batches(tmp_path):
    data = rows(300)
    table = pa.table({"id": pa.array([r["id"] for r in data]),
                      "name": pa.array([r["name"] for r in data])})
    with beam.Pipeline(options=direct(True)) as p:
        (p | beam.Create([table.slice(0, 150), table.slice(150)])
           | WriteExamples(str(tmp_path / "t" / "part"), file_name_suffix=".tfrec.gz",
                           num_shards=3))
    files = sorted(glob.glob(str(tmp_path / "t" / "part-*")))
    assert [os.path.basename(f) for f in files] == [
        "part-%05d-of-00003.tfrec.gz" % i for i in range(3)]
    got = sorted(bytes(r.numpy()) for r in tf.data.TFRecordDataset(files, "GZIP"))
    assert got == sorted(ta.from_arrow(table))
    out = str(tmp_path / "ids")
    feats = {"id": tf.io.FixedLenFeature([], tf.int64),
             "name": tf.io.FixedLenFeature([], tf.string)}
    with beam.Pipeline(options=direct(True)) as p:
        (p | ReadExamples(str(tmp_path / "t" / "part-*"), feats, batch_size=64)
           | beam.FlatMap(lambda b: b.column("id").to_pylist())
           | beam.combiners.ToList()
           | beam.Map(lambda ids: sorted(ids))
           | beam.io.WriteToText(out, shard_name_template=""))
    with open(out) as f:
        assert f.read().strip() == str(list(range(300)))


def test_read_examples_numpy_and_bytes(tmp_path):
    data = rows(50)
    path = str(tmp_path / "r.tfrec")
    with tf.io.TFRecordWriter(path) as w:
        for r in data:
            w.write(reference(r))
    with beam.Pipeline(options=direct(False)) as p:
        nump = p | "np" >> ReadExamples(path, {"x": FEATURES["x"]}, output="numpy")
        byts = p | "bytes" >> ReadExamples(path, output="bytes")
        (nump | "rows" >> beam.Map(lambda d: d["x"].shape[0])
              | "sum" >> beam.CombineGlobally(sum)
              | "w1" >> beam.io.WriteToText(str(tmp_path / "rows"), shard_name_template=""))
        (byts | beam.Map(lambda r: (r == reference(data[0])) + 0)
              | "first" >> beam.CombineGlobally(sum)
              | "w2" >> beam.io.WriteToText(str(tmp_path / "first"), shard_name_template=""))
        (byts | beam.combiners.Count.Globally()
              | "w3" >> beam.io.WriteToText(str(tmp_path / "count"), shard_name_template=""))
    assert (tmp_path / "rows").read_text().strip() == "50"
    assert (tmp_path / "first").read_text().strip() == "1"
    assert (tmp_path / "count").read_text().strip() == "50"


def test_bad_elements_are_refused():
    with pytest.raises(Exception, match="elements must be dicts"):
        with beam.Pipeline(options=direct(False)) as p:
            p | beam.Create([1.5]) | WriteExamples("/nonexistent/x")
