"""from_generator with output_signature, or output_types (+ output_shapes): each
yielded element is checked against the declared structure and converted to the
declared dtypes (TensorFlow's texts when it does not fit)."""
import numpy as np

from ... import dtypes, errors
from ..._tensor import as_tensor, constant
from .. import plan


def _flatten_decl(d):
    """Leaves of a declared structure (dtypes / TensorSpecs / shapes are leaves)."""
    if isinstance(d, dict):
        return [x for k in sorted(d) for x in _flatten_decl(d[k])]
    if isinstance(d, tuple):
        return [x for v in d for x in _flatten_decl(v)]
    return [d]


def _is_shape_leaf(s):
    return s is None or hasattr(s, "as_list") or (isinstance(s, (list, tuple)) and all(
        d is None or isinstance(d, (int, np.integer)) for d in s))


def _shape_leaves(shapes):
    if _is_shape_leaf(shapes):
        return [shapes]
    if isinstance(shapes, dict):
        return [x for k in sorted(shapes) for x in _shape_leaves(shapes[k])]
    return [x for v in shapes for x in _shape_leaves(v)]


def _pack(template, leaves):
    it = iter(leaves)

    def build(t):
        if isinstance(t, dict):
            vals = {k: build(t[k]) for k in sorted(t)}
            return {k: vals[k] for k in t}
        if isinstance(t, tuple):
            return tuple(build(v) for v in t)
        return next(it)
    return build(template)


def _struct_str(s):
    if isinstance(s, dict):
        return "{%s}" % ", ".join("%r: %s" % (k, _struct_str(v)) for k, v in s.items())
    if isinstance(s, tuple):
        return "(%s)" % ", ".join(_struct_str(v) for v in s)
    if hasattr(s, "dtype") and hasattr(s, "shape") and not isinstance(s, np.ndarray):
        return repr(s)
    return repr(dtypes.as_dtype(s))


class TypedGeneratorNode(plan.Node):
    op = "from_generator"

    def __init__(self, generator, args, output_types=None, output_shapes=None,
                 output_signature=None):
        super().__init__()
        from ...ops.specs import TensorShape
        if output_signature is not None:
            if output_types is not None or output_shapes is not None:
                raise TypeError("The `output_types` and `output_shapes` arguments can only "
                                "be used together with the `output_signature` argument.")
            self.template = output_signature
            leaves = _flatten_decl(output_signature)
            for s in leaves:
                if not (hasattr(s, "dtype") and hasattr(s, "shape")):
                    raise TypeError("Invalid `output_signature`: all leaves must be "
                                    "tf.TypeSpec, got %r" % (s,))
            self.types = [dtypes.as_dtype(s.dtype) for s in leaves]
            self.shapes = [TensorShape(s.shape) for s in leaves]
        else:
            if output_types is None:
                raise TypeError("The `output_types` argument can not be None when "
                                "`output_signature` is not specified.")
            self.template = output_types
            self.types = [dtypes.as_dtype(t) for t in _flatten_decl(output_types)]
            if output_shapes is None:
                self.shapes = [TensorShape(None)] * len(self.types)
            else:
                shapes = _shape_leaves(output_shapes) if len(self.types) > 1 else \
                    [output_shapes]
                if len(shapes) != len(self.types):
                    raise ValueError("The two structures don't have the same number of "
                                     "elements.")
                self.shapes = [TensorShape(s) for s in shapes]
        self.generator, self.args = generator, args

    def attrs(self):
        return {"generator": getattr(self.generator, "__name__", "?")}

    def element_spec(self):
        from ..._trace import Spec
        return _pack(self.template, [
            Spec(object if t is dtypes.string else t.as_numpy_dtype,
                 None if s.rank is None else tuple(s.dims)) for t, s in
            zip(self.types, self.shapes)])

    def stage(self, ctx):
        args = [np.asarray(a) for a in self.args] if self.args else []
        gen = self.generator(*args)
        return _TypedStage(iter(gen), self)


class _TypedStage(plan.IterStage):
    def __init__(self, it, node):
        super().__init__(it)
        self._n = node

    def __next__(self):
        el = next(self._it)
        n = self._n
        if isinstance(n.template, (tuple, dict)):
            leaves = self._leaves_of(el)
        else:
            leaves = [el]
        out = []
        for v, t, s in zip(leaves, n.types, n.shapes):
            out.append(self._convert(v, t, s))
        return _pack(n.template, out)

    def _leaves_of(self, el):
        t = self._n.template
        try:
            if isinstance(t, dict):
                if not isinstance(el, dict) or set(el) != set(t):
                    raise TypeError
                return [x for k in sorted(t) for x in _leaves_like(t[k], el[k])]
            return _leaves_like(t, el)
        except (TypeError, ValueError, KeyError):
            raise errors.InvalidArgumentError(
                None, None, "TypeError: `generator` yielded an element that did not match "
                "the expected structure. The expected structure was %s, but the yielded "
                "element was %r." % (_struct_str(t), el)) from None

    def _convert(self, v, t, s):
        try:
            if t is dtypes.string:
                a = constant(v, dtype=dtypes.string)
            else:
                # numpy's conversion, as TensorFlow's generator wrapper does it
                a = as_tensor(np.array(v, dtype=t.as_numpy_dtype))
        except (TypeError, ValueError):
            raise errors.InvalidArgumentError(
                None, None, "TypeError: `generator` yielded an element that could not be "
                "converted to the expected type. The expected type was %s, but the yielded "
                "element was %r." % (t.name, v)) from None
        if not s.is_compatible_with(a.shape):
            raise errors.InvalidArgumentError(
                None, None, "`generator` yielded an element of shape %s where an element of "
                "shape %s was expected." % (_shape_str(a.shape), s))
        return a


def _shape_str(shape):
    return "(%s,)" % shape[0] if len(shape) == 1 else "(%s)" % ", ".join(map(str, shape))


def _leaves_like(t, el):
    if isinstance(t, tuple):
        if not isinstance(el, (tuple, list)) or len(el) != len(t):
            raise TypeError
        return [x for tt, e in zip(t, el) for x in _leaves_like(tt, e)]
    if isinstance(t, dict):
        if not isinstance(el, dict) or set(el) != set(t):
            raise TypeError
        return [x for k in sorted(t) for x in _leaves_like(t[k], el[k])]
    return [el]
