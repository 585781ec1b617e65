"""tf.io.gfile: TensorFlow's semantics, errors and glob order for paths, the same
through fsspec for URLs (memory://), and a clear error when fsspec is missing."""
import os
import subprocess
import sys
import textwrap

import pytest

import tfnano as tf
from tfnano import errors

gfile = tf.io.gfile


@pytest.fixture
def tree(tmp_path):
    for d in ("a", "b/c"):
        (tmp_path / d).mkdir(parents=True)
    for f in ("z.txt", "a.txt", "B.txt", ".hidden", "a/q.txt", "b/x.txt", "b/c/y.txt"):
        (tmp_path / f).write_text(f)
    return tmp_path


def test_glob_is_in_directory_order_with_hidden_files(tree):
    # TensorFlow returns a folder's matches in readdir order (os.listdir's), hidden
    # files included, and not sorted
    got = gfile.glob(str(tree / "*"))
    assert got == [str(tree / n) for n in os.listdir(tree)]
    assert str(tree / ".hidden") in got
    assert gfile.glob(str(tree / "[ab]*")) == [str(tree / n) for n in os.listdir(tree)
                                               if n[0] in "ab"]
    assert sorted(gfile.glob(str(tree / "*" / "*.txt"))) == sorted(
        [str(tree / "a" / "q.txt"), str(tree / "b" / "x.txt")])
    assert gfile.glob(str(tree / "a.txt")) == [str(tree / "a.txt")]
    assert gfile.glob(str(tree / "nope" / "*")) == []


def test_glob_of_several_patterns_concatenates(tree):
    got = gfile.glob([str(tree / "z*"), str(tree / "a*")])
    assert got[0] == str(tree / "z.txt")
    assert sorted(got[1:]) == [str(tree / "a"), str(tree / "a.txt")]


def test_glob_relative_pattern_has_dot_slash(tree, monkeypatch):
    monkeypatch.chdir(tree)
    assert sorted(gfile.glob("*.txt")) == ["./B.txt", "./a.txt", "./z.txt"]
    assert sorted(gfile.glob("b/*")) == ["b/c", "b/x.txt"]


def test_file_urls_are_local_paths(tree):
    url = "file://" + str(tree / "a.txt")
    assert gfile.exists(url) and not gfile.isdir(url)
    assert gfile.isdir("file://" + str(tree / "a"))
    assert gfile.glob("file://" + str(tree / "a" / "*")) == ["file://" + str(tree / "a" / "q.txt")]
    with gfile.GFile(url) as f:
        assert f.read() == "a.txt"


def test_listdir_walk_stat(tree):
    assert gfile.listdir(str(tree)) == os.listdir(tree)
    walked = list(gfile.walk(str(tree)))
    assert walked[0][0] == str(tree)
    assert sorted(walked[0][1]) == ["a", "b"]
    assert sorted(w[0] for w in walked) == sorted(
        [str(tree), str(tree / "a"), str(tree / "b"), str(tree / "b" / "c")])
    assert list(gfile.walk(str(tree / "nope"))) == []
    bottom_up = [w[0] for w in gfile.walk(str(tree), topdown=False)]
    assert bottom_up[-1] == str(tree)
    st = gfile.stat(str(tree / "a.txt"))
    assert st.length == 5 and not st.is_directory
    assert st.mtime_nsec == int(os.stat(tree / "a.txt").st_mtime) * 10**9
    assert gfile.stat(str(tree / "a")).is_directory


def test_errors_are_tensorflows(tree):
    missing = str(tree / "nope")
    with pytest.raises(errors.NotFoundError, match=r"; No such file or directory$") as e:
        gfile.remove(missing)
    assert isinstance(e.value, FileNotFoundError)
    with pytest.raises(errors.NotFoundError, match="^Could not find directory "):
        gfile.listdir(missing)
    with pytest.raises(errors.NotFoundError, match="^Could not find directory "):
        gfile.listdir(str(tree / "a.txt"))
    with pytest.raises(errors.AlreadyExistsError, match="^file already exists$"):
        gfile.rename(str(tree / "a.txt"), str(tree / "z.txt"))
    with pytest.raises(errors.AlreadyExistsError, match="^file already exists$"):
        gfile.copy(str(tree / "a.txt"), str(tree / "z.txt"))
    with pytest.raises(errors.NotFoundError):
        gfile.stat(missing)
    with pytest.raises(errors.NotFoundError):
        gfile.GFile(missing).read()
    with pytest.raises(errors.NotFoundError):
        gfile.rename(missing, str(tree / "n2"))
    with pytest.raises(errors.FailedPreconditionError, match="; Is a directory$") as e:
        gfile.remove(str(tree / "a"))
    assert isinstance(e.value, IsADirectoryError)
    with pytest.raises(errors.FailedPreconditionError, match="is not a directory$"):
        gfile.makedirs(str(tree / "a.txt" / "x"))
    gfile.mkdir(str(tree / "a"))  # an existing folder is fine, as in TensorFlow
    gfile.makedirs(str(tree / "a"))


def test_rename_copy_overwrite(tree):
    gfile.copy(str(tree / "a.txt"), str(tree / "z.txt"), overwrite=True)
    assert (tree / "z.txt").read_text() == "a.txt"
    gfile.rename(str(tree / "B.txt"), str(tree / "z.txt"), overwrite=True)
    assert (tree / "z.txt").read_text() == "B.txt" and not (tree / "B.txt").exists()
    gfile.makedirs(str(tree / "m" / "n"))
    assert gfile.isdir(str(tree / "m" / "n"))
    gfile.rmtree(str(tree / "m"))
    assert not gfile.exists(str(tree / "m"))


def test_urls_through_fsspec():
    fsspec = pytest.importorskip("fsspec")
    fs = fsspec.filesystem("memory")
    fs.pipe("/gf/d/one.bin", b"1")
    fs.pipe("/gf/d/two.bin", b"22")
    base = "memory://gf"
    assert gfile.glob(base + "/d/*.bin") == [base + "/d/one.bin", base + "/d/two.bin"]
    for url in gfile.glob(base + "/d/*.bin"):
        assert gfile.exists(url)  # what glob lists exists
    assert gfile.isdir(base + "/d") and not gfile.isdir(base + "/d/one.bin")
    assert sorted(gfile.listdir(base + "/d")) == ["one.bin", "two.bin"]
    assert gfile.stat(base + "/d/two.bin").length == 2
    with gfile.GFile(base + "/d/new.bin", "wb") as f:
        f.write(b"abc")
    with gfile.GFile(base + "/d/new.bin", "rb") as f:
        assert f.read() == b"abc"
    gfile.copy(base + "/d/new.bin", base + "/d/copy.bin")
    with pytest.raises(errors.AlreadyExistsError):
        gfile.copy(base + "/d/new.bin", base + "/d/copy.bin")
    gfile.rename(base + "/d/copy.bin", base + "/e/moved.bin")
    assert gfile.exists(base + "/e/moved.bin") and not gfile.exists(base + "/d/copy.bin")
    gfile.remove(base + "/e/moved.bin")
    with pytest.raises(errors.NotFoundError):
        gfile.remove(base + "/e/moved.bin")
    with pytest.raises(errors.NotFoundError):
        gfile.GFile(base + "/nope.bin", "rb")
    walked = list(gfile.walk(base))
    assert walked[0][0] == base and "d" in walked[0][1]


def test_tfrecords_on_urls_and_gfile_agree():
    pytest.importorskip("fsspec")
    url = "memory://gf2/r.tfrecord"
    with tf.io.TFRecordWriter(url) as w:
        w.write(b"x")
    assert gfile.exists(url) and gfile.glob("memory://gf2/*") == [url]
    assert [r.numpy() for r in tf.data.TFRecordDataset(gfile.glob("memory://gf2/*"))] == [b"x"]


def test_without_fsspec_urls_give_a_clear_error(tmp_path):
    code = textwrap.dedent("""
        import sys
        sys.modules["fsspec"] = None  # as if it were not installed
        import tfnano as tf
        assert tf.io.gfile.exists(sys.argv[1])  # local paths need no fsspec
        try:
            tf.io.gfile.glob("gs://bucket/*.tfrecord")
        except tf.errors.UnimplementedError as e:
            print(type(e).__name__, e)
    """)
    env = dict(os.environ)
    env["PYTHONPATH"] = os.path.dirname(os.path.dirname(tf.__file__))
    res = subprocess.run([sys.executable, "-c", code, str(tmp_path)], capture_output=True,
                         text=True, env=env)
    assert res.returncode == 0, res.stderr
    assert res.stdout.startswith("UnimplementedError File system scheme 'gs' not implemented")
    assert "pip install fsspec" in res.stdout
