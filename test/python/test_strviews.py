"""String tensors handed to C as views (tfnano._c.strviews over bindings/python/pyapi_strings.c):
the walker against the joined-copy fallback and per-string references, on object
arrays (Python >= 3.11: the buffer protocol) and lists (as on 3.8-3.10), for hashing,
the ASCII maps and tf.strings.split (TensorFlow's maxsplit rules); what makes the
walker decline; references kept right when the GIL is released; tf.constant's fast
path for arrays of bytes."""
import sys
import threading

import numpy as np
import pytest

import tfnano as tf
from tfnano._c import strviews as sv
from tfnano._c import PY_API, lib as _lib
from tfnano._native import ffi

NATIVE = tf._native.__name__


@pytest.fixture(params=["arrays", "lists", "python"])
def path(request, monkeypatch):
    """Each test on the three paths: object arrays read in C, lists walked in C (as on
    3.8-3.10, and the buffer protocol turned off in C), and no walker (PyPy)."""
    if request.param == "arrays":
        if not PY_API & 2:
            pytest.skip("object arrays are read in C from Python 3.11")
    elif request.param == "lists":
        if not PY_API & 1:
            pytest.skip("the C walker is not installed (PyPy or a free-threaded build)")
        assert _lib.tfn_py_install(NATIVE.encode(), False) == 1
        monkeypatch.setattr(sv, "BUFFERS", False)
    else:
        monkeypatch.setattr(sv, "WALK", False)
    yield request.param
    if request.param == "lists":
        _lib.tfn_py_install(NATIVE.encode(), bool(PY_API & 2))


def _random_strings(rng, n, alphabet=None):
    out = np.empty(n, object)
    for i in range(n):
        k = int(rng.integers(0, 3)) * int(rng.integers(0, 40))
        if alphabet is None:
            out[i] = rng.integers(0, 256, k, dtype=np.uint8).tobytes()
        else:
            out[i] = bytes(rng.choice(list(alphabet), k).tolist())
    return out


def _fingerprint(b):
    return _lib.tfn_fingerprint64(b, len(b))


def test_hash_matches_per_string(path):
    rng = np.random.default_rng(5)
    a = _random_strings(rng, 3000)
    a[:3] = [b"", b"\0", b"x" * 300]
    want = np.array([_fingerprint(b) for b in a], np.uint64)
    assert np.array_equal(sv.hash_strings(a, 1), want)
    assert np.array_equal(sv.hash_strings(a, 1, 77), want % 77)
    key = np.array([3, 9], np.uint64)
    sip = np.array([_lib.tfn_siphash24(ffi.from_buffer("uint64_t[]", key), b, len(b))
                    for b in a[:50]], np.uint64)
    assert np.array_equal(sv.hash_strings(a[:50], 3, 0, key), sip)
    # strided, 2-D and text items: the same values
    assert np.array_equal(sv.hash_strings(a[::3], 1), want[::3])
    t = a[:10].copy()
    t[4] = "é"
    assert sv.hash_strings(t, 1)[4] == _fingerprint("é".encode())
    got = tf.strings.to_hash_bucket_fast(a[:12].reshape(3, 4), 1000)
    assert got.shape == (3, 4) and np.array_equal(np.asarray(got).reshape(-1), want[:12] % 1000)


def test_walker_declines_what_it_does_not_take():
    if not PY_API & 1:
        pytest.skip("the C walker is not installed")
    from tfnano import _native
    out = np.empty(3, np.uint64)
    addr = out.__array_interface__["data"][0]
    for seq in ([b"a", "b", b"c"], [b"a", None, b"c"], (b"a", b"b", b"c"),
                np.array([1, 2, 3], np.int64), np.array([b"a", b"b", b"c"])):
        assert _native.hash_strings(seq, sv.KINDS, 1, 0, 0, addr) is False
    assert _native.hash_strings([b"a", np.bytes_(b"b"), b"c"], sv.KINDS, 1, 0, 0, addr)
    assert out[1] == _fingerprint(b"b")
    assert _native.all_bytes([b"a", b"b"], sv.KINDS) is True
    assert _native.all_bytes([b"a", np.bytes_(b"b")], sv.KINDS) is False


def test_references_survive_the_released_gil():
    """Big inputs are hashed with the GIL released, each item held meanwhile: every
    item's reference count is what it was, even while another thread replaces items."""
    n = 50000
    a = np.empty(n, object)
    a[:] = [b"tok%d" % i for i in range(n)]
    probe = a[123]
    before = sys.getrefcount(probe)
    for _ in range(3):
        sv.hash_strings(a, 1, 10)
        sv.find_strings(sv.new_string_table(a[:100])[0], a, -1)
    assert sys.getrefcount(probe) == before
    old = [_fingerprint(b"tok%d" % i) for i in range(n)]
    new = [_fingerprint(b"new%d" % i) for i in range(n)]
    stop = threading.Event()

    def swap():
        i = 0
        while not stop.is_set():
            a[i % n] = b"new%d" % (i % n)
            i += 7919
    t = threading.Thread(target=swap)
    t.start()
    try:
        for _ in range(20):
            got = sv.hash_strings(a, 1).tolist()
            assert all(g == o or g == w for g, o, w in zip(got, old, new))
    finally:
        stop.set()
        t.join()


def test_packed_tensor_hashes_its_current_strings():
    """A big string tensor is packed on its first hash and hashed from the packed copy
    after: the values stay those of its items, also after items are replaced (it is
    packed again), and a tensor holding something else than exact bytes is walked."""
    if not PY_API & 2:
        pytest.skip("packing reads object arrays through the buffer protocol (3.11+)")
    rng = np.random.default_rng(11)
    a = _random_strings(rng, sv.PACK_AT + 7)
    a[:2] = [b"", b"y" * 500]
    t = tf.constant(a)
    want = np.array([_fingerprint(b) for b in a], np.uint64)
    for _ in range(2):
        assert np.array_equal(np.asarray(tf.strings.to_hash_bucket_fast(t, 97)),
                              (want % 97).astype(np.int64))
    p = sv.packed(t)
    assert p is not None and sv.packed(t) is p  # kept, not made again
    assert p.blob == b"".join(a.tolist())
    t[3] = b"replaced"
    now = want.copy()
    now[3] = _fingerprint(b"replaced")
    assert np.array_equal(sv.hash_strings(None, 1, 0, None, t), now)
    assert sv.packed(t) is not p
    # 2-D, strided and small tensors, text items: not packed, the same values
    assert sv.packed(tf.constant(a[:100])) is None
    assert sv.packed(t[::2]) is None
    assert sv.packed(np.asarray(a)) is None  # plain arrays have nowhere to keep it
    two = tf.constant(a[:sv.PACK_AT + 6].reshape(2, -1))
    assert np.array_equal(np.asarray(tf.strings.to_hash_bucket_fast(two, 1000)).reshape(-1),
                          (want[:sv.PACK_AT + 6] % 1000).astype(np.int64))
    text = t.copy()
    text[0] = "é"
    assert sv.packed(text) is None
    assert sv.hash_strings(text.reshape(-1), 1, 0, None, text)[0] == _fingerprint("é".encode())


def test_packed_tensor_lookups():
    """Table lookups of a big string tensor read its packed strings: the same ids as a
    plain array's, before and after an item is replaced."""
    n = sv.PACK_AT + 3
    keys = np.empty(n, object)
    keys[:] = [b"k%d" % (i % 700) for i in range(n)]
    init = tf.lookup.KeyValueTensorInitializer(
        tf.constant(np.array([b"k%d" % i for i in range(500)], object)),
        tf.constant(np.arange(500, dtype=np.int64)))
    hashed, vocab = tf.lookup.StaticHashTable(init, -1), tf.lookup.StaticVocabularyTable(init, 9)
    t = tf.constant(keys)
    for _ in range(2):
        for table in (hashed, vocab):
            assert np.array_equal(np.asarray(table.lookup(t)), np.asarray(table.lookup(keys)))
    # packing reads object arrays through the buffer protocol (3.11+); before it the
    # lookups above and below take the unpacked path, with the same ids
    assert (sv.packed(t) is not None) == bool(PY_API & 2)
    t[0], keys[0] = b"k7", b"k7"
    for table in (hashed, vocab):
        got = np.asarray(table.lookup(t))
        assert got[0] == 7 and np.array_equal(got, np.asarray(table.lookup(keys)))


def test_pack_strings_declines_what_it_does_not_take():
    if not PY_API & 2:
        pytest.skip("packing reads object arrays through the buffer protocol (3.11+)")
    from tfnano import _native
    off = np.empty(4, np.uint64)
    addr = off.__array_interface__["data"][0]
    for items in (["a", b"b", b"c"], [b"a", None, b"c"], [b"a", np.bytes_(b"b"), b"c"]):
        arr = np.empty(3, object)
        arr[:] = items
        assert _native.pack_strings(arr, sv.KINDS, addr) is None
    arr = np.empty(3, object)
    arr[:] = [b"ab", b"", b"cde"]
    assert _native.pack_strings(arr, sv.KINDS, addr) == b"abcde"
    assert off.tolist() == [0, 2, 2, 5]
    assert _native.same_items(arr, arr.copy(), sv.KINDS) is True
    other = arr.copy()
    other[2] = bytes(bytearray(b"cde"))  # equal, but another object: not the same
    assert _native.same_items(arr, other, sv.KINDS) is False
    assert _native.same_items(arr, arr[:2].copy(), sv.KINDS) is False


@pytest.mark.parametrize("op", ["lower", "upper", "strip"])
def test_ascii_maps(path, op):
    rng = np.random.default_rng(11)
    a = _random_strings(rng, 2000, b"aZ \t\n\x0b\x0c\r\xc3\xa9\x00-")
    a[:4] = [b"", b"   ", b"MiXeD Case", b"\xc3\x89t\xc3\xa9"]
    py = {"lower": bytes.lower, "upper": bytes.upper,
          "strip": lambda v: v.strip(b" \t\n\v\f\r")}[op]
    got = getattr(tf.strings, op)(a.reshape(40, 50))
    assert got.shape == (40, 50) and got.dtype == tf.string
    flat = np.asarray(got).reshape(-1)
    assert all(type(x) is bytes for x in flat)
    assert flat.tolist() == [py(v) for v in a]
    assert getattr(tf.strings, op)(tf.constant(b" Ab ")).numpy() == py(b" Ab ")


# TensorFlow 2.21's StringSplitV2 where it differs from Python's bytes.split (checked
# in build/venv-tf): maxsplit 0 keeps the whole string, and once maxsplit is reached
# the rest is a token even when empty.
TF_SPLITS = [
    (b"", None, 0, [b""]),
    (b"  ", None, 0, [b"  "]),
    (b"a b  ", None, 2, [b"a", b"b", b""]),
    (b"  a  b c ", None, 0, [b"  a  b c "]),
    (b"  a  b c ", None, 3, [b"a", b"b", b"c", b""]),
    (b"  a  b c ", None, -1, [b"a", b"b", b"c"]),
    (b"a\x0bb\x0cc\x1cd", None, 3, [b"a", b"b", b"c\x1cd", b""]),
    (b"a,,b,", None, 1, [b"a,,b,", b""]),
    (b"a,,b,", b",", -1, [b"a", b"", b"b", b""]),
    (b"a,,b,", b",", 2, [b"a", b"", b"b,"]),
    (b"", b",", 1, [b""]),
    (b"a<>b<><>c", b"<>", -1, [b"a", b"b", b"", b"c"]),
    (b"a<>b<><>c", b"<>", 0, [b"a<>b<><>c"]),
    (b"<<>>", b"<>", -1, [b"<", b">"]),
    (b"aaa", b"aa", -1, [b"", b"a"]),
]


def test_split_follows_tensorflow(path):
    for s, sep, m, want in TF_SPLITS:
        assert sv.split_one(s, sep, m) == want, (s, sep, m)
        values, splits = sv.split(np.array([s, b"x y"], object), sep, m)
        assert values.tolist()[:splits[1]] == want, (s, sep, m)
        assert splits[0] == 0 and splits[-1] == len(values)
    rng = np.random.default_rng(3)
    a = _random_strings(rng, 1500, b"ab ,\t<>")
    for sep in (None, b",", b"<>", b" "):
        for m in (-1, 0, 1, 2, 5):
            values, splits = sv.split(a, sep, m)
            rows = [values[splits[i]:splits[i + 1]].tolist() for i in range(len(a))]
            assert rows == [sv.split_one(v, sep, m) for v in a]


def test_split_ops(path):
    a = tf.constant([b"the  cat sat", b"", b"a,b"])
    r = tf.strings.split(a)
    assert r.to_list() == [[b"the", b"cat", b"sat"], [], [b"a,b"]]
    assert tf.strings.split(a, ",", maxsplit=1).to_list() == [[b"the  cat sat"], [b""],
                                                                [b"a", b"b"]]
    one = tf.strings.split(tf.constant(b" x  y "))
    assert one.numpy().tolist() == [b"x", b"y"] and one.dtype == tf.string
    assert tf.strings.split(tf.constant([[b"a b"], [b"c"]])).to_list() == [[[b"a", b"b"]],
                                                                           [[b"c"]]]


def test_constant_of_bytes_is_a_copy():
    a = np.empty(100, object)
    a[:] = [b"w%d" % i for i in range(100)]
    t = tf.constant(a)
    a[0] = b"changed"
    assert t[0].numpy() == b"w0" and t.dtype == tf.string
    a[1] = "text"
    assert tf.constant(a)[1].numpy() == b"text"
    with pytest.raises(TypeError):
        a[2] = 5
        tf.constant(a)


def test_the_walker_does_the_work(monkeypatch):
    """With the walker installed, no string goes through a fallback: the joined copy and
    the per-string Python paths are made to fail, and every op still gives its values."""
    if not PY_API & 1:
        pytest.skip("the C walker is not installed")

    def refuse(*args, **kwargs):
        raise AssertionError("a fallback path ran")
    for name in ("JoinedViews", "split_one", "_py_map", "_from_list"):
        monkeypatch.setattr(sv, name, refuse)
    if not PY_API & 2:
        pytest.skip("object arrays are read in C from Python 3.11")
    a = np.empty(20000, object)  # past STRINGS_RELEASE_AT: the GIL released per chunk
    a[:] = [b"Tok%d  x" % (i % 777) for i in range(20000)]
    assert sv.hash_strings(a, 1)[5] == _fingerprint(b"Tok5  x")
    values, splits = sv.split(a)
    assert splits[-1] == 40000 and values[:4].tolist() == [b"Tok0", b"x", b"Tok1", b"x"]
    assert values[0] is values[777 * 2]  # the same token: the same object (token cache)
    assert sv.bytes_map(a[:3], sv.UPPER).tolist() == [b"TOK0  X", b"TOK1  X", b"TOK2  X"]
    words = np.array([b"Tok1  x", b"Tok2  x"], object)
    from tfnano._native import lib as native_lib
    views = np.empty(2, sv._VIEW)  # the table from views made here, not by JoinedViews
    keep = [ffi.from_buffer(w) for w in words]
    views["data"] = [int(ffi.cast("uintptr_t", k)) for k in keep]
    views["len"] = [len(w) for w in words]
    out = ffi.new("tfn_table **")
    assert native_lib.tfn_table_new_strings(ffi.cast("tfn_bytes *", ffi.from_buffer(views)), 2,
                                            ffi.NULL, ffi.NULL, out, ffi.NULL) == 0
    st = ffi.gc(out[0], native_lib.tfn_table_free)
    rows = sv.find_strings(st, a, -1)
    assert rows[:3].tolist() == [-1, 0, 1] and (rows >= -1).all()
    ids = sv.vocab_strings(st, np.array([7, 8], np.int64), a, 5)
    assert ids[1:3].tolist() == [7, 8] and ids[0] == 2 + _fingerprint(b"Tok0  x") % 5
