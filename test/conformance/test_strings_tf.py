"""tf.strings' split / lower / upper / strip / hashing and text pipelines against
TensorFlow 2.21 in one process: random strings (ASCII whitespace of every kind,
separators, upper case, non-ASCII bytes), every sep / maxsplit, and TextLineDataset ->
map(lower -> split -> lookup / hash / ngrams) -> padded_batch / ragged_batch / batch,
which tfnano runs vectorized (asserted from its plan): the same values, dtypes, shapes
and row splits, or the same error class and text."""
import re
import sys
from pathlib import Path

import numpy as np
import pytest

tf = pytest.importorskip("tensorflow")
hypothesis = pytest.importorskip("hypothesis")
from hypothesis import given, settings, strategies as st  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "bindings" / "python"))
import tfnano as tn  # noqa: E402

SETTINGS = settings(max_examples=60, deadline=None, derandomize=True)


def _plain(r):
    if hasattr(r, "to_list"):
        return ("ragged", str(np.asarray(r.row_splits).dtype), r.to_list())
    if isinstance(r, (tuple, list)):
        return tuple(_plain(x) for x in r)
    a = np.asarray(r.numpy() if hasattr(r, "numpy") else r)
    return (str(a.dtype) if a.dtype != object else "string", a.shape, a.tolist())


def _outcome(fn):
    try:
        out = fn()
        if hasattr(out, "element_spec") and hasattr(out, "__iter__"):
            out = list(out)
        return "ok", _plain(out)
    except Exception as e:  # noqa: BLE001 - class and text compared
        text = str(e).split(" [Op:")[0].split("}} ")[-1].split("\n")[0]
        text = re.sub(r"^.*Iterator::\S+: ", "", text)
        # map_and_batch's [batch] shape is that of the element that finished first
        text = text.split(" Shapes are:")[0]
        return "error", (type(e).__name__, text)


def same(make):
    a, b = _outcome(lambda: make(tf)), _outcome(lambda: make(tn))
    assert a == b
    return a


pieces = st.sampled_from([b"a", b"Bc", b"D", b" ", b"  ", b"\t", b"\x0b", b"\x0c", b"\r",
                          b",", b"<>", b"\xc3\x89", b"\xff", b"x1", b""])
strings = st.lists(pieces, max_size=12).map(b"".join)


@SETTINGS
@given(values=st.lists(strings, max_size=8), sep=st.sampled_from([None, "", ",", "<>", " "]),
       maxsplit=st.sampled_from([-1, 0, 1, 2, 3, 7]))
def test_split_and_maps(values, sep, maxsplit):
    same(lambda lib: lib.strings.split(lib.constant(values, lib.string), sep=sep,
                                       maxsplit=maxsplit))
    for v in values[:3]:
        same(lambda lib: lib.strings.split(lib.constant(v), sep=sep, maxsplit=maxsplit))
    if len(values) >= 4:
        same(lambda lib: lib.strings.split(lib.constant(np.array(values[:4], object).reshape(
            2, 2)), sep=sep, maxsplit=maxsplit))
    for op in ("lower", "upper", "strip"):
        same(lambda lib: getattr(lib.strings, op)(lib.constant(values, lib.string)))
    same(lambda lib: lib.strings.to_hash_bucket_fast(lib.constant(values, lib.string), 97))
    same(lambda lib: lib.strings.to_hash_bucket(lib.constant(values, lib.string), 97))
    same(lambda lib: lib.strings.to_hash_bucket_strong(lib.constant(values, lib.string), 97,
                                                       [7, 11]))


lines = st.lists(st.sampled_from([b"the", b"The", b"CAT", b"sat", b"on", b"mat", b" ",
                                  b"  ", b"\t", b"x", b"\xc3\xa9"]), max_size=10).map(b"".join)


def _write(path, rows):
    path.write_bytes(b"\n".join(rows) + b"\n")
    return str(path)


def _vectorized(ds):
    text = ds.plan_text()
    assert "(vectorized)" in text and "not vectorized" not in text, text


@SETTINGS
@given(rows=st.lists(lines, min_size=1, max_size=12), batch=st.integers(1, 5),
       oov=st.integers(1, 4), width=st.sampled_from([None, 3, 12]))
def test_text_pipelines(tmp_path_factory, rows, batch, oov, width):
    path = _write(tmp_path_factory.mktemp("text") / "t.txt", rows)
    vocab = ["the", "cat", "sat", "on"]

    def table(lib):
        return lib.lookup.StaticVocabularyTable(lib.lookup.KeyValueTensorInitializer(
            lib.constant(vocab), lib.constant(np.arange(len(vocab)), lib.int64)), oov)

    def ids(lib):
        t = table(lib)
        return lib.data.TextLineDataset(path).map(
            lambda line: t.lookup(lib.strings.split(lib.strings.lower(line))))

    def padded(lib):
        ds = ids(lib).padded_batch(batch, padded_shapes=[width] if width else None,
                                   padding_values=lib.constant(-1, lib.int64))
        if lib is tn:
            _vectorized(ds)
        return ds

    def ragged(lib):
        ds = lib.data.TextLineDataset(path).map(
            lambda line: (lib.strings.split(line), lib.strings.length(line),
                          lib.strings.to_hash_bucket_fast(lib.strings.split(
                              lib.strings.upper(line)), 13))).ragged_batch(batch)
        if lib is tn:
            _vectorized(ds)
        return ds

    def grams(lib):
        ds = lib.data.TextLineDataset(path).map(
            lambda line: lib.strings.ngrams(lib.strings.split(line), 2, separator="+")
        ).map(lambda g: lib.strings.join([g, "!"])).padded_batch(batch)
        if lib is tn:
            _vectorized(ds)
        return ds

    def batched(lib):
        ds = lib.data.TextLineDataset(path).map(
            lambda line: lib.strings.split(line, maxsplit=1)).batch(batch)
        if lib is tn:
            _vectorized(ds)
        return ds

    same(padded)
    same(ragged)
    same(grams)
    same(batched)


@SETTINGS
@given(rows=st.lists(lines, min_size=1, max_size=12), batch=st.integers(1, 5),
       start=st.sampled_from([None, 0, 1, 3, -1, -3]),
       stop=st.sampled_from([None, 0, 2, 5, -1, -2]), index=st.integers(-2, 2),
       step=st.sampled_from([None, 1, 2, 3, -1, -2]))
def test_token_slices_sizes_and_indices(tmp_path_factory, rows, batch, start, stop, index,
                                        step):
    """tokens[a:b:c], tf.reverse(tokens, [0]), tf.size(tokens) and tokens[i] on split
    rows, vectorized in tfnano (a record whose row is too short for tokens[i] fails as
    in TensorFlow)."""
    path = _write(tmp_path_factory.mktemp("text") / "t.txt", rows)

    def sliced(lib):
        ds = lib.data.TextLineDataset(path).map(
            lambda line: (lib.strings.split(line)[start:stop:step],
                          lib.reverse(lib.strings.split(line), [0]),
                          lib.size(lib.strings.split(line)),
                          lib.size(lib.strings.split(line)[start:], out_type=lib.int64))
        ).padded_batch(batch)
        if lib is tn:
            _vectorized(ds)
        return ds

    def ragged(lib):
        ds = lib.data.TextLineDataset(path).map(
            lambda line: lib.strings.split(lib.strings.lower(line))[:stop]).ragged_batch(batch)
        if lib is tn:
            _vectorized(ds)
        return ds

    def indexed(lib):
        return lib.data.TextLineDataset(path).map(
            lambda line: lib.strings.split(line)[index]).batch(batch)

    def wrapped(lib):
        # BERT-style: [CLS] + the first tokens + [SEP], then a lookup of hashes
        ds = lib.data.TextLineDataset(path).map(
            lambda line: lib.concat([["[CLS]"], lib.strings.split(line)[:stop],
                                     ["[SEP]", "!"]], 0)).map(
            lambda t: (t, lib.strings.to_hash_bucket_fast(t, 7))).padded_batch(batch)
        if lib is tn:
            _vectorized(ds)
        return ds

    def mixed(lib):
        ds = lib.data.TextLineDataset(path).map(
            lambda line: lib.concat([lib.strings.split(line),
                                     lib.stack([lib.strings.upper(line), "x"])], -1)
        ).ragged_batch(batch)
        if lib is tn:
            _vectorized(ds)
        return ds

    same(sliced)
    same(ragged)
    same(indexed)
    same(wrapped)
    same(mixed)
