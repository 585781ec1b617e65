"""``tf.data.Options`` and its groups (threading, optimization, distribute, autotune).
Only ``deterministic`` changes what tfnano does (parallel stages may yield out of
order when it is False); the rest is accepted for compatibility."""


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
                         parallel_batch=None, map_and_batch_fusion=None, map_fusion=None,
                         inject_prefetch=None)


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
