"""tf.image.resize's `size` argument converted and checked as TensorFlow does (issue 26
item 7: `resize(img, 64)` used to fail with "not enough values to unpack")."""
import numpy as np
import pytest

import tfnano as tf

IMG = np.zeros((8, 8, 3), np.float32)
TWO = "'size' must be a 1-D Tensor of 2 elements: new_height, new_width"
INT32 = "'size' must be a 1-D int32 Tensor"


@pytest.mark.parametrize("size", [64, [64], (64,), [64, 32, 1], np.int32(64), [[64, 32]]])
def test_size_of_other_than_two_values(size):
    with pytest.raises(ValueError) as e:
        tf.image.resize(IMG, size)
    assert str(e.value) == TWO


@pytest.mark.parametrize("size", ["ab", [64.0, 32.0], (4, np.float32(5)),
                                  tf.constant([64, 32], tf.int64)])
def test_size_that_is_not_int32(size):
    with pytest.raises(ValueError) as e:
        tf.image.resize(IMG, size)
    assert str(e.value) == INT32


@pytest.mark.parametrize("size", [[6, 5], (6, 5), np.array([6, 5]), np.array([6.0, 5.0]),
                                  [np.int64(6), 5], tf.constant([6, 5])])
def test_sizes_tensorflow_accepts(size):
    assert tf.image.resize(IMG, size).shape == (6, 5, 3)


def test_python_ints_wrap_to_32_bits():
    with pytest.raises(tf.errors.InvalidArgumentError, match="output dimensions must be"):
        tf.image.resize(IMG, [2 ** 40, 3])
