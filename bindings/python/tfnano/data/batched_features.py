"""``tf.data.experimental.make_batched_features_dataset``: files of serialized Examples
(TFRecord by default) read, shuffled / repeated, batched and parsed with
``tf.io.parse_example``, TensorFlow's recipe step for step."""


def make_batched_features_dataset(file_pattern, batch_size, features, reader=None,
                                  label_key=None, reader_args=None, num_epochs=None,
                                  shuffle=True, shuffle_buffer_size=10000, shuffle_seed=None,
                                  prefetch_buffer_size=None, reader_num_threads=None,
                                  parser_num_threads=None, sloppy_ordering=False,
                                  drop_final_batch=False):
    """Batches of {feature: values} (and the `label_key` feature apart)."""
    from .. import dtypes
    from .._parsing import parse_example
    from .dataset import Dataset
    from .plan import AUTOTUNE
    from .readers import TFRecordDataset
    reader = TFRecordDataset if reader is None else reader
    reader_num_threads = 1 if reader_num_threads is None else reader_num_threads
    parser_num_threads = 2 if parser_num_threads is None else parser_num_threads
    reader_args = [] if reader_args is None else list(reader_args)
    ds = Dataset.list_files(file_pattern, shuffle=shuffle, seed=shuffle_seed)
    ds = ds.interleave(lambda f: reader(f, *reader_args), cycle_length=reader_num_threads,
                       block_length=1)
    spec = ds.element_spec
    if isinstance(spec, tuple) and len(spec) == 2 and all(
            getattr(s, "dtype", None) == dtypes.string for s in spec):
        ds = ds.map(lambda _, v: v)
    if shuffle:
        ds = ds.shuffle(shuffle_buffer_size, shuffle_seed)
    if num_epochs != 1:
        ds = ds.repeat(num_epochs)
    ds = ds.batch(batch_size, drop_remainder=drop_final_batch or num_epochs is None)
    ds = ds.map(lambda x: parse_example(x, features), num_parallel_calls=parser_num_threads)
    if label_key:
        if label_key not in features:
            raise ValueError("The `label_key` provided (%s) must be one of the `features` "
                             "keys: %s." % (label_key, features.keys()))
        ds = ds.map(lambda x: (x, x.pop(label_key)))
    return ds.prefetch(AUTOTUNE if prefetch_buffer_size is None else prefetch_buffer_size)
