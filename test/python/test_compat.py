"""tf.compat.v1, py_function / numpy_function, tf.io file ops, stand-ins, import forms,
the AttributeError for uncovered names and tfnano.as_tensorflow."""
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import tfnano as tf
from tfnano import _trace

ROOT = Path(__file__).resolve().parents[2]


def _run(code, **env):
    e = dict(os.environ, PYTHONPATH=str(ROOT / "bindings" / "python"), **env)
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          env=e, cwd=str(ROOT))


def test_py_function_and_numpy_function():
    out = tf.py_function(lambda x: np.array([1.5]) * x.numpy(), [tf.constant(2.0)], tf.float32)
    assert out.dtype == np.float32 and out.tolist() == [3.0]
    a, b = tf.py_function(lambda x: (x, x * 2), [tf.constant(1)], [tf.int32, tf.int32])
    assert (int(a), int(b)) == (1, 2)
    seen = []
    tf.numpy_function(lambda x: seen.append(type(x)) or x, [tf.constant([1])], tf.int32)
    assert seen == [np.ndarray]
    assert tf.numpy_function(lambda x: np.array([1.5]), [1], tf.float32).dtype == np.float64


def test_numpy_function_in_a_traced_map_checks_tout():
    g = _trace.trace(lambda x: tf.numpy_function(lambda v: v * 2, [x], tf.int64) + 1,
                     _trace.Spec(np.int64, ()), call_args=False)
    assert g.vectorizable() == "numpy_function"
    assert int(g.run(tf.constant(3, tf.int64))) == 7
    g = _trace.trace(lambda x: tf.numpy_function(lambda v: v * 2.0, [x], tf.int64),
                     _trace.Spec(np.int64, ()), call_args=False)
    with pytest.raises(tf.errors.InvalidArgumentError,
                       match="0-th value returned by pyfunc_0 is double, but expects int64"):
        g.run(tf.constant(3, tf.int64))


def test_io_file_ops(tmp_path):
    target = tmp_path / "a" / "b" / "c.txt"
    tf.io.write_file(str(target), "hi")
    data = tf.io.read_file(str(target))
    assert data.dtype == object and data.shape == () and data.numpy() == b"hi"
    with pytest.raises(tf.errors.NotFoundError, match="No such file or directory"):
        tf.io.read_file(str(tmp_path / "nope"))
    with pytest.raises(tf.errors.FailedPreconditionError, match="Is a directory"):
        tf.io.read_file(str(tmp_path))
    (tmp_path / "z1").write_bytes(b"")
    (tmp_path / "a1").write_bytes(b"")
    found = tf.io.matching_files(str(tmp_path / "*1"))
    assert [os.path.basename(f) for f in found.tolist()] == [b"a1", b"z1"]
    assert tf.io.matching_files(str(tmp_path / "q*")).shape == (0,)


def test_compat_v1_input_names(tmp_path):
    import tfnano.compat.v1 as v1
    path = str(tmp_path / "r.tfrecord")
    ex = tf.train.Example(features=tf.train.Features(feature={
        "x": tf.train.Feature(int64_list=tf.train.Int64List(value=[3]))}))
    with v1.python_io.TFRecordWriter(path) as w:
        w.write(ex.SerializeToString())
    records = list(v1.python_io.tf_record_iterator(path))
    parsed = v1.parse_single_example(records[0], {"x": v1.FixedLenFeature([], v1.int64)})
    assert int(parsed["x"]) == 3
    assert v1.gfile.Exists(path) and v1.gfile.Glob(str(tmp_path / "*")) == [path]
    it = v1.data.make_one_shot_iterator(tf.data.Dataset.from_tensor_slices([1, 2]))
    assert [int(it.get_next()), int(it.get_next())] == [1, 2]
    with pytest.raises(tf.errors.OutOfRangeError):
        it.get_next()
    v1.logging.set_verbosity(v1.logging.INFO)
    assert v1.logging.get_verbosity() == 20
    v1.enable_eager_execution()
    assert tf.compat.v1 is v1 and tf.compat.as_bytes("x") == b"x" and tf.compat.as_text(b"x") == "x"
    with pytest.raises(AttributeError, match="TF1 graph mode"):
        v1.Session


def test_stand_ins():
    assert tf.distribute.get_strategy().num_replicas_in_sync == 1
    with tf.distribute.get_strategy().scope():
        pass
    with pytest.raises(ValueError):
        tf.distribute.cluster_resolver.TPUClusterResolver()
    assert [d.device_type for d in tf.config.list_physical_devices()] == ["CPU"]
    assert tf.config.list_physical_devices("GPU") == []
    assert tf.get_logger().name == "tensorflow"
    f = tf.function(lambda x: x + 1)
    assert f(1) == 2 and tf.autograph.experimental.do_not_convert(f) is f

    @tf.function(input_signature=[tf.TensorSpec([], tf.int32)])
    def g(x):
        return x * 2
    assert int(g(tf.constant(2))) == 4


def test_print_formats_as_tensorflow(capsys):
    tf.print("x:", tf.constant([1, 2]), tf.constant("s"))
    assert capsys.readouterr().err == "x: [1 2] s\n"


def test_uncovered_names_say_what_tfnano_covers():
    with pytest.raises(AttributeError, match="tfnano implements TensorFlow's input surface.*"
                                             "tf.GradientTape is not part of it.*training"):
        tf.GradientTape
    assert not hasattr(tf, "definitely_not_a_tf_name")


def test_import_forms():
    r = _run("import tfnano as tf\nfrom tfnano import train\n"
             "from tfnano.train import Example, Features, Feature\n"
             "import tfnano.compat.v1 as v1\n"
             "print(train.Example is Example, v1.FixedLenFeature is tf.io.FixedLenFeature)")
    assert r.returncode == 0, r.stderr
    assert r.stdout.split() == ["True", "True"]


def test_import_time_printed():
    r = _run("import time; t = time.perf_counter(); import tfnano; "
             "print('%.1f' % ((time.perf_counter() - t) * 1000))")
    assert r.returncode == 0, r.stderr
    print("import tfnano: %s ms" % r.stdout.strip())  # no timing assertion (project rule)


def test_as_tensorflow_aliases_only_without_tensorflow(tmp_path):
    script = tmp_path / "user.py"
    script.write_text("import tensorflow as tf\nimport tensorflow.compat.v1 as v1\n"
                      "from tensorflow.io import gfile\n"
                      "print(tf.__name__, v1.__name__, tf.reshape([1, 2], [2, 1]).shape)\n")
    have_tf = _run("import importlib.util, sys; "
                   "sys.exit(0 if importlib.util.find_spec('tensorflow') else 1)").returncode == 0
    r = _run("import sys, runpy; sys.argv = ['x', %r]; import tfnano.run as m; "
             "sys.exit(m.main())" % str(script))
    if have_tf:  # the real TensorFlow is never shadowed
        assert "tensorflow" in r.stdout.split()[0:1] or "never shadows" in r.stderr
    else:
        assert r.returncode == 0, r.stderr
        assert r.stdout.split() == ["tfnano", "tfnano.compat.v1", "(2,", "1)"]


def test_mutating_a_traced_result_keeps_the_graph_right(tmp_path):
    # BERT's run_classifier: example = parse_single_example(...); example[k] = cast(...)
    path = str(tmp_path / "r.tfrecord")
    with tf.io.TFRecordWriter(path) as w:
        for i in range(3):
            w.write(tf.train.Example(features=tf.train.Features(feature={
                "ids": tf.train.Feature(int64_list=tf.train.Int64List(value=[i, i + 1]))}))
                .SerializeToString())
    spec = {"ids": tf.io.FixedLenFeature([2], tf.int64)}

    def decode(record):
        example = tf.io.parse_single_example(record, spec)
        for name in list(example.keys()):
            example[name] = tf.compat.v1.to_int32(example[name])
        return example
    got = [b["ids"] for b in tf.data.TFRecordDataset(path).map(decode).batch(2)]
    assert [g.dtype for g in got] == [np.int32, np.int32]
    assert [g.tolist() for g in got] == [[[0, 1], [1, 2]], [[2, 3]]]


def test_mutating_a_traced_input_keeps_the_graph_right():
    # Hugging Face style: features.pop("label") inside a map function
    ds = tf.data.Dataset.from_tensor_slices({"x": [1, 2, 3], "label": [0, 1, 0]})

    def split_label(features):
        label = features.pop("label")
        return features, label
    got = [(f["x"].tolist(), lab.tolist()) for f, lab in ds.map(split_label).batch(2)]
    assert got == [([1, 2], [0, 1]), ([3], [0])]


def test_decode_csv_eager_and_in_a_vectorized_map():
    cols = tf.io.decode_csv(['1,2.5,a', '3,,"b,c"'], [[0], [0.0], [""]])
    assert [c.dtype for c in cols] == [np.int32, np.float32, object]
    assert [c.tolist() for c in cols] == [[1, 3], [2.5, 0.0], [b"a", b"b,c"]]
    with pytest.raises(tf.errors.InvalidArgumentError, match="Expect 3 fields but have 2"):
        tf.io.decode_csv("1,2", [[0], [0], [0]])
    with pytest.raises(tf.errors.InvalidArgumentError, match="Field 1 is required but missing"):
        tf.io.decode_csv("1,", [[0], tf.constant([], tf.int32)])
    lines = tf.data.Dataset.from_tensor_slices(["%d,%d.5" % (i, i) for i in range(5)])
    ds = lines.map(lambda l: tuple(tf.io.decode_csv(l, [[0], [0.0]]))).batch(5)
    assert "vectorized" in ds.plan_text()
    a, b = next(iter(ds))
    assert a.tolist() == [0, 1, 2, 3, 4] and b.tolist() == [0.5, 1.5, 2.5, 3.5, 4.5]
