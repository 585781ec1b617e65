"""tfnano.data.ops.shard: shard."""
import numpy as np
import pytest

import tfnano as tf


def vals(ds):
    return [v.tolist() if isinstance(v, np.ndarray) else v for v in ds.as_numpy_iterator()]


def test_every_nth_from_an_index():
    assert vals(tf.data.Dataset.range(10).shard(3, 1)) == [1, 4, 7]


def test_an_index_out_of_range_is_refused():
    with pytest.raises(tf.errors.InvalidArgumentError):
        vals(tf.data.Dataset.range(10).shard(3, 3))
