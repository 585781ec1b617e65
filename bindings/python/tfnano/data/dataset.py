"""``tf.data.Dataset``: a re-iterable sequence of elements described by a plan.
Each method is a door that adds one plan node (its work lives in data/ops/<name>.py,
imported when the method is called); iterating runs the plan (data/execute.py).
How to add a transformation: see the docstring of data/ops/__init__.py."""
import numpy as np

from . import plan, structure
from .plan import INFINITE, UNKNOWN


class Dataset:
    """A re-iterable sequence of elements; each method returns a new Dataset."""

    def __init__(self, node, options=None):
        from .options import Options
        self._node = node
        self._options = options if options is not None else Options()

    def _then(self, node):
        return Dataset(node, self._options)

    def _plan_node(self):
        return self._node

    # ---- iteration and introspection
    def __iter__(self):
        from .execute import DatasetIterator  # lazy door: the runner reaches readers -> dataset
        return DatasetIterator(self._node, self._options)

    def __repr__(self):
        return "<%s element_spec=%s>" % (type(self).__name__, self.element_spec)

    @property
    def element_spec(self):
        """The structure of the elements as TensorFlow gives it (tf.TensorSpec leaves,
        SparseTensorSpec / RaggedTensorSpec for composites; None for unknown sizes), or
        None when a function run per record in Python hides it."""
        return structure.to_type_spec(self._node.element_spec())

    def explain(self, file=None):
        """Prints the plan as it will run (to `file`, default stdout): one line per
        stage, the input below, with how each user function runs (traced and
        vectorized, fused, or per record in Python and why)."""
        print(self.plan_text(), file=file)

    def plan_text(self):
        """The text explain() prints."""
        from .optimize import optimize  # lazy door: the rules reach readers -> dataset
        return "\n".join(plan.explain_lines(optimize(self._node, self._options)))

    def options(self):
        return self._options

    def with_options(self, options, name=None):
        return Dataset(self._node, self._options.merge(options))

    def cardinality(self):
        from .._tensor import as_tensor
        return as_tensor(np.asarray(self._node.cardinality(), dtype=np.int64))

    def __len__(self):
        card = self._node.cardinality()
        if card == INFINITE:
            raise TypeError("The dataset is infinite.")
        if card == UNKNOWN:
            raise TypeError("The dataset length is unknown.")
        return card

    def as_numpy_iterator(self):
        for el in self:
            yield structure.map_structure(structure.to_numpy, el)

    def apply(self, transformation_func):
        return transformation_func(self)

    def reduce(self, initial_state, reduce_func, name=None):
        state = structure.normalize(initial_state)  # tensors, as TensorFlow returns
        for el in self:
            state = structure.normalize(reduce_func(state, el))
        return state

    # ---- transformations (one module each under data/ops/)
    def take(self, count, name=None):
        from .ops.take import TakeNode
        return self._then(TakeNode(self._node, count))

    def skip(self, count, name=None):
        from .ops.skip import SkipNode
        return self._then(SkipNode(self._node, count))

    def repeat(self, count=None, name=None):
        from .ops.repeat import RepeatNode
        return self._then(RepeatNode(self._node, count))

    def map(self, map_func, num_parallel_calls=None, deterministic=None, name=None):
        from .ops.map import MapNode
        return self._then(MapNode(self._node, map_func, num_parallel_calls, deterministic))

    def filter(self, predicate, name=None):
        from .ops.filter import FilterNode
        return self._then(FilterNode(self._node, predicate))

    def batch(self, batch_size, drop_remainder=False, num_parallel_calls=None,
              deterministic=None, name=None):
        from .ops.batch import BatchNode  # lazy door (tf.data's): the op module imports Dataset
        return self._then(BatchNode(self._node, batch_size, drop_remainder,
                                    num_parallel_calls, deterministic))

    def padded_batch(self, batch_size, padded_shapes=None, padding_values=None,
                     drop_remainder=False, name=None):
        # lazy door (tf.data's): the op module imports Dataset
        from .ops.padded_batch import PaddedBatchNode
        return self._then(PaddedBatchNode(self._node, batch_size, padded_shapes,
                                          padding_values, drop_remainder))

    def unbatch(self, name=None):
        from .ops.unbatch import UnbatchNode
        return self._then(UnbatchNode(self._node))

    def shuffle(self, buffer_size, seed=None, reshuffle_each_iteration=None, name=None):
        """Shuffles with a buffer of `buffer_size` elements, like tf.data: each output
        is drawn at random from the buffer, which is refilled from the input."""
        from .ops.shuffle import ShuffleNode
        return self._then(ShuffleNode(self._node, buffer_size, seed,
                                      reshuffle_each_iteration))

    def cache(self, filename="", name=None):
        """Keeps the elements of the first complete pass in memory (a filename is
        accepted; the cache is kept in memory either way)."""
        from .ops.cache import CacheNode
        return self._then(CacheNode(self._node, filename))

    def prefetch(self, buffer_size, name=None):
        """Produces elements on a background thread, up to `buffer_size` ahead
        (AUTOTUNE: 2)."""
        from .ops.prefetch import PrefetchNode
        return self._then(PrefetchNode(self._node, buffer_size))

    def enumerate(self, start=0, name=None):
        from .ops.enumerate import EnumerateNode
        return self._then(EnumerateNode(self._node, start))

    def concatenate(self, dataset, name=None):
        from .ops.concatenate import ConcatenateNode
        return self._then(ConcatenateNode(self._node, dataset._node))

    def interleave(self, map_func, cycle_length=None, block_length=None,
                   num_parallel_calls=None, deterministic=None, name=None):
        from .ops.interleave import InterleaveNode
        return self._then(InterleaveNode(self._node, map_func, cycle_length, block_length,
                                         num_parallel_calls))

    def flat_map(self, map_func, name=None):
        from .ops.interleave import FlatMapNode
        return self._then(FlatMapNode(self._node, map_func))

    def ignore_errors(self, log_warning=False, name=None):
        from .ops.ignore_errors import IgnoreErrorsNode
        return self._then(IgnoreErrorsNode(self._node, log_warning))

    def shard(self, num_shards, index, name=None):
        from .ops.shard import ShardNode
        return self._then(ShardNode(self._node, num_shards, index))

    def window(self, size, shift=None, stride=1, drop_remainder=False, name=None):
        from .ops.window import WindowNode  # lazy door (tf.data's): the op module imports Dataset
        return self._then(WindowNode(self._node, size, shift, stride, drop_remainder))

    def group_by_window(self, key_func, reduce_func, window_size=None,
                        window_size_func=None, name=None):
        # lazy door (tf.data's): the op module imports Dataset
        from .ops.group_by_window import GroupByWindowNode
        return self._then(GroupByWindowNode(self._node, key_func, reduce_func, window_size,
                                            window_size_func))

    def bucket_by_sequence_length(self, element_length_func, bucket_boundaries,
                                  bucket_batch_sizes, padded_shapes=None,
                                  padding_values=None, pad_to_bucket_boundary=False,
                                  no_padding=False, drop_remainder=False, name=None):
        from .ops.bucket_by_sequence_length import bucket_by_sequence_length
        return bucket_by_sequence_length(self, element_length_func, bucket_boundaries,
                                         bucket_batch_sizes, padded_shapes, padding_values,
                                         pad_to_bucket_boundary, no_padding, drop_remainder)

    def assert_cardinality(self, expected_cardinality, name=None):
        from .ops.assert_cardinality import AssertCardinalityNode
        return self._then(AssertCardinalityNode(self._node, expected_cardinality))

    def scan(self, initial_state, scan_func, name=None):
        from .ops.scan import ScanNode
        return self._then(ScanNode(self._node, initial_state, scan_func))

    def unique(self, name=None):
        from .ops.unique import UniqueNode
        return self._then(UniqueNode(self._node))

    def rebatch(self, batch_size, drop_remainder=False, name=None):
        """Batches of `batch_size` from the input's batches (unbatch, then batch)."""
        return self.unbatch().batch(int(batch_size), drop_remainder)

    def ragged_batch(self, batch_size, drop_remainder=False, row_splits_dtype="int64",
                     name=None):
        # lazy door (tf.data's): the op module imports Dataset
        from .ops.ragged_batch import RaggedBatchNode
        return self._then(RaggedBatchNode(self._node, batch_size, drop_remainder,
                                          row_splits_dtype))

    def save(self, path, compression=None, shard_func=None, checkpoint_args=None):
        """Writes the elements in tfnano's own format (see data/ops/save_load.py)."""
        from .ops.save_load import save  # lazy door (tf.data's): the op module imports Dataset
        save(self, path, compression, shard_func, checkpoint_args)

    @staticmethod
    def load(path, element_spec=None, compression=None, reader_func=None):
        from .ops.save_load import load  # lazy door (tf.data's): the op module imports Dataset
        return load(path, element_spec, compression, reader_func)

    def take_while(self, predicate, name=None):
        from .ops.take_while import TakeWhileNode
        return self._then(TakeWhileNode(self._node, predicate))

    def get_single_element(self, name=None):
        """The only element (InvalidArgumentError when empty or longer)."""
        from .. import errors
        it = iter(self)
        try:
            first = next(it)
        except StopIteration:
            raise errors.invalid("Dataset was empty.") from None
        for _ in it:
            raise errors.InvalidArgumentError(None, None,
                                              "Dataset had more than one element.")
        return first

    def snapshot(self, path, compression="AUTO", reader_func=None, shard_func=None,
                 name=None):
        """A documented pass-through: the elements are computed again each pass."""
        return self

    @staticmethod
    def sample_from_datasets(datasets, weights=None, seed=None, stop_on_empty_dataset=False,
                             rerandomize_each_iteration=None):
        # lazy door (tf.data's): the op module imports Dataset
        from .ops.sample import sample_from_datasets
        return sample_from_datasets(datasets, weights, seed, stop_on_empty_dataset,
                                    rerandomize_each_iteration)

    @staticmethod
    def choose_from_datasets(datasets, choice_dataset, stop_on_empty_dataset=True):
        # lazy door (tf.data's): the op module imports Dataset
        from .ops.sample import choose_from_datasets
        return choose_from_datasets(datasets, choice_dataset, stop_on_empty_dataset)

    @staticmethod
    def counter(start=0, step=1, dtype=None, name=None):
        from .ops.sample import counter  # lazy door (tf.data's): the op module imports Dataset
        return counter(start, step, dtype)

    # ---- constructors
    @staticmethod
    def from_tensor_slices(tensors, name=None):
        from .ops.sources import slices
        return Dataset(slices(tensors))

    @staticmethod
    def from_tensors(tensors, name=None):
        from .ops.sources import TensorsNode
        return Dataset(TensorsNode(structure.normalize(tensors)))

    @staticmethod
    def from_generator(generator, output_types=None, output_shapes=None, args=None,
                       output_signature=None, name=None):
        if output_types is not None or output_signature is not None:
            from .ops.typed_generator import TypedGeneratorNode
            return Dataset(TypedGeneratorNode(generator, args, output_types, output_shapes,
                                              output_signature))
        from .ops.sources import GeneratorNode
        return Dataset(GeneratorNode(generator, args))

    @staticmethod
    def range(*args, **kwargs):
        from .. import dtypes
        from .ops.sources import RangeNode
        # TensorFlow's keyword is output_type (int64 by default); dtype is tfnano's older one.
        dtype = kwargs.get("output_type", kwargs.get("dtype", None))
        r = range(*[int(a) for a in args])
        if dtype is None:
            np_dtype = np.int64
        else:
            try:
                np_dtype = dtypes.numpy_dtype(dtype)
            except TypeError:  # a numpy dtype TensorFlow has no name for
                np_dtype = np.dtype(dtype)
        return Dataset(RangeNode(r, np_dtype))

    @staticmethod
    def zip(*datasets, name=None):
        from .ops.zip import ZipNode
        if len(datasets) == 1 and isinstance(datasets[0], (tuple, dict)):
            datasets = datasets[0]
        if isinstance(datasets, dict):
            keys = list(datasets)
            return Dataset(ZipNode([datasets[k]._node for k in keys], keys))
        return Dataset(ZipNode([d._node for d in datasets]))

    @staticmethod
    def list_files(file_pattern, shuffle=None, seed=None, name=None):
        from .. import errors
        from ..ops.io_ops import matching_files
        # TensorFlow's MatchingFiles: every pattern's matches, sorted
        files = [f.decode() for f in matching_files(file_pattern).tolist()]
        if not files:
            raise errors.InvalidArgumentError(
                None, None, "Expected 'tf.Tensor(False, shape=(), dtype=bool)' to be true. "
                "Summarized data: b'No files matched pattern: %s'" % file_pattern)
        ds = Dataset.from_tensor_slices(np.array([f.encode() for f in files], dtype=object))
        if shuffle is None or shuffle:
            ds = ds.shuffle(len(files), seed=seed)
        return ds

