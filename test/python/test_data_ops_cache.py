"""tfnano.data.ops.cache: cache()."""
import numpy as np

import tfnano as tf


def vals(ds):
    return [v.tolist() if isinstance(v, np.ndarray) else v for v in ds.as_numpy_iterator()]


def test_the_upstream_runs_once_and_the_values_repeat():
    calls = []

    def gen():
        calls.append(1)
        yield from range(3)
    ds = tf.data.Dataset.from_generator(gen, output_signature=tf.TensorSpec([], tf.int64)).cache()
    assert vals(ds) == [0, 1, 2] and vals(ds) == [0, 1, 2]
    assert len(calls) == 1


def test_a_file_cache_is_written_and_read_back(tmp_path):
    path = str(tmp_path / "c")
    ds = tf.data.Dataset.range(5).map(lambda x: x * 2).cache(path)
    assert vals(ds) == [0, 2, 4, 6, 8]
    assert vals(ds) == [0, 2, 4, 6, 8]
