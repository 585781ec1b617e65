"""keras pad_sequences through tf.keras (spec §4.1, cases 42-49) and the fast pad()."""
import numpy as np
import pytest

import tfnano as tf

ps = tf.keras.preprocessing.sequence.pad_sequences


def test_both_names():
    assert tf.keras.utils.pad_sequences is ps


def test_case42_defaults_and_truncation():
    s = [[1], [2, 3], [4, 5, 6]]
    out = ps(s)
    assert out.dtype == np.int32 and out.tolist() == [[0, 0, 1], [0, 2, 3], [4, 5, 6]]
    assert ps(s, padding="post").tolist() == [[1, 0, 0], [2, 3, 0], [4, 5, 6]]
    assert ps(s, maxlen=2).tolist() == [[0, 1], [2, 3], [5, 6]]
    assert ps(s, maxlen=2, truncating="post").tolist() == [[0, 1], [2, 3], [4, 5]]
    assert ps(s, maxlen=2, truncating="post", padding="post").tolist() == \
        [[1, 0], [2, 3], [4, 5]]


def test_case43_empty():
    with pytest.raises(ValueError):
        ps([])
    assert ps([], maxlen=3).shape == (0, 3)
    assert ps([[], []]).shape == (2, 0)
    assert ps([[], [1, 2]], maxlen=3).tolist() == [[0, 0, 0], [0, 1, 2]]


def test_case44_conversions():
    assert ps([[1.7, -1.7, 2.5]]).tolist() == [[1, -1, 2]]
    assert ps([[1], [2, 3]], value=0.5).tolist() == [[0, 1], [2, 3]]


def test_case45_strings():
    msg = "`dtype` int32 is not compatible with `value`'s type: <class 'str'>\n" \
          "You should set `dtype=object` for variable length strings."
    with pytest.raises(ValueError) as e:
        ps([["a"]], value="x")
    assert str(e.value) == msg
    with pytest.raises(ValueError, match="`dtype` object is not compatible"):
        ps([["a"]], value="x", dtype="object")
    out = ps([["a"], ["bb", "c"]], dtype=object, value="")
    assert out.tolist() == [["", "a"], ["bb", "c"]]
    assert ps([["a"], ["bb", "c"]], dtype="U5", value="-").tolist() == [["-", "a"], ["bb", "c"]]


def test_case46_sample_shape():
    with pytest.raises(ValueError) as e:
        ps([[[1, 2]], [[3, 4, 5]]])
    assert str(e.value) == ("Shape of sample (3,) of sequence at position 1 is different "
                            "from expected shape (2,)")
    out = ps([[[1, 2]], [[3, 4], [5, 6]]])
    assert out.shape == (2, 2, 2) and out.tolist() == [[[0, 0], [1, 2]], [[3, 4], [5, 6]]]


def test_case47_padding_type():
    assert ps([[], []], padding="middle", maxlen=2).tolist() == [[0, 0], [0, 0]]
    with pytest.raises(ValueError, match='Padding type "middle" not understood'):
        ps([[1]], padding="middle")
    with pytest.raises(ValueError, match='Truncating type "x" not understood'):
        ps([[1]], truncating="x")


def test_case48_maxlen_zero():
    with pytest.raises(ValueError):
        ps([[1, 2], [3]], maxlen=0)
    assert ps([[1, 2], [3]], maxlen=0, truncating="post").shape == (2, 0)


def test_case49_not_iterable():
    with pytest.raises(ValueError, match="`sequences` must be iterable."):
        ps(x for x in [[1]])
    with pytest.raises(ValueError) as e:
        ps([1, 2])
    assert str(e.value) == "`sequences` must be a list of iterables. Found non-iterable: 1"


def _reference(seqs, maxlen, dtype, padding, truncating, value):
    """The per-row algorithm (what keras does), to check the vectorized path."""
    out = np.full((len(seqs), maxlen), value, dtype=dtype)
    for i, s in enumerate(seqs):
        if not len(s):
            continue
        t = s[-maxlen:] if truncating == "pre" else s[:maxlen]
        t = np.asarray(t, dtype=dtype)
        if padding == "post":
            out[i, :len(t)] = t
        else:
            out[i, -len(t):] = t
    return out


@pytest.mark.parametrize("padding", ["pre", "post"])
@pytest.mark.parametrize("truncating", ["pre", "post"])
@pytest.mark.parametrize("as_arrays", [False, True])
def test_vectorized_path_matches_per_row(padding, truncating, as_arrays):
    rng = np.random.default_rng(1)
    seqs = [rng.integers(-5, 50000, rng.integers(0, 40)).tolist() for _ in range(300)]
    if as_arrays:
        seqs = [np.asarray(s, dtype=np.int64) for s in seqs]
    for maxlen in (1, 7, 40, 64):
        got = ps(seqs, maxlen=maxlen, padding=padding, truncating=truncating, value=-1)
        ref = _reference(seqs, maxlen, "int32", padding, truncating, -1)
        assert got.dtype == ref.dtype and np.array_equal(got, ref)
    got = ps(seqs, dtype="float32", padding=padding, truncating=truncating)
    assert np.array_equal(got, _reference(seqs, max(map(len, seqs)), "float32", padding,
                                          truncating, 0.0))


def test_out_of_range_values_fall_back_to_numpy_rules():
    import warnings
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)  # numpy 1.x: it wraps
        try:
            want = np.asarray([2 ** 40], dtype=np.int32)  # numpy 2 raises OverflowError
        except OverflowError:
            with pytest.raises(OverflowError):
                ps([[2 ** 40]])
        else:
            assert ps([[2 ** 40]]).tolist() == [want.tolist()]


def test_fast_pad_returns_mask_and_lengths():
    padded, mask, lengths = tf.pad([[1, 2, 3], [4], []], maxlen=2)
    assert padded.tolist() == [[1, 2], [4, 0], [0, 0]] and padded.dtype == np.int32
    assert mask.tolist() == [[True, True], [True, False], [False, False]]
    assert lengths.tolist() == [3, 1, 0]
    padded, mask, _ = tf.pad([np.array([1, 2, 3])], maxlen=2, padding="pre",
                             truncating="pre", value=-1)
    assert padded.tolist() == [[2, 3]] and mask.tolist() == [[True, True]]
    padded, mask, lengths = tf.pad([[1], [2, 3]])
    assert padded.tolist() == [[1, 0], [2, 3]]


def test_lists_with_floats_and_bools_convert_like_keras():
    seqs = [[1.5, 2.7], [True], []]
    assert ps(seqs).tolist() == [[1, 2], [0, 1], [0, 0]]
    out = ps(seqs, dtype="float32", padding="post")
    assert out.dtype == np.float32 and out.tolist() == [[1.5, np.float32(2.7)], [1.0, 0.0],
                                                         [0.0, 0.0]]
    with pytest.raises(ValueError, match="cannot convert float NaN to integer"):
        ps([[float("nan")]])
    assert ps([["1", "2"]]).tolist() == [[1, 2]]  # numpy's string-to-int conversion


@pytest.mark.parametrize("dtype", ["int32", "int64", "float32", "float64", "int16", "uint8"])
def test_output_dtypes_match_per_row(dtype):
    rng = np.random.default_rng(5)
    seqs = [rng.integers(0, 100, rng.integers(0, 9)) for _ in range(50)]
    for src in (seqs, [s.tolist() for s in seqs], [s.astype(np.int32) for s in seqs]):
        got = ps(src, maxlen=5, dtype=dtype, value=7)
        assert got.dtype == np.dtype(dtype)
        assert np.array_equal(got, _reference(seqs, 5, dtype, "pre", "pre", 7))


def test_bucket_plan_invariants():
    rng = np.random.default_rng(9)
    lengths = rng.integers(1, 300, 1000)
    ids, batches = tf.bucket_plan(lengths, [32, 64, 128], batch_size=16,
                                  pad_to_multiple_of=8, maxlen=256, seed=3)
    assert ids.tolist() == np.searchsorted([32, 64, 128], lengths, side="right").tolist()
    rows = np.concatenate([r for r, _ in batches])
    assert sorted(rows.tolist()) == list(range(1000))  # every row exactly once
    for r, length in batches:
        assert len(r) <= 16 and length % 8 == 0 and length <= 256
        assert len(set(ids[r].tolist())) == 1  # one bucket per batch
        assert min(int(lengths[r].max()), 256) <= length
    seqs = [np.arange(k) for k in lengths]
    r, length = batches[0]
    padded, mask, lens = tf.pad([seqs[i] for i in r], maxlen=length)
    assert padded.shape == (len(r), length) and (mask.sum(1) == np.minimum(lens, length)).all()
    padded_tokens = sum(len(r) * length for r, length in batches)
    assert padded_tokens < len(lengths) * 256  # bucketing saves padding
    again = tf.bucket_plan(lengths, [32, 64, 128], batch_size=16, pad_to_multiple_of=8,
                           maxlen=256, seed=3)[1]
    assert all(np.array_equal(a[0], b[0]) for a, b in zip(batches, again))
    with pytest.raises(ValueError):
        tf.bucket_plan(lengths, [64, 32], batch_size=16)


def test_pad_left_right_and_multiple():
    padded, mask, lengths = tf.pad([[1, 2, 3], [4]], padding="left", value=-1,
                                   pad_to_multiple_of=4)
    assert padded.tolist() == [[-1, 1, 2, 3], [-1, -1, -1, 4]]
    assert mask.sum() == 4 and lengths.tolist() == [3, 1]
    assert tf.pad([[1, 2, 3]], maxlen=2, truncating="left")[0].tolist() == [[2, 3]]
    with pytest.raises(ValueError):
        tf.pad([[1]], padding="middle")


def test_pad_goes_through_the_c_library():
    from tfnano._c import lib
    assert hasattr(lib, "tfn_pad") and hasattr(lib, "tfn_bucket_plan_new")
    assert not hasattr(lib, "tfn_py_pad_rows")  # the binding's own kernel is gone


def test_pad_multiple_keeps_at_most_maxlen_tokens():
    # HuggingFace's rule: maxlen limits the tokens, the width is rounded up.
    padded, mask, lengths = tf.pad([list(range(1, 11)), [7]], maxlen=5, pad_to_multiple_of=4)
    assert padded.shape == (2, 8)
    assert padded.tolist() == [[1, 2, 3, 4, 5, 0, 0, 0], [7, 0, 0, 0, 0, 0, 0, 0]]
    assert mask.sum(1).tolist() == [5, 1] and lengths.tolist() == [10, 1]


@pytest.mark.parametrize("dtype", ["int32", "int64", "float32"])
@pytest.mark.parametrize("src", ["int32", "int64", "list"])
def test_pad_every_c_type_pair(dtype, src):
    rng = np.random.default_rng(11)
    seqs = [rng.integers(-1000, 1000, rng.integers(0, 12)) for _ in range(80)]
    inp = [s.tolist() for s in seqs] if src == "list" else [s.astype(src) for s in seqs]
    for padding in ("left", "right"):
        for truncating in ("pre", "post"):
            padded, mask, lengths = tf.pad(inp, maxlen=6, dtype=dtype, padding=padding,
                                           truncating=truncating, value=-3)
            p = "pre" if padding == "left" else "post"
            ref = _reference(seqs, 6, dtype, p, truncating, -3)
            assert padded.dtype == np.dtype(dtype) and np.array_equal(padded, ref)
            assert mask.dtype == np.bool_
            assert mask.sum(1).tolist() == np.minimum(lengths, 6).tolist()


def test_pad_refuses_values_that_do_not_fit():
    with pytest.raises(tf.errors.InvalidArgumentError) as e:
        tf.pad([[1, 2], [3, 2 ** 40]], dtype="int32")
    assert "row 1, position 1: value 1099511627776 does not fit int32" in str(e.value)
    assert isinstance(e.value, ValueError)
    # int64 output takes it
    assert tf.pad([[1, 2], [3, 2 ** 40]], dtype="int64")[0][1, 1] == 2 ** 40


def test_pad_sequences_float_arrays_and_fill_values():
    seqs = [np.array([1.5, -2.25], np.float32), np.array([3.0], np.float32)]
    out = ps([s.tolist() for s in seqs], dtype="float32", value=0.5)
    assert out.tolist() == [[1.5, -2.25], [0.5, 3.0]]
    out = ps([[1, 2], [3]], value=-7, padding="post")
    assert out.tolist() == [[1, 2], [3, -7]]
    # a fill value numpy stores differently than a double would: numpy decides
    big = 2 ** 60 + 1
    assert ps([[1], [2, 3]], dtype="int64", value=big).tolist() == [[big, 1], [2, 3]]


def test_bucket_plan_options():
    lengths = np.array([1, 7, 4, 2, 9, 5, 0])
    ids, batches = tf.bucket_plan(lengths, [3, 6], batch_size=2, pad_to_multiple_of=4,
                                  maxlen=8)
    assert ids.tolist() == [0, 2, 1, 0, 2, 1, 0]
    assert [(r.tolist(), w) for r, w in batches] == [([0, 3], 4), ([6], 0), ([2, 5], 8),
                                                     ([1, 4], 8)]
    _, dropped = tf.bucket_plan(lengths, [3, 6], batch_size=2, drop_remainder=True)
    assert sorted(np.concatenate([r for r, _ in dropped]).tolist()) == [0, 1, 2, 3, 4, 5]
    rng = np.random.default_rng(2)
    many = rng.integers(0, 500, 2000)
    a = tf.bucket_plan(many, [64, 128, 256], 16, seed=1)[1]
    b = tf.bucket_plan(many, [64, 128, 256], 16, seed=2)[1]
    assert [r.tolist() for r, _ in a] != [r.tolist() for r, _ in b]
    assert sorted(np.concatenate([r for r, _ in b]).tolist()) == list(range(2000))
    assert tf.bucket_plan([], [4], 3)[1] == []
    for bad in (dict(batch_size=0), dict(batch_size=2, seed=-1),
                dict(batch_size=2, pad_to_multiple_of=0), dict(batch_size=2, maxlen=-1)):
        with pytest.raises(ValueError):
            tf.bucket_plan(lengths, [3, 6], **bad)
    with pytest.raises(ValueError):
        tf.bucket_plan([1, -1], [3], 2)


# ---- the C list walker (bindings/python/pyapi.c: pad_into / pad_lengths)

from tfnano import _pad  # noqa: E402
from tfnano._c import PY_API, lib as _lib  # noqa: E402

ARRAYS_IN_C = bool(PY_API & 2)


@pytest.fixture(params=["array fields", "buffer protocol", "arrays in numpy"])
def buffers(request):
    """Runs a test with numpy rows read in C from their fields (any version), through
    the buffer protocol (Python >= 3.11), and in numpy (the walker takes lists only;
    arrays go through np.concatenate). Yields whether arrays are read in C."""
    if not PY_API & 1:
        pytest.skip("the C walker is not installed (PyPy or a free-threaded build)")
    mode = request.param
    if mode == "array fields" and not _pad.ARRAY_FIELDS:
        pytest.skip("this numpy's array fields did not match its own reports")
    if mode == "buffer protocol" and not ARRAYS_IN_C:
        pytest.skip("the buffer protocol is in the limited API from Python 3.11")
    name = _pad.__name__.rsplit(".", 1)[0] + "._native"
    want_buffers = mode == "buffer protocol"
    assert _lib.tfn_py_install(name.encode(), want_buffers) == (3 if want_buffers else 1)
    assert _pad.use_array_fields(mode == "array fields") == (mode == "array fields")
    yield mode != "arrays in numpy"
    _lib.tfn_py_install(name.encode(), ARRAYS_IN_C)
    _pad.use_array_fields(_pad.ARRAY_FIELDS)


def _walked(seqs, maxlen, dtype="int32", padding="pre", truncating="pre", value=0):
    """What the walker alone gives (None when it declines)."""
    return _pad._pad_walk(seqs, maxlen, 0, dtype, padding, truncating, value)


def _mixed_rows(rng, n, maxrow):
    rows = []
    for i in range(n):
        vals = rng.integers(-70000, 70000, rng.integers(0, maxrow + 1))
        kind = i % 4
        rows.append(vals.astype(np.int32) if kind == 0 else vals.astype(np.int64)
                    if kind == 1 else vals.tolist() if kind == 2 else tuple(vals.tolist()))
    return rows


@pytest.mark.parametrize("dtype", ["int32", "int64", "float32"])
def test_walker_matches_per_row_keras(buffers, dtype):
    rng = np.random.default_rng(21)
    seqs = _mixed_rows(rng, 700, 90)  # more rows than one chunk (256)
    for padding in ("pre", "post"):
        for truncating in ("pre", "post"):
            for maxlen in (None, 1, 33, 90, 200):
                got = ps(seqs, maxlen=maxlen, dtype=dtype, padding=padding,
                         truncating=truncating, value=-5)
                ref = _reference(seqs, maxlen or max(map(len, seqs)), dtype, padding,
                                 truncating, -5)
                assert got.dtype == ref.dtype and np.array_equal(got, ref)
                padded, mask, lengths = tf.pad(seqs, maxlen=maxlen, dtype=dtype,
                                               padding=padding, truncating=truncating,
                                               value=-5)
                assert np.array_equal(padded, ref)
                assert lengths.tolist() == [len(s) for s in seqs]
                kept = np.minimum(lengths, padded.shape[1])
                assert mask.sum(1).tolist() == kept.tolist()
                assert np.array_equal(mask, _reference([[1] * k for k in kept],
                                                       padded.shape[1], "bool", padding,
                                                       "post", False))


def test_walker_takes_int_rows(buffers):
    arrays = [np.arange(k, dtype=np.int32) for k in (3, 0, 5)]
    lists = [a.tolist() for a in arrays]
    for dtype in ("int32", "int64"):
        assert _walked(lists, 4, dtype) is not None
        assert _walked(tuple(map(tuple, lists)), 4, dtype) is not None
    assert _walked(lists, None)[0].shape == (3, 5)
    # arrays: in C only where the buffer protocol is (3.11+)
    assert (_walked(arrays, 4) is not None) == buffers
    assert (_walked([a.astype(np.int64) for a in arrays], 4, "float32") is not None) == buffers
    assert (_walked(arrays, None) is not None) == buffers


@pytest.mark.parametrize("rows", [
    [[1, 2], [True]],                                 # a bool is not an exact int
    [[1, 2], [2.5]],                                  # a float
    [[1, 2], [np.int64(3)]],                          # a numpy scalar
    [[1, 2], [2 ** 63]],                              # beyond int64
    [[1, 2], [2 ** 40]],                              # beyond the int32 output
    [[1, 2], "ab"],                                   # a string row
    [[1, 2], None],                                   # not a row
    [np.arange(3), np.arange(4).reshape(2, 2)],       # 2-D
    [np.arange(3), np.array(7)],                      # 0-d
    [np.arange(3), np.arange(8)[::2]],                # not contiguous
    [np.arange(3), np.arange(3, dtype=">i4")],        # byte-swapped
    [np.arange(3), np.arange(3, dtype=np.uint32)],    # unsigned
    [np.arange(3), np.arange(3, dtype=np.int16)],     # 2-byte items
    [np.arange(3), np.array([1.5, 2.5])],             # float values
    [np.arange(3), np.array([True, False])],          # bools
    [np.arange(3), np.frombuffer(bytes(13), np.int32, 3, offset=1)],  # misaligned
    [np.arange(3), np.arange(3, dtype=np.dtype(np.int32, metadata={"k": 1}))],  # not numpy's
    [np.arange(3), np.arange(3, dtype="q")],  # long long: another dtype object than int64
])
def test_walker_declines_and_keras_decides(buffers, rows, monkeypatch):
    assert _walked(rows, 3) is None

    def outcome():
        try:
            return ps(rows, maxlen=3).tolist()
        except Exception as e:  # noqa: BLE001 - the error is the result here
            return type(e), str(e)
    got = outcome()
    monkeypatch.setattr(_pad, "WALK", False)  # keras' algorithm alone
    assert got == outcome()


def test_walker_array_fields_are_checked_against_numpy():
    if not PY_API & 1:
        pytest.skip("the C walker is not installed (PyPy or a free-threaded build)")
    from tfnano._native import learn_layout
    a = np.arange(6, dtype=np.int64)
    good = (a, a.__array_interface__["data"][0], 1, 6, 8)
    try:
        assert learn_layout(_pad._ARRAY_KINDS, [good]) == _pad.ARRAY_FIELDS
        # a probe whose reports disagree with the fields turns the fields off
        for bad in [(a, good[1] + 8, 1, 6, 8), (a, good[1], 2, 6, 8), (a, good[1], 1, 5, 8),
                    (a, good[1], 1, 6, 4), ([1], 0, 1, 1, 8), (a,)]:
            assert learn_layout(_pad._ARRAY_KINDS, [good, bad]) is False
        assert learn_layout(_pad._ARRAY_KINDS, []) is False
        assert _pad.use_array_fields(False) is False
        assert _walked([a, a], 3) is None or ARRAYS_IN_C  # buffers may still take them
    finally:
        _pad.use_array_fields(_pad.ARRAY_FIELDS)


@pytest.mark.parametrize("dtype", ["int32", "int64", "float32"])
def test_walker_splits_large_outputs_across_cores(buffers, dtype):
    # 9000 rows x 300 values: an output over the 8 MiB at which the copy is split
    rng = np.random.default_rng(8)
    rows = [rng.integers(-2 ** 31, 2 ** 31, rng.integers(0, 400)).astype(
        np.int32 if i % 3 else np.int64) for i in range(9000)]
    for padding, truncating in (("pre", "pre"), ("post", "post"), ("pre", "post")):
        got = ps(rows, maxlen=300, dtype=dtype, padding=padding, truncating=truncating,
                 value=7)
        assert np.array_equal(got, _reference(rows, 300, dtype, padding, truncating, 7))
        padded, mask, lengths = tf.pad(rows, maxlen=300, dtype=dtype, padding=padding,
                                       truncating=truncating, value=7)
        assert np.array_equal(padded, got)
        assert lengths.tolist() == [len(r) for r in rows]
        assert mask.sum(1).tolist() == np.minimum(lengths, 300).tolist()


def test_walker_split_refusal_leaves_keras_errors(buffers, monkeypatch):
    # an int64 value beyond int32, in the last slice: the walker refuses and keras'
    # algorithm (numpy's casting) decides
    rows = [np.arange(300, dtype=np.int64) for _ in range(9000)]
    rows[-1] = np.full(300, 2 ** 40, dtype=np.int64)

    def outcome():
        try:
            out = ps(rows, maxlen=300)
            return out.dtype, out[-2:].tolist()
        except Exception as e:  # noqa: BLE001 - the error is the result here
            return type(e), str(e)
    got = outcome()
    monkeypatch.setattr(_pad, "WALK", False)
    assert got == outcome()


def test_walker_float_output_from_lists_takes_numpy(buffers):
    # Python int -> float32 stays numpy's (through float64): the walker declines
    rows = [[2 ** 53 + 1, 3], [16777217]]
    assert _walked(rows, 2, "float32") is None
    assert np.array_equal(ps(rows, dtype="float32"), _reference(rows, 2, "float32", "pre",
                                                                "pre", 0))


def test_walker_long_rows_and_scratch(buffers):
    # a list row longer than the walker's 32768-value scratch, kept whole
    long_row = list(range(40000))
    seqs = [[1, 2], long_row, list(range(70))] * 3
    got = ps(seqs)
    assert got.shape == (9, 40000)
    assert np.array_equal(got, _reference(seqs, 40000, "int32", "pre", "pre", 0))
    padded, mask, lengths = tf.pad(seqs, maxlen=50000, pad_to_multiple_of=64)
    assert padded.shape == (9, 50048) and lengths.tolist() == [2, 40000, 70] * 3
    assert (padded[1, :40000] == np.arange(40000)).all() and not padded[1, 40000:].any()


def test_walker_leaves_no_error_and_keeps_objects(buffers):
    import gc
    import sys
    rows = [np.arange(5, dtype=np.int32), [1, 2, 3], (4, 5)]
    before = [sys.getrefcount(r) for r in rows]
    for _ in range(50):
        ps(rows, maxlen=4)
        tf.pad(rows)
        _walked(rows + [[True]], 4)  # declined half way
    gc.collect()
    assert [sys.getrefcount(r) for r in rows] == before
    # a held buffer would make resize() refuse
    a = np.arange(10, dtype=np.int32)
    ps([a, a], maxlen=3)
    a.resize(20, refcheck=False)


def test_walker_outputs_come_from_the_recycled_pool(buffers):
    from tfnano._c.outbuf import POOL
    rows = [list(range(k % 50)) for k in range(3000)]  # walked on every version; 600 KB
    assert _walked(rows, 50) is not None
    a = ps(rows, maxlen=50)
    b = ps(rows, maxlen=50)
    assert a.flags.writeable and a.flags.c_contiguous and a.dtype == np.int32
    assert a.ctypes.data != b.ctypes.data and np.array_equal(a, b)  # both alive: apart
    a[:] = -1
    assert b[1, -1] == 0 and b[-1, -1] == (2999 % 50) - 1
    ref = _reference(rows, 50, "int32", "pre", "pre", 0)
    assert np.array_equal(b, ref)
    address = a.ctypes.data
    del a
    import gc
    gc.collect()
    assert POOL.idle_bytes() >= 3000 * 50 * 4
    c = ps(rows, maxlen=50)  # the memory of `a`, reused
    assert c.ctypes.data == address and np.array_equal(c, ref)
    padded, mask, _ = tf.pad(rows, maxlen=50)
    assert mask.dtype == np.bool_ and padded.ctypes.data != mask.ctypes.data
    assert (mask.sum(1) == np.minimum([len(r) for r in rows], 50)).all()
