"""``tf.data``: Dataset and TFRecordDataset with the chainable methods notebooks use
(map, batch, padded_batch, shuffle, repeat, take, skip, cache, prefetch, filter,
unbatch, interleave, with_options ...). Elements are nested structures (tuples and
dicts) of numpy-backed Tensors, as tf.data carries them; iteration is plain Python,
and the heavy work (reading, parsing) happens in C calls that release the GIL, so
``map(num_parallel_calls=...)`` and ``prefetch`` really overlap work on threads.
"""
import collections
import itertools
import queue
import random as _random
import threading

import numpy as np

from . import errors
from ._tensor import Tensor, as_tensor, constant

AUTOTUNE = -1
INFINITE = -1
UNKNOWN = -2


# ----------------------------------------------------------------- structures

def _is_namedtuple(x):
    return isinstance(x, tuple) and hasattr(x, "_fields")


def _flatten(s):
    if isinstance(s, dict):
        out = []
        for k in sorted(s):
            out.extend(_flatten(s[k]))
        return out
    if isinstance(s, (tuple, list)) and not isinstance(s, Tensor):
        if isinstance(s, list):
            return [s]
        out = []
        for v in s:
            out.extend(_flatten(v))
        return out
    return [s]


def _pack(template, leaves):
    return _build(template, iter(leaves))


def _build(t, it):
    # A module-level function on purpose: a nested recursive closure refers to itself
    # through its cell, and that cycle kept every element's leaves (whole batches)
    # alive until the garbage collector ran.
    if isinstance(t, dict):
        vals = {k: _build(t[k], it) for k in sorted(t)}
        return type(t)((k, vals[k]) for k in t) if type(t) is not dict else \
            {k: vals[k] for k in t}
    if isinstance(t, tuple):
        vals = [_build(v, it) for v in t]
        return type(t)(*vals) if _is_namedtuple(t) else tuple(vals)
    return next(it)


def _map_structure(fn, s):
    return _pack(s, [fn(x) for x in _flatten(s)])


def _to_tensor(x):
    if isinstance(x, Tensor):
        return x
    if isinstance(x, np.ndarray):
        return as_tensor(x)
    if hasattr(x, "_tfn_joined"):  # a RecordBatch stays lazy
        return x
    return constant(x)


def _normalize(element):
    return _map_structure(_to_tensor, element)


def _to_numpy(x):
    if isinstance(x, Tensor):
        return x.numpy()
    if hasattr(x, "numpy"):
        return x.numpy()
    return x


# ----------------------------------------------------------------- options

class _Namespace:
    def __init__(self, **kw):
        self.__dict__.update(kw)

    def __repr__(self):
        return "%s(%s)" % (type(self).__name__, ", ".join(
            "%s=%r" % kv for kv in sorted(self.__dict__.items())))


class ThreadingOptions(_Namespace):
    def __init__(self):
        super().__init__(private_threadpool_size=None, max_intra_op_parallelism=None)


class OptimizationOptions(_Namespace):
    def __init__(self):
        super().__init__(apply_default_optimizations=None, map_parallelization=None,
                         parallel_batch=None)


class Options:
    """``tf.data.Options``: deterministic (alias experimental_deterministic) decides
    whether parallel map may yield out of order; the rest is accepted for
    compatibility."""

    def __init__(self):
        self.deterministic = None
        self.threading = ThreadingOptions()
        self.experimental_optimization = OptimizationOptions()
        self.experimental_distribute = _Namespace(auto_shard_policy=None)
        self.autotune = _Namespace(enabled=None, cpu_budget=None, ram_budget=None)
        self.experimental_slack = None
        self.experimental_external_state_policy = None

    @property
    def experimental_deterministic(self):
        return self.deterministic

    @experimental_deterministic.setter
    def experimental_deterministic(self, v):
        self.deterministic = v

    def merge(self, other):
        out = Options()
        for src in (self, other):
            for k, v in src.__dict__.items():
                if v is not None and not isinstance(v, _Namespace):
                    setattr(out, k, v)
                elif isinstance(v, _Namespace):
                    ns = getattr(out, k)
                    for kk, vv in v.__dict__.items():
                        if vv is not None:
                            setattr(ns, kk, vv)
        return out


# ----------------------------------------------------------------- Dataset

class Dataset:
    """A re-iterable sequence of elements; each method returns a new Dataset."""

    def __init__(self, factory, options=None, cardinality=UNKNOWN):
        self._factory = factory
        self._options = options or Options()
        self._card = cardinality

    def __iter__(self):
        return iter(self._factory())

    def _derive(self, factory, cardinality=UNKNOWN):
        return Dataset(factory, self._options, cardinality)

    def __repr__(self):
        return "<%s element_spec=...>" % type(self).__name__

    def options(self):
        return self._options

    def with_options(self, options, name=None):
        return Dataset(self._factory, self._options.merge(options), self._card)

    def cardinality(self):
        return as_tensor(np.asarray(self._card, dtype=np.int64))

    def __len__(self):
        if self._card == INFINITE:
            raise TypeError("The dataset is infinite.")
        if self._card == UNKNOWN:
            raise TypeError("The dataset length is unknown.")
        return self._card

    def as_numpy_iterator(self):
        for el in self:
            yield _map_structure(_to_numpy, el)

    def take(self, count, name=None):
        count = int(count)

        def gen():
            if count < 0:
                yield from self
            else:
                yield from itertools.islice(iter(self), count)
        card = self._card
        if count >= 0:
            card = count if card < 0 and card != UNKNOWN else (
                min(count, card) if card >= 0 else UNKNOWN)
            if self._card == INFINITE:
                card = count
        return self._derive(gen, card)

    def skip(self, count, name=None):
        count = int(count)

        def gen():
            it = iter(self)
            if count < 0:
                for _ in it:
                    pass
                return
            yield from itertools.islice(it, count, None)
        card = self._card if self._card < 0 else max(0, self._card - max(count, 0))
        return self._derive(gen, card)

    def repeat(self, count=None, name=None):
        def gen():
            if count is None or int(count) < 0:
                while True:
                    empty = True
                    for el in self:
                        empty = False
                        yield el
                    if empty:
                        return
            else:
                for _ in range(int(count)):
                    yield from self
        if count is None or int(count) < 0:
            card = 0 if self._card == 0 else INFINITE
        else:
            card = self._card * int(count) if self._card >= 0 else self._card
        return self._derive(gen, card)

    def map(self, map_func, num_parallel_calls=None, deterministic=None, name=None):
        def call(el):
            if isinstance(el, tuple) and not _is_namedtuple(el):
                return _normalize(map_func(*el))
            return _normalize(map_func(el))

        par = num_parallel_calls
        if par is None or par == 1:
            # An iterator object, not a generator: an error in map_func must leave it
            # usable, so that ignore_errors() can move on to the next element.
            return self._derive(lambda: _MapIter(iter(self), call), self._card)
        workers = _cpu_count() if par == AUTOTUNE else max(1, int(par))
        det = deterministic if deterministic is not None else self._options.deterministic
        ordered = det is not False

        def gen_par():
            yield from _parallel_map(iter(self), call, workers, ordered)
        return self._derive(gen_par, self._card)

    def filter(self, predicate, name=None):
        def gen():
            for el in self:
                keep = predicate(*el) if isinstance(el, tuple) and not _is_namedtuple(el) \
                    else predicate(el)
                if bool(np.asarray(keep)):
                    yield el
        return self._derive(gen)

    def batch(self, batch_size, drop_remainder=False, num_parallel_calls=None,
              deterministic=None, name=None):
        batch_size = int(batch_size)
        if batch_size <= 0:
            raise errors.InvalidArgumentError(None, None, "Batch size must be greater than "
                                              "zero.")

        def gen():
            it = iter(self)
            while True:
                chunk = list(itertools.islice(it, batch_size))
                if not chunk or (drop_remainder and len(chunk) < batch_size):
                    return
                yield _stack(chunk)
        return self._derive(gen, _batch_card(self._card, batch_size, drop_remainder))

    def padded_batch(self, batch_size, padded_shapes=None, padding_values=None,
                     drop_remainder=False, name=None):
        batch_size = int(batch_size)
        if batch_size <= 0:
            raise errors.InvalidArgumentError(None, None, "Batch size must be greater than "
                                              "zero.")

        def gen():
            it = iter(self)
            while True:
                chunk = list(itertools.islice(it, batch_size))
                if not chunk or (drop_remainder and len(chunk) < batch_size):
                    return
                yield _pad_stack(chunk, padded_shapes, padding_values)
        return self._derive(gen, _batch_card(self._card, batch_size, drop_remainder))

    def unbatch(self, name=None):
        def gen():
            for el in self:
                leaves = _flatten(el)
                n = len(leaves[0]) if leaves else 0
                for i in range(n):
                    yield _pack(el, [_to_tensor(np.asarray(leaf)[i]) for leaf in leaves])
        return self._derive(gen)

    def shuffle(self, buffer_size, seed=None, reshuffle_each_iteration=None, name=None):
        """Shuffles with a buffer of `buffer_size` elements, like tf.data: each output
        is drawn at random from the buffer, which is refilled from the input."""
        buffer_size = int(buffer_size)
        if buffer_size <= 0 and buffer_size != AUTOTUNE:
            raise errors.InvalidArgumentError(None, None, "buffer_size must be greater than "
                                              "zero.")
        reshuffle = True if reshuffle_each_iteration is None else reshuffle_each_iteration
        state = {"epoch": 0}
        base_seed = seed if seed is not None else _random.randrange(1 << 62)

        def gen():
            epoch = state["epoch"]
            if reshuffle:
                state["epoch"] += 1
            rng = _random.Random(base_seed * 1000003 + (epoch if reshuffle else 0))
            buf = []
            size = buffer_size if buffer_size > 0 else 1024
            for el in self:
                if len(buf) < size:
                    buf.append(el)
                    continue
                i = rng.randrange(len(buf))
                out = buf[i]
                buf[i] = el
                yield out
            while buf:
                i = rng.randrange(len(buf))
                buf[i], buf[-1] = buf[-1], buf[i]
                yield buf.pop()
        return self._derive(gen, self._card)

    def cache(self, filename="", name=None):
        """Keeps the elements of the first complete pass in memory (a filename is
        accepted; the cache is kept in memory either way)."""
        store = {"done": None}

        def gen():
            if store["done"] is not None:
                yield from store["done"]
                return
            seen = []
            for el in self:
                seen.append(el)
                yield el
            store["done"] = seen
        return self._derive(gen, self._card)

    def prefetch(self, buffer_size, name=None):
        """Produces elements on a background thread, up to `buffer_size` ahead
        (AUTOTUNE: 2)."""
        size = 2 if buffer_size in (None, AUTOTUNE) else max(1, int(buffer_size))

        def gen():
            yield from _Prefetcher(iter(self), size)
        return self._derive(gen, self._card)

    def enumerate(self, start=0, name=None):
        def gen():
            for i, el in enumerate(self, start):
                yield (as_tensor(np.asarray(i, dtype=np.int64)), el)
        return self._derive(gen, self._card)

    def concatenate(self, dataset, name=None):
        def gen():
            yield from self
            yield from dataset
        card = self._card + dataset._card if self._card >= 0 and dataset._card >= 0 \
            else UNKNOWN
        return self._derive(gen, card)

    def interleave(self, map_func, cycle_length=None, block_length=None,
                   num_parallel_calls=None, deterministic=None, name=None):
        cycle = _cpu_count() if cycle_length in (None, AUTOTUNE) else int(cycle_length)
        block = 1 if block_length is None else int(block_length)

        def gen():
            inputs = iter(self)

            def open_next():
                for el in inputs:
                    ds = map_func(*el) if isinstance(el, tuple) else map_func(el)
                    return iter(ds)
                return None
            yield from _interleave(open_next, cycle, block)
        return self._derive(gen)

    def flat_map(self, map_func, name=None):
        def gen():
            for el in self:
                ds = map_func(*el) if isinstance(el, tuple) else map_func(el)
                yield from ds
        return self._derive(gen)

    def apply(self, transformation_func):
        return transformation_func(self)

    def ignore_errors(self, log_warning=False, name=None):
        def gen():
            it = iter(self)
            while True:
                try:
                    el = next(it)
                except StopIteration:
                    return
                except errors.OpError:
                    continue
                yield el
        return self._derive(gen)

    def reduce(self, initial_state, reduce_func, name=None):
        state = initial_state
        for el in self:
            state = reduce_func(state, el)
        return state

    # ---- constructors
    @staticmethod
    def from_tensor_slices(tensors, name=None):
        leaves = [np.asarray(_to_tensor(x)) for x in _flatten(tensors)]
        n = len(leaves[0]) if leaves else 0
        for leaf in leaves:
            if len(leaf) != n:
                raise errors.InvalidArgumentError(
                    None, None, "Dimensions %d and %d are not compatible" % (n, len(leaf)))

        def gen():
            for i in range(n):
                yield _pack(tensors, [as_tensor(leaf[i:i + 1].reshape(leaf.shape[1:]))
                                      for leaf in leaves])
        return Dataset(gen, cardinality=n)

    @staticmethod
    def from_tensors(tensors, name=None):
        el = _normalize(tensors)
        return Dataset(lambda: iter([el]), cardinality=1)

    @staticmethod
    def from_generator(generator, output_types=None, output_shapes=None, args=None,
                       output_signature=None, name=None):
        def gen():
            for el in (generator(*args) if args else generator()):
                yield _normalize(el)
        return Dataset(gen)

    @staticmethod
    def range(*args, **kwargs):
        dtype = kwargs.get("dtype", None)
        r = range(*[int(a) for a in args])
        npd = np.int64 if dtype is None else np.dtype(dtype)

        def gen():
            for i in r:
                yield as_tensor(np.asarray(i, dtype=npd))
        return Dataset(gen, cardinality=len(r))

    @staticmethod
    def zip(*datasets, name=None):
        if len(datasets) == 1 and isinstance(datasets[0], (tuple, dict)):
            datasets = datasets[0]
        if isinstance(datasets, dict):
            keys = list(datasets)

            def gen_d():
                for vals in zip(*(datasets[k] for k in keys)):
                    yield dict(zip(keys, vals))
            return Dataset(gen_d)

        def gen():
            for vals in zip(*datasets):
                yield tuple(vals)
        return Dataset(gen)

    @staticmethod
    def list_files(file_pattern, shuffle=None, seed=None, name=None):
        from .io import gfile
        files = gfile.glob(file_pattern)
        if not files:
            raise errors.InvalidArgumentError(
                None, None, "Expected 'tf.Tensor(False, shape=(), dtype=bool)' to be true. "
                "Summarized data: b'No files matched pattern: %s'" % file_pattern)
        ds = Dataset.from_tensor_slices(np.array([f.encode() for f in files], dtype=object))
        if shuffle is None or shuffle:
            ds = ds.shuffle(len(files), seed=seed)
        return ds


def _batch_card(card, size, drop):
    if card < 0:
        return card
    return card // size if drop else -(-card // size)


def _cpu_count():
    import os
    return max(1, len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity")
               else (os.cpu_count() or 1))


def _stack(chunk):
    first = chunk[0]
    leaves = [_flatten(el) for el in chunk]
    out = []
    for c in range(len(leaves[0])):
        col = [lv[c] for lv in leaves]
        if hasattr(col[0], "_tfn_joined") and len(col) == 1:
            out.append(col[0])
            continue
        arrs = [np.asarray(x) for x in col]
        shape = arrs[0].shape
        for i, a in enumerate(arrs):
            if a.shape != shape:
                raise errors.InvalidArgumentError(
                    None, None, "Cannot batch tensors with different shapes in component "
                    "%d. First element had shape %s and element %d had shape %s."
                    % (c, _tf_shape(shape), i, _tf_shape(a.shape)))
        if arrs[0].dtype == object:
            st = np.empty((len(arrs),) + shape, dtype=object)
            for i, a in enumerate(arrs):
                st[i] = a.item() if a.ndim == 0 else a  # a 0-d array would be stored whole
        else:
            st = np.stack(arrs)
        out.append(as_tensor(st))
    return _pack(first, out)


def _tf_shape(shape):
    return "[" + ",".join(str(d) for d in shape) + "]"


def _spread(template, spec, shape_leaf=False):
    """One entry of `spec` per leaf of `template`: a None (sub)structure gives None for
    all its leaves; a scalar (or, for shapes, a list of dims) applies to one leaf."""
    if spec is None:
        return [None] * len(_flatten(template))
    if isinstance(template, dict):
        out = []
        for k in sorted(template):
            out.extend(_spread(template[k], spec.get(k) if isinstance(spec, dict) else spec,
                               shape_leaf))
        return out
    if isinstance(template, tuple) and not isinstance(template, Tensor):
        if isinstance(spec, tuple) and len(spec) == len(template):
            out = []
            for t, sp in zip(template, spec):
                out.extend(_spread(t, sp, shape_leaf))
            return out
        return [spec] * len(_flatten(template))
    return [spec]


def _pad_stack(chunk, padded_shapes, padding_values):
    first = chunk[0]
    leaves = [_flatten(el) for el in chunk]
    ncomp = len(leaves[0])
    shapes = _spread(first, padded_shapes, shape_leaf=True)
    values = _spread(first, padding_values)
    out = []
    for c in range(ncomp):
        arrs = [np.asarray(lv[c]) for lv in leaves]
        rank = arrs[0].ndim
        for i, a in enumerate(arrs):
            if a.ndim != rank:
                raise errors.InvalidArgumentError(
                    None, None, "Cannot batch tensors with different ranks in component "
                    "%d." % c)
        target = [max(a.shape[d] for a in arrs) for d in range(rank)]
        want = shapes[c]
        if want is not None:
            want = [want] if np.ndim(want) == 0 and rank == 1 else list(want)
            for d, w in enumerate(want):
                if w is not None and int(w) >= 0:
                    if target[d] > int(w):
                        raise errors.InvalidArgumentError(
                            None, None, "Attempted to pad to a smaller size than the input "
                            "element.")
                    target[d] = int(w)
        pv = values[c]
        dtype = arrs[0].dtype
        if pv is None:
            pv = b"" if dtype == object else 0
        else:
            pv = np.asarray(pv).reshape(-1)[0] if not isinstance(pv, (bytes, str)) else pv
            if isinstance(pv, str):
                pv = pv.encode()
        res = np.full([len(arrs)] + target, pv, dtype=dtype)
        for i, a in enumerate(arrs):
            if a.ndim == 0:
                res[i] = a.item()
            else:
                res[(i,) + tuple(slice(0, s) for s in a.shape)] = a
        out.append(as_tensor(res))
    return _pack(first, out)


_END = object()


class _MapIter:
    __slots__ = ("_it", "_fn")

    def __init__(self, it, fn):
        self._it = it
        self._fn = fn

    def __iter__(self):
        return self

    def __next__(self):
        return self._fn(next(self._it))


class _Prefetcher:
    """Runs an iterator on a daemon thread, `size` elements ahead."""

    def __init__(self, it, size):
        self._q = queue.Queue(maxsize=size)
        self._stop = threading.Event()
        self._t = threading.Thread(target=self._run, args=(it,), daemon=True)
        self._t.start()

    def _run(self, it):
        try:
            for el in it:
                while not self._stop.is_set():
                    try:
                        self._q.put((True, el), timeout=0.1)
                        break
                    except queue.Full:
                        continue
                if self._stop.is_set():
                    return
            self._put_final((True, _END))
        except BaseException as e:  # handed to the consumer
            self._put_final((False, e))

    def _put_final(self, item):
        while not self._stop.is_set():
            try:
                self._q.put(item, timeout=0.1)
                return
            except queue.Full:
                continue

    def __iter__(self):
        return self

    def __next__(self):
        ok, el = self._q.get()
        if ok and el is _END:
            self._stop.set()
            raise StopIteration
        if not ok:
            self._stop.set()
            raise el
        return el

    def __del__(self):
        self._stop.set()


def _parallel_map(it, fn, workers, ordered):
    from concurrent.futures import ThreadPoolExecutor, FIRST_COMPLETED, wait
    pending = collections.deque()
    with ThreadPoolExecutor(workers) as pool:
        exhausted = False
        while True:
            while not exhausted and len(pending) < workers * 2:
                try:
                    el = next(it)
                except StopIteration:
                    exhausted = True
                    break
                pending.append(pool.submit(fn, el))
            if not pending:
                return
            if ordered:
                yield pending.popleft().result()
            else:
                done, _ = wait(pending, return_when=FIRST_COMPLETED)
                f = next(iter(done))
                pending.remove(f)
                yield f.result()


def _interleave(open_next, cycle, block):
    slots = []
    for _ in range(cycle):
        s = open_next()
        if s is None:
            break
        slots.append(s)
    i = 0
    while slots:
        i %= len(slots)
        s = slots[i]
        finished = False
        for _ in range(block):
            try:
                yield next(s)
            except StopIteration:
                finished = True
                break
        if finished:
            nxt = open_next()
            if nxt is None:
                slots.pop(i)  # the next slot moves into position i
                continue
            slots[i] = nxt  # the new input gets its turn when the cycle returns
        i += 1


class experimental:  # noqa: N801 - TensorFlow's name
    """``tf.data.experimental``: AUTOTUNE and ignore_errors."""
    AUTOTUNE = AUTOTUNE
    INFINITE_CARDINALITY = INFINITE
    UNKNOWN_CARDINALITY = UNKNOWN

    @staticmethod
    def ignore_errors(log_warning=False):
        return lambda ds: ds.ignore_errors()

    @staticmethod
    def cardinality(dataset):
        return dataset.cardinality()


from ._record import TFRecordDataset  # noqa: E402,F401

__all__ = ["AUTOTUNE", "Dataset", "Options", "TFRecordDataset", "experimental",
           "INFINITE", "UNKNOWN"]
