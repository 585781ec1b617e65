"""tf.data pipelines, code verbatim, under TensorFlow 2.21 and tfnano in one process:
the pipelines of examples/, of the W4 benchmark and the Kaggle flowers image pipeline
(on the C engine's image stage, every resize method) give TensorFlow's values, dtypes
and shapes; deterministic interleaves give TensorFlow's order; an error inside a
traced function has TensorFlow's message; ignore_errors() keeps what TensorFlow
keeps behind parallel reads and parallel map."""
import os
import re
import sys
from pathlib import Path

import numpy as np
import pytest

tf = pytest.importorskip("tensorflow")

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "bindings" / "python"))
sys.path.insert(0, str(ROOT / "test" / "bench"))
import tfnano as tn  # noqa: E402
import bench_w4  # noqa: E402


def values(x):
    if isinstance(x, dict):
        return {k: values(v) for k, v in sorted(x.items())}
    if isinstance(x, (tuple, list)):
        return tuple(values(v) for v in x)
    a = np.asarray(x.numpy() if hasattr(x, "numpy") else x)
    kind = "bytes" if a.dtype == object or a.dtype.kind == "S" else a.dtype.str
    return (kind, a.shape, a.tolist())


def run_both(make):
    return [values(e) for e in make(tf)], [values(e) for e in make(tn)]


@pytest.fixture(scope="module")
def w1(tmp_path_factory):
    return bench_w4.write_w1(str(tmp_path_factory.mktemp("w1")), 700)


@pytest.fixture(scope="module")
def w2(tmp_path_factory):
    return bench_w4.write_w2(str(tmp_path_factory.mktemp("w2")), 90)


def deterministic(ds, lib):
    opt = lib.data.Options()
    opt.deterministic = True
    return ds.with_options(opt)


@pytest.mark.parametrize("engine", ["1", "0"])
def test_quest_pipeline_verbatim(w1, engine, monkeypatch):
    monkeypatch.setenv("TFNANO_C_PIPELINE", engine)
    want, got = run_both(lambda lib: deterministic(bench_w4.quest_pipeline(lib, w1), lib))
    assert got == want


def test_image_record_pipeline_verbatim(w2):
    want, got = run_both(lambda lib: bench_w4.image_pipeline(lib, w2))
    assert got == want


@pytest.fixture(scope="module")
def photos(tmp_path_factory):
    """60 JPEG photos (q90, 4:2:0; some 4:4:4 and progressive), various sizes, and one
    PNG, as Examples {image, class}."""
    import io
    from PIL import Image
    rng = np.random.default_rng(5)
    path = str(tmp_path_factory.mktemp("photos") / "flowers.tfrec")
    with tn.io.TFRecordWriter(path) as w:
        for i in range(60):
            h, w_ = int(rng.integers(40, 300)), int(rng.integers(40, 300))
            y, x = np.mgrid[0:h, 0:w_]
            img = np.stack([120 + 80 * np.sin(x / rng.uniform(5, 40) + k) *
                            np.cos(y / rng.uniform(5, 40)) + rng.normal(0, 6, (h, w_))
                            for k in range(3)], -1)
            buf = io.BytesIO()
            pil = Image.fromarray(np.clip(img, 0, 255).astype(np.uint8))
            if i == 17:
                pil.save(buf, "PNG")
            else:
                pil.save(buf, "JPEG", quality=90, subsampling=0 if i % 5 == 1 else 2,
                         progressive=i % 7 == 3)
            ex = tn.train.Example(features=tn.train.Features(feature={
                "image": tn.train.Feature(bytes_list=tn.train.BytesList(value=[buf.getvalue()])),
                "class": tn.train.Feature(int64_list=tn.train.Int64List(value=[i % 5]))}))
            w.write(ex.SerializeToString())
    return path


@pytest.mark.parametrize("engine", ["1", "0"])
def test_flowers_pipeline_verbatim(photos, engine, monkeypatch):
    """The Kaggle flowers input function (test/bench/bench_image.py, code verbatim):
    on the C engine's image stage and on Python threads, TensorFlow's values."""
    import bench_image
    monkeypatch.setenv("TFNANO_C_PIPELINE", engine)
    ds = bench_image.pipeline(tn, photos)
    assert ("decode_jpeg -> resize -> normalise" in ds.plan_text()) == (engine == "1")
    want, got = run_both(lambda lib: bench_image.pipeline(lib, photos))
    assert got == want


@pytest.mark.parametrize("method,antialias,norm", [
    ("bicubic", False, "center"), ("lanczos3", True, "div"), ("area", False, "mul"),
    ("nearest", False, "convert"), ("mitchellcubic", True, "none"), ("bilinear", True, "div")])
def test_image_stage_methods_against_tensorflow(photos, method, antialias, norm, monkeypatch):
    monkeypatch.setenv("TFNANO_C_PIPELINE", "1")

    def make(lib):
        fmt = {"image": lib.io.FixedLenFeature([], lib.string),
               "class": lib.io.FixedLenFeature([], lib.int64)}

        def fn(r):
            ex = lib.io.parse_single_example(r, fmt)
            image = lib.io.decode_image(ex["image"], channels=3, expand_animations=False)
            image = lib.image.resize(image, [48, 40], method=method, antialias=antialias)
            if norm == "center":
                image = (image - 127.5) / 127.5
            elif norm == "div":
                image = lib.cast(image, lib.float32) / 255.0
            elif norm == "mul":
                image = image * (1 / 255.0)
            elif norm == "convert":
                image = lib.image.convert_image_dtype(image, lib.float32)
            return image, ex["class"]
        return lib.data.TFRecordDataset(photos).map(fn, num_parallel_calls=lib.data.AUTOTUNE) \
            .batch(16)
    assert "runs on C threads" in make(tn).plan_text()
    want, got = run_both(make)
    assert got == want


@pytest.fixture(scope="module")
def plant_records(tmp_path_factory):
    """Plant Pathology records of seed 004: 40 photos of 512 x 512 (JPEG q90, some
    4:4:4), the four target columns and image_name; and a copy where record 21 is
    512 x 480 (reshape fails there)."""
    import io
    from PIL import Image
    import bench_seed_image
    rng = np.random.default_rng(23)
    d = tmp_path_factory.mktemp("plants")
    paths = []
    for odd in (False, True):
        path = str(d / ("plants%d.tfrec" % odd))
        with tn.io.TFRecordWriter(path) as w:
            for i in range(40):
                h, w_ = (512, 480) if odd and i == 21 else (512, 512)
                y, x = np.mgrid[0:h, 0:w_]
                img = np.stack([120 + 80 * np.sin(x / rng.uniform(9, 60) + k) *
                                np.cos(y / rng.uniform(9, 60)) for k in range(3)], -1)
                img = img + rng.normal(0, 4, img.shape)
                buf = io.BytesIO()
                Image.fromarray(np.clip(img, 0, 255).astype(np.uint8)).save(
                    buf, "JPEG", quality=90, subsampling=0 if i % 5 == 2 else 2)
                f = {"image": tn.train.Feature(bytes_list=tn.train.BytesList(
                         value=[buf.getvalue()])),
                     "image_name": tn.train.Feature(bytes_list=tn.train.BytesList(
                         value=[b"Train_%d" % i]))}
                for c in bench_seed_image.COLS:
                    f[c] = tn.train.Feature(int64_list=tn.train.Int64List(
                        value=[int(rng.integers(2))]))
                w.write(tn.train.Example(features=tn.train.Features(
                    feature=f)).SerializeToString())
        paths.append(path)
    return paths


@pytest.mark.parametrize("engine", ["1", "0"])
@pytest.mark.parametrize("as_list,resize", [(False, False), (False, True)])
def test_seed004_image_decoder_verbatim(plant_records, engine, as_list, resize, monkeypatch):
    """Seed 004's decode_jpeg -> cast / 255 -> reshape (and the flowers resize variant),
    code verbatim in test/bench/bench_seed_image.py but for the targets, a tuple here
    (the list form is issue 23 item 1): TensorFlow's values and order, on the engine's
    image stage and on Python threads."""
    import bench_seed_image
    monkeypatch.setenv("TFNANO_C_PIPELINE", engine)

    def make(lib):
        return bench_seed_image.seed004(lib, plant_records[:1], as_list=as_list, resize=resize)
    if engine == "1" and not as_list:
        assert "runs on C threads" in make(tn).plan_text()
    want, got = run_both(make)
    assert got == want


@pytest.mark.parametrize("engine", ["1", "0"])
def test_seed004_image_of_another_size_fails_as_in_tensorflow(plant_records, engine,
                                                              monkeypatch):
    import bench_seed_image
    monkeypatch.setenv("TFNANO_C_PIPELINE", engine)

    def make(lib):
        return bench_seed_image.seed004(lib, plant_records[1:], as_list=False)
    out = []
    for lib in (tf, tn):
        it, got, err = iter(make(lib)), [], None
        while True:
            try:
                got.append(values(next(it)))
            except StopIteration:
                break
            except Exception as e:  # the batch of record 21 fails; later ones come
                err = e
        out.append((got, err))
    (want, tf_err), (got, tn_err) = out
    assert got == want and len(got) == 1  # the batch of record 21 fails, the last comes
    assert type(tn_err).__name__ == type(tf_err).__name__ == "InvalidArgumentError"
    assert str(tn_err).split("; ")[0] == _tf_text(tf_err)


def test_batch_then_parse_example_verbatim(w1):
    want, got = run_both(lambda lib: bench_w4.batch_first_pipeline(lib, w1))
    assert got == want


def test_image_example_padded_batch_after_sequence_feature(tmp_path):
    rng = np.random.default_rng(1)
    path = str(tmp_path / "img.tfrecord")
    with tn.io.TFRecordWriter(path) as w:
        for i in range(70):
            ex = tn.train.Example(features=tn.train.Features(feature={
                "image": tn.train.Feature(bytes_list=tn.train.BytesList(
                    value=[rng.bytes(int(rng.integers(10, 90)))])),
                "height": tn.train.Feature(int64_list=tn.train.Int64List(value=[i])),
                "box_labels": tn.train.Feature(int64_list=tn.train.Int64List(
                    value=rng.integers(0, 80, int(rng.integers(0, 6))).tolist())),
            }))
            w.write(ex.SerializeToString())

    def make(lib):
        features = {
            "image": lib.io.FixedLenFeature([], lib.string),
            "height": lib.io.FixedLenFeature([], lib.int64),
            "label": lib.io.FixedLenFeature([], lib.int64, default_value=-1),
            "box_labels": lib.io.FixedLenSequenceFeature([], lib.int64, allow_missing=True),
        }
        return (lib.data.TFRecordDataset(path)
                .map(lambda r: lib.io.parse_single_example(r, features))
                .map(lambda d: ((d["image"], d["height"]), d["box_labels"]))
                .padded_batch(32, padding_values=(None, lib.constant(-1, lib.int64))))
    want, got = run_both(make)
    assert got == want


PADDING_CASES = [
    # (dataset maker, padding_values): TensorFlow accepts or raises, tfnano the same
    ("int64 rows", 0), ("int64 rows", np.int64(-1)), ("int64 rows", np.int32(0)),
    ("int64 rows", 0.5), ("int64 rows", "a"), ("int64 rows", [0, 1]),
    ("int64 rows", 2 ** 40),
    ("pairs", (0, 0.5)), ("pairs", (np.int64(0), 0.0)), ("pairs", 0),
    ("pairs", (1, np.float64(0.5))), ("pairs", (None, 0.0)),
    ("words", ""), ("words", b"x"), ("words", 0),
    ("flags", False), ("flags", 0),
    ("dicts", {"a": np.int64(0), "b": 0.0}), ("dicts", {"a": 0, "b": 0.0}),
]


def _padding_dataset(lib, kind):
    if kind == "int64 rows":
        return lib.data.Dataset.range(1, 5).map(lambda x: lib.fill([x], x))
    if kind == "pairs":
        return lib.data.Dataset.from_tensor_slices(
            (np.arange(4, dtype=np.int32), np.arange(4.0, dtype=np.float32)))
    if kind == "words":
        return lib.data.Dataset.from_tensor_slices([b"a", b"bb", b"c"])
    if kind == "flags":
        return lib.data.Dataset.from_tensor_slices(np.array([True, False, True]))
    return lib.data.Dataset.from_tensor_slices({"a": np.arange(3),
                                                "b": np.ones(3, np.float32)})


@pytest.mark.parametrize("kind,value", PADDING_CASES)
def test_padded_batch_padding_value_types(kind, value):
    def outcome(lib):
        try:
            return [values(e) for e in _padding_dataset(lib, kind).padded_batch(
                2, padding_values=value)]
        except (TypeError, ValueError) as e:
            return type(e).__name__, str(e)
    assert outcome(tn) == outcome(tf)


def test_deterministic_interleave_order(tmp_path):
    files = []
    for f, n in enumerate([5, 0, 13, 2, 9, 1, 7]):
        p = str(tmp_path / ("f%d" % f))
        with tn.io.TFRecordWriter(p) as w:
            for i in range(n):
                w.write(b"%d:%d" % (f, i))
        files.append(p)
    for reads in (2, 3, 5):
        want, got = run_both(lambda lib: lib.data.TFRecordDataset(files,
                                                                   num_parallel_reads=reads))
        assert got == want, reads
        want, got = run_both(lambda lib: lib.data.TFRecordDataset(
            files, num_parallel_reads=reads).batch(4))
        assert got == want, reads
    for cycle, block in ((2, 3), (4, 1), (3, 2)):
        want, got = run_both(lambda lib: lib.data.Dataset.from_tensor_slices(files).interleave(
            lambda f: lib.data.TFRecordDataset(f), cycle_length=cycle, block_length=block))
        assert got == want, (cycle, block)


def _tf_text(e):
    """TensorFlow's message without the graph decorations it adds around it."""
    text = str(e)
    text = re.sub(r"^\{\{function_node [^}]*\}\}\s*", "", text)
    # "Error in user-defined function passed to MapDataset:12 transformation with
    # iterator: Iterator::Root::ParallelMapV2: " names TensorFlow's graph, not the error
    text = re.sub(r"^Error in user-defined function passed to \S+ transformation with "
                  r"iterator: \S+: ", "", text)
    return text.split("\n")[0].strip()


def _records(tmp_path, bad_at, n=12):
    path = str(tmp_path / "e.tfrecord")
    with tn.io.TFRecordWriter(path) as w:
        for i in range(n):
            w.write(tn.train.Example(features=tn.train.Features(feature={
                "id": tn.train.Feature(int64_list=tn.train.Int64List(value=[i])),
                "v": tn.train.Feature(int64_list=tn.train.Int64List(
                    value=[i] if i in bad_at else [i, i]))})).SerializeToString())
    return path


@pytest.mark.parametrize("batched", [False, True])
def test_error_inside_a_traced_function_has_tensorflows_message(tmp_path, batched):
    path = _records(tmp_path, {5})

    def make(lib):
        feats = {"id": lib.io.FixedLenFeature([], lib.int64),
                 "v": lib.io.FixedLenFeature([2], lib.int64)}
        ds = lib.data.TFRecordDataset(path).map(
            lambda r: lib.io.parse_single_example(r, feats))
        return ds.batch(4) if batched else ds

    errs = []
    for lib in (tf, tn):
        with pytest.raises(Exception) as e:
            list(make(lib))
        errs.append(e.value)
    assert type(errs[1]).__name__ == type(errs[0]).__name__ == "InvalidArgumentError"
    assert str(errs[1]).split("; ")[0] == _tf_text(errs[0])


def test_ignore_errors_keeps_what_tensorflow_keeps(tmp_path):
    paths = []
    for s in range(3):
        d = tmp_path / ("s%d" % s)
        d.mkdir()
        paths.append(_records(d, {1, 4, 9}, n=11 + s))

    def make(lib):
        feats = {"id": lib.io.FixedLenFeature([], lib.int64),
                 "v": lib.io.FixedLenFeature([2], lib.int64)}
        return (lib.data.TFRecordDataset(paths, num_parallel_reads=3)
                .map(lambda r: lib.io.parse_single_example(r, feats)["id"],
                     num_parallel_calls=3)
                .prefetch(2).ignore_errors())
    want, got = run_both(make)
    assert got == want
    want, got = run_both(lambda lib: make(lib).batch(5))
    assert got == want


def test_shard_semantics_and_errors():
    for n, k, i in ((10, 3, 0), (10, 3, 2), (2, 5, 4), (0, 2, 1)):
        want, got = run_both(lambda lib: lib.data.Dataset.range(n).shard(k, i))
        assert got == want
        assert int(tn.data.Dataset.range(n).shard(k, i).cardinality()) == \
            int(tf.data.Dataset.range(n).shard(k, i).cardinality())
    for k, i in ((0, 0), (3, 3), (3, -1)):
        errs = []
        for lib in (tf, tn):
            with pytest.raises(Exception) as e:
                list(lib.data.Dataset.range(4).shard(k, i))
            errs.append(e.value)
        assert type(errs[1]).__name__ == type(errs[0]).__name__
        assert str(errs[1]) == _tf_text(errs[0]).split(" [Op:")[0]


@pytest.mark.parametrize("engine", ["1", "0"])
def test_error_in_a_dropped_remainder_is_raised(tmp_path, engine, monkeypatch):
    """map(parse_single_example).batch(n, drop_remainder=True) is TensorFlow's fused
    map_and_batch: the short last batch is mapped before it is dropped, so a parse
    error in it is raised (by the C engine too); batch then parse_example drops it."""
    monkeypatch.setenv("TFNANO_C_PIPELINE", engine)
    path = _records(tmp_path, {4}, n=5)

    def make(lib, batch_first):
        feats = {"id": lib.io.FixedLenFeature([], lib.int64),
                 "v": lib.io.FixedLenFeature([2], lib.int64)}
        ds = lib.data.TFRecordDataset(path)
        if batch_first:
            return ds.batch(2, drop_remainder=True).map(
                lambda b: lib.io.parse_example(b, feats)["id"])
        return ds.map(lambda r: lib.io.parse_single_example(r, feats)["id"]).batch(
            2, drop_remainder=True)

    want, got = run_both(lambda lib: make(lib, True))
    assert got == want and len(got) == 2
    errs = []
    for lib in (tf, tn):
        with pytest.raises(Exception) as e:
            list(make(lib, False))
        errs.append(e.value)
    assert type(errs[1]).__name__ == type(errs[0]).__name__ == "InvalidArgumentError"
    assert str(errs[1]).split("; ")[0] == _tf_text(errs[0])
