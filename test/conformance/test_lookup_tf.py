"""tf.lookup against TensorFlow 2.21 in one process: random vocabularies and queries
(string and integer keys, out-of-vocabulary buckets, files with columns, delimiters,
offsets), dense / ragged / sparse keys, lookups inside traced tf.data maps, and the
errors of every constructor and lookup (class and text)."""
import os
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
        return ("ragged", r.to_list())
    if hasattr(r, "dense_shape"):
        return ("sparse", np.asarray(r.indices).tolist(), _plain(r.values),
                np.asarray(r.dense_shape).tolist())
    if isinstance(r, (tuple, list)):
        return tuple(_plain(x) for x in r)
    a = np.asarray(r.numpy() if hasattr(r, "numpy") else r)
    return (str(a.dtype) if a.dtype != object else "string", a.shape, a.tolist())


def _outcome(fn):
    try:
        return "ok", _plain(fn())
    except Exception as e:  # noqa: BLE001 - class and text compared
        return "error", (type(e).__name__,
                         str(e).split(" [Op:")[0].split("}} ")[-1].split("\n")[0])


def same(make):
    """make(lib) under both libraries: equal values, dtypes, shapes, or errors."""
    a, b = _outcome(lambda: make(tf)), _outcome(lambda: make(tn))
    assert a == b
    return a


words = st.text(alphabet="abcé \t", min_size=1, max_size=4)


@SETTINGS
@given(vocab=st.lists(words, min_size=1, max_size=12, unique=True),
       queries=st.lists(st.one_of(words, st.just("")), max_size=10),
       oov=st.integers(1, 7), default=st.integers(-3, 3))
def test_string_tables(vocab, queries, oov, default):
    values = list(range(len(vocab)))

    def hash_table(lib):
        init = lib.lookup.KeyValueTensorInitializer(vocab, lib.constant(values, lib.int64))
        t = lib.lookup.StaticHashTable(init, default)
        return t.lookup(lib.constant(queries, lib.string)), t.size(), t[lib.constant(
            queries[:1] or ["x"])]

    def vocab_table(lib):
        init = lib.lookup.KeyValueTensorInitializer(vocab, lib.constant(values, lib.int64))
        t = lib.lookup.StaticVocabularyTable(init, oov)
        return t.lookup(lib.constant(queries, lib.string)), t.size()
    same(hash_table)
    same(vocab_table)
    same(lambda lib: lib.lookup.StaticVocabularyTable(None, oov).lookup(
        lib.constant(queries, lib.string)))


@SETTINGS
@given(keys=st.lists(st.integers(-50, 50), min_size=1, max_size=10, unique=True),
       queries=st.lists(st.integers(-60, 60), max_size=10), oov=st.integers(1, 5),
       lookup32=st.booleans())
def test_integer_tables(keys, queries, oov, lookup32):
    def hash_table(lib):
        init = lib.lookup.KeyValueTensorInitializer(lib.constant(keys, lib.int64),
                                                    [float(k) / 2 for k in keys])
        return lib.lookup.StaticHashTable(init, -1.0).lookup(lib.constant(queries, lib.int64))

    def vocab_table(lib):
        init = lib.lookup.KeyValueTensorInitializer(
            lib.constant(keys, lib.int64), lib.constant(list(range(len(keys))), lib.int64))
        dt = lib.int32 if lookup32 else lib.int64
        t = lib.lookup.StaticVocabularyTable(init, oov, lookup_key_dtype=dt)
        return t.lookup(lib.constant(queries, dt))
    same(hash_table)
    same(vocab_table)


@SETTINGS
@given(rows=st.lists(st.tuples(st.text(alphabet="abxyz", min_size=1, max_size=3),
                               st.integers(-9, 99)), min_size=1, max_size=8,
                     unique_by=lambda r: r[0]),
       delimiter=st.sampled_from(["\t", " ", ","]), crlf=st.booleans(),
       offset=st.integers(0, 3), vocab_size=st.sampled_from([None, 1, 2, 20]))
def test_text_file_tables(tmp_path_factory, rows, delimiter, crlf, offset, vocab_size):
    d = tmp_path_factory.mktemp("vocab")
    path = str(d / "v.txt")
    with open(path, "w", newline="") as f:
        f.write(("\r\n" if crlf else "\n").join("%s%s%d" % (w, delimiter, v) for w, v in rows))
    queries = [w for w, _ in rows] + ["nope"]
    idx = lambda lib: lib.lookup.TextFileIndex  # noqa: E731

    def columns(lib):  # anonymous: a new table per call, as the file differs per example
        init = lib.lookup.TextFileInitializer(path, lib.string, 0, lib.int64, 1,
                                              delimiter=delimiter, vocab_size=vocab_size)
        return lib.lookup.StaticHashTable(init, -7, experimental_is_anonymous=True).lookup(
            lib.constant(queries))

    def lines(lib):
        init = lib.lookup.TextFileInitializer(path, lib.string, idx(lib).WHOLE_LINE,
                                              lib.int64, idx(lib).LINE_NUMBER,
                                              value_index_offset=offset)
        t = lib.lookup.StaticVocabularyTable(init, 2, experimental_is_anonymous=True)
        return t.lookup(lib.constant(["%s%s%d" % (w, delimiter, v) for w, v in rows] +
                                     ["zz"])), t.size()
    same(columns)
    same(lines)


def test_composite_keys_and_traced_maps(tmp_path):
    path = str(tmp_path / "vocab.txt")
    with open(path, "w") as f:
        f.write("the\nquick\nbrown\nfox\n")

    def table(lib):
        idx = lib.lookup.TextFileIndex
        return lib.lookup.StaticVocabularyTable(lib.lookup.TextFileInitializer(
            path, lib.string, idx.WHOLE_LINE, lib.int64, idx.LINE_NUMBER), 3)
    same(lambda lib: table(lib).lookup(lib.strings.split(
        lib.constant(["the quick cat", "fox", ""]))))
    same(lambda lib: table(lib).lookup(lib.sparse.from_dense(
        lib.constant([["the", ""], ["", "dog"]]))))
    same(lambda lib: [b for b in lib.data.Dataset.from_tensor_slices(
        ["The", "cat", "fox", "dog", "quick"]).map(
        lambda w: table(lib).lookup(lib.strings.lower(w))).batch(2)])
    same(lambda lib: [b for b in lib.data.Dataset.from_tensor_slices(
        [["the", "x"], ["fox", "y"]]).map(lambda w: (table(lib)[w], w)).batch(2)])
    t = table(tn)
    ds = tn.data.Dataset.from_tensor_slices(["a", "b"]).map(t.lookup).batch(2)
    assert "lookup (vectorized)" in ds.plan_text()


ERRORS = {
    "list_keys": lambda lib, t: t.lookup(["a"]),
    "numpy_bytes_keys": lambda lib, t: t.lookup(np.array([b"a"])),
    "wrong_key_dtype": lambda lib, t: t.lookup(lib.constant([1, 2])),
    "default_float": lambda lib, t: lib.lookup.StaticHashTable(
        lib.lookup.KeyValueTensorInitializer(["a"], [1]), -1.5),
    "default_text": lambda lib, t: lib.lookup.StaticHashTable(
        lib.lookup.KeyValueTensorInitializer(["a"], [1]), "x"),
    "default_vector": lambda lib, t: lib.lookup.StaticHashTable(
        lib.lookup.KeyValueTensorInitializer(["a"], [1]), [1, 2]),
    "sizes_differ": lambda lib, t: lib.lookup.StaticHashTable(
        lib.lookup.KeyValueTensorInitializer(["a", "b"], [1]), -1),
    "duplicate_same": lambda lib, t: lib.lookup.StaticHashTable(
        lib.lookup.KeyValueTensorInitializer(["a", "a"], [1, 1]), -1).size(),
    "duplicate_differs": lambda lib, t: lib.lookup.StaticHashTable(
        lib.lookup.KeyValueTensorInitializer(["a", "a"], [1, 2]), -1),
    "int_duplicate_differs": lambda lib, t: lib.lookup.StaticHashTable(
        lib.lookup.KeyValueTensorInitializer([3, 3], [1, 2]), -1),
    "int32_keys_int64_lookup": lambda lib, t: lib.lookup.StaticHashTable(
        lib.lookup.KeyValueTensorInitializer([3, 5], [1, 2]), -1).lookup(
        lib.constant([5], lib.int64)),
    "vocab_zero_buckets": lambda lib, t: lib.lookup.StaticVocabularyTable(
        lib.lookup.KeyValueTensorInitializer(["a"], lib.constant([0], lib.int64)), 0),
    "vocab_int32_values": lambda lib, t: lib.lookup.StaticVocabularyTable(
        lib.lookup.KeyValueTensorInitializer(["a"], [0]), 2),
    "vocab_int_lookup_of_strings": lambda lib, t: lib.lookup.StaticVocabularyTable(
        lib.lookup.KeyValueTensorInitializer(["a"], lib.constant([0], lib.int64)), 2,
        lookup_key_dtype=lib.int64),
    "vocab_float_keys": lambda lib, t: lib.lookup.StaticVocabularyTable(
        lib.lookup.KeyValueTensorInitializer([1.5], lib.constant([0], lib.int64)), 2),
    "vocab_minus_one": lambda lib, t: lib.lookup.StaticVocabularyTable(
        lib.lookup.KeyValueTensorInitializer(["a", "b"], lib.constant([-1, 1], lib.int64)),
        2).lookup(lib.constant(["a", "b"])),
    "file_key_index": lambda lib, t: lib.lookup.TextFileInitializer(
        "v", lib.string, -3, lib.int64, -1),
    "file_line_number_string": lambda lib, t: lib.lookup.TextFileInitializer(
        "v", lib.string, -1, lib.int64, -1),
    "file_value_index": lambda lib, t: lib.lookup.TextFileInitializer(
        "v", lib.string, -2, lib.int64, -5),
    "file_value_line_number": lambda lib, t: lib.lookup.TextFileInitializer(
        "v", lib.string, -2, lib.string, -1),
    "file_no_name": lambda lib, t: lib.lookup.TextFileInitializer(
        "", lib.string, -2, lib.int64, -1),
    "file_vocab_size_0": lambda lib, t: lib.lookup.TextFileInitializer(
        "v", lib.string, -2, lib.int64, -1, vocab_size=0),
    "file_whole_line_float": lambda lib, t: lib.lookup.TextFileInitializer(
        "v", lib.float32, -2, lib.int64, -1),
}


@pytest.mark.parametrize("case", sorted(ERRORS))
def test_errors(case):
    def make(lib):
        t = lib.lookup.StaticHashTable(lib.lookup.KeyValueTensorInitializer(
            lib.constant(["a", "b", "c"]), lib.constant([7, 8, 9])), -1)
        return ERRORS[case](lib, t)
    same(make)


FILE_CASES = {
    "missing": ("", lambda lib, p: (p + ".nope", lib.string, -2, lib.int64, -1), {}),
    "empty_line": ("a\n\nb\n", lambda lib, p: (p, lib.string, -2, lib.int64, -1), {}),
    "duplicate": ("a\t1\na\t2\n", lambda lib, p: (p, lib.string, 0, lib.int64, 1), {}),
    "columns": ("the\n", lambda lib, p: (p, lib.string, 0, lib.int64, 1), {}),
    "not_an_int": ("x\t1\n", lambda lib, p: (p, lib.string, 1, lib.int64, 0), {}),
    "int_spaces": ("a\t 12 \n", lambda lib, p: (p, lib.string, 0, lib.int64, 1), {}),
    "int_too_big": ("a\t99999999999\n", lambda lib, p: (p, lib.string, 0, lib.int32, 1), {}),
    "float_values": ("a\t1.5\nb\t1e3\n", lambda lib, p: (p, lib.string, 0, lib.float32, 1),
                     {}),
    "vocab_size_big": ("a\nb\n", lambda lib, p: (p, lib.string, -2, lib.int64, -1),
                       {"vocab_size": 9}),
    "delimiter_multi": ("a\n", lambda lib, p: (p, lib.string, -2, lib.int64, -1),
                        {"delimiter": "ab"}),
    "offset_int32": ("a\t3\n", lambda lib, p: (p, lib.string, 0, lib.int32, 1),
                     {"value_index_offset": 5}),
    "int_keys": ("7\n3\n", lambda lib, p: (p, lib.int64, -2, lib.int64, -1), {}),
}


@pytest.mark.parametrize("case", sorted(FILE_CASES))
def test_text_file_errors_and_values(case, tmp_path):
    content, args, kw = FILE_CASES[case]
    path = str(tmp_path / "v.txt")
    if case != "missing":
        with open(path, "w", newline="") as f:
            f.write(content)

    def make(lib):
        init = lib.lookup.TextFileInitializer(*args(lib, path), **kw)
        t = lib.lookup.StaticHashTable(init, _zero(lib, init.value_dtype),
                                       experimental_is_anonymous=True)
        if case == "int_keys":
            return t.lookup(lib.constant([3, 5, 7], lib.int64))
        values = t.export()[1]  # in TensorFlow's hash order, which varies: sorted
        return lib.sort(values) if values.dtype != lib.string else sorted(values.numpy())
    same(make)


def _zero(lib, dtype):
    return "" if dtype == lib.string else 0


def test_tables_from_one_file_are_shared_as_in_tensorflow(tmp_path):
    """TensorFlow keeps a file's table for the process: a second table from the same
    file and indices reads nothing (the file's new content is not seen), and one of
    other dtypes is refused."""
    path = str(tmp_path / "v.txt")
    with open(path, "w") as f:
        f.write("a\tb\n")

    def run(lib):
        out = []
        with open(path, "w") as f:
            f.write("a\t1\nb\t2\n")
        t1 = lib.lookup.StaticHashTable(lib.lookup.TextFileInitializer(
            path, lib.string, 0, lib.int64, 1), -1)
        out.append(t1.lookup(lib.constant(["a", "b", "c"])))
        with open(path, "w") as f:
            f.write("c\t3\n")
        t2 = lib.lookup.StaticHashTable(lib.lookup.TextFileInitializer(
            path, lib.string, 0, lib.int64, 1), -1)
        out.append(t2.lookup(lib.constant(["a", "b", "c"])))
        out.append(_outcome(lambda: lib.lookup.StaticHashTable(
            lib.lookup.TextFileInitializer(path, lib.string, 0, lib.string, 1), "")))
        return out
    same(run)


# ---- the mutable tables (tf.lookup.experimental)

def _mutable_script(lib, kind):
    """One sequence of operations on a MutableHashTable / DenseHashTable; each step's
    outcome (value or error class and text)."""
    exp = lib.lookup.experimental
    steps = []
    if kind == "dense":
        t = exp.DenseHashTable(lib.int64, lib.int64, default_value=-1, empty_key=0,
                               deleted_key=-1)
        keys = lambda v: lib.constant(v, lib.int64)  # noqa: E731
        steps += [lambda: t.insert(keys([5, 6, 7]), keys([50, 60, 70])),
                  lambda: t.lookup(keys([[5, 8], [7, 6]])),
                  lambda: t.insert(keys([0]), keys([1])),
                  lambda: t.insert(keys([-1]), keys([1])),
                  lambda: t.lookup(keys([0])),
                  lambda: t.remove(keys([6, 9])),
                  lambda: t.remove(keys([-1])),
                  lambda: t.erase(keys([5])),
                  lambda: t.size(),
                  lambda: t.lookup(keys([5, 6, 7])),
                  lambda: exp.DenseHashTable(lib.int64, lib.int64, -1, empty_key=3,
                                             deleted_key=3)]
        steps += [lambda: t.insert(keys([[5, 6]]), keys([[50, 60]])),
                  lambda: t.lookup(keys(5)),
                  lambda: t.remove(keys([[7]])),
                  lambda: t.lookup(keys([7]))]
        s = exp.DenseHashTable(lib.string, lib.float32, 0.5, empty_key="", deleted_key="$")
        steps += [lambda: s.insert(["a", "b"], [1.0, 2.0]), lambda: s.lookup(["a", "c"]),
                  lambda: s.insert([""], [1.0]), lambda: s.lookup(["$"])]
        return [_outcome(f) for f in steps]
    t = exp.MutableHashTable(lib.string, lib.int64, -1)
    strs = lambda v: lib.constant(v, lib.string)  # noqa: E731
    steps += [lambda: t.size(),
              lambda: t.insert(["a", "b"], [1, 2]),
              lambda: t.lookup(lib.constant([["a", "c"], ["b", "a"]])),
              lambda: t.insert([1], [3]),
              lambda: t.insert(["x"], [1.5]),
              lambda: t.insert(["x"], lib.constant([3], lib.int32)),
              lambda: t.insert(["x", "y"], [3]),
              lambda: t.lookup(lib.constant([1])),
              lambda: t.remove(strs(["a", "zz"])),
              lambda: t.size(),
              lambda: t.lookup(["a", "q"], dynamic_default_values=lib.constant([7, 8],
                                                                                 lib.int64)),
              lambda: t["b"],
              lambda: t.lookup("b"),
              lambda: t.insert(["b"], [20]),
              lambda: t.lookup(["b"]),
              lambda: (t.key_dtype, t.value_dtype) and None,
              lambda: list(lib.data.Dataset.from_tensor_slices(["a", "b", "c"]).map(
                  lambda s: t.lookup(s)).batch(2).as_numpy_iterator())]
    v = exp.MutableHashTable(lib.int64, lib.float32, [0.0, 0.0])
    steps += [lambda: v.insert(lib.constant([1, 2], lib.int64), [[1., 2.], [3., 4.]]),
              lambda: v.lookup(lib.constant([[1, 5]], lib.int64)),
              lambda: v.insert(lib.constant([3], lib.int64), [[1., 2., 3.]]),
              lambda: v.size(),
              lambda: exp.MutableHashTable(lib.int32, lib.int32, 0).lookup(lib.constant([1])),
              lambda: exp.MutableHashTable(lib.float32, lib.int64, 0),
              lambda: exp.MutableHashTable(lib.string, lib.int64, "x")]
    return [_outcome(f) for f in steps]


def _numbered(outcomes):
    import re
    return [(o[0], (o[1][0], re.sub(r'table_\d+', 'table_N', o[1][1])))
            if o[0] == "error" else o for o in outcomes]


@pytest.mark.parametrize("kind", ["mutable", "dense"])
def test_mutable_tables_match_tensorflow(kind):
    want, got = _numbered(_mutable_script(tf, kind)), _numbered(_mutable_script(tn, kind))
    for i, (w, g) in enumerate(zip(want, got)):
        assert g == w, "step %d" % i
    assert len(got) == len(want)


def test_mutable_table_exports_tensorflows_entries():
    def entries(lib):
        t = lib.lookup.experimental.MutableHashTable(lib.int64, lib.string, "?")
        t.insert(lib.constant([3, 1, 2], lib.int64), ["c", "a", "b"])
        t.remove(lib.constant([1], lib.int64))
        k, v = t.export()
        return sorted(zip(np.asarray(k).tolist(), np.asarray(v).tolist()))
    assert entries(tn) == entries(tf)  # TensorFlow exports in its hash order
