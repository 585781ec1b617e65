# Input pipelines as distributed-training scripts start them: the default strategy,
# auto-shard options, sharding by hand, writing a string dataset with
# tf.data.experimental.TFRecordWriter, counting records, cardinality checks.
import os
import sys

import numpy as np
import tensorflow as tf

workdir = sys.argv[1]
strategy = tf.distribute.get_strategy()
print(strategy.num_replicas_in_sync)
GLOBAL_BATCH_SIZE = 8 * strategy.num_replicas_in_sync
print(len(tf.config.list_physical_devices('GPU')), tf.config.list_physical_devices('CPU')[0].device_type)
tf.get_logger().setLevel('ERROR')

examples = []
for i in range(20):
    ex = tf.train.Example(features=tf.train.Features(feature={
        "x": tf.train.Feature(float_list=tf.train.FloatList(value=[i * 0.5, i * 1.5])),
        "y": tf.train.Feature(int64_list=tf.train.Int64List(value=[i % 4])),
    }))
    examples.append(ex.SerializeToString())
paths = []
for shard in range(4):
    path = os.path.join(workdir, "data-%d.tfrecord" % shard)
    writer = tf.data.experimental.TFRecordWriter(path)
    writer.write(tf.data.Dataset.from_tensor_slices(examples[shard::4]))
    paths.append(path)
print([sum(1 for _ in tf.data.TFRecordDataset(p)) for p in paths])

options = tf.data.Options()
options.experimental_distribute.auto_shard_policy = tf.data.experimental.AutoShardPolicy.DATA
print(tf.data.experimental.AutoShardPolicy.DATA, tf.data.experimental.AutoShardPolicy.OFF)
spec = {"x": tf.io.FixedLenFeature([2], tf.float32), "y": tf.io.FixedLenFeature([], tf.int64)}
files = tf.data.Dataset.from_tensor_slices(paths)
ds = files.interleave(tf.data.TFRecordDataset, cycle_length=1)
ds = ds.map(lambda r: tf.io.parse_single_example(r, spec))
ds = ds.map(lambda d: (d["x"], d["y"])).batch(GLOBAL_BATCH_SIZE).with_options(options)
dist = strategy.experimental_distribute_dataset(ds)
for x, y in dist:
    print(x.numpy().shape, y.numpy())
shard0 = tf.data.TFRecordDataset(paths).shard(num_shards=2, index=0)
print(sum(1 for _ in shard0))
files_shard = tf.data.Dataset.from_tensor_slices(paths).shard(2, 1)
print([os.path.basename(p.numpy().decode()) for p in files_shard])
print(tf.data.TFRecordDataset(paths).apply(tf.data.experimental.assert_cardinality(20)).cardinality().numpy())
print(tf.data.experimental.cardinality(ds).numpy(), ds.cardinality().numpy())


def dataset_fn(input_context):
    batch_size = input_context.get_per_replica_batch_size(GLOBAL_BATCH_SIZE)
    d = tf.data.Dataset.range(10).shard(input_context.num_input_pipelines,
                                        input_context.input_pipeline_id)
    return d.batch(batch_size)


print([b.numpy().tolist() for b in strategy.distribute_datasets_from_function(dataset_fn)])
