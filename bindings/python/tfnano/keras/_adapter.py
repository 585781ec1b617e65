"""tfnano datasets into Keras 3's model.fit / evaluate / predict, on any backend.

Keras 3 takes a DataAdapter instance as it is (the way in it offers for data types it
does not know); this one iterates the tfnano dataset once per epoch and hands the
numpy batches to the backend: JAX arrays, a torch DataLoader, or a tf.data.Dataset.
Keras is imported here, on first use, never by tfnano itself."""
import numpy as np

from keras.src.trainers.data_adapters import data_adapter_utils
from keras.src.trainers.data_adapters.data_adapter import DataAdapter

_INFINITE, _UNKNOWN = -1, -2


def _cardinality(ds):
    c = getattr(ds, "cardinality", None)
    if c is None:
        return _UNKNOWN
    return int(np.asarray(c()))


def _keras_element(x):
    """A dataset element as Keras expects a batch: tuples for (x, y[, w]), dicts and
    arrays as they are; tfnano tensors as numpy."""
    if isinstance(x, list):
        x = tuple(x)
    if isinstance(x, tuple):
        return tuple(_keras_element(v) for v in x)
    if isinstance(x, dict):
        return {k: _keras_element(v) for k, v in x.items()}
    if isinstance(x, np.ndarray):
        return x
    if hasattr(x, "numpy"):
        return x.numpy()
    return np.asarray(x)


class KerasAdapter(DataAdapter):
    """A tfnano ``tf.data.Dataset`` (finite, or ``repeat()``-ed and paired with fit's
    ``steps_per_epoch``) as a Keras 3 data adapter. ``num_batches`` is the dataset's
    cardinality when known, so fit's progress bar shows the step total; ``steps``
    gives it where the cardinality is unknown (a TFRecordDataset of unknown length)."""

    def __init__(self, dataset, steps=None):
        self.dataset = dataset
        card = _cardinality(dataset)
        if steps is not None:
            self._num_batches = int(steps)
        else:
            self._num_batches = card if card >= 0 else None
        self._infinite = card == _INFINITE

    def _batches(self):
        for x in self.dataset.as_numpy_iterator():
            yield _keras_element(x)

    def get_numpy_iterator(self):
        return self._batches()

    def get_jax_iterator(self):
        return data_adapter_utils.get_jax_iterator(self._batches())

    def get_torch_dataloader(self):
        return data_adapter_utils.get_torch_dataloader(self._batches())

    def get_tf_dataset(self):
        from keras.src.utils.module_utils import tensorflow as tf
        first = list(_take(self._batches(), 2))
        if not first:
            raise ValueError("the tfnano dataset is empty")
        spec = data_adapter_utils.get_tensor_spec(first)
        return tf.data.Dataset.from_generator(self._batches, output_signature=spec)

    @property
    def num_batches(self):
        return self._num_batches

    @property
    def batch_size(self):
        return None

    @property
    def has_partial_batch(self):
        return None

    @property
    def partial_batch_size(self):
        return None

    def __len__(self):
        if self._num_batches is None:
            raise TypeError("the dataset's length is %s: pass steps=N to tfnano.keras."
                            "adapter, or steps_per_epoch to fit"
                            % ("infinite" if self._infinite else "unknown"))
        return self._num_batches


def _take(it, n):
    for _, x in zip(range(n), it):
        yield x


def adapter(dataset, steps=None):
    """``model.fit(tfnano.keras.adapter(ds), validation_data=tfnano.keras.adapter(val))``:
    a tfnano dataset for Keras 3 on the JAX, PyTorch or TensorFlow backend. Elements are
    ``(x, y)``, ``(x, y, sample_weight)``, ``x`` or a dict, batched already."""
    return KerasAdapter(dataset, steps=steps)
