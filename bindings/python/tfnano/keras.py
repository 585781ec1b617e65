"""``tf.keras.preprocessing.sequence.pad_sequences`` and ``tf.keras.utils.pad_sequences``
(the one keras function notebooks use for data preparation)."""
import types as _types

from ._pad import pad_sequences

preprocessing = _types.SimpleNamespace(
    sequence=_types.SimpleNamespace(pad_sequences=pad_sequences))
utils = _types.SimpleNamespace(pad_sequences=pad_sequences)

__all__ = ["preprocessing", "utils", "pad_sequences"]
