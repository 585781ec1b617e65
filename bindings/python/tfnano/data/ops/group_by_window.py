"""group_by_window(key_func, reduce_func, window_size, window_size_func): elements
grouped by an int64 key; a group that reaches its window size is handed to
reduce_func(key, dataset_of_the_group) and the resulting dataset's elements are
produced; at the end of the input the unfinished groups are reduced in ascending key
order (TensorFlow keeps its groups in a sorted map)."""
import numpy as np

from ... import errors
from .. import plan
from .window import dataset_of


def _scalar_key(k):
    a = np.asarray(k)
    if a.shape != () or a.dtype.kind not in "iu":
        raise errors.InvalidArgumentError(
            None, None, "`key_func` must return a single tf.int64 tensor. Got type=%s and "
            "shape=%s" % (a.dtype, list(a.shape)))
    return int(a)


class GroupByWindowNode(plan.Node):
    op = "group_by_window"

    def __init__(self, input, key_func, reduce_func, window_size=None, window_size_func=None):
        super().__init__(input)
        if (window_size is None) == (window_size_func is None):
            raise ValueError("Either the `window_size` argument or the `window_size_func` "
                             "argument must be specified.")
        if window_size is not None:
            size = int(np.asarray(window_size))
            window_size_func = lambda key: size  # noqa: E731
        self.key_func, self.reduce_func = key_func, reduce_func
        self.window_size_func = window_size_func

    def attrs(self):
        return {"key_func": getattr(self.key_func, "__name__", "?")}

    def element_spec(self):
        # reduce_func called once on key 0 and an empty window of the input's spec, as
        # TensorFlow traces it; its dataset's spec (None when that call fails)
        if not hasattr(self, "_spec"):
            from ..._tensor import as_tensor
            from .. import structure
            spec = self.inputs[0].element_spec()
            self._spec = None if spec is None else structure.returned_spec(
                lambda: self.reduce_func(as_tensor(np.zeros((), np.int64)),
                                         dataset_of([], spec)))
        return self._spec

    def stage(self, ctx):
        return _GroupStage(ctx.stage(self.inputs[0]), self)


def _call(fn, el):
    from .. import structure
    return structure.call(fn, el)


class _GroupStage(plan.Stage):
    def __init__(self, upstream, node):
        self.upstreams = (upstream,)
        self._n = node
        self._groups = {}
        self._sizes = {}
        self._out = None
        self._flushing = False

    def _reduce(self, key, elements):
        from ..._tensor import as_tensor
        ds = self._n.reduce_func(as_tensor(np.asarray(key, np.int64)), dataset_of(elements))
        self._out = iter(ds)

    def __next__(self):
        while True:
            if self._out is not None:
                try:
                    return next(self._out)
                except StopIteration:
                    self._out = None
            if self._flushing:
                if not self._groups:
                    raise StopIteration
                key = min(self._groups)
                self._reduce(key, self._groups.pop(key))
                continue
            try:
                el = next(self.upstreams[0])
            except StopIteration:
                self._flushing = True
                continue
            key = _scalar_key(_call(self._n.key_func, el))
            size = self._sizes.get(key)
            if size is None:
                size = int(np.asarray(self._n.window_size_func(
                    np.asarray(key, np.int64))))
                if size <= 0:
                    raise errors.invalid("Window size must be "
                                         "greater than zero, but got %d." % size)
                self._sizes[key] = size
            group = self._groups.setdefault(key, [])
            group.append(el)
            if len(group) >= size:
                self._reduce(key, self._groups.pop(key))
