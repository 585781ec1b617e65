"""Text pipelines vectorized: TextLineDataset -> map(lower -> split -> lookup / hash /
ngrams) -> padded_batch / ragged_batch / batch, the split of a batch of lines being a
RaggedTensor whose rows are the records (tfnano._trace's rows). Each result is checked
against the same pipeline run per record (debug mode) and against literal values
TensorFlow 2.21 gives (test/conformance/test_strings_tf.py compares at random), and
the split is counted to show one run per batch."""
import numpy as np
import pytest

import tfnano as tf
from tfnano._c import strviews as _strviews

LINES = ["The cat SAT", "hello  world", "", "A b C d e", "  cat  ", "x"]


@pytest.fixture
def text(tmp_path):
    p = tmp_path / "lines.txt"
    p.write_text("\n".join(LINES) + "\n")
    return str(p)


@pytest.fixture
def splits(monkeypatch):
    """Counts tf.strings.split's runs (one per batch when vectorized)."""
    calls = []
    real = _strviews.split

    def counted(flat, *args):
        calls.append(len(flat))
        return real(flat, *args)
    monkeypatch.setattr(_strviews, "split", counted)
    return calls


def _vocab():
    return tf.lookup.StaticVocabularyTable(tf.lookup.KeyValueTensorInitializer(
        tf.constant(["the", "cat", "sat", "hello"]), tf.constant([0, 1, 2, 3], tf.int64)), 5)


def _plain(b):
    if hasattr(b, "to_list"):
        return ("ragged", str(np.asarray(b.row_splits).dtype), b.to_list())
    if isinstance(b, tuple):
        return tuple(_plain(x) for x in b)
    a = np.asarray(b)
    return (str(a.dtype), a.shape, a.tolist())


def _per_record(make):
    tf.data.experimental.enable_debug_mode()
    try:
        return [_plain(b) for b in make()]
    finally:
        tf.data.experimental.disable_debug_mode()


def _check(make, splits, batch, per_batch=1):
    """The pipeline vectorized: `per_batch` splits of each whole batch, and the results
    of the per-record run."""
    ds = make()
    assert "(vectorized)" in ds.plan_text() and "per element" not in ds.plan_text()
    got = [_plain(b) for b in ds]
    sizes = [min(batch, len(LINES) - i) for i in range(0, len(LINES), batch)]
    assert splits == [n for n in sizes for _ in range(per_batch)]
    assert got == _per_record(make)
    return got


def test_lower_split_lookup_padded_batch(text, splits):
    table = _vocab()

    def make():
        return tf.data.TextLineDataset(text).map(
            lambda line: table.lookup(tf.strings.split(tf.strings.lower(line)))
        ).padded_batch(4, padding_values=tf.constant(-1, tf.int64))
    got = _check(make, splits, 4)
    # TensorFlow 2.21: [[0 1 2] [3 7 -1] [-1 -1 -1] [8 6 6 4 5]...]; OOV = 4 + bucket
    ids = got[0][2]
    assert got[0][:2] == ("int64", (4, 5))
    assert ids[0][:3] == [0, 1, 2] and ids[1][0] == 3 and ids[2] == [-1] * 5
    assert ids[0][3:] == [-1, -1]


def test_padded_shapes_and_smaller_targets(text, splits):
    def make(width):
        return tf.data.TextLineDataset(text).map(
            lambda line: tf.strings.to_hash_bucket_fast(tf.strings.split(line), 100)
        ).padded_batch(3, padded_shapes=[width])
    got = [_plain(b) for b in make(8)]
    assert [g[1] for g in got] == [(3, 8), (3, 8)]
    assert got == _per_record(lambda: make(8))
    with pytest.raises(tf.errors.DataLossError, match="Attempted to pad to a smaller "
                       "size than the input element"):  # TensorFlow's class for it
        list(make(4))


def test_ragged_batch_keeps_rows_and_dense_components(text, splits):
    def make():
        return tf.data.TextLineDataset(text).map(
            lambda line: (tf.strings.split(line), tf.strings.length(line),
                          tf.strings.upper(tf.strings.split(line)))
        ).ragged_batch(4, row_splits_dtype=tf.int32)
    got = _check(make, splits, 4, per_batch=2)
    words, lengths, upper = got[0]
    assert words == ("ragged", "int32", [[b"The", b"cat", b"SAT"], [b"hello", b"world"], [],
                                         [b"A", b"b", b"C", b"d", b"e"]])
    assert lengths == ("int32", (4,), [11, 12, 0, 9])
    assert upper[2][0] == [b"THE", b"CAT", b"SAT"]


def test_batch_takes_equal_rows_and_refuses_others(tmp_path, splits):
    p = tmp_path / "same.txt"
    p.write_text("a b\nc d\ne f\n")
    ds = tf.data.TextLineDataset(str(p)).map(tf.strings.split).batch(3)
    assert [_plain(b) for b in ds] == [("object", (3, 2), [[b"a", b"b"], [b"c", b"d"],
                                                            [b"e", b"f"]])]
    assert splits == [3]
    p.write_text("a b\nc\n")
    with pytest.raises(tf.errors.InvalidArgumentError, match="Cannot add tensor to the "
                       "batch: number of elements does not match. Shapes are: "
                       "\\[tensor\\]: \\[1\\], \\[batch\\]: \\[2\\]"):
        list(tf.data.TextLineDataset(str(p)).map(tf.strings.split).batch(2))


def test_scalars_and_constants_along_the_rows(text, splits):
    """A per-record scalar is repeated along its record's row; a constant scalar is
    used as it is."""
    def make():
        return tf.data.TextLineDataset(text).map(
            lambda line: tf.strings.join([tf.strings.split(line), tf.strings.strip(line), "!"],
                                         separator="/")
        ).ragged_batch(6)
    got = _check(make, splits, 6)
    assert got[0][2][0] == [b"The/The cat SAT/!", b"cat/The cat SAT/!", b"SAT/The cat SAT/!"]
    assert got[0][2][4] == [b"cat/cat/!"]


def test_ngrams_and_two_maps(text, splits):
    def make():
        return tf.data.TextLineDataset(text).map(
            lambda line: tf.strings.ngrams(tf.strings.split(line), 2, separator="_")
        ).map(lambda grams: tf.strings.to_hash_bucket_fast(grams, 50)).padded_batch(6)
    got = _check(make, splits, 6)
    assert got[0][1] == (6, 4)
    b = tf.strings.to_hash_bucket_fast(["The_cat", "cat_SAT", "hello_world"], 50).tolist()
    assert got[0][2][0][:2] == b[:2] and got[0][2][1][0] == b[2]


@pytest.mark.parametrize("fn, why", [
    (lambda line: tf.gather(tf.strings.split(line), [0]), "gather() has no batched form"),
    (lambda line: tf.strings.join([tf.strings.split(line), tf.strings.split(line, "a")]),
     "strings.join() combines rows of different lengths"),
    (lambda line: tf.strings.join([tf.strings.split(line), ["x", "y"]]),
     "strings.join() combines them with a constant of rank 1"),
])
def test_other_ops_on_rows_run_per_record(text, fn, why):
    ds = tf.data.TextLineDataset(text).map(fn).ragged_batch(3)
    assert "not vectorized: " + why in ds.plan_text()
    try:
        got = [_plain(b) for b in ds]
    except tf.errors.InvalidArgumentError as e:
        got = str(e)
    try:
        want = _per_record(lambda: tf.data.TextLineDataset(text).map(fn).ragged_batch(3))
    except tf.errors.InvalidArgumentError as e:
        want = str(e)
    assert got == want


def test_rows_into_a_second_map_or_a_cond(text):
    """Rows from a first map reach the second (map fusion): the second's ops are checked
    as if they were the first's; a split inside tf.cond's branches is not batched."""
    ds = tf.data.TextLineDataset(text).map(tf.strings.split).map(
        lambda t: tf.gather(t, [0])).batch(2)
    assert ("gather() has no batched form for them (values whose length varies per "
            "record, from the function's input)") in ds.plan_text()
    rev = tf.data.TextLineDataset(text).map(tf.strings.split).map(
        lambda t: t[::-1]).padded_batch(6)
    assert "(vectorized)" in rev.plan_text()  # strided slices map rows to rows
    assert [b.tolist() for b in rev][0][0] == [b"SAT", b"cat", b"The", b"", b""]
    first = tf.data.TextLineDataset(text).map(tf.strings.split).map(lambda t: t[0]).batch(2)
    assert "(vectorized)" in first.plan_text()  # an index reduces the rows
    with pytest.raises(tf.errors.InvalidArgumentError, match="slice index 0 of dimension 0"):
        list(first)  # the empty line has no token 0, as in TensorFlow
    ok = tf.data.TextLineDataset(text).map(tf.strings.split).map(tf.strings.upper).padded_batch(6)
    assert "(vectorized)" in ok.plan_text()
    assert [b.tolist() for b in ok][0][0] == [b"THE", b"CAT", b"SAT", b"", b""]
    cond = tf.data.TextLineDataset(text).map(lambda line: tf.cond(
        tf.strings.length(line) > 3, lambda: tf.size(tf.strings.split(line)),
        lambda: tf.constant(-1))).batch(3)
    assert "strings.split() inside cond() gives values whose length varies" in cond.plan_text()
    assert [b.tolist() for b in cond] == [[3, 2, -1], [5, 1, -1]]
