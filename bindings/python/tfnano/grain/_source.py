"""TFRecordDataSource: Grain's RandomAccessDataSource over TFRecord files."""
import threading

import numpy as np

from ._files import RecordFiles


def _record(b):
    """A serialized record as a 0-d object array: Grain's batch (np.stack) then gives
    an (n,) object array of the exact bytes."""
    a = np.empty((), dtype=object)
    a[()] = b
    return a


class TFRecordDataSource:
    """Records of TFRecord files by number (files in the given order, a glob pattern
    sorted), for ``grain.MapDataset.source`` and ``grain.DataLoader``.

    Args:
      files: a path, a glob pattern or a list of paths.
      features: None (a record is its serialized bytes, as a 0-d object array:
        ``src[i].item()`` is the bytes) or {key: FixedLenFeature | ...} (a record is
        parsed: {key: ndarray}; ``_getitems`` parses the whole batch in one C call).
      cache_dir, compression, verify: as tfnano.io.index.TFRecordFile (indexes found
        beside the files, in the cache or built on first use; GZIP / ZLIB read through
        seek points; CRCs checked unless verify=False).
      int32, maxlen, masks: as tfnano.Parser, when features are given.
    """

    def __init__(self, files, features=None, *, cache_dir=None, compression=None,
                 verify=True, int32=False, maxlen=None, masks=False):
        self._files = RecordFiles(files, cache_dir, compression, verify)
        self.features = None if features is None else dict(features)
        self._parser_args = dict(int32=int32, maxlen=maxlen, masks=masks)
        self._local = threading.local()

    @property
    def paths(self):
        return list(self._files.paths)

    def __len__(self):
        return len(self._files)

    def __getstate__(self):
        state = dict(self.__dict__)
        del state["_local"]  # parsers are compiled again in each worker process
        return state

    def __setstate__(self, state):
        self.__dict__.update(state)
        self._local = threading.local()

    def _parse(self, records):
        # Grain calls a source from several threads; a Parser serves one at a time.
        parser = getattr(self._local, "parser", None)
        if parser is None:
            from .. import Parser
            parser = self._local.parser = Parser(self.features, **self._parser_args)
        return parser.parse(records)

    def __getitem__(self, index):
        if self.features is None:
            return _record(self._files.one(index))
        out = self._parse(self._files.views([index]))
        return {k: v[0] for k, v in out.items()}

    def _getitems(self, indices):
        """Grain's batched read: the records `indices` (parsed in one C call when
        features are given)."""
        indices = list(indices)
        if self.features is None:
            return [_record(self._files.one(i)) for i in indices]
        out = self._parse(self._files.views(indices))
        return [{k: v[j] for k, v in out.items()} for j in range(len(indices))]

    def __repr__(self):
        return "TFRecordDataSource(%d files, %d records%s)" % (
            len(self._files.paths), len(self), "" if self.features is None else ", parsed")
