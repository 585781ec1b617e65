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
    g = _trace.trace(lambda s: tf.strings.split(s), _trace.Spec(object, ()), call_args=False)
    assert g.vectorizable() == "strings.split"
    assert g.run(tf.constant("x y")).tolist() == [b"x", b"y"]
