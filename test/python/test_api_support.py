"""Shared helpers for the test_api_* tests (no tests here).

`example_pb2()` builds protobuf's own tf.train.Example classes from a descriptor made
in code (no TensorFlow, no protoc), in a private pool so it cannot clash with a
TensorFlow that may be installed: the reference for byte equality."""
import functools

from google.protobuf import descriptor_pb2, descriptor_pool

try:  # protobuf >= 4.21
    from google.protobuf.message_factory import GetMessageClass as _get_class
except ImportError:  # pragma: no cover - older protobuf
    from google.protobuf import message_factory as _mf
    _get_class = None


class _Classes:
    pass


@functools.lru_cache(maxsize=1)
def example_pb2():
    F = descriptor_pb2.FieldDescriptorProto
    fdp = descriptor_pb2.FileDescriptorProto(name="tfnano_test/example.proto",
                                             package="tensorflow", syntax="proto3")

    def add_list(name, ftype):
        m = fdp.message_type.add(name=name)
        f = m.field.add(name="value", number=1, type=ftype, label=F.LABEL_REPEATED)
        if ftype != F.TYPE_BYTES:
            f.options.packed = True
    add_list("BytesList", F.TYPE_BYTES)
    add_list("FloatList", F.TYPE_FLOAT)
    add_list("Int64List", F.TYPE_INT64)
    feat = fdp.message_type.add(name="Feature")
    feat.oneof_decl.add(name="kind")
    for i, (n, t) in enumerate((("bytes_list", "BytesList"), ("float_list", "FloatList"),
                                ("int64_list", "Int64List"))):
        feat.field.add(name=n, number=i + 1, type=F.TYPE_MESSAGE, label=F.LABEL_OPTIONAL,
                       type_name=".tensorflow." + t, oneof_index=0)
    feats = fdp.message_type.add(name="Features")
    entry = feats.nested_type.add(name="FeatureEntry")
    entry.options.map_entry = True
    entry.field.add(name="key", number=1, type=F.TYPE_STRING, label=F.LABEL_OPTIONAL)
    entry.field.add(name="value", number=2, type=F.TYPE_MESSAGE, label=F.LABEL_OPTIONAL,
                    type_name=".tensorflow.Feature")
    feats.field.add(name="feature", number=1, type=F.TYPE_MESSAGE, label=F.LABEL_REPEATED,
                    type_name=".tensorflow.Features.FeatureEntry")
    ex = fdp.message_type.add(name="Example")
    ex.field.add(name="features", number=1, type=F.TYPE_MESSAGE, label=F.LABEL_OPTIONAL,
                 type_name=".tensorflow.Features")
    pool = descriptor_pool.DescriptorPool()
    fd = pool.Add(fdp) if hasattr(pool, "Add") else None
    fd = pool.FindFileByName(fdp.name)
    out = _Classes()
    for name in ("BytesList", "FloatList", "Int64List", "Feature", "Features", "Example"):
        desc = fd.message_types_by_name[name]
        if _get_class is not None:
            cls = _get_class(desc)
        else:  # pragma: no cover
            cls = _mf.MessageFactory(pool).GetPrototype(desc)
        setattr(out, name, cls)
    return out


def pb_example(features):
    """A protobuf Example from {key: ("int64"|"float"|"bytes"|None, values)}."""
    pb = example_pb2()
    ex = pb.Example()
    ex.features.SetInParent()
    for k, (kind, vals) in features.items():
        f = ex.features.feature[k]
        if kind == "int64":
            f.int64_list.value.extend(vals)
            f.int64_list.SetInParent()
        elif kind == "float":
            f.float_list.value.extend(vals)
            f.float_list.SetInParent()
        elif kind == "bytes":
            f.bytes_list.value.extend(vals)
            f.bytes_list.SetInParent()
    return ex


def tfn_example(tf, features):
    """The same Example built with tfnano's tf.train classes."""
    feats = {}
    for k, (kind, vals) in features.items():
        if kind == "int64":
            feats[k] = tf.train.Feature(int64_list=tf.train.Int64List(value=vals))
        elif kind == "float":
            feats[k] = tf.train.Feature(float_list=tf.train.FloatList(value=vals))
        elif kind == "bytes":
            feats[k] = tf.train.Feature(bytes_list=tf.train.BytesList(value=vals))
        else:
            feats[k] = tf.train.Feature()
    return tf.train.Example(features=tf.train.Features(feature=feats))
