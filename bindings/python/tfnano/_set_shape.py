"""``Tensor.set_shape``: TensorFlow's static shape refinement. An eager tensor only checks
that the given shape is compatible; a traced one also takes the given dimensions where
its own are unknown (so element_spec shows them, as in TensorFlow)."""


def _dims(shape):
    if shape is None:
        return None
    if hasattr(shape, "as_list"):
        try:
            shape = shape.as_list()
        except ValueError:  # TensorShape of unknown rank
            return None
    if isinstance(shape, int):
        shape = [shape]
    return tuple(None if d is None or (not isinstance(d, int) and getattr(d, "value", 0) is None)
                 else int(d if isinstance(d, int) else getattr(d, "value", d)) for d in shape)


def _text(dims):
    if dims is None:
        return "<unknown>"
    return "(%s)" % (", ".join("None" if d is None else str(d) for d in dims)
                     + ("," if len(dims) == 1 else ""))


def merged_shape(current, shape):
    """The refined shape, or TensorFlow's ValueError when the two are incompatible."""
    want = _dims(shape)
    have = None if current is None else tuple(current)
    if want is None:
        return have
    if have is None:
        return want
    if len(have) != len(want) or any(a is not None and b is not None and a != b
                                     for a, b in zip(have, want)):
        raise ValueError("Tensor's shape %s is not compatible with supplied shape %s."
                         % (_text(have), _text(want)))
    return tuple(a if a is not None else b for a, b in zip(have, want))
