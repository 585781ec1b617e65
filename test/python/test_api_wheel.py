"""`pip install .` as a user does it: a wheel built with normal build isolation
(setuptools and cffi from PyPI), installed into a brand-new virtualenv with no
TensorFlow and no protobuf, imported and used outside the source tree.

Uses pip's cache, so it takes tens of seconds; TFN_SKIP_WHEEL_TEST=1 skips it
(e.g. offline)."""
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

SMOKE = textwrap.dedent("""
    import importlib.util, os, sys
    assert importlib.util.find_spec("tensorflow") is None
    assert importlib.util.find_spec("google.protobuf") is None if importlib.util.find_spec("google") else True
    import tfnano as tf
    assert not tf.__file__.startswith(sys.argv[1]), tf.__file__
    ex = tf.train.Example(features=tf.train.Features(feature={
        "a": tf.train.Feature(int64_list=tf.train.Int64List(value=[1]))}))
    raw = ex.SerializeToString()
    assert raw == bytes.fromhex("0a0c0a0a0a016112051a030a0101"), raw
    out = tf.io.parse_example([raw, raw], {"a": tf.io.FixedLenFeature([], tf.int64)})
    assert out["a"].tolist() == [1, 1]
    assert tf.keras.utils.pad_sequences([[1], [2, 3]]).tolist() == [[0, 1], [2, 3]]
    print("wheel-ok")
""")


@pytest.mark.slow
@pytest.mark.skipif(os.environ.get("TFN_SKIP_WHEEL_TEST") == "1", reason="TFN_SKIP_WHEEL_TEST=1")
def test_wheel_installs_in_fresh_venv(tmp_path):
    env = dict(os.environ)
    env.pop("PYTHONPATH", None)
    env["PIP_DISABLE_PIP_VERSION_CHECK"] = "1"
    wheels = tmp_path / "wheels"
    subprocess.run([sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", "-w",
                    str(wheels), str(ROOT)], check=True, env=env, cwd=str(ROOT))
    built = list(wheels.glob("tfnano-*.whl"))
    assert len(built) == 1, built
    venv = tmp_path / "venv"
    # --without-pip + the test venv's pip would be faster, but a real user's venv has pip
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True, env=env)
    py = venv / "bin" / "python"
    subprocess.run([str(py), "-m", "pip", "install", "-q", str(built[0])], check=True,
                   env=env)
    work = tmp_path / "elsewhere"
    work.mkdir()
    res = subprocess.run([str(py), "-c", SMOKE, str(ROOT)], cwd=str(work), env=env,
                         capture_output=True, text=True)
    assert res.returncode == 0, res.stdout + res.stderr
    assert "wheel-ok" in res.stdout
    listed = subprocess.run([str(py), "-m", "pip", "list", "--format=freeze"], env=env,
                            capture_output=True, text=True, check=True).stdout.lower()
    names = {line.split("==")[0] for line in listed.split()}
    assert "tensorflow" not in names and "protobuf" not in names
    assert names <= {"tfnano", "numpy", "cffi", "pycparser", "pip", "setuptools"}, names
