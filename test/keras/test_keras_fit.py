"""Keras 3 trains from tfnano datasets on the JAX and the PyTorch backends, with
TensorFlow blocked from importing (each backend in its own process). JAX runs in this
interpreter (build/venv-keras); PyTorch in $KERAS_TORCH_PYTHON, which make test-keras
sets to build/venv-torch's (torch is downloaded for that virtualenv only)."""
import json
import os
import subprocess
import sys

import numpy as np
import pytest

HERE = os.path.dirname(os.path.abspath(__file__))


def _python(backend):
    """The interpreter that has Keras and this backend."""
    if backend == "torch" and os.environ.get("KERAS_TORCH_PYTHON"):
        return os.environ["KERAS_TORCH_PYTHON"]
    probe = subprocess.run([sys.executable, "-c", "import keras, %s" % backend],
                           capture_output=True, env=dict(os.environ, KERAS_BACKEND="jax"))
    if probe.returncode:
        pytest.skip("no %s beside keras in %s: run make test-keras (or set "
                    "KERAS_TORCH_PYTHON)" % (backend, sys.executable))
    return sys.executable


@pytest.mark.parametrize("backend", ["jax", "torch"])
def test_fit_two_epochs_without_tensorflow(backend, tmp_path):
    env = dict(os.environ, KERAS_BACKEND=backend, KERAS_HOME=str(tmp_path / "keras"))
    out = subprocess.run([_python(backend), os.path.join(HERE, "fit_run.py"), str(tmp_path)],
                         env=env, capture_output=True, text=True, timeout=600)
    assert out.returncode == 0, out.stderr[-3000:]
    r = json.loads(out.stdout.strip().splitlines()[-1])
    assert r["backend"] == backend
    assert r["tensorflow_loaded"] is False
    assert r["loss"][1] < r["loss"][0]          # two epochs, loss decreasing
    assert len(r["val_loss"]) == 2
    assert r["steps"] == [16, 16]               # the progress bar's step total
    assert r["card_steps"] == [5]               # from the dataset's cardinality
    assert r["given_steps"] == [2]              # adapter(ds, steps=...)
    assert r["repeat_steps"] == [5, 5] and len(r["repeat_loss"]) == 2
    assert r["pred_shape"] == [128, 2]
    assert "16/16" in out.stdout                 # verbose=2 prints the step total
    assert "ran out of data" not in out.stderr   # the lengths Keras was told are right


def test_keras_utils_match_keras():
    import keras
    import tfnano as tf
    for y, k in [([0, 3, 1], None), ([[2], [0], [1]], None), ([1, 1], 4)]:
        ours, theirs = tf.keras.utils.to_categorical(y, k), keras.utils.to_categorical(y, k)
        assert ours.dtype == np.asarray(theirs).dtype
        np.testing.assert_array_equal(ours, theirs)
    seqs = [[1, 2, 3], [4], []]
    np.testing.assert_array_equal(tf.keras.utils.pad_sequences(seqs, maxlen=2),
                                  keras.utils.pad_sequences(seqs, maxlen=2))
