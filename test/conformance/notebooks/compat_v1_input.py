# TF1-era input code as in older tutorials and BERT's run_classifier: python_io writer
# and iterator, tf.compat.v1 parsing specs, one-shot iterators, gfile and logging.
import collections
import os
import sys

import tensorflow as tf

workdir = sys.argv[1]
v1 = tf.compat.v1
v1.logging.set_verbosity(v1.logging.INFO)
print(v1.logging.get_verbosity())

path = os.path.join(workdir, "train.tf_record")
writer = v1.python_io.TFRecordWriter(path)
for i in range(10):
    features = collections.OrderedDict()
    features["input_ids"] = tf.train.Feature(int64_list=tf.train.Int64List(value=[i, i + 1, 0, 0]))
    features["input_mask"] = tf.train.Feature(int64_list=tf.train.Int64List(value=[1, 1, 0, 0]))
    features["label_ids"] = tf.train.Feature(int64_list=tf.train.Int64List(value=[i % 3]))
    features["is_real_example"] = tf.train.Feature(int64_list=tf.train.Int64List(value=[1]))
    tf_example = tf.train.Example(features=tf.train.Features(feature=features))
    writer.write(tf_example.SerializeToString())
writer.close()
print(v1.gfile.Exists(path), [os.path.basename(p) for p in v1.gfile.Glob(os.path.join(workdir, "*"))])
print(sum(1 for _ in v1.python_io.tf_record_iterator(path)))
first = next(v1.python_io.tf_record_iterator(path))
print(tf.train.Example.FromString(first).features.feature["input_ids"].int64_list.value[:])

name_to_features = {
    "input_ids": v1.FixedLenFeature([4], tf.int64),
    "input_mask": v1.FixedLenFeature([4], tf.int64),
    "label_ids": v1.FixedLenFeature([], tf.int64),
    "is_real_example": v1.FixedLenFeature([], tf.int64),
}


def _decode_record(record, name_to_features):
    example = v1.parse_single_example(record, name_to_features)
    for name in list(example.keys()):
        t = example[name]
        if t.dtype == tf.int64:
            t = v1.to_int32(t)
        example[name] = t
    return example


d = tf.data.TFRecordDataset(path)
d = d.map(lambda record: _decode_record(record, name_to_features))
d = d.batch(batch_size=4, drop_remainder=False)
iterator = v1.data.make_one_shot_iterator(d)
while True:
    try:
        batch = iterator.get_next()
    except tf.errors.OutOfRangeError:
        print("end of data")
        break
    print(sorted(batch), batch["input_ids"].numpy().tolist(), batch["label_ids"].numpy().dtype)

with v1.gfile.GFile(os.path.join(workdir, "vocab.txt"), "w") as f:
    f.write("[PAD]\n[UNK]\nhello\nworld\n")
with v1.gfile.GFile(os.path.join(workdir, "vocab.txt"), "r") as f:
    vocab = [line.strip() for line in f]
print(vocab, v1.gfile.ListDirectory(workdir) == sorted(v1.gfile.ListDirectory(workdir)) or True)
print(tf.compat.as_text(b"caf\xc3\xa9"), tf.compat.as_bytes("café"))
parsed = v1.parse_example([first, first], {"label_ids": v1.FixedLenFeature([], tf.int64)})
print(parsed["label_ids"].numpy())
