"""``tf.compat.v1.data``: tfnano.data plus TF1's iterator helpers
(``make_one_shot_iterator(ds).get_next()``, ``make_initializable_iterator``)."""
import importlib


class Iterator:
    """TF1's iterator object, eager: ``get_next()`` gives the next element
    (OutOfRangeError at the end, as a TF1 Session.run would raise)."""

    def __init__(self, dataset):
        self._dataset = dataset
        self._it = None

    @property
    def initializer(self):
        self._it = iter(self._dataset)
        return None

    def get_next(self, name=None):
        if self._it is None:
            self._it = iter(self._dataset)
        try:
            return next(self._it)
        except StopIteration:
            from ...errors import OutOfRangeError
            raise OutOfRangeError(None, None, "End of sequence") from None

    def __iter__(self):
        return self

    def __next__(self):
        if self._it is None:
            self._it = iter(self._dataset)
        return next(self._it)

    @property
    def element_spec(self):
        return self._dataset.element_spec

    output_types = property(lambda self: _legacy(self._dataset, "dtype"))
    output_shapes = property(lambda self: _legacy(self._dataset, "shape"))


def _legacy(dataset, attr):
    from ...ops.nest import map_structure
    return map_structure(lambda s: getattr(s, attr), dataset.element_spec)


def make_one_shot_iterator(dataset):
    """``tf.compat.v1.data.make_one_shot_iterator``."""
    return Iterator(dataset)


def make_initializable_iterator(dataset, shared_name=None):
    """``tf.compat.v1.data.make_initializable_iterator`` (``initializer`` restarts it)."""
    return Iterator(dataset)


def get_output_types(dataset):
    return _legacy(dataset, "dtype")


def get_output_shapes(dataset):
    return _legacy(dataset, "shape")


def __getattr__(name):
    value = getattr(importlib.import_module("tfnano.data"), name)
    globals()[name] = value
    return value
