"""sample_from_datasets, choose_from_datasets and counter (Dataset static methods and
their tf.data.experimental spellings)."""
import numpy as np

from ... import errors
from .. import plan
from ..plan import INFINITE


class ChooseNode(plan.Node):
    """Elements taken from datasets[i] for each i of a choice dataset."""
    op = "choose_from_datasets"

    def __init__(self, inputs, choice, stop_on_empty_dataset):
        super().__init__(*(inputs + [choice]))
        self.n = len(inputs)
        self.stop_on_empty = bool(stop_on_empty_dataset)

    def element_spec(self):
        return self.inputs[0].element_spec()

    def attrs(self):
        return {"datasets": self.n, "stop_on_empty_dataset": self.stop_on_empty}

    def stage(self, ctx):
        return _ChooseStage([ctx.stage(i) for i in self.inputs[:-1]],
                            ctx.stage(self.inputs[-1]), self.stop_on_empty)


class _ChooseStage(plan.Stage):
    def __init__(self, ups, choice, stop_on_empty):
        self.upstreams = tuple(ups) + (choice,)
        self._ups, self._choice = ups, choice
        self._empty = [False] * len(ups)
        self._stop = stop_on_empty

    def __next__(self):
        while True:
            if all(self._empty):
                raise StopIteration
            i = int(np.asarray(next(self._choice)))
            if i < 0 or i >= len(self._ups):
                raise errors.InvalidArgumentError(
                    None, None, "Selector index out of range: %d not in [0, %d)"
                    % (i, len(self._ups)))
            if self._empty[i]:
                continue
            try:
                return next(self._ups[i])
            except StopIteration:
                self._empty[i] = True
                if self._stop:
                    raise


def choose_from_datasets(datasets, choice_dataset, stop_on_empty_dataset=True):
    from ..dataset import Dataset
    datasets = list(datasets)
    if not datasets:
        raise ValueError("Invalid `datasets`. `datasets` should not be empty.")
    spec = choice_dataset.element_spec
    if spec is not None and getattr(spec, "dtype", None) is not None and \
            np.dtype(spec.dtype) != np.int64:
        raise TypeError("Invalid `choice_dataset`. Elements of `choice_dataset` must be "
                        "scalar of type `tf.int64`.")
    return Dataset(ChooseNode([d._node for d in datasets], choice_dataset._node,
                              stop_on_empty_dataset))


class _WeightedChoiceStage(plan.Stage):
    def __init__(self, weights, seed):
        self._p = np.asarray(weights, np.float64) / np.sum(weights)
        self._rng = np.random.default_rng(seed)

    def __next__(self):
        from ..._tensor import as_tensor
        return as_tensor(np.asarray(self._rng.choice(len(self._p), p=self._p), np.int64))


class _WeightedChoiceNode(plan.Node):
    op = "weighted_choice"

    def __init__(self, weights, seed):
        super().__init__()
        self.weights, self.seed = weights, seed

    def cardinality(self):
        return INFINITE

    def element_spec(self):
        from ..._trace import Spec
        return Spec(np.int64, ())

    def stage(self, ctx):
        return _WeightedChoiceStage(self.weights, self.seed)


class _SampleStage(_ChooseStage):
    """Sampling without stopping: an exhausted input's weight drops to zero."""

    def __init__(self, ups, weights, seed, stop_on_empty):
        plan.Stage.__init__(self)
        self.upstreams = tuple(ups)
        self._ups = ups
        self._w = np.asarray(weights, np.float64).copy()
        self._rng = np.random.default_rng(seed)
        self._stop = stop_on_empty

    def __next__(self):
        while True:
            if self._w.sum() <= 0:
                raise StopIteration
            i = int(self._rng.choice(len(self._w), p=self._w / self._w.sum()))
            try:
                return next(self._ups[i])
            except StopIteration:
                if self._stop:
                    raise
                self._w[i] = 0


class SampleNode(plan.Node):
    op = "sample_from_datasets"

    def __init__(self, inputs, weights, seed, stop_on_empty):
        super().__init__(*inputs)
        self.weights, self.seed, self.stop_on_empty = weights, seed, stop_on_empty

    def element_spec(self):
        return self.inputs[0].element_spec()

    def attrs(self):
        return {"weights": list(self.weights), "seed": self.seed}

    def cardinality(self):
        cards = [i.cardinality() for i in self.inputs]
        if all(c == INFINITE for c in cards):
            return INFINITE
        return plan.UNKNOWN

    def stage(self, ctx):
        return _SampleStage([ctx.stage(i) for i in self.inputs], self.weights, self.seed,
                            self.stop_on_empty)


def sample_from_datasets(datasets, weights=None, seed=None, stop_on_empty_dataset=False,
                         rerandomize_each_iteration=None):
    """Elements drawn at random from `datasets` with probabilities `weights` (uniform
    if None); numpy's generator draws the choices (so a seed gives other choices than
    under TensorFlow)."""
    from ..dataset import Dataset
    datasets = list(datasets)
    if not datasets:
        raise ValueError("Invalid `datasets`. `datasets` should not be empty.")
    if weights is None:
        weights = [1.0] * len(datasets)
    weights = [float(w) for w in np.asarray(weights).reshape(-1)]
    if len(weights) != len(datasets):
        raise ValueError("Invalid `weights`. The shape of `weights` should be compatible "
                         "with `[len(datasets)]` but is %s." % [len(weights)])
    return Dataset(SampleNode([d._node for d in datasets], weights, seed,
                              bool(stop_on_empty_dataset)))


class CounterNode(plan.Node):
    op = "counter"

    def __init__(self, start, step, dtype):
        super().__init__()
        self.start, self.step, self.dtype = start, step, dtype

    def cardinality(self):
        return INFINITE

    def element_spec(self):
        from ..._trace import Spec
        return Spec(self.dtype, ())

    def attrs(self):
        return {"start": self.start, "step": self.step}

    def stage(self, ctx):
        import itertools
        from ..._tensor import as_tensor
        return plan.IterStage(as_tensor(np.asarray(v, self.dtype)) for v in
                              itertools.count(self.start, self.step))


def counter(start=0, step=1, dtype=None, name=None):
    from ..dataset import Dataset
    from ... import dtypes
    t = np.int64 if dtype is None else dtypes.as_dtype(dtype).as_numpy_dtype
    return Dataset(CounterNode(int(start), int(step), t))
