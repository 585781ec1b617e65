"""tf.strings: values, dtypes, shapes and TensorFlow's errors; traced forms batch."""
import numpy as np
import pytest

import tfnano as tf
import tfnano.ops  # noqa: F401 - fills the traced-value operators
from tfnano import _trace
from tfnano.errors import InvalidArgumentError


def test_split_join_length():
    assert tf.strings.split("a b  c").tolist() == [b"a", b"b", b"c"]
    assert tf.strings.split("a,,b", sep=",").tolist() == [b"a", b"", b"b"]
    assert tf.strings.split("a b c", maxsplit=1).tolist() == [b"a", b"b c"]
    rt = tf.strings.split(["a b", "c"])
    assert [list(r) for r in rt.to_list()] == [[b"a", b"b"], [b"c"]]
    assert tf.strings.join(["a", "b"], separator="-").numpy() == b"a-b"
    assert tf.strings.join([["a", "b"], "c"]).tolist() == [b"ac", b"bc"]
    with pytest.raises(InvalidArgumentError, match=r"Input shapes do not match: \[2\] vs. \[3\]"):
        tf.strings.join([["a", "b"], ["c", "d", "e"]])
    assert tf.strings.reduce_join([["a", "b"], ["c", "d"]], axis=1).tolist() == [b"ab", b"cd"]
    n = tf.strings.length(["héllo"])
    assert n.dtype == np.int32 and n.tolist() == [6]
    assert tf.strings.length(["héllo"], unit="UTF8_CHAR").tolist() == [5]
    with pytest.raises(TypeError, match="Cannot convert 1 to EagerTensor of dtype string"):
        tf.strings.length(1)


def test_substr_case_strip_regex():
    assert tf.strings.substr("hello", 1, 3).numpy() == b"ell"
    assert tf.strings.substr("hello", -3, 2).numpy() == b"ll"
    assert tf.strings.substr("héllo", 1, 2, unit="UTF8_CHAR").numpy() == "él".encode()
    with pytest.raises(InvalidArgumentError, match="pos 9 out of range for string"):
        tf.strings.substr("hello", 9, 3)
    assert tf.strings.lower(["AbC"]).tolist() == [b"abc"]
    assert tf.strings.upper("é a", encoding="utf-8").numpy() == "É A".encode()
    assert tf.strings.strip(" \tx \n").numpy() == b"x"
    assert tf.strings.regex_replace("abc", "(b)", r"[\1]").numpy() == b"a[b]c"
    assert tf.strings.regex_replace("aaa", "a", "b", replace_global=False).numpy() == b"baa"
    with pytest.raises(InvalidArgumentError, match="Invalid pattern"):
        tf.strings.regex_replace("abc", "(", "x")
    assert tf.strings.regex_full_match(["ab", "abc"], "ab").tolist() == [True, False]


def test_numbers_and_formatting():
    x = tf.strings.to_number(["1.5", " 2 "])
    assert x.dtype == np.float32 and x.tolist() == [1.5, 2.0]
    assert tf.strings.to_number("7", tf.int64).dtype == np.int64
    with pytest.raises(InvalidArgumentError, match="StringToNumberOp could not correctly "
                                                   "convert string: 1.5"):
        tf.strings.to_number("1.5", tf.int32)
    with pytest.raises(InvalidArgumentError):
        tf.strings.to_number("99999999999", tf.int32)
    assert tf.strings.as_string([1.5, 2]).tolist() == [b"1.500000", b"2.000000"]
    assert tf.strings.as_string(3.14159, precision=2).numpy() == b"3.14"
    assert tf.strings.as_string(7, width=3, fill="0").numpy() == b"007"
    assert tf.strings.as_string([True]).tolist() == [b"true"]
    assert tf.strings.format("a {} b", [tf.constant([1, 2])]).numpy() == b"a [1 2] b"
    assert tf.strings.format("{}", tf.constant(list(range(10)))).numpy() == b"[0 1 2 ... 7 8 9]"
    assert tf.strings.format("{}", tf.constant([[1, 2], [3, 4]])).numpy() == b"[[1 2]\n [3 4]]"


def test_bytes_and_unicode():
    assert tf.strings.bytes_split("abc").tolist() == [b"a", b"b", b"c"]
    d = tf.strings.unicode_decode("hé", "UTF-8")
    assert d.dtype == np.int32 and d.tolist() == [104, 233]
    assert tf.strings.unicode_decode(b"a\xffb", "UTF-8").tolist() == [97, 65533, 98]
    with pytest.raises(InvalidArgumentError, match="Invalid formatting on input string"):
        tf.strings.unicode_decode(b"\xff", "UTF-8", errors="strict")
    assert tf.strings.unicode_encode(tf.constant([104, 233]), "UTF-8").numpy() == "hé".encode()


def test_traced_string_ops_batch():
    fn = lambda s: tf.strings.to_number(tf.strings.strip(tf.strings.lower(s)), tf.int32) + 1  # noqa
    g = _trace.trace(fn, _trace.Spec(object, (2,)), call_args=False)
    assert g.vectorizable() is None
    recs = [tf.constant([" 1", "2 "]), tf.constant(["3", " 40 "])]
    batched = g.run(np.stack(recs), batched=True)
    assert batched.tolist() == [fn(r).tolist() for r in recs] == [[2, 3], [4, 41]]
    # split of a scalar: rows (a RaggedTensor whose rows are the records) on a batch,
    # which elementwise ops keep; other ops on them make the graph run per record
    g = _trace.trace(lambda s: tf.strings.upper(tf.strings.split(s)), _trace.Spec(object, ()),
                     call_args=False)
    assert g.vectorizable() is None and g.rows_check() == (None, {0})
    assert g.run(tf.constant("x y")).tolist() == [b"X", b"Y"]
    rows = g.run(tf.constant(["a b", "", "c"]), batched=True)
    assert rows.to_list() == [[b"A", b"B"], [], [b"C"]]
    g = _trace.trace(lambda s: tf.gather(tf.strings.split(s), [0]), _trace.Spec(object, ()),
                     call_args=False)
    assert g.rows_check()[0] == ("gather() has no batched form for them (values whose "
                                 "length varies per record, from strings.split())")
    # a slice with step 1 maps rows to rows, an index or tf.size reduces them
    g = _trace.trace(lambda s: (tf.strings.split(s)[1:], tf.strings.split(s)[-1],
                                tf.size(tf.strings.split(s))), _trace.Spec(object, ()),
                     call_args=False)
    assert g.rows_check() == (None, {0})
    rows, last, sizes = g.run(tf.constant(["a b c", "d", "e f"]), batched=True)
    assert rows.to_list() == [[b"b", b"c"], [], [b"f"]]
    assert last.tolist() == [b"c", b"d", b"f"] and sizes.tolist() == [3, 1, 2]


# The bucket values below are TensorFlow 2.21's (to_hash_bucket_fast / _strong /
# to_hash_bucket of the same strings); test/conformance/test_ops_tf.py compares many
# random strings.
def test_hash_buckets_match_tensorflow():
    words = ["hello", "", "a" * 100]
    fast = tf.strings.to_hash_bucket_fast(words, 1000)
    assert fast.dtype == tf.int64 and fast.shape == (3,)
    assert fast.tolist() == [296, 263, 618]
    assert tf.strings.to_hash_bucket(words, 1000).tolist() == [938, 899, 179]
    assert tf.strings.to_hash_bucket_strong(words, 1000, [1, 2]).tolist() == [622, 435, 610]
    grid = tf.strings.to_hash_bucket_fast([["a", "b"], ["c", "d"]], 5)
    assert grid.shape == (2, 2)
    assert tf.strings.to_hash_bucket_fast("hello", 1000).numpy() == 296
    assert tf.strings.to_hash_bucket_fast([], 5).shape == (0,)
    # text and bytes hash the same; a RaggedTensor hashes its values
    assert tf.strings.to_hash_bucket_fast(["ü".encode()], 7).tolist() == \
        tf.strings.to_hash_bucket_fast(["ü"], 7).tolist()
    rt = tf.strings.to_hash_bucket_fast(tf.ragged.constant([["hello"], ["", "hello"]]), 1000)
    assert rt.to_list() == [[296], [263, 296]]


def test_hash_bucket_errors():
    with pytest.raises(InvalidArgumentError, match="Value for attr 'num_buckets' of 0 must "
                       "be at least minimum 1"):
        tf.strings.to_hash_bucket_fast("a", 0)
    with pytest.raises(InvalidArgumentError, match="of -1 must"):
        tf.strings.to_hash_bucket_fast("a", 2 ** 63)  # no int64: TensorFlow reads -1
    with pytest.raises(InvalidArgumentError, match="expected to be a string tensor but is a "
                       "int32 tensor"):
        tf.strings.to_hash_bucket(tf.constant([1]), 3)
    with pytest.raises(TypeError, match="Cannot convert"):
        tf.strings.to_hash_bucket_fast([1, 2], 5)
    with pytest.raises(InvalidArgumentError, match="Key must have 2 elements"):
        tf.strings.to_hash_bucket_strong("a", 5, [1])
    with pytest.raises(TypeError, match="Expected list for 'key'"):
        tf.strings.to_hash_bucket_strong("a", 5, 7)
    with pytest.raises(OverflowError):
        tf.strings.to_hash_bucket_strong("a", 5, [2 ** 64 - 1, 2])
    # negative key words are their two's complement bits, as in TensorFlow
    assert tf.strings.to_hash_bucket_strong("a", 1000, [-1, 2]).numpy() == \
        tf.strings.to_hash_bucket_strong("a", 1000, [2 ** 64 - 1 - 2 ** 64, 2]).numpy()


def test_hash_buckets_traced_batch():
    fn = lambda s: tf.strings.to_hash_bucket_fast(tf.strings.lower(s), 100)  # noqa: E731
    g = _trace.trace(fn, _trace.Spec(object, (2,)), call_args=False)
    assert g.vectorizable() is None
    recs = [tf.constant(["A", "b"]), tf.constant(["c", "D"])]
    out = g.run(np.stack(recs), batched=True)
    assert out.dtype == np.int64 and out.tolist() == [fn(r).tolist() for r in recs]


def test_ngrams():
    assert tf.strings.ngrams(["a", "b", "c", "d"], 2).tolist() == [b"a b", b"b c", b"c d"]
    assert tf.strings.ngrams(["a", "b", "c", "d"], [1, 3], separator="_").tolist() == \
        [b"a", b"b", b"c", b"d", b"a_b_c", b"b_c_d"]
    padded = tf.strings.ngrams([["a", "b", "c"], ["d", "e", "f"]], 2, pad_values="#")
    assert padded.shape == (2, 4)
    assert padded[0].tolist() == [b"# a", b"a b", b"b c", b"c #"]
    wide = tf.strings.ngrams(["a", "b", "c"], 5, pad_values=("<", ">"), padding_width=2)
    assert wide.tolist() == [b"< < a b c", b"< a b c >", b"a b c > >"]
    assert tf.strings.ngrams(["a"], 3, preserve_short_sequences=True).tolist() == [b"a"]
    assert tf.strings.ngrams(["a", "b"], 4, pad_values="#", padding_width=1,
                             preserve_short_sequences=True).tolist() == [b"# a b #"]
    rt = tf.strings.ngrams(tf.ragged.constant([["a", "b", "c"], [], ["d"]]), 2, pad_values="#")
    assert rt.to_list() == [[b"# a", b"a b", b"b c", b"c #"], [b"# #"], [b"# d", b"d #"]]
    assert tf.strings.ngrams([], 2, pad_values="#").shape == (0,)  # no data: no padding
    with pytest.raises(ValueError, match="Data must have rank>0"):
        tf.strings.ngrams("a", 2)
    with pytest.raises(ValueError, match="All ngram_widths must be greater than 0. Got 0"):
        tf.strings.ngrams(["a"], 0)
    with pytest.raises(TypeError, match="pad_values must be a string"):
        tf.strings.ngrams(["a"], 2, pad_values=3)
    with pytest.raises(ValueError, match="pad_values must be provided"):
        tf.strings.ngrams(["a"], 2, padding_width=1)


def test_ngrams_traced_batch():
    fn = lambda s: tf.strings.ngrams(s, 2, pad_values="#")  # noqa: E731
    g = _trace.trace(fn, _trace.Spec(object, (3,)), call_args=False)
    assert g.vectorizable() is None
    recs = [tf.constant(["a", "b", "c"]), tf.constant(["d", "e", "f"])]
    out = g.run(np.stack(recs), batched=True)
    assert out.tolist() == [fn(r).tolist() for r in recs]
