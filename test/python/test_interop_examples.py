"""Real Examples written by TensorFlow, Beam and Java (test/data/interop) through the C
library's two readers: tfn_example_decode (protobuf semantics) and tfn_parser (TF's
parser, each feature read as a FixedLenSequenceFeature), checked against the corpus's
expected contents. TFRecord framing is undone here with the standard library, so this
test depends only on the Example code.
"""
import gzip
import hashlib
import json
import os
import struct
import zlib
from pathlib import Path

import numpy as np
import pytest

ROOT = Path(__file__).resolve().parents[2]
INTEROP = ROOT / "test" / "data" / "interop"

tfn_abi = pytest.importorskip("tfn_abi", reason="libtfnano.so is not built")
ffi, lib = tfn_abi.ffi, tfn_abi.lib


def _payloads(path: Path, compression: str):
    data = path.read_bytes()
    if compression == "GZIP":
        data = gzip.decompress(data)
    elif compression == "ZLIB":
        data = zlib.decompress(data)
    off = 0
    while off + 12 <= len(data):
        (n,) = struct.unpack_from("<Q", data, off)
        if off + 16 + n > len(data):
            break
        yield data[off + 12 : off + 12 + n]
        off += 16 + n


def _example_files():
    for exp in sorted((INTEROP / "expected").glob("*.json")):
        meta = json.loads(exp.read_text())
        if meta["payload_type"] == "Example" and meta["tf_yielded_record_count"] > 0:
            yield pytest.param(meta, id=meta["file"])


KIND = {"bytes_list": lib.TFN_KIND_BYTES, "float_list": lib.TFN_KIND_FLOAT,
        "int64_list": lib.TFN_KIND_INT64, None: lib.TFN_KIND_NONE}


def _values(f):
    """The values of a tfn_feature view as a Python list."""
    if f.kind == lib.TFN_KIND_INT64:
        return [f.int64s[i] for i in range(f.count)]
    if f.kind == lib.TFN_KIND_FLOAT:
        return list(np.frombuffer(ffi.buffer(f.floats, 4 * f.count), dtype=np.float32))
    if f.kind == lib.TFN_KIND_BYTES:
        return [bytes(ffi.buffer(f.bytes[i].data, f.bytes[i].len)) if f.bytes[i].len else b""
                for i in range(f.count)]
    return []


def _digest(kind, values):
    if kind == "int64_list":
        return hashlib.sha256(np.asarray(values, dtype="<i8").tobytes()).hexdigest()
    if kind == "float_list":
        return hashlib.sha256(np.asarray(values, dtype="<f4").tobytes()).hexdigest()
    h = hashlib.sha256()
    for v in values:
        h.update(struct.pack("<Q", len(v)) + v)
    return h.hexdigest()


def _expected_value(spec, encoding):
    if isinstance(spec, dict):  # a long bytes value: {length, sha256, prefix_hex}
        return spec
    if encoding == "hex":
        return bytes.fromhex(spec)
    return spec.encode("utf-8") if isinstance(spec, str) else spec


def _check_values(name, want, got):
    kind = want["kind"]
    assert len(got) == want["count"], name
    shown = got[:8] if want.get("truncated") else got
    if want.get("truncated"):
        assert _digest(kind, got) == want["all_values_digest"], name
    for w, g in zip(want.get("values", []), shown):
        w = _expected_value(w, want.get("encoding"))
        if isinstance(w, dict):
            assert len(g) == w["length"] and hashlib.sha256(g).hexdigest() == w["sha256"], name
        elif kind == "float_list":
            assert np.float32(w) == g or (np.isnan(w) and np.isnan(g)), name
        else:
            assert w == g, name


@pytest.mark.parametrize("meta", list(_example_files()))
def test_decode_matches_expected(meta):
    path = INTEROP / "files" / meta["file"]
    ex = ffi.gc(lib.tfn_example_new(ffi.NULL), lib.tfn_example_free)
    err = ffi.new("tfn_error *")
    records = list(_payloads(path, meta["compression"]))
    described = [r for r in meta["records"] if "features" in r]
    assert described
    for rec in described:
        payload = records[rec["index"]]
        assert hashlib.sha256(payload).hexdigest() == rec["sha256"]
        assert lib.tfn_example_decode(ex, payload, len(payload), 0, err) == lib.TFN_OK, \
            ffi.string(err.msg)
        assert lib.tfn_example_size(ex) == len(rec["features"])
        for name, want in rec["features"].items():
            f = ffi.new("tfn_feature *")
            key = name.encode("utf-8")
            assert lib.tfn_example_find(ex, key, len(key), f) == lib.TFN_OK, name
            assert f.kind == KIND[want["kind"]], name
            _check_values(name, want, _values(f))
        # re-serializing and decoding again gives the same features
        out = ffi.new("const uint8_t **")
        n = ffi.new("size_t *")
        assert lib.tfn_example_serialize_owned(ex, out, n, err) == lib.TFN_OK
        again = ffi.gc(lib.tfn_example_new(ffi.NULL), lib.tfn_example_free)
        assert lib.tfn_example_decode(again, out[0], n[0], 0, err) == lib.TFN_OK
        assert lib.tfn_example_size(again) == lib.tfn_example_size(ex)


DTYPE = {"bytes_list": lib.TFN_BYTES, "float_list": lib.TFN_FLOAT32, "int64_list": lib.TFN_INT64}
CTYPE = {"bytes_list": "tfn_bytes[]", "float_list": "float[]", "int64_list": "int64_t[]"}


@pytest.mark.parametrize("meta", list(_example_files()))
def test_tf_parser_reads_every_feature(meta):
    """Every feature with a kind, as FixedLenSequenceFeature([], dtype), in one batch."""
    path = INTEROP / "files" / meta["file"]
    records = list(_payloads(path, meta["compression"]))
    described = [r for r in meta["records"] if "features" in r]
    kinds = {}
    for rec in described:
        for name, want in rec["features"].items():
            if want["kind"] is not None:
                kinds.setdefault(name, want["kind"])
    names = sorted(kinds)
    keys = [n.encode("utf-8") for n in names]
    cfg = ffi.new("tfn_feature_config[]", len(names))
    for j, key in enumerate(keys):
        cfg[j].key = ffi.from_buffer(key)
        cfg[j].key_len = len(key)
        cfg[j].type = lib.TFN_FIXED_LEN_SEQUENCE
        cfg[j].dtype = DTYPE[kinds[names[j]]]
        cfg[j].allow_missing = 1
    spec_p = ffi.new("tfn_spec **")
    err = ffi.new("tfn_error *")
    assert lib.tfn_spec_new(cfg, len(names), ffi.NULL, spec_p, err) == lib.TFN_OK
    spec = ffi.gc(spec_p[0], lib.tfn_spec_free)
    parser = ffi.gc(lib.tfn_parser_new(spec, ffi.NULL), lib.tfn_parser_free)
    batch = [records[r["index"]] for r in described]
    keep = [ffi.from_buffer(b) for b in batch]
    views = ffi.new("tfn_bytes[]", len(batch))
    for i, b in enumerate(batch):
        views[i].data = keep[i]
        views[i].len = len(b)
    assert lib.tfn_parser_scan(parser, views, len(batch), ffi.NULL, lib.TFN_PARSE_BATCH, err) \
        == lib.TFN_OK, ffi.string(err.msg)
    outs = ffi.new("tfn_output[]", len(names))
    arrays, lengths = [], []
    for j, name in enumerate(names):
        rows = lib.tfn_parser_max_rows(parser, j)
        arrays.append(ffi.new(CTYPE[kinds[name]], max(1, rows * len(batch))))
        lengths.append(ffi.new("int64_t[]", len(batch)))
        outs[j].values = arrays[j]
        outs[j].capacity = rows * len(batch)
        outs[j].max_rows = -1
        outs[j].lengths = lengths[j]
    assert lib.tfn_parser_fill(parser, outs, err) == lib.TFN_OK, ffi.string(err.msg)
    for i, rec in enumerate(described):
        for j, name in enumerate(names):
            want = rec["features"].get(name)
            rows = lib.tfn_parser_max_rows(parser, j)
            n = lengths[j][i]
            if want is None or want["kind"] is None or want["kind"] != kinds[name]:
                assert n == 0
                continue
            row = [arrays[j][i * rows + t] for t in range(n)]
            if kinds[name] == "bytes_list":
                row = [bytes(ffi.buffer(v.data, v.len)) if v.len else b"" for v in row]
            _check_values(name, want, row)
