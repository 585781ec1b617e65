"""``tf.train``: Example, Features, Feature, BytesList, FloatList, Int64List,
SequenceExample, FeatureLists, FeatureList.

Pure-Python message classes with protobuf's construction rules and error texts
(those of the upb backend TensorFlow ships), serialized and parsed by the C library:
``SerializeToString()`` gives the bytes of protobuf's ``deterministic=True`` (keys
sorted), ``FromString`` / ``ParseFromString`` follow protobuf's decoding rules.

Numeric lists keep numpy arrays inside, so building from numpy is cheap:
``Int64List(value=np_array)`` checks the dtype once instead of every value.

``containers`` holds the protobuf machinery (value checks, repeated fields, the
message map, text format), ``example`` and ``sequence_example`` the messages; the C
calls are in ``tfnano._c.example``.
"""
from .containers import DecodeError, EncodeError
from .example import BytesList, Example, Feature, Features, FloatList, Int64List
from .sequence_example import FeatureList, FeatureLists, SequenceExample

__all__ = ["Example", "Features", "Feature", "BytesList", "FloatList", "Int64List",
           "DecodeError", "EncodeError", "SequenceExample", "FeatureLists", "FeatureList"]
