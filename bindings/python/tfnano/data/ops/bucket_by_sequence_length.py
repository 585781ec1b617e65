"""bucket_by_sequence_length: elements grouped into buckets by length
(bucket i holds lengths in [boundaries[i-1], boundaries[i])), each bucket
padded-batched by its own batch size; built on group_by_window and padded_batch as
TensorFlow builds it."""
import numpy as np

from ... import errors


def bucket_by_sequence_length(dataset, element_length_func, bucket_boundaries,
                              bucket_batch_sizes, padded_shapes=None, padding_values=None,
                              pad_to_bucket_boundary=False, no_padding=False,
                              drop_remainder=False):
    boundaries = [int(b) for b in bucket_boundaries]
    sizes = [int(b) for b in bucket_batch_sizes]
    if len(sizes) != len(boundaries) + 1:
        raise ValueError("len(bucket_batch_sizes) must equal len(bucket_boundaries) + 1 but"
                         " len(bucket_batch_sizes)=%d and len(bucket_boundaries)=%d"
                         % (len(sizes), len(boundaries)))
    if any(b <= 0 for b in boundaries) or boundaries != sorted(boundaries):
        raise ValueError("bucket_boundaries must be positive and increasing")
    from ..structure import call

    def bucket_of(*el):
        length = int(np.asarray(call(element_length_func, el[0] if len(el) == 1 else el)))
        bucket = sum(1 for b in boundaries if length >= b)
        if pad_to_bucket_boundary and bucket == len(boundaries):
            raise errors.InvalidArgumentError(
                None, None, "When pad_to_bucket_boundary=True, elements must have length < "
                "max(bucket_boundaries).")
        return np.int64(bucket)

    def batch_bucket(key, group):
        size = sizes[int(key)]
        if no_padding:
            return group.batch(size, drop_remainder=drop_remainder)
        shapes = padded_shapes
        if pad_to_bucket_boundary:
            limit = boundaries[int(key)] - 1
            shapes = _fill_unknown(shapes if shapes is not None else _unknown_shapes(group),
                                   limit)
        return group.padded_batch(size, shapes, padding_values, drop_remainder=drop_remainder)

    return dataset.group_by_window(bucket_of, batch_bucket,
                                   window_size_func=lambda key: sizes[int(key)])


def _unknown_shapes(group):
    from .. import structure
    first = next(iter(group))
    return structure.map_structure(lambda t: [None] * np.ndim(t), first)


def _is_shape(s):
    return hasattr(s, "as_list") or (isinstance(s, (list, tuple)) and all(
        d is None or isinstance(d, (int, np.integer)) for d in s))


def _fill_unknown(shapes, limit):
    """None (or -1) sizes of padded shapes set to the bucket's boundary - 1."""
    if shapes is None:
        return None
    if _is_shape(shapes):
        dims = shapes.as_list() if hasattr(shapes, "as_list") else list(shapes)
        return [limit if d is None or d == -1 else int(d) for d in dims]
    if isinstance(shapes, dict):
        return {k: _fill_unknown(v, limit) for k, v in shapes.items()}
    return type(shapes)(_fill_unknown(v, limit) for v in shapes)
