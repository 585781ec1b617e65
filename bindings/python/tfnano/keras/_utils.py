"""tf.keras.utils.to_categorical, with Keras' results (numpy only)."""
import numpy as np


def to_categorical(x, num_classes=None):
    """Class vector (integers) -> one-hot float64 matrix, as keras.utils.to_categorical
    does for numpy input: a trailing dimension of size 1 is dropped first, num_classes
    defaults to max + 1."""
    x = np.array(x, dtype="int64")
    shape = x.shape
    if shape and shape[-1] == 1 and len(shape) > 1:
        shape = shape[:-1]
    x = x.reshape(-1)
    if not num_classes:
        num_classes = int(np.max(x)) + 1
    out = np.zeros((x.shape[0], num_classes), dtype="float64")
    out[np.arange(x.shape[0]), x] = 1
    return out.reshape(shape + (num_classes,))
