"""``tf.nest``: structures of lists, tuples, namedtuples and dicts (dicts in sorted key
order, as TensorFlow flattens them); everything else (tensors, arrays, strings, None)
is a leaf."""
import collections.abc as _abc


def _is_namedtuple(x):
    return isinstance(x, tuple) and hasattr(x, "_fields")


def is_nested(seq):
    """True for lists, tuples (and namedtuples) and mappings."""
    return isinstance(seq, (list, tuple, _abc.Mapping)) and not isinstance(seq, (str, bytes))


is_sequence = is_nested


def _sorted_keys(d):
    try:
        return sorted(d)
    except TypeError:
        raise TypeError("nest only supports dicts with sortable keys.") from None


def _children(s):
    if isinstance(s, _abc.Mapping):
        return [s[k] for k in _sorted_keys(s)]
    return list(s)


def flatten(structure, expand_composites=False):
    """The leaves, depth first."""
    if not is_nested(structure):
        return [structure]
    out = []
    for c in _children(structure):
        out.extend(flatten(c, expand_composites))
    return out


def _rebuild(template, children):
    if isinstance(template, _abc.Mapping):
        keys = _sorted_keys(template)
        pairs = dict(zip(keys, children))
        if isinstance(template, dict) and type(template) is not dict and \
                hasattr(template, "default_factory"):
            out = type(template)(template.default_factory)
            out.update((k, pairs[k]) for k in template)
            return out
        return type(template)((k, pairs[k]) for k in template)
    if _is_namedtuple(template):
        return type(template)(*children)
    if isinstance(template, tuple):
        return tuple(children)
    return list(children) if type(template) is list else type(template)(children)


def _pack(template, it):
    if not is_nested(template):
        return next(it)
    return _rebuild(template, [_pack(c, it) for c in _children(template)])


def pack_sequence_as(structure, flat_sequence, expand_composites=False):
    """`flat_sequence` arranged as `structure`."""
    flat = list(flat_sequence)
    need = len(flatten(structure))
    if need != len(flat):
        raise ValueError("Could not pack sequence. Structure had %d atoms, but "
                         "flat_sequence had %d items.  Structure: %s, flat_sequence: %s."
                         % (need, len(flat), structure, flat))
    if not is_nested(structure):
        return flat[0]
    return _pack(structure, iter(flat))


def _show(x):
    return "type=%s str=%s" % (type(x).__name__, x)


def assert_same_structure(nest1, nest2, check_types=True, expand_composites=False):
    """ValueError when the nesting differs, TypeError when sequence types differ."""
    head = ("The two structures don't have the same nested structure.\n\nFirst structure: "
            "%s\n\nSecond structure: %s\n\nMore specifically: " % (_show(nest1), _show(nest2)))

    def walk(a, b):
        if is_nested(a) != is_nested(b):
            seq, leaf = (a, b) if is_nested(a) else (b, a)
            raise ValueError(head + "Substructure \"%s\" is a sequence, while substructure "
                             "\"%s\" is not" % (_show(seq), _show(leaf)))
        if not is_nested(a):
            return
        if check_types:
            ta, tb = type(a), type(b)
            if not (isinstance(a, _abc.Mapping) and isinstance(b, _abc.Mapping)) and ta is not tb:
                raise TypeError(head + "The two namedtuples don't have the same sequence type. "
                                "First structure %s has type %s, while second structure %s "
                                "has type %s" % (_show(a), ta.__name__, _show(b), tb.__name__))
        if isinstance(a, _abc.Mapping) and _sorted_keys(a) != _sorted_keys(b):
            raise ValueError("The two dictionaries don't have the same set of keys. First "
                             "structure has keys %s, while second structure has keys %s."
                             % (_sorted_keys(a), _sorted_keys(b)))
        ca, cb = _children(a), _children(b)
        for x, y in zip(ca, cb):  # children first, then the lengths (TensorFlow's order)
            walk(x, y)
        if len(ca) != len(cb):
            raise ValueError(head + "The two structures don't have the same number of "
                             "elements. First structure: %s. Second structure: %s."
                             % (_show(a), _show(b)))
    walk(nest1, nest2)


def map_structure(func, *structure, **kwargs):
    """func applied to the leaves of one or more structures of one shape."""
    if not structure:
        raise ValueError("Must provide at least one structure")
    check_types = kwargs.pop("check_types", True)
    kwargs.pop("expand_composites", None)
    if kwargs:
        raise ValueError("Only valid keyword arguments are `check_types` and "
                         "`expand_composites`, not: `%s`" % "`, `".join(kwargs))
    for other in structure[1:]:
        assert_same_structure(structure[0], other, check_types=check_types)
    flats = [flatten(s) for s in structure]
    return pack_sequence_as(structure[0], [func(*leaves) for leaves in zip(*flats)])


def _paths(structure, prefix=()):
    if not is_nested(structure):
        return [(prefix, structure)]
    keys = _sorted_keys(structure) if isinstance(structure, _abc.Mapping) else \
        range(len(structure))
    out = []
    for k, c in zip(keys, _children(structure)):
        out.extend(_paths(c, prefix + (k,)))
    return out


def flatten_with_joined_string_paths(structure, separator="/", expand_composites=False):
    return [(separator.join(str(p) for p in path), leaf) for path, leaf in _paths(structure)]


def flatten_with_paths(structure, expand_composites=False):
    return _paths(structure)


def map_structure_with_paths(func, *structure, **kwargs):
    paths = [p for p, _ in _paths(structure[0])]
    joined = ["/".join(str(x) for x in p) for p in paths]
    flats = [flatten(s) for s in structure]
    return pack_sequence_as(structure[0], [func(j, *leaves) for j, *leaves in
                                           zip(joined, *flats)])
