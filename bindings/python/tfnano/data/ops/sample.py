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


class _Selector:
    """TensorFlow's selector of sample_from_datasets: Dataset.random(seed) in pairs,
    each pair the seed of a stateless multinomial draw over `logits`."""

    def __init__(self, logits, words):
        row = np.asarray(logits)
        finite = np.isfinite(row)
        top = float(row[finite].max()) if finite.any() else float(np.finfo(row.dtype).min)
        self._cdf = np.cumsum(np.where(finite, np.exp(row.astype(np.float64) - top), 0.0))
        self._words = words

    def next(self):
        from ...ops import philox as _philox
        seed = (self._words.next(), self._words.next())
        w = _philox.SingleSample(_philox.Philox.stateless(seed)).take(2)
        u = float(_philox.unit_double(w[:1], w[1:])[0])
        return int(np.searchsorted(self._cdf, u * self._cdf[-1], side="right"))


class _SampleStage(_ChooseStage):
    """TensorFlow's DirectedInterleave over the selector: an exhausted input, when
    drawn, is dropped and another draw made (the weights stay as they were)."""

    def __init__(self, ups, selector, stop_on_empty):
        plan.Stage.__init__(self)
        self.upstreams = tuple(ups)
        self._ups = list(ups)
        self._live = len(ups)
        self._selector = selector
        self._stop = stop_on_empty

    def __next__(self):
        while self._live:
            i = self._selector.next()
            if self._ups[i] is None:
                continue
            try:
                return next(self._ups[i])
            except StopIteration:
                if self._stop:
                    raise
                self._ups[i] = None
                self._live -= 1
        raise StopIteration


class SampleNode(plan.Node):
    op = "sample_from_datasets"

    def __init__(self, inputs, logits, seed, stop_on_empty, rerandomize=None):
        from .random_seeds import SeedGenerator
        super().__init__(*inputs)
        self.logits, self.seed, self.stop_on_empty = logits, seed, stop_on_empty
        self.seeds = SeedGenerator(seed, bool(rerandomize))  # as Dataset.random(seed)

    def element_spec(self):
        return self.inputs[0].element_spec()

    def attrs(self):
        return {"logits": np.asarray(self.logits).tolist(), "seed": self.seed}

    def cardinality(self):
        cards = [i.cardinality() for i in self.inputs]
        if all(c == INFINITE for c in cards):
            return INFINITE
        return plan.UNKNOWN

    def stage(self, ctx):
        return _SampleStage([ctx.stage(i) for i in self.inputs],
                            _Selector(self.logits, self.seeds.next_words()),
                            self.stop_on_empty)


def sample_from_datasets(datasets, weights=None, seed=None, stop_on_empty_dataset=False,
                         rerandomize_each_iteration=None):
    """Elements drawn at random from `datasets` with probabilities `weights` (uniform
    if None), with TensorFlow's draws: the same seed gives TensorFlow's order."""
    from ..dataset import Dataset
    datasets = list(datasets)
    if not datasets:
        raise ValueError("Invalid `datasets`. `datasets` should not be empty.")
    if weights is None:
        logits = np.ones(len(datasets), np.float32)  # TensorFlow's logits, not log(1)
    else:
        given = np.asarray(weights.view(np.ndarray) if isinstance(weights, np.ndarray)
                           else weights)
        if given.reshape(-1).shape[0] != len(datasets):
            raise ValueError("Invalid `weights`. `weights` should have the same length as "
                             "`datasets` but got `len(weights)=%d` vs. `len(datasets)=%d`."
                             % (given.reshape(-1).shape[0], len(datasets)))
        if given.dtype.kind in "iu":
            raise TypeError("Invalid `weights`. `weights` type must be either `tf.float32` "
                            "or `tf.float64` but is tf.int32.")
        from ..._tensor import Tensor
        if not isinstance(weights, Tensor):  # not a tensor: zero weights drop their dataset
            if not isinstance(weights, np.ndarray) and given.dtype == np.float64 and \
                    not any(isinstance(w, np.floating) for w in given.reshape(-1).tolist()):
                given = given.astype(np.float32)  # Python floats convert to float32
            keep = [i for i, w in enumerate(given.reshape(-1).tolist()) if w > 0]
            datasets = [datasets[i] for i in keep] if keep else [datasets[0].take(0)]
            given = given.reshape(-1)[keep] if keep else np.ones(1, given.dtype)
        with np.errstate(divide="ignore"):
            logits = np.log(given.reshape(-1))
    if len(datasets) == 1:
        return datasets[0]
    return Dataset(SampleNode([d._node for d in datasets], logits, seed,
                              bool(stop_on_empty_dataset), rerandomize_each_iteration))


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
