"""Dataset.save / Dataset.load and snapshot.

tfnano's saved format is its own (TensorFlow's is snapshot protos with its own
chunking): a directory holding ``elements.tfrecord`` (one TFRecord per element, the
element pickled) and ``spec.pickle`` (its structure). Saves made by tfnano load in
tfnano; only load directories you made (pickle runs code from the file).
``snapshot(path)`` is a documented pass-through: elements are computed again each
pass (tfnano keeps no snapshot files)."""
import os
import pickle

import numpy as np

from .. import plan, structure

_ELEMENTS = "elements.tfrecord"
_SPEC = "spec.pickle"


def _plain(el):
    return structure.map_structure(lambda t: np.asarray(t), el)


def save(dataset, path, compression=None, shard_func=None, checkpoint_args=None):
    from ...io.tf_record import TFRecordWriter
    from ...io.gfile import gfile
    if not gfile.exists(path):
        gfile.makedirs(path)
    first = None
    with TFRecordWriter(os.path.join(path, _ELEMENTS), options=compression or "") as w:
        for el in dataset:
            if first is None:
                first = el
            w.write(pickle.dumps(_plain(el), protocol=4))
    with gfile.GFile(os.path.join(path, _SPEC), "wb") as f:
        f.write(pickle.dumps({"spec": dataset._node.element_spec(),
                              "compression": compression or ""}, protocol=4))


class LoadNode(plan.Node):
    op = "load"

    def __init__(self, path, compression, spec):
        super().__init__()
        self.path, self.compression, self.spec = path, compression, spec

    def attrs(self):
        return {"path": self.path}

    def element_spec(self):
        return self.spec

    def stage(self, ctx):
        from ...io.tf_record import tf_record_iterator
        it = tf_record_iterator(os.path.join(self.path, _ELEMENTS),
                                options=self.compression or "")
        return plan.IterStage(structure.normalize(pickle.loads(r)) for r in it)


def load(path, element_spec=None, compression=None, reader_func=None):
    from ... import errors
    from ...io.gfile import gfile
    meta_path = os.path.join(path, _SPEC)
    if not gfile.exists(meta_path):
        raise errors.make(errors.NotFoundError, "Could not find metadata file %s (not a "
                          "directory written by tfnano's Dataset.save)" % meta_path)
    with gfile.GFile(meta_path, "rb") as f:
        meta = pickle.loads(f.read())
    from ..dataset import Dataset
    return Dataset(LoadNode(path, compression if compression is not None
                            else meta["compression"],
                            structure.from_type_spec(element_spec)
                            if element_spec is not None else meta["spec"]))
