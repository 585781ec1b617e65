"""tf.io.parse_example / parse_single_example through the Python API: spec §6 cases
9-31, the Python-level validation of §2.2/§2.7 (TensorFlow's exact texts), dtypes and
shapes of the outputs, and the fast Parser (int32, maxlen + masks, threads)."""
import numpy as np
import pytest

import tfnano as tf
from tfnano.errors import InvalidArgumentError

H = bytes.fromhex


def E(**feats):
    return tf.train.Example(features=tf.train.Features(feature=feats)).SerializeToString()


def I(*v):
    return tf.train.Feature(int64_list=tf.train.Int64List(value=list(v)))


def F(*v):
    return tf.train.Feature(float_list=tf.train.FloatList(value=list(v)))


def B(*v):
    return tf.train.Feature(bytes_list=tf.train.BytesList(value=list(v)))


FL = tf.io.FixedLenFeature
FLS = tf.io.FixedLenSequenceFeature


def raises(msg, fn, exc=InvalidArgumentError):
    with pytest.raises(exc) as e:
        fn()
    # TensorFlow's text, then (parse errors of an example) which example it is
    assert getattr(e.value, "message", str(e.value)) == msg, str(e.value)
    assert str(e.value) == msg or str(e.value).startswith(msg + "; example ")
    return e.value


def test_case8_unpacked_through_parse():
    raw = H("0a0c0a0a0a016112051a0308010802".replace("1a0308010802", "1a0408010802"))
    raw = H("0a0d0a0b0a016112061a0408010802")
    out = tf.io.parse_single_example(raw, {"a": FLS([], tf.int64, allow_missing=True)})
    assert out["a"].tolist() == [1, 2]


def test_case9_duplicate_key_last_wins():
    entry = lambda v: H("0a050a0161120 0".replace(" ", ""))  # noqa: E731
    e1 = H("0a0a0a01611205 1a030a0101".replace(" ", ""))
    e2 = H("0a0a0a01611205 1a030a0102".replace(" ", ""))
    body = e1 + e2
    raw = H("0a") + bytes([len(body)]) + body
    out = tf.io.parse_single_example(raw, {"a": FL([], tf.int64)})
    assert out["a"].numpy() == 2 and out["a"].shape == ()


def test_case10_concatenated_examples():
    raw = E(a=F(10, 10)) + E(a=F(1, 1))
    out = tf.io.parse_single_example(raw, {"a": FL([2], tf.float32)})
    assert out["a"].tolist() == [1.0, 1.0] and out["a"].dtype == np.float32


def test_case11_defaults():
    spec = {"a": FL([], tf.int64, default_value=7)}
    assert tf.io.parse_single_example(b"", spec)["a"] == 7
    assert tf.io.parse_single_example(E(a=tf.train.Feature()), spec)["a"] == 7


def test_case12_13_empty_list_is_an_error():
    spec = {"a": FL([], tf.int64, default_value=7)}
    raises("Key: a.  Can't parse serialized Example: Some int64_list slice was not parsed.",
           lambda: tf.io.parse_single_example(E(a=I()), spec))
    raises("Name: <unknown>, Key: a, Index: 0.  Number of int64 values != expected.  "
           "Values size: 0 but output shape: []",
           lambda: tf.io.parse_example([E(a=I())], spec))


def test_case14_type_mismatch():
    raises("Key: a.  Data types don't match. Data type: int64 but expected type: float",
           lambda: tf.io.parse_single_example(E(a=I(1)), {"a": FL([], tf.float32)}))


def test_case15_16_required():
    spec = {"a": FL([2], tf.float32)}
    raises("Name: in1, Feature: a (data type: float) is required but could not be found.",
           lambda: tf.io.parse_example([b""], spec, example_names=["in1"]))
    raises("Feature: a (data type: float) is required but could not be found.",
           lambda: tf.io.parse_single_example(b"", spec))


def test_case17_second_example_fails():
    e = raises_prefix = None
    with pytest.raises(InvalidArgumentError) as e:
        tf.io.parse_example([E(a=F(1, 1, 3)), E(a=F(-1, -1))], {"a": FL([1, 3], tf.float32)},
                            example_names=["passing", "failing"])
    assert str(e.value).startswith("Name: failing, Key: a, Index: 1.  Number of float values "
                                   "!= expected.  Values size: 2 but output shape: [1,3]")
    assert raises_prefix is None


def test_case18_strings():
    spec = {"a": FL([], tf.string)}
    raises("Name: <unknown>, Key: a, Index: 0.  Can't parse serialized Example.",
           lambda: tf.io.parse_example([E(a=B(b"x", b"y"))], spec))
    raises("Name: <unknown>, Key: a, Index: 0.  Number of bytes values != expected.  "
           "Values size: 0 but output shape: []",
           lambda: tf.io.parse_example([E(a=B())], spec))


def test_case19_shapes():
    recs = [E(a=I(5))] * 2
    assert tf.io.parse_example(recs, {"a": FL([], tf.int64)})["a"].shape == (2,)
    out = tf.io.parse_example(recs, {"a": FL([1], tf.int64)})["a"]
    assert out.shape == (2, 1) and out.tolist() == [[5], [5]] and out.dtype == np.int64


def test_case20_matrix_and_flat_default():
    spec = {"a": FL([2, 3], tf.int64, default_value=[0, 0, 0, 0, 0, 0])}
    assert tf.io.parse_single_example(E(a=I(*range(6))), spec)["a"].tolist() == \
        [[0, 1, 2], [3, 4, 5]]
    assert tf.io.parse_single_example(b"", spec)["a"].tolist() == [[0] * 3] * 2


def test_case21_sequence_single():
    spec = {"a": FLS([2], tf.float32, allow_missing=True)}
    assert tf.io.parse_single_example(E(a=F(1, 2, 3, 4)), spec)["a"].shape == (2, 2)
    assert tf.io.parse_single_example(b"", spec)["a"].shape == (0, 2)
    raises("Error while parsing feature with key a: number of elements should be divisible "
           "by 2, found 3 instead",
           lambda: tf.io.parse_single_example(E(a=F(1, 2, 3)), spec))


def test_case22_sequence_padding():
    recs = [E(a=I(1, 2)), b"", E(a=I(3))]
    out = tf.io.parse_example(recs, {"a": FLS([], tf.int64, allow_missing=True,
                                               default_value=-1)})
    assert out["a"].tolist() == [[1, 2], [-1, -1], [3, -1]]
    out = tf.io.parse_example(recs, {"a": FLS([], tf.int64, allow_missing=True)})
    assert out["a"].tolist() == [[1, 2], [0, 0], [3, 0]]


def test_case23_no_example_has_it():
    out = tf.io.parse_example([b""] * 4, {"a": FLS([], tf.string, allow_missing=True)})
    assert out["a"].shape == (4, 0) and out["a"].dtype == object


def test_case24_not_a_multiple():
    recs = [E(b=B(b"a", b"b")), E(b=B(b"c", b"d")), E(b=B(b"e"))]
    with pytest.raises(InvalidArgumentError) as e:
        tf.io.parse_example(recs, {"b": FLS([2, 1, 1], tf.string, allow_missing=True)},
                            example_names=["in1", "in2", "in3"])
    assert e.value.message == ("Name: in3, Key: b, Index: 2.  Number of bytes values is not a "
                            "multiple of stride length. Saw 1 values but output shape is: "
                            "[?,2,1,1]")


def test_case25_26_27_config_errors():
    raises("Unsupported: FixedLenSequenceFeature requires allow_missing to be True.",
           lambda: tf.io.parse_example([b""], {"a": FLS([], tf.int64)}), ValueError)
    raises("First dimension of shape for feature a unknown. Consider using "
           "FixedLenSequenceFeature. Received feature=FixedLenFeature(shape=(None, 2), "
           "dtype=tf.float32, default_value=None).",
           lambda: tf.io.parse_example([b""], {"a": FL((None, 2), tf.float32)}), ValueError)
    raises("All dimensions of shape for feature a need to be known but received (1, None).",
           lambda: tf.io.parse_example([b""], {"a": FL((1, None), tf.float32)}), ValueError)
    raises("Missing shape for feature a. Received feature=FixedLenFeature(shape=None, "
           "dtype=tf.float32, default_value=None).",
           lambda: tf.io.parse_example([b""], {"a": FL(None, tf.float32)}), ValueError)
    raises("Value for attr 'Tdense' of int32 is not in the list of allowed values: float, "
           "int64, string", lambda: tf.io.parse_example([b""], {"a": FL([], tf.int32)}))
    raises("Argument `features` cannot be None or falsy. Got {}",
           lambda: tf.io.parse_example([b""], {}), ValueError)
    raises("Invalid argument: features cannot be empty.",
           lambda: tf.io.parse_single_example(b"", {}), ValueError)
    raises("Input to reshape is a tensor with 3 values, but the requested shape has 2",
           lambda: tf.io.parse_example([b""], {"a": FL([2], tf.int64, default_value=[1, 2, 3])}))
    raises("Input to reshape is a tensor with 0 values, but the requested shape has 1",
           lambda: tf.io.parse_example([b""], {"a": FLS([], tf.int64, allow_missing=True,
                                                         default_value=[])}))
    raises("Cannot convert 1.5 to EagerTensor of dtype int64",
           lambda: tf.io.parse_example([b""], {"a": FL([], tf.int64, default_value=1.5)}),
           TypeError)
    raises("Unsupported int 5 for key 'a'", lambda: tf.io.parse_example([b""], {"a": 5}),
           ValueError)


def test_case28_29_not_an_example():
    # TensorFlow puts the raw bytes in the message (and fails to decode invalid UTF-8)
    with pytest.raises(InvalidArgumentError, match="^Could not parse example input, value: '"):
        tf.io.parse_example([b"\xff"], {"a": FL([], tf.int64, default_value=0)})
    e = raises("Could not parse example input, value: '\n\x05\n\x03\n\x01a'",
               lambda: tf.io.parse_single_example(H("0a050a030a0161"), {"a": FL([], tf.int64)}))
    assert isinstance(e, ValueError)  # plain `except ValueError` catches TF's errors


def test_case30_first_kind_wins():
    feat = H("1a030a0101") + H("12060a040000803f")
    entry = H("0a0161") + H("12") + bytes([len(feat)]) + feat
    body = H("0a") + bytes([len(entry)]) + entry
    raw = H("0a") + bytes([len(body)]) + body
    assert tf.io.parse_single_example(raw, {"a": FL([], tf.int64)})["a"] == 1


def test_case31_zero_size_shape():
    spec = {"a": FL([0], tf.int64, default_value=[])}
    with pytest.raises(InvalidArgumentError, match="is required but could not be found"):
        tf.io.parse_single_example(b"", spec)
    assert tf.io.parse_single_example(E(a=I()), spec)["a"].shape == (0,)


def test_outputs_are_numpy_with_tf_methods():
    out = tf.io.parse_example([E(s=B(b"hi"), f=F(0.5), i=I(3))],
                              {"s": FL([], tf.string), "f": FL([], tf.float32),
                               "i": FL([], tf.int64)})
    assert isinstance(out["s"], np.ndarray) and out["s"].dtype == object
    assert out["s"].numpy().tolist() == [b"hi"] and type(out["s"].numpy()) is np.ndarray
    assert out["f"].dtype == tf.float32 and out["i"].dtype == tf.int64
    single = tf.io.parse_single_example(E(s=B(b"hi")), {"s": FL([], tf.string)})
    assert single["s"].numpy() == b"hi"


def test_scalar_input_to_parse_example_and_names_check():
    out = tf.io.parse_example(E(a=I(4)), {"a": FL([], tf.int64)})
    assert out["a"].shape == () and out["a"] == 4
    raises("Expected names have the same shape as serialized: name.shape=[2], "
           "serialized.shape=[1]",
           lambda: tf.io.parse_example([b""], {"a": FL([], tf.int64, default_value=0)},
                                       example_names=["x", "y"]))
    raises("Input serialized must be a scalar",
           lambda: tf.io.parse_single_example([b""], {"a": FL([], tf.int64)}), ValueError)


def test_input_forms():
    recs = [E(a=I(i)) for i in range(5)]
    spec = {"a": FL([], tf.int64)}
    for form in (recs, tuple(recs), np.array(recs, dtype=object), tf.constant(recs)):
        assert tf.io.parse_example(form, spec)["a"].tolist() == list(range(5))


def test_fast_parser_int32_maxlen_masks():
    recs = tf.serialize_columns({"ids": [[1, 2, 3], [], [4]], "y": np.array([1, 2, 3])})
    p = tf.Parser({"ids": FLS([], tf.int64, allow_missing=True), "y": FL([], tf.int64)},
                  int32=True, maxlen=2, masks=True)
    out = p.parse(recs)
    assert out["ids"].dtype == np.int32 and out["y"].dtype == np.int32
    assert out["ids"].tolist() == [[1, 2], [0, 0], [4, 0]]
    assert out["ids_mask"].tolist() == [[True, True], [False, False], [True, False]]
    assert out["ids_length"].tolist() == [3, 0, 1]
    assert type(out["ids"]) is np.ndarray


def test_fast_parser_int32_out_of_range():
    recs = [E(a=I(2 ** 40))]
    with pytest.raises(InvalidArgumentError):
        tf.parse_batch(recs, {"a": FL([], tf.int64)}, int32=True)


def test_fast_parser_threads_match_single_thread():
    rng = np.random.default_rng(0)
    seqs = [rng.integers(0, 1000, rng.integers(0, 30)) for _ in range(1000)]
    recs = tf.serialize_columns({"ids": seqs, "lab": rng.random((1000, 3), np.float32),
                                 "name": [b"n%d" % i for i in range(1000)]})
    spec = {"ids": FLS([], tf.int64, allow_missing=True), "lab": FL([3], tf.float32),
            "name": FL([], tf.string)}
    one = tf.parse_batch(recs, spec)
    many = tf.Parser(spec, num_threads=4).parse(recs)
    ref = tf.io.parse_example(recs, spec)
    for k in one:
        assert np.array_equal(one[k], many[k]) and np.array_equal(one[k], ref[k]), k
    bad = list(recs)
    bad[700] = b"\xff"
    with pytest.raises(InvalidArgumentError, match="Could not parse example input"):
        tf.Parser(spec, num_threads=4).parse(bad)
