"""Padding: keras' own pad_sequences (from the PyPI TensorFlow, test-only) against the
tfnano C library (tfn_pad, loaded through test/python/tfn_abi.py; TFN_LIB selects the
build) and against the tfnano Python API, on random ragged inputs for every option
combination: padding and truncating pre/post, maxlen None/0/small/large, fill values,
dtype int32/int64/float32, inputs as int32/int64/float32 arrays and Python lists.

Where keras raises and the C library by design does not (maxlen=0 with "pre"
truncating, zero sequences with maxlen=None; see docs/padding.md), the test checks
both sides of that documented difference; the Python API must raise as keras does.
"""
import itertools
import os
import sys
from pathlib import Path

import numpy as np
import pytest

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
pytest.importorskip("tensorflow")
try:
    from keras.utils import pad_sequences as keras_pad
except ImportError:  # Keras 2 layouts
    from tensorflow.keras.utils import pad_sequences as keras_pad

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "test" / "python"))
sys.path.insert(0, str(ROOT / "bindings" / "python"))
from tfn_abi import ffi, lib  # noqa: E402

import tfnano  # noqa: E402

C_DTYPES = {"int32": lib.TFN_INT32, "int64": lib.TFN_INT64, "float32": lib.TFN_FLOAT32}
SIDES = {"pre": lib.TFN_PAD_PRE, "post": lib.TFN_PAD_POST}
PADDINGS = ["pre", "post"]
MAXLENS = [None, 0, 3, 45]
VALUES = [0, -1, 2.5]
DTYPES = ["int32", "int64", "float32"]
INPUTS = ["int32", "int64", "float32", "list"]


def random_sequences(rng, kind, n=None):
    n = int(rng.integers(0, 40)) if n is None else n
    lengths = rng.integers(0, 30, n)
    lengths[rng.random(n) < 0.2] = 0  # empty rows
    if kind == "float32":
        # multiples of 1/8: exact in float32, and their truncation toward zero is
        # what both numpy and C compute
        return [(rng.integers(-4000, 4000, k) / 8).astype(np.float32) for k in lengths]
    seqs = [rng.integers(-50000, 50000, k) for k in lengths]
    if kind == "list":
        return [s.tolist() for s in seqs]
    return [s.astype(kind) for s in seqs]


def c_pad(seqs, maxlen, dtype, padding, truncating, value):
    """tfn_pad through the C library: (padded, mask, kept lengths)."""
    arrays = [np.asarray(s) for s in seqs]
    src = arrays[0].dtype if arrays and any(len(a) for a in arrays) else np.dtype(np.int64)
    if src.kind in "iu":
        src = np.dtype(np.int64) if src != np.int32 else src
    flat = (np.concatenate([a.astype(src) for a in arrays]) if arrays
            else np.empty(0, src)).astype(src)
    flat = np.ascontiguousarray(flat)
    offsets = np.zeros(len(arrays) + 1, dtype=np.int64)
    np.cumsum([len(a) for a in arrays], out=offsets[1:])
    keep = [flat, offsets]
    ragged = ffi.new("tfn_ragged *", {
        "values": ffi.from_buffer(flat) if flat.size else ffi.NULL,
        "dtype": C_DTYPES[src.name], "count": flat.size,
        "offsets": ffi.cast("int64_t *", ffi.from_buffer(offsets)), "nrows": len(arrays)})
    opt = ffi.new("tfn_pad_options *")
    lib.tfn_pad_options_init(opt)
    opt.maxlen = lib.TFN_PAD_MAXLEN_UNSET if maxlen is None else maxlen
    opt.padding = SIDES[padding]
    opt.truncating = SIDES[truncating]
    opt.value = value
    err = ffi.new("tfn_error *")
    width = ffi.new("size_t *")
    assert lib.tfn_pad_width(ragged, opt, width, err) == lib.TFN_OK, ffi.string(err.msg)
    out = np.full((len(arrays), width[0]), 99, dtype=dtype)
    mask = np.full((len(arrays), width[0]), 7, dtype=np.uint8)
    lengths = np.full(len(arrays), -5, dtype=np.int64)
    rc = lib.tfn_pad(ragged, opt, ffi.from_buffer(out) if out.size else ffi.NULL,
                     C_DTYPES[dtype], width[0],
                     ffi.cast("uint8_t *", ffi.from_buffer(mask)) if mask.size else ffi.NULL,
                     ffi.cast("int64_t *", ffi.from_buffer(lengths)) if lengths.size
                     else ffi.NULL, err)
    assert rc == lib.TFN_OK, ffi.string(err.msg)
    del keep
    return out, mask, lengths


def keras_result(seqs, **kw):
    try:
        return keras_pad(seqs, **kw), None
    except ValueError as e:
        return None, e


def kept(seqs, maxlen):
    return np.array([min(len(s), maxlen) if maxlen is not None else len(s) for s in seqs],
                    dtype=np.int64)


@pytest.mark.parametrize("kind", INPUTS)
@pytest.mark.parametrize("dtype", DTYPES)
def test_every_option_combination(kind, dtype):
    rng = np.random.default_rng(10 * INPUTS.index(kind) + DTYPES.index(dtype))
    checked = 0
    for trial in range(3):
        seqs = random_sequences(rng, kind, n=[0, 1, None][trial])
        for padding, truncating, maxlen, value in itertools.product(
                PADDINGS, PADDINGS, MAXLENS, VALUES):
            kw = dict(maxlen=maxlen, dtype=dtype, padding=padding, truncating=truncating,
                      value=value)
            want, error = keras_result(seqs, **kw)
            # the Python API: keras' result or keras' error
            if error is None:
                got = tfnano.keras.utils.pad_sequences(seqs, **kw)
                assert got.dtype == want.dtype and got.shape == want.shape, kw
                assert np.array_equal(got, want), kw
            else:
                with pytest.raises(ValueError):
                    tfnano.keras.utils.pad_sequences(seqs, **kw)
            # the C library: keras' result, or the documented difference
            if not seqs and maxlen is None:
                assert error is not None  # keras: max() of nothing
                out, mask, lengths = c_pad(seqs, maxlen, dtype, padding, truncating, value)
                assert out.shape == (0, 0)
                continue
            nonempty = any(len(s) for s in seqs)
            if maxlen == 0 and truncating == "pre" and nonempty:
                assert error is not None  # keras' s[-0:] broadcast quirk
                out, mask, lengths = c_pad(seqs, maxlen, dtype, padding, truncating, value)
                assert out.shape == (len(seqs), 0) and not lengths.any()
                continue
            assert error is None, (kw, error)
            out, mask, lengths = c_pad(seqs, maxlen, dtype, padding, truncating, value)
            assert out.dtype == want.dtype and out.shape == want.shape, kw
            assert np.array_equal(out, want), kw
            want_kept = kept(seqs, maxlen)
            assert np.array_equal(lengths, want_kept)
            assert np.array_equal(mask.sum(axis=1), want_kept)
            # the mask marks exactly the written side
            width = out.shape[1]
            cols = np.arange(width)[None, :]
            if padding == "pre":
                want_mask = cols >= (width - want_kept)[:, None]
            else:
                want_mask = cols < want_kept[:, None]
            assert np.array_equal(mask.astype(bool), want_mask)
            checked += 1
    assert checked > 100


@pytest.mark.parametrize("kind", INPUTS)
def test_tfnano_pad_matches_keras_with_every_spelling(kind):
    rng = np.random.default_rng(len(kind))
    seqs = random_sequences(rng, kind, n=60)
    names = {"pre": ["pre", "left"], "post": ["post", "right"]}
    for padding, truncating, maxlen, dtype in itertools.product(PADDINGS, PADDINGS,
                                                                 [3, 45], DTYPES):
        want = keras_pad(seqs, maxlen=maxlen, dtype=dtype, padding=padding,
                         truncating=truncating, value=-1)
        for p, t in itertools.product(names[padding], names[truncating]):
            got, mask, lengths = tfnano.pad(seqs, maxlen=maxlen, dtype=dtype, padding=p,
                                            truncating=t, value=-1)
            assert np.array_equal(got, want) and got.dtype == want.dtype
            assert lengths.tolist() == [len(s) for s in seqs]
            assert mask.sum(axis=1).tolist() == np.minimum(lengths, maxlen).tolist()


def test_keras_errors_through_the_python_api():
    cases = [
        dict(sequences=[[1]], padding="middle"),
        dict(sequences=[[1]], truncating="x"),
        dict(sequences=[[1, 2], [3]], maxlen=0),
        dict(sequences=[]),
        dict(sequences=[["a"]], value="x"),
        dict(sequences=[[[1, 2]], [[3, 4, 5]]]),
        dict(sequences=[1, 2]),
    ]
    for kw in cases:
        with pytest.raises(ValueError) as want:
            keras_pad(**kw)
        with pytest.raises(ValueError) as got:
            tfnano.keras.utils.pad_sequences(**kw)
        if "broadcast" not in str(want.value):  # numpy's text, not keras'
            assert str(got.value) == str(want.value), kw
