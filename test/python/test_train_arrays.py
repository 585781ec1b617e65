"""numpy sees tf.train list values as protobuf's (upb) containers give them: float32
for FloatList, int64 for Int64List, fixed-width bytes for BytesList (issue 11: reading
`feature.float_list.value` back from a parsed Example gave float64)."""
import numpy as np

import tfnano as tf


def test_repeated_values_as_numpy_arrays():
    ex = tf.train.Example(features=tf.train.Features(feature={
        "f": tf.train.Feature(float_list=tf.train.FloatList(value=[0.1, 2.5])),
        "i": tf.train.Feature(int64_list=tf.train.Int64List(value=[3, -4])),
        "b": tf.train.Feature(bytes_list=tf.train.BytesList(value=[b"ab", b"c"]))}))
    parsed = tf.train.Example.FromString(ex.SerializeToString())
    f = np.asarray(parsed.features.feature["f"].float_list.value)
    assert f.dtype == np.float32 and f.tolist() == [np.float32(0.1), 2.5]
    i = np.asarray(parsed.features.feature["i"].int64_list.value)
    assert i.dtype == np.int64 and i.tolist() == [3, -4]
    b = np.asarray(parsed.features.feature["b"].bytes_list.value)
    assert b.dtype == np.dtype("S2") and b.tolist() == [b"ab", b"c"]
    assert np.asarray(tf.train.FloatList().value).dtype == np.float32
    assert np.array(ex.features.feature["f"].float_list.value, dtype=np.float64).dtype == \
        np.float64
    # the array is a copy: writing to it leaves the message alone
    f[0] = 9
    assert parsed.features.feature["f"].float_list.value[0] == np.float32(0.1)
