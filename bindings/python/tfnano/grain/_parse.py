"""ParseBatch: Grain's batch of serialized records -> {key: batch array}, one C call."""
import threading


class ParseBatch:
    """Parses a batch of serialized Examples (what ``.batch(n)`` makes of
    TFRecordDataSource's records: an (n,) object array of bytes; a list of bytes works
    too) into {key: ndarray with a leading batch dimension}, in one C call.

    Use it with ``MapDataset.map`` / ``IterDataset.map``, or as a ``batch_fn``:
    ``.batch(n, batch_fn=ParseBatch(features))`` skips building the object array, and
    ``grain.transforms.Batch(n, batch_fn=ParseBatch(features))`` is the way in
    grain.DataLoader's operations.
    Args as tfnano.Parser (features, int32, maxlen, masks, num_threads). Pickles as its
    arguments (Grain's worker processes compile the spec again)."""

    def __init__(self, features, *, int32=False, maxlen=None, masks=False, num_threads=1):
        from .. import Parser
        self.features = dict(features)
        self._args = dict(int32=int32, maxlen=maxlen, masks=masks, num_threads=num_threads)
        self._local = threading.local()
        self._local.parser = Parser(self.features, **self._args)

    def _parser(self):
        # Grain maps from several threads at once; a Parser serves one at a time.
        parser = getattr(self._local, "parser", None)
        if parser is None:
            from .. import Parser
            parser = self._local.parser = Parser(self.features, **self._args)
        return parser

    def __reduce__(self):
        return (_rebuild, (self.features, self._args))

    def __call__(self, batch):
        if isinstance(batch, (list, tuple)):
            batch = [b.item() if hasattr(b, "item") else b for b in batch]
        return self._parser().parse(batch)

    def __repr__(self):
        return "ParseBatch(%s)" % ", ".join(sorted(self.features))


def _rebuild(features, args):
    return ParseBatch(features, **args)
