"""tfnano.data.ops.bucket_by_sequence_length: Dataset.bucket_by_sequence_length."""
import numpy as np

import tfnano as tf


def vals(ds):
    return [v.tolist() if isinstance(v, np.ndarray) else v for v in ds.as_numpy_iterator()]


def test_rows_go_to_their_bucket_and_are_padded_there():
    rows = [[1], [2, 2], [3, 3, 3, 3, 3], [4], [5, 5, 5, 5, 5, 5], [6, 6]]
    ds = tf.data.Dataset.from_generator(lambda: iter(rows),
                                        output_signature=tf.TensorSpec([None], tf.int64))
    out = ds.bucket_by_sequence_length(lambda x: tf.shape(x)[0], bucket_boundaries=[3],
                                       bucket_batch_sizes=[2, 2])
    got = sorted(v.tolist() for v in out.as_numpy_iterator())
    assert got == [[[1, 0], [2, 2]], [[3, 3, 3, 3, 3, 0], [5, 5, 5, 5, 5, 5]], [[4, 0], [6, 6]]]
