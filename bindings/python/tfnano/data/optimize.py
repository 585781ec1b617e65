"""The plan as it will run: every rewrite in one place. ``optimize`` applies the
rules bottom-up (each rule looks at one node and its input and returns a replacement
or None), then injects a prefetch at the end where TensorFlow injects one. Rules
build the fused nodes of data/fused.py (and the C engine's, data/native.py); stage
modules (data/ops/) know nothing of each other.

The rules, in the order they are tried on a node:
- map fusion: ``map(f).map(g)`` of traced functions -> one map of ``g(f(x))``;
- ``batch(n).map(parse_example)`` over a TFRecordDataset -> the C engine's read ->
  batch -> parse (``batch_and_parse_example``);
- ``map(f).batch(n)`` -> ``map_and_batch``;
- ``[map(f).]filter(p).batch(n)`` with batched forms -> ``filter_and_batch``;
- ``map(f).padded_batch(...)`` / ``map(f).ragged_batch(...)`` with a vectorized f ->
  the padded / ragged batch runs f once per batch.
"""
from . import plan
from .ops.batch import BatchNode
from .ops.filter import FilterNode
from .ops.map import MapNode
from .ops.padded_batch import PaddedBatchNode
from .ops.ragged_batch import RaggedBatchNode


def fuse_maps(node, options):
    up = node.inputs[0] if node.inputs else None
    if type(node) is MapNode and type(up) is MapNode and up.fn.traced and \
            node.fn.traced:
        from .structured_function import compose
        par = node.num_parallel_calls if node.workers() >= up.workers() else \
            up.num_parallel_calls
        return MapNode(up.inputs[0], None, par, node.deterministic,
                       fn=compose(up.fn, node.fn))
    return None


def parse_batches_on_c(node, options):
    if type(node) is MapNode and type(node.inputs[0]) is BatchNode:
        from . import native
        if native.enabled():
            batch = node.inputs[0]
            settings, _ = native.route(node, batch.inputs[0], "parse_example")
            if settings is not None:
                return native.BatchParseNode(node, batch, settings)
    return None


def map_and_batch(node, options):
    if type(node) is BatchNode and type(node.inputs[0]) is MapNode:
        from .fused import MapBatchNode
        return MapBatchNode(node.inputs[0], node.batch_size, node.drop_remainder)
    return None


def filter_and_batch(node, options):
    if type(node) is BatchNode and type(node.inputs[0]) is FilterNode:
        from .fused import FilterBatchNode, fusable
        found = fusable(node.inputs[0])
        if found is not None:
            return FilterBatchNode(found[0], found[1], node.inputs[0], node.batch_size,
                                   node.drop_remainder)
    return None


def padded_batch_with_map(node, options):
    up = node.inputs[0] if node.inputs else None
    if type(node) is PaddedBatchNode and node.fused_map is None and \
            type(up) is MapNode and up.fn.vectorized:
        fused = PaddedBatchNode(up.inputs[0], node.batch_size, node.padded_shapes,
                                node.padding_values, node.drop_remainder, fused_map=up)
        fused.values_checked = node.values_checked
        return fused
    return None


def ragged_batch_with_map(node, options):
    up = node.inputs[0] if node.inputs else None
    if type(node) is RaggedBatchNode and node.fused_map is None and \
            type(up) is MapNode and up.fn.vectorized:
        return RaggedBatchNode(up.inputs[0], node.size, node.drop, node.splits,
                               fused_map=up)
    return None


RULES = (fuse_maps, parse_batches_on_c, map_and_batch, filter_and_batch,
         padded_batch_with_map, ragged_batch_with_map)


def optimize(node, options):
    """The plan as it will run: the rules applied, then TensorFlow's injected
    prefetch."""
    return inject_prefetch(rewrite(node, options), options)


def rewrite(node, options):
    """The rules applied bottom-up: a node's inputs first, then the first rule that
    replaces the node."""
    inputs = tuple(rewrite(i, options) for i in node.inputs)
    if inputs != node.inputs:
        node = node.with_inputs(inputs)
    for rule in RULES:
        out = rule(node, options)
        if out is not None:
            return out
    return node


def inject_prefetch(node, options):
    """TensorFlow's default inject_prefetch: a pipeline ending in a synchronous
    transformation that runs a traced function or batches gets a prefetch, so that
    its last stage overlaps with the consumer."""
    if options.experimental_optimization.inject_prefetch is False:
        return node
    fn = getattr(node, "fn", None)
    batching = hasattr(node, "batch_size")
    if node.op == "prefetch" or not (batching or (fn is not None and fn.traced)):
        return node
    from .ops.prefetch import PrefetchNode
    return PrefetchNode(node, plan.AUTOTUNE)
