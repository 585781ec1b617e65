"""tf.io.gfile against TensorFlow's, in one process: the same folder gives the same
glob results (TensorFlow's order for one level: the folder's; as a set for several
levels, where TensorFlow's own order varies between runs), the same listdir, walk,
stat, and the same error classes and texts."""
import os
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "bindings" / "python"))

tf = pytest.importorskip("tensorflow")
import tfnano  # noqa: E402

TG, NG = tf.io.gfile, tfnano.io.gfile


@pytest.fixture
def tree(tmp_path):
    for d in ("a", "b/c", "b/d"):
        (tmp_path / d).mkdir(parents=True)
    for f in ("z.txt", "a.txt", "B.txt", ".hidden", "a/q.txt", "b/x.txt", "b/.h2",
              "b/c/y.txt", "m[1].txt", "qq"):
        (tmp_path / f).write_text(f)
    return tmp_path


PATTERNS = ["*", "*.txt", "[ab]*", "?.txt", "a.txt", "nope*", "b/*", "*/", ".*",
            "b/c/*", "x/*", "m*"]


@pytest.mark.parametrize("pattern", PATTERNS)
def test_glob_one_level_same_as_tensorflow(tree, pattern):
    p = str(tree / pattern)
    assert NG.glob(p) == TG.glob(p)


@pytest.mark.parametrize("pattern", ["*/*", "*/*.txt", "b/*/*", "*/c/*"])
def test_glob_several_levels_same_set(tree, pattern):
    p = str(tree / pattern)
    got, want = NG.glob(p), TG.glob(p)
    assert sorted(got) == sorted(want) and len(got) == len(want)


def test_glob_relative_and_lists(tree, monkeypatch):
    monkeypatch.chdir(tree)
    for p in ("*.txt", "b/*", ["z*", "a*"]):
        got, want = NG.glob(p), TG.glob(p)
        assert sorted(got) == sorted(want), p


def test_listdir_walk_stat_exists(tree):
    assert NG.listdir(str(tree)) == TG.listdir(str(tree))
    assert [(d, sorted(s), sorted(f)) for d, s, f in NG.walk(str(tree))] == \
        [(d, sorted(s), sorted(f)) for d, s, f in TG.walk(str(tree))]
    for name in ("a.txt", "a", "nope"):
        p = str(tree / name)
        assert NG.exists(p) == TG.exists(p) and NG.isdir(p) == TG.isdir(p)
    a, b = NG.stat(str(tree / "a.txt")), TG.stat(str(tree / "a.txt"))
    assert (a.length, a.mtime_nsec, a.is_directory) == (b.length, b.mtime_nsec, b.is_directory)
    assert NG.exists("file://" + str(tree / "a.txt")) == TG.exists("file://" + str(tree / "a.txt"))


def _error(f):
    try:
        f()
    except Exception as e:  # noqa: BLE001 - the class and text are what is compared
        return type(e).__name__, str(e)
    return None


@pytest.mark.parametrize("call", [
    lambda g, t: g.remove(str(t / "nope")),
    lambda g, t: g.remove(str(t / "a")),
    lambda g, t: g.listdir(str(t / "nope")),
    lambda g, t: g.listdir(str(t / "a.txt")),
    lambda g, t: g.rename(str(t / "a.txt"), str(t / "z.txt")),
    lambda g, t: g.rename(str(t / "nope"), str(t / "n2")),
    lambda g, t: g.copy(str(t / "a.txt"), str(t / "z.txt")),
    lambda g, t: g.copy(str(t / "nope"), str(t / "n2")),
    lambda g, t: g.stat(str(t / "nope")),
    lambda g, t: g.makedirs(str(t / "a.txt" / "x")),
    lambda g, t: g.GFile(str(t / "nope")).read(),
    lambda g, t: g.mkdir(str(t / "a")),
], ids=["remove-missing", "remove-dir", "listdir-missing", "listdir-file", "rename-exists",
        "rename-missing", "copy-exists", "copy-missing", "stat-missing", "makedirs-file",
        "gfile-missing", "mkdir-exists"])
def test_errors_same_class_and_text(tree, call):
    assert _error(lambda: call(NG, tree)) == _error(lambda: call(TG, tree))
