"""tfnano.data.ops.save_load: Dataset.save / Dataset.load."""
import numpy as np

import tfnano as tf


def vals(ds):
    return [v.tolist() if isinstance(v, np.ndarray) else v for v in ds.as_numpy_iterator()]


def test_saved_elements_load_back(tmp_path):
    ds = tf.data.Dataset.from_tensor_slices(([1, 2, 3], [b"x", b"y", b"z"]))
    ds.save(str(tmp_path / "saved"))
    back = tf.data.Dataset.load(str(tmp_path / "saved"))
    got = [(int(a), bytes(b)) for a, b in back.as_numpy_iterator()]
    assert got == [(1, b"x"), (2, b"y"), (3, b"z")]
