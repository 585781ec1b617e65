"""``tf.data.experimental``: AUTOTUNE, ignore_errors, cardinality, debug mode."""
from .plan import AUTOTUNE, INFINITE, UNKNOWN
from .structured_function import (TracingFallbackWarning,  # noqa: F401
                                  disable_debug_mode, enable_debug_mode)

INFINITE_CARDINALITY = INFINITE
UNKNOWN_CARDINALITY = UNKNOWN


def CsvDataset(*args, **kwargs):  # noqa: N802 - TensorFlow's name
    from .csv_dataset import CsvDataset as csv_dataset
    return csv_dataset(*args, **kwargs)


def make_csv_dataset(*args, **kwargs):
    from .csv_dataset import make_csv_dataset as make
    return make(*args, **kwargs)


def make_batched_features_dataset(*args, **kwargs):
    from .batched_features import make_batched_features_dataset as make
    return make(*args, **kwargs)


def map_and_batch(map_func, batch_size, num_parallel_batches=None, drop_remainder=False,
                  num_parallel_calls=None):
    """TF1-era fused map + batch (BERT's input_fn): the same elements as
    ``ds.map(map_func).batch(batch_size, drop_remainder)``."""
    if num_parallel_batches is not None and num_parallel_calls is not None:
        raise ValueError(
            "`map_and_batch` allows only one of `num_parallel_batches` and "
            "`num_parallel_calls` to be set, but `num_parallel_batches` was set to %s "
            "and `num_parallel_calls` as set to %s." % (num_parallel_batches,
                                                       num_parallel_calls))
    if num_parallel_calls is None:
        num_parallel_calls = batch_size * (num_parallel_batches or 1)
    return lambda ds: ds.map(map_func, num_parallel_calls=num_parallel_calls).batch(
        batch_size, drop_remainder=drop_remainder)


def parallel_interleave(map_func, cycle_length, block_length=1, sloppy=False,
                        buffer_output_elements=None, prefetch_input_elements=None):
    """TF1-era parallel interleave: the order of ``interleave(map_func, cycle_length,
    block_length)`` (sloppy=True lets it be any order; tfnano keeps this one)."""
    return lambda ds: ds.interleave(map_func, cycle_length=cycle_length,
                                    block_length=block_length,
                                    num_parallel_calls=cycle_length,
                                    deterministic=None if not sloppy else False)


def shuffle_and_repeat(buffer_size, count=None, seed=None):
    """Deprecated fused shuffle + repeat: ``ds.shuffle(buffer_size, seed).repeat(count)``."""
    return lambda ds: ds.shuffle(buffer_size, seed).repeat(count)


def ignore_errors(log_warning=False):
    return lambda ds: ds.ignore_errors(log_warning)


def cardinality(dataset):
    return dataset.cardinality()


def assert_cardinality(expected_cardinality):
    return lambda ds: ds.assert_cardinality(expected_cardinality)


def group_by_window(key_func, reduce_func, window_size=None, window_size_func=None):
    return lambda ds: ds.group_by_window(key_func, reduce_func, window_size, window_size_func)


def bucket_by_sequence_length(element_length_func, bucket_boundaries, bucket_batch_sizes,
                              padded_shapes=None, padding_values=None,
                              pad_to_bucket_boundary=False, no_padding=False,
                              drop_remainder=False):
    return lambda ds: ds.bucket_by_sequence_length(
        element_length_func, bucket_boundaries, bucket_batch_sizes, padded_shapes,
        padding_values, pad_to_bucket_boundary, no_padding, drop_remainder)


def scan(initial_state, scan_func):
    return lambda ds: ds.scan(initial_state, scan_func)


def unique():
    return lambda ds: ds.unique()


def sample_from_datasets(datasets, weights=None, seed=None, stop_on_empty_dataset=False):
    from .ops.sample import sample_from_datasets as sample
    return sample(datasets, weights, seed, stop_on_empty_dataset)


def choose_from_datasets(datasets, choice_dataset, stop_on_empty_dataset=True):
    from .ops.sample import choose_from_datasets as choose
    return choose(datasets, choice_dataset, stop_on_empty_dataset)


def Counter(start=0, step=1, dtype=None):  # noqa: N802 - TensorFlow's name
    from .ops.sample import counter
    return counter(start, step, dtype)


def save(dataset, path, compression=None, shard_func=None, checkpoint_args=None):
    return dataset.save(path, compression, shard_func, checkpoint_args)


def load(path, element_spec=None, compression=None, reader_func=None):
    from .dataset import Dataset
    return Dataset.load(path, element_spec, compression, reader_func)


def take_while(predicate):
    return lambda ds: ds.take_while(predicate)


def get_single_element(dataset):
    return dataset.get_single_element()


def snapshot(path, compression="AUTO", reader_func=None, shard_func=None):
    return lambda ds: ds.snapshot(path, compression, reader_func, shard_func)


def __getattr__(name):
    if name in ("AutoShardPolicy", "DistributeOptions", "ExternalStatePolicy"):
        from .ops import distribute_options
        return getattr(distribute_options, name)
    if name == "TFRecordWriter":
        from .ops.tfrecord_writer import TFRecordWriter
        return TFRecordWriter
    raise AttributeError("module 'tfnano.data.experimental' has no attribute %r; see "
                         "docs/compat.md for the tf.data names tfnano covers" % name)


__all__ = ["AUTOTUNE", "INFINITE_CARDINALITY", "UNKNOWN_CARDINALITY", "ignore_errors",
           "cardinality", "enable_debug_mode", "disable_debug_mode", "assert_cardinality",
           "group_by_window", "bucket_by_sequence_length", "scan", "unique",
           "sample_from_datasets", "choose_from_datasets", "Counter", "save", "load",
           "snapshot", "AutoShardPolicy", "DistributeOptions", "ExternalStatePolicy",
           "TFRecordWriter", "take_while", "get_single_element"]
