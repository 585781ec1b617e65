"""tf.keras in tfnano: the utilities it provides, and a clear error naming them (and
the counterpart, where there is one) for every name it does not."""
import numpy as np
import pytest

import tfnano as tf


def test_tf_keras_utilities_and_missing_names():
    import tfnano as tf
    np.testing.assert_array_equal(tf.keras.utils.to_categorical([0, 2, 1]),
                                  np.eye(3)[[0, 2, 1]])
    assert tf.keras.utils.to_categorical([[1], [0]], 3).shape == (2, 3)
    assert tf.keras.preprocessing.sequence.pad_sequences([[1], [2, 3]]).tolist() == \
        [[0, 1], [2, 3]]
    with pytest.raises(AttributeError, match="TextVectorization") as e:
        tf.keras.preprocessing.text.Tokenizer
    assert "tfnano provides only" in str(e.value) and "SimpleNamespace" not in str(e.value)
    with pytest.raises(AttributeError, match="tf.io.decode_image"):
        tf.keras.utils.image_dataset_from_directory
    with pytest.raises(AttributeError, match="Keras 3 itself"):
        tf.keras.layers


def test_missing_names_at_every_level():
    for get in (lambda: tf.keras.Model, lambda: tf.keras.utils.Sequence,
                lambda: tf.keras.preprocessing.image, lambda: tf.keras.preprocessing.sequence.foo):
        with pytest.raises(AttributeError, match="tfnano provides only"):
            get()
    assert "to_categorical" in dir(tf.keras.utils) and "pad_sequences" in dir(tf.keras)
    assert hasattr(tf.keras.utils, "pad_sequences") and not hasattr(tf.keras.utils, "x")


def test_keras_package_imports_without_keras():
    import subprocess
    import sys
    code = ("import sys; sys.modules['keras'] = None; import tfnano as tf; "
            "print(tf.keras.utils.to_categorical([1]).tolist())\n"
            "try:\n    tf.keras.adapter\nexcept ImportError as e:\n    print('ImportError')")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True)
    assert out.stdout.split("\n")[:2] == ["[[0.0, 1.0]]", "ImportError"]
