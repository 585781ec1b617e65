"""One module per tf.data transformation. Each defines a plan node (and the stage
that runs it); ``Dataset`` only has a door method per transformation.

How to add a transformation (e.g. ``window``):

1. Write ``data/ops/window.py``::

       from .. import plan

       class WindowNode(plan.Node):
           op = "window"                       # the name explain() prints

           def __init__(self, input, size, shift):
               super().__init__(input)         # inputs: the upstream nodes
               self.size, self.shift = size, shift

           def attrs(self):                    # shown by explain()
               return {"size": self.size, "shift": self.shift}

           def cardinality(self):              # optional (default plan.UNKNOWN)
               ...

           def element_spec(self):             # optional: a structure of
               ...                             # _trace.Spec, None if unknown;
                                               # the default is the input's

           def stage(self, ctx):               # the iterator that does the work
               return _WindowStage(ctx.stage(self.inputs[0]), self.size, self.shift)

       class _WindowStage(plan.Stage):
           def __init__(self, upstream, size, shift):
               self.upstreams = (upstream,)    # closed by Stage.close()
               ...

           def __next__(self):
               ...                             # next(upstream); StopIteration at end

   Rules for stages: ``__next__`` may raise an error for one element and must stay
   usable afterwards (``ignore_errors()`` asks again); never keep the stage itself
   reachable from a worker thread (the stage must be collectable so that dropping
   the iterator stops the threads); ``close()`` releases threads and files and
   closes the upstream stages (``plan.Stage.close`` does the latter). A node that
   re-reads its input (repeat) calls ``ctx.stage(self.inputs[0])`` again. A node
   whose elements are whole batches may offer ``next_records(n)`` for speed.
   A user function is wrapped with ``structured_function.StructuredFunction(fn,
   input_node.element_spec(), "window")``. A fusion with a neighbour is a rule in data/optimize.py building a node of
   data/fused.py; stage modules do not import each other.

2. Add the door to ``Dataset`` in data/dataset.py, importing the module lazily::

       def window(self, size, shift=None, stride=1, drop_remainder=False, name=None):
           from .ops.window import WindowNode
           return self._then(WindowNode(self._node, size, shift))

3. Test it in test/python/test_data_<name>.py (against TensorFlow's documented
   values; conformance against TensorFlow itself in test/conformance).
"""
