"""tf.lookup: tables from tensors and text files, out-of-vocabulary buckets, composite
keys, traced tf.data maps, TensorFlow's errors. Expected values are TensorFlow
2.21's for the same calls (test/conformance/test_lookup_tf.py compares at random)."""
import numpy as np
import pytest

import tfnano as tf
from tfnano.errors import FailedPreconditionError, InvalidArgumentError, NotFoundError


def _table():
    keys, vals = tf.constant(["a", "b", "c"]), tf.constant([7, 8, 9])
    return tf.lookup.StaticHashTable(tf.lookup.KeyValueTensorInitializer(keys, vals), -1)


def test_static_hash_table():
    t = _table()
    got = t.lookup(tf.constant(["a", "f", "c"]))
    assert got.dtype == tf.int32 and got.tolist() == [7, -1, 9]
    assert t[tf.constant([["a", "b"], ["c", "d"]])].tolist() == [[7, 8], [9, -1]]
    assert t.lookup(tf.constant("b")).numpy() == 8
    assert t.size().numpy() == 3 and t.size().dtype == tf.int64
    assert (t.key_dtype, t.value_dtype) == (tf.string, tf.int32)
    assert t.default_value.numpy() == -1
    assert [x.tolist() for x in t.export()] == [[b"a", b"b", b"c"], [7, 8, 9]]
    rt = t.lookup(tf.ragged.constant([["a"], ["b", "z"]]))
    assert rt.to_list() == [[7], [8, -1]]
    sp = t.lookup(tf.sparse.from_dense(tf.constant([["a", ""], ["", "c"]])))
    assert tf.sparse.to_dense(sp).tolist() == [[7, 0], [0, 9]]
    ints = tf.lookup.StaticHashTable(tf.lookup.KeyValueTensorInitializer([3, 5], ["x", "y"]),
                                     "?")
    assert ints.lookup(tf.constant([5, 4, 3])).tolist() == [b"y", b"?", b"x"]


def test_hash_table_errors():
    t = _table()
    with pytest.raises(AttributeError, match="'list' object has no attribute 'dtype'"):
        t.lookup(["a"])
    with pytest.raises(TypeError, match="Dtype of argument `keys` must be <dtype: 'string'>, "
                       "received: <dtype: 'int32'>"):
        t.lookup(tf.constant([1, 2]))
    init = tf.lookup.KeyValueTensorInitializer(["a"], [1])
    with pytest.raises(TypeError, match="Cannot convert -1.5 to EagerTensor of dtype int32"):
        tf.lookup.StaticHashTable(init, -1.5)
    with pytest.raises(ValueError, match=r"Shapes \(2,\) and \(\) are not compatible"):
        tf.lookup.StaticHashTable(init, [1, 2])
    with pytest.raises(InvalidArgumentError, match=r"Expected shape \[2\] for value, got \[1\]"):
        tf.lookup.StaticHashTable(tf.lookup.KeyValueTensorInitializer(["a", "b"], [1]), -1)
    with pytest.raises(FailedPreconditionError, match="HashTable has different value for "
                       "same key. Key a has 1 and trying to add value 2"):
        tf.lookup.StaticHashTable(tf.lookup.KeyValueTensorInitializer(["a", "a"], [1, 2]), -1)
    same = tf.lookup.StaticHashTable(tf.lookup.KeyValueTensorInitializer(["a", "a"], [1, 1]),
                                     -1)
    assert same.size().numpy() == 1


def test_text_file_tables(tmp_path):
    vocab = tmp_path / "vocab.txt"
    vocab.write_text("the\nquick\nbrown\nfox\n")
    idx = tf.lookup.TextFileIndex
    t = tf.lookup.StaticHashTable(tf.lookup.TextFileInitializer(
        str(vocab), tf.string, idx.WHOLE_LINE, tf.int64, idx.LINE_NUMBER), -1)
    assert t.lookup(tf.constant(["fox", "the", "cat"])).tolist() == [3, 0, -1]
    cols = tmp_path / "cols.txt"
    cols.write_bytes(b"emerson\t10\r\nlake\t20\npalmer\t30\n")
    t = tf.lookup.StaticHashTable(tf.lookup.TextFileInitializer(
        str(cols), tf.string, 0, tf.int64, 1), -1)
    assert t.lookup(tf.constant(["palmer", "emerson", "x"])).tolist() == [30, 10, -1]
    t = tf.lookup.StaticHashTable(tf.lookup.TextFileInitializer(
        str(vocab), tf.string, idx.WHOLE_LINE, tf.int64, idx.LINE_NUMBER, vocab_size=2), -1)
    assert t.lookup(tf.constant(["quick", "brown"])).tolist() == [1, -1]
    t = tf.lookup.StaticHashTable(tf.lookup.TextFileInitializer(
        str(vocab), tf.string, idx.WHOLE_LINE, tf.int64, idx.LINE_NUMBER,
        value_index_offset=5), -1)
    assert t.lookup(tf.constant(["fox"])).tolist() == [8]


def test_text_file_errors(tmp_path):
    idx = tf.lookup.TextFileIndex

    def table(content, *args, **kw):
        path = tmp_path / ("f%d.txt" % len(list(tmp_path.iterdir())))
        path.write_bytes(content)
        return tf.lookup.StaticHashTable(tf.lookup.TextFileInitializer(str(path), *args, **kw),
                                         -1)
    with pytest.raises(NotFoundError, match="nope.txt; No such file or directory"):
        tf.lookup.StaticHashTable(tf.lookup.TextFileInitializer(
            str(tmp_path / "nope.txt"), tf.string, idx.WHOLE_LINE, tf.int64,
            idx.LINE_NUMBER), -1)
    with pytest.raises(InvalidArgumentError, match="empty line found at position 3."):
        table(b"a\n\nb\n", tf.string, idx.WHOLE_LINE, tf.int64, idx.LINE_NUMBER)
    with pytest.raises(InvalidArgumentError, match=r"line 0 \(the\) : expected at least 2 got 1"):
        table(b"the\n", tf.string, 0, tf.int64, 1)
    with pytest.raises(InvalidArgumentError, match="Field x in line 0 is not a valid int64."):
        table(b"x\t1\n", tf.string, 1, tf.int64, 0)
    with pytest.raises(InvalidArgumentError, match="expected 9 but got 1"):
        table(b"a\n", tf.string, idx.WHOLE_LINE, tf.int64, idx.LINE_NUMBER, vocab_size=9)
    with pytest.raises(ValueError, match="`key_index` should be >= -2, received: -3."):
        tf.lookup.TextFileInitializer("v", tf.string, -3, tf.int64, -1)
    with pytest.raises(ValueError, match="`vocab_size` should be > 0, received: 0"):
        tf.lookup.TextFileInitializer("v", tf.string, -2, tf.int64, -1, vocab_size=0)


def test_static_vocabulary_table(tmp_path):
    vocab = tmp_path / "vocab.txt"
    vocab.write_text("the\nquick\nbrown\nfox\n")
    idx = tf.lookup.TextFileIndex
    t = tf.lookup.StaticVocabularyTable(tf.lookup.TextFileInitializer(
        str(vocab), tf.string, idx.WHOLE_LINE, tf.int64, idx.LINE_NUMBER), 3)
    ids = t.lookup(tf.constant(["fox", "cat", "dog", "the", ""]))
    assert ids.dtype == tf.int64 and ids.tolist() == [3, 6, 6, 0, 6]
    assert t.size().numpy() == 7
    assert t.lookup(tf.strings.split(tf.constant(["the quick cat", "fox"]))).to_list() == \
        [[0, 1, 6], [3]]
    ints = tf.lookup.StaticVocabularyTable(tf.lookup.KeyValueTensorInitializer(
        tf.constant([10, 20], tf.int64), tf.constant([0, 1], tf.int64)), 4)
    assert ints.lookup(tf.constant([20, 7, 99], tf.int64)).tolist() == [1, 2, 4]
    assert tf.lookup.StaticVocabularyTable(None, 5).lookup(
        tf.constant(["a", "b"])).tolist() == [4, 2]
    with pytest.raises(ValueError, match="`num_oov_buckets` must be > 0; use StaticHashTable."):
        tf.lookup.StaticVocabularyTable(None, 0)
    with pytest.raises(TypeError, match="Invalid `value_dtype`, expected <dtype: 'int64'> but "
                       "got <dtype: 'int32'>."):
        tf.lookup.StaticVocabularyTable(tf.lookup.KeyValueTensorInitializer(["a"], [0]), 2)


def test_lookup_in_a_traced_map_runs_batched(tmp_path):
    t = tf.lookup.StaticHashTable(tf.lookup.KeyValueTensorInitializer(
        tf.constant([1, 5, 9], tf.int64), tf.constant([0.5, 1.5, 2.5])), -1.0)
    ds = tf.data.Dataset.range(10).map(lambda x: t.lookup(x) * 2.0).batch(5)
    assert "traced: lookup -> math.multiply (vectorized)" in ds.plan_text()
    got = [b.tolist() for b in ds]
    assert got == [[-2.0, 1.0, -2.0, -2.0, -2.0], [3.0, -2.0, -2.0, -2.0, 5.0]]
    assert np.asarray(next(iter(ds))).dtype == np.float32


def test_missing_lookup_names_say_what_is_covered():
    with pytest.raises(AttributeError, match="tf.lookup.IdTableWithHashBuckets is not part"):
        tf.lookup.IdTableWithHashBuckets
    with pytest.raises(AttributeError, match="experimental.DatasetInitializer is not part"):
        tf.lookup.experimental.DatasetInitializer


# ---- the mutable tables (tfnano/ops/mutable_lookup_ops.py)

def test_mutable_table_insert_lookup_remove_export():
    t = tf.lookup.experimental.MutableHashTable(tf.string, tf.int64, -1)
    assert int(t.size()) == 0
    t.insert(["a", "b", "a"], [1, 2, 3])  # the last of a repeated key wins
    assert t.lookup(tf.constant([["a", "c"], ["b", "a"]])).numpy().tolist() == [[3, -1],
                                                                                [2, 3]]
    assert t.lookup(["x", "b"], dynamic_default_values=[7, 8]).numpy().tolist() == [7, 2]
    with pytest.raises(InvalidArgumentError, match=r"Expected shape \[\] or \[2\] for default"):
        t.lookup(["x", "b"], dynamic_default_values=[7, 8, 9])
    t.remove(["a", "zz"])
    keys, values = t.export()
    assert keys.numpy().tolist() == [b"b"] and values.numpy().tolist() == [2]
    assert int(t["b"]) == 2 and t.lookup("a").numpy() == -1
    with pytest.raises(ValueError, match="keys: Tensor conversion requested dtype string"):
        t.lookup(tf.constant([1]))
    with pytest.raises(TypeError, match="Cannot convert"):
        t.insert(["x"], [1.5])


def test_mutable_table_vector_values_and_strings():
    v = tf.lookup.experimental.MutableHashTable(tf.int64, tf.float32, [0.0, -1.0])
    v.insert(tf.constant([1, 2], tf.int64), [[1.0, 2.0], [3.0, 4.0]])
    out = v.lookup(tf.constant([[1, 5]], tf.int64))
    assert out.dtype == tf.float32 and out.numpy().tolist() == [[[1.0, 2.0], [0.0, -1.0]]]
    with pytest.raises(InvalidArgumentError, match=r"Expected shape \[1,2\] for value, got "
                       r"\[1,3\]"):
        v.insert(tf.constant([3], tf.int64), [[1.0, 2.0, 3.0]])
    s = tf.lookup.experimental.MutableHashTable(tf.int32, tf.string, "?")
    s.insert(tf.constant([4], tf.int32), ["four"])
    assert s.lookup(tf.constant([4, 5], tf.int32)).numpy().tolist() == [b"four", b"?"]


def test_mutable_table_lookup_is_traced_and_sees_later_inserts():
    t = tf.lookup.experimental.MutableHashTable(tf.int64, tf.float32, -1.0)
    ds = tf.data.Dataset.range(6).map(lambda x: t.lookup(x) * 2.0).batch(3)
    assert "lookup" in ds.plan_text() and "vectorized" in ds.plan_text()
    assert [b.tolist() for b in ds] == [[-2.0] * 3] * 2
    t.insert(tf.constant([1, 4], tf.int64), [0.5, 2.0])
    assert [b.tolist() for b in ds] == [[-2.0, 1.0, -2.0], [-2.0, 4.0, -2.0]]


def test_mutable_table_insert_in_a_map_runs_per_record_in_order():
    seen = tf.lookup.experimental.MutableHashTable(tf.int64, tf.int64, 0)

    def count(x):
        seen.insert(x % 3, seen.lookup(x % 3) + 1)
        return seen.lookup(x % 3)
    with pytest.warns(Warning, match="runs per record"):
        ds = tf.data.Dataset.range(7).map(count)
    assert [int(c) for c in ds] == [1, 1, 1, 2, 2, 2, 3]


def test_mutable_table_is_thread_safe():
    import threading
    t = tf.lookup.experimental.MutableHashTable(tf.int64, tf.int64, -1)

    def work(base):
        for i in range(200):
            t.insert(tf.constant([base + i], tf.int64), tf.constant([i], tf.int64))
            t.lookup(tf.constant([base + i], tf.int64))
    threads = [threading.Thread(target=work, args=(k * 1000,)) for k in range(4)]
    for th in threads:
        th.start()
    for th in threads:
        th.join()
    assert int(t.size()) == 800
    assert t.lookup(tf.constant([3199, 3000], tf.int64)).numpy().tolist() == [199, 0]


def test_dense_hash_table_reserved_keys():
    d = tf.lookup.experimental.DenseHashTable(tf.int64, tf.int64, default_value=-1,
                                              empty_key=0, deleted_key=-1)
    d.insert(tf.constant([5, 6], tf.int64), tf.constant([50, 60], tf.int64))
    for bad, what in ((0, "empty_key"), (-1, "deleted_key")):
        with pytest.raises(InvalidArgumentError, match="Using the %s as a table key" % what):
            d.insert(tf.constant([bad], tf.int64), tf.constant([1], tf.int64))
        with pytest.raises(InvalidArgumentError, match="Using the %s" % what):
            d.lookup(tf.constant([bad], tf.int64))
    with pytest.raises(InvalidArgumentError, match=r"Expected key shape \[1\] got \[1,2\]"):
        d.lookup(tf.constant([[5, 6]], tf.int64))
    d.erase(tf.constant([5], tf.int64))
    assert d.lookup(tf.constant([5, 6], tf.int64)).numpy().tolist() == [-1, 60]
    with pytest.raises(InvalidArgumentError, match="Empty and deleted keys cannot be equal"):
        tf.lookup.experimental.DenseHashTable(tf.int64, tf.int64, -1, empty_key=2,
                                              deleted_key=2)


# ---- the C tables (lib/base/table.c through tfnano._c.strviews)

@pytest.fixture(params=["walker", "python"])
def walk(request, monkeypatch):
    """Lookups with the C walker, and as where it is not installed (PyPy): the keys'
    bytes joined once and viewed in the copy."""
    from tfnano._c import strviews as _strviews
    if request.param == "python":
        monkeypatch.setattr(_strviews, "WALK", False)
    elif not _strviews.WALK:
        pytest.skip("the C walker is not installed")
    return request.param


def test_repeated_keys_fail_at_the_first_in_the_order_given():
    """TensorFlow inserts in order: the first key whose value differs from its earlier
    entry names the error (checked against TensorFlow 2.21)."""
    for keys in (tf.constant([9, 3, 9, 3], tf.int64), tf.constant(["b", "a", "b", "a"])):
        with pytest.raises(FailedPreconditionError, match="Key %s has 1 and trying to add "
                           "value 5$" % ("9" if keys.dtype == tf.int64 else "b")):
            tf.lookup.StaticHashTable(tf.lookup.KeyValueTensorInitializer(
                keys, tf.constant([1, 2, 5, 6], tf.int64)), -1)
    t = tf.lookup.StaticHashTable(tf.lookup.KeyValueTensorInitializer(
        tf.constant(["b", "a", "b", "c", "a"]), tf.constant([1, 2, 1, 3, 2], tf.int64)), -1)
    assert t.size().numpy() == 3
    assert [x.tolist() for x in t.export()] == [[b"b", b"a", b"c"], [1, 2, 3]]
    assert t.lookup(tf.constant(["c", "a", "b", "d"])).tolist() == [3, 2, 1, -1]


def test_int32_keys_and_extremes():
    t = tf.lookup.StaticHashTable(tf.lookup.KeyValueTensorInitializer(
        tf.constant([3, -7], tf.int32), tf.constant([1.5, 2.5])), -1.0)
    assert t.lookup(tf.constant([-7, 3, 0], tf.int32)).tolist() == [2.5, 1.5, -1.0]
    big = tf.constant([-2 ** 63, 2 ** 63 - 1, 0], tf.int64)
    t = tf.lookup.StaticHashTable(tf.lookup.KeyValueTensorInitializer(big, ["lo", "hi", "0"]),
                                  "?")
    assert t.lookup(tf.constant([2 ** 63 - 1, 1, -2 ** 63], tf.int64)).tolist() == \
        [b"hi", b"?", b"lo"]
    # TensorFlow 2.21: int32 lookups of an int64 vocabulary, a key whose id is -1 hashed
    v = tf.lookup.StaticVocabularyTable(tf.lookup.KeyValueTensorInitializer(
        tf.constant([3, -7], tf.int64), tf.constant([0, -1], tf.int64)), 5,
        lookup_key_dtype=tf.int32)
    assert v.lookup(tf.constant([-7, 3, 0, -2 ** 31], tf.int32)).tolist() == [4, 0, 2, 6]


def test_big_vocabulary_matches_a_dict(walk):
    rng = np.random.default_rng(8)
    words = np.unique(np.array([rng.integers(97, 123, rng.integers(1, 9), dtype=np.uint8)
                                .tobytes() for _ in range(30000)], object))
    ids = rng.permutation(len(words)).astype(np.int64)
    queries = np.array([bytes(w) for w in rng.choice(words, 40000)] +
                       [b"%d" % i for i in range(5000)] + [b""], object)
    ref = dict(zip(words.tolist(), ids.tolist()))
    init = tf.lookup.KeyValueTensorInitializer(tf.constant(words), tf.constant(ids))
    got = tf.lookup.StaticHashTable(init, -3).lookup(tf.constant(queries))
    assert got.tolist() == [ref.get(q, -3) for q in queries.tolist()]
    vocab = tf.lookup.StaticVocabularyTable(init, 17).lookup(tf.constant(queries))
    buckets = tf.strings.to_hash_bucket_fast(tf.constant(queries), 17).tolist()
    assert vocab.tolist() == [ref[q] if q in ref else len(words) + b
                              for q, b in zip(queries.tolist(), buckets)]
    ints = tf.lookup.StaticVocabularyTable(tf.lookup.KeyValueTensorInitializer(
        tf.constant(ids * 3), tf.constant(ids)), 7)
    iq = rng.integers(-10, 3 * len(words), 20000)
    text = tf.strings.to_hash_bucket_fast(tf.strings.as_string(tf.constant(iq)), 7).tolist()
    inv = dict(zip((ids * 3).tolist(), ids.tolist()))
    assert ints.lookup(tf.constant(iq)).tolist() == [
        inv[k] if k in inv else len(words) + b for k, b in zip(iq.tolist(), text)]
