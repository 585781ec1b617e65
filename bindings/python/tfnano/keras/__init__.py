"""``tf.keras`` in tfnano: the few Keras data utilities notebooks use, and the way into
Keras 3 training on any backend (JAX, PyTorch, TensorFlow) from tfnano datasets.

Provided: ``tf.keras.utils.pad_sequences`` (also ``tf.keras.preprocessing.sequence.
pad_sequences``), ``tf.keras.utils.to_categorical``, and ``tfnano.keras.adapter(ds)``,
which hands a tfnano ``tf.data.Dataset`` to ``model.fit`` / ``evaluate`` / ``predict``
(Keras imported on first use). Everything else in ``tf.keras`` (layers, models,
optimizers, the image and text preprocessing utilities) belongs to Keras itself: asking
for it raises an AttributeError that says so and names tfnano's counterpart, if any.
See docs/keras.md.
"""
from ._namespace import Namespace as _Namespace
from .._pad import pad_sequences
from ._utils import to_categorical

# Names users reach for under tf.keras that tfnano does not provide, and where to go.
_INSTEAD = {
    "preprocessing.text": "Keras 3's keras.layers.TextVectorization, or in tfnano "
    "tf.strings.split + tf.lookup.StaticHashTable inside Dataset.map",
    "preprocessing.text.Tokenizer": "Keras 3's keras.layers.TextVectorization, or in "
    "tfnano tf.strings.split + tf.lookup.StaticHashTable inside Dataset.map",
    "preprocessing.image": "tfnano's tf.io.read_file + tf.io.decode_image + tf.image."
    "resize inside Dataset.map (docs/images.md)",
    "preprocessing.image_dataset_from_directory": "tf.data.Dataset.list_files (or "
    "from_tensor_slices over paths and labels) + tf.io.read_file + tf.io.decode_image + "
    "tf.image.resize (docs/images.md)",
    "preprocessing.text_dataset_from_directory": "tf.data.Dataset.from_tensor_slices "
    "over paths and labels + tf.io.read_file inside Dataset.map",
    "preprocessing.timeseries_dataset_from_array": "tf.data.Dataset.from_tensor_slices "
    "+ window / batch",
    "utils.image_dataset_from_directory": "tf.data.Dataset.list_files (or "
    "from_tensor_slices over paths and labels) + tf.io.read_file + tf.io.decode_image + "
    "tf.image.resize (docs/images.md)",
    "utils.text_dataset_from_directory": "tf.data.Dataset.from_tensor_slices over paths "
    "and labels + tf.io.read_file inside Dataset.map",
    "utils.timeseries_dataset_from_array": "tf.data.Dataset.from_tensor_slices + "
    "window / batch",
    "utils.audio_dataset_from_directory": "tf.io.read_file inside Dataset.map (audio "
    "decoding is not in tfnano)",
    "utils.load_img": "tf.io.read_file + tf.io.decode_image",
    "utils.img_to_array": "numpy (tfnano's images are numpy arrays already)",
    "utils.Sequence": "Keras 3's keras.utils.PyDataset, or tfnano.keras.adapter(ds)",
    "utils.PyDataset": "Keras 3's keras.utils.PyDataset, or tfnano.keras.adapter(ds)",
    "utils.get_file": "a download with urllib, then tf.io.gfile",
}
_PROVIDED = ("tf.keras.utils.pad_sequences, tf.keras.preprocessing.sequence."
             "pad_sequences, tf.keras.utils.to_categorical and tfnano.keras.adapter "
             "(a tfnano dataset for Keras 3's model.fit on JAX, PyTorch or TensorFlow)")
_KERAS = ("layers, models, optimizers, losses, metrics, callbacks and the rest of "
          "Keras come from Keras 3 itself (pip install keras)")

preprocessing = _Namespace("preprocessing", _INSTEAD, _PROVIDED, _KERAS, sequence=_Namespace(
    "preprocessing.sequence", _INSTEAD, _PROVIDED, _KERAS, pad_sequences=pad_sequences))
utils = _Namespace("utils", _INSTEAD, _PROVIDED, _KERAS, pad_sequences=pad_sequences,
                   to_categorical=to_categorical)

_ADAPTER = ("adapter", "KerasAdapter")


def __getattr__(name):
    if name in _ADAPTER:
        try:
            from . import _adapter
        except ImportError as e:
            if "keras" not in str(e):
                raise
            raise ImportError("tfnano.keras.%s needs Keras 3: pip install keras (%s)"
                              % (name, e)) from None
        value = getattr(_adapter, name)
        globals()[name] = value
        return value
    from ._namespace import missing
    raise AttributeError(missing("", name, _INSTEAD, _PROVIDED, _KERAS))


def __dir__():
    return sorted(["preprocessing", "utils", "pad_sequences", "to_categorical", *_ADAPTER])


__all__ = ["preprocessing", "utils", "pad_sequences", "to_categorical", "adapter"]
