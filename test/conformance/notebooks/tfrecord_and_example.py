# Modelled on the TensorFlow guide "TFRecord and tf.train.Example": feature helpers,
# serializing observations, writing and reading a TFRecord file, parsing it back.
import os
import sys

import numpy as np
import tensorflow as tf

workdir = sys.argv[1]


def _bytes_feature(value):
    """Returns a bytes_list from a string / byte."""
    if isinstance(value, type(tf.constant(0))):
        value = value.numpy()
    return tf.train.Feature(bytes_list=tf.train.BytesList(value=[value]))


def _float_feature(value):
    return tf.train.Feature(float_list=tf.train.FloatList(value=[value]))


def _int64_feature(value):
    return tf.train.Feature(int64_list=tf.train.Int64List(value=[value]))


print(_bytes_feature(b'test_string'))
print(_bytes_feature(u'test_bytes'.encode('utf-8')))
print(_float_feature(np.exp(1)).float_list.value[0])
print(_int64_feature(1))
feature = _float_feature(np.exp(1))
print(feature.SerializeToString())

n_observations = int(1e3)
rng = np.random.default_rng(7)
feature0 = rng.choice([0, 1], n_observations)
feature1 = rng.integers(0, 5, n_observations)
strings = np.array([b'cat', b'dog', b'chicken', b'horse', b'goat'])
feature2 = strings[feature1]
feature3 = rng.standard_normal(n_observations)


def serialize_example(feature0, feature1, feature2, feature3):
    feature = {
        'feature0': _int64_feature(feature0),
        'feature1': _int64_feature(feature1),
        'feature2': _bytes_feature(feature2),
        'feature3': _float_feature(feature3),
    }
    example_proto = tf.train.Example(features=tf.train.Features(feature=feature))
    return example_proto.SerializeToString()


serialized_example = serialize_example(0, 4, b'goat', 0.9876)
# (the bytes themselves depend on protobuf's map order, an implementation detail)
example_proto = tf.train.Example.FromString(serialized_example)
print(sorted(example_proto.features.feature.keys()))
print(example_proto.features.feature['feature2'])
print(example_proto == tf.train.Example.FromString(serialized_example))

features_dataset = tf.data.Dataset.from_tensor_slices((feature0, feature1, feature2, feature3))
for f0, f1, f2, f3 in features_dataset.take(1):
    print(f0.numpy(), f1.numpy(), f2.numpy(), f3.numpy())


def tf_serialize_example(f0, f1, f2, f3):
    tf_string = tf.py_function(serialize_example, (f0, f1, f2, f3), tf.string)
    return tf.reshape(tf_string, ())


print(tf.train.Example.FromString(tf_serialize_example(f0, f1, f2, f3).numpy())
      .features.feature['feature1'])
serialized_features_dataset = features_dataset.map(tf_serialize_example)

filename = os.path.join(workdir, 'test.tfrecord')
writer = tf.data.experimental.TFRecordWriter(filename)
writer.write(serialized_features_dataset)

filenames = [filename]
raw_dataset = tf.data.TFRecordDataset(filenames)
for raw_record in raw_dataset.take(3):
    print(len(raw_record.numpy()), raw_record.dtype, raw_record.shape)

feature_description = {
    'feature0': tf.io.FixedLenFeature([], tf.int64, default_value=0),
    'feature1': tf.io.FixedLenFeature([], tf.int64, default_value=0),
    'feature2': tf.io.FixedLenFeature([], tf.string, default_value=''),
    'feature3': tf.io.FixedLenFeature([], tf.float32, default_value=0.0),
}


def _parse_function(example_proto):
    return tf.io.parse_single_example(example_proto, feature_description)


parsed_dataset = raw_dataset.map(_parse_function)
for parsed_record in parsed_dataset.take(3):
    print({k: v.numpy() for k, v in sorted(parsed_record.items())})

with tf.io.TFRecordWriter(filename) as writer:
    for i in range(n_observations):
        example = serialize_example(feature0[i], feature1[i], feature2[i], feature3[i])
        writer.write(example)

for raw_record in tf.data.TFRecordDataset([filename]).take(1):
    example = tf.train.Example()
    example.ParseFromString(raw_record.numpy())
    print(example.features.feature['feature3'].float_list.value[0])
    print(example.features.feature['feature2'].bytes_list.value[0])

result = {}
for key, feature in example.features.feature.items():
    kind = feature.WhichOneof('kind')
    result[key] = np.array(getattr(feature, kind).value)
print(sorted((k, v.dtype.name, v.tolist()) for k, v in result.items()))
print(tf.data.TFRecordDataset([filename]).reduce(0, lambda n, _: n + 1).numpy())
