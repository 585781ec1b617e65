"""count, head / cat and schema: looking at shards."""
import base64
import json
import sys

import numpy as np

from .. import errors
from ._sources import RecordFile, UsageError

KINDS = {"int64_list": "int64", "float_list": "float32", "bytes_list": "string"}


def _example(raw):
    """The payload as a tf.train.Example, or None when it is not one."""
    from ..train import DecodeError, Example
    try:
        return Example.FromString(raw)
    except DecodeError:
        return None


# `tfnano head` shows at most this many bytes of a value (--full: all of them): an
# encoded image would otherwise fill the terminal.
HEAD_BYTES = 64
_limit = [None]


def _jsonable_bytes(b, how):
    limit = _limit[0]
    if limit is not None and len(b) > limit:
        shown = _jsonable_bytes_whole(b[:limit], how)
        if isinstance(shown, str):
            return "%s... (%d bytes; --full shows all)" % (shown, len(b))
        shown["bytes"] = len(b)
        shown["truncated"] = True
        return shown
    return _jsonable_bytes_whole(b, how)


def _jsonable_bytes_whole(b, how):
    if how == "base64":
        return {"base64": base64.b64encode(b).decode("ascii")}
    if how == "hex":
        return {"hex": b.hex()}
    try:
        return b.decode("utf-8")
    except UnicodeDecodeError:
        return {"base64": base64.b64encode(b).decode("ascii")}


def _jsonable_float(x):
    x = float(x)
    if x != x or x in (float("inf"), float("-inf")):
        return repr(x)  # JSON has no NaN / Infinity
    return x


def _jsonable(v, how):
    """numpy values and SparseTensors as JSON values (bytes: UTF-8 text when it is,
    else {"base64": ...})."""
    if hasattr(v, "indices") and hasattr(v, "values"):
        v = v.values
    a = np.asarray(v)
    if a.dtype == object or a.dtype.kind == "S":
        flat = [_jsonable_bytes(bytes(x), how) for x in a.reshape(-1)]
    elif a.dtype.kind == "f":
        flat = [_jsonable_float(x) for x in a.reshape(-1)]
    else:
        flat = a.reshape(-1).tolist()
    if a.ndim == 0:
        return flat[0]
    return np.array(flat, dtype=object).reshape(a.shape).tolist()


def example_as_dict(raw, how="auto"):
    """{feature: [values]} as stored (each list whole), or {"record": bytes} for a
    payload that is not an Example."""
    ex = _example(raw)
    if ex is None:
        return {"record": _jsonable_bytes(raw, "base64" if how == "auto" else how)}
    out = {}
    for key in sorted(ex.features.feature):
        f = ex.features.feature[key]
        kind = f.WhichOneof("kind")
        if kind is None:
            out[key] = None
        elif kind == "bytes_list":
            out[key] = [_jsonable_bytes(bytes(b), how) for b in f.bytes_list.value]
        elif kind == "float_list":
            out[key] = [_jsonable_float(x) for x in f.float_list.value]
        else:
            out[key] = [int(x) for x in f.int64_list.value]
    return out


def load_spec(path):
    """The `features` dict of a Python file (as `tfnano schema` prints it; `tf` is
    tfnano there)."""
    import tfnano
    scope = {"tf": tfnano, "tfnano": tfnano}
    try:
        with open(path) as f:
            code = f.read()
    except OSError as e:
        raise UsageError("--spec %s: %s" % (path, e.strerror)) from None
    exec(compile(code, path, "exec"), scope)  # the user's own spec file
    if not isinstance(scope.get("features"), dict):
        raise UsageError("--spec %s must define a dict named `features`" % path)
    return scope["features"]


def cmd_count(args, files, out):
    from .._progress import Progress
    total = 0
    failed = False
    bar = Progress("count")  # on a terminal, once it has run for a second
    counts = []
    for name in files:
        n = 0
        try:
            with RecordFile(name, args.compression, skip_damage=args.skip_damage) as rf:
                try:
                    n = rf.count(bar)
                finally:
                    n = rf.counted
        except errors.NotFoundError:
            raise
        except errors.OpError as e:
            failed = True
            sys.stderr.write("tfnano count: %s: %s (after %d records)\n" % (name, e, n))
        total += n
        counts.append((n, name))
    bar.close()  # the progress line is done before the results are printed
    if len(files) > 1:
        out.writelines("%d\t%s\n" % c for c in counts)
    out.write("%d%s\n" % (total, "\ttotal" if len(files) > 1 else ""))
    return 1 if failed else 0


def cmd_head(args, files, out):
    spec = load_spec(args.spec) if args.spec else None
    limit = args.n if args.command == "head" else None
    _limit[0] = HEAD_BYTES if args.command == "head" and not args.full else None
    shown = 0
    status = 0
    for name in files:
        try:
            with RecordFile(name, args.compression, skip_damage=args.skip_damage) as rf:
                for index, offset, raw in rf:
                    if limit is not None and shown >= limit:
                        return status
                    if spec is not None:
                        from ..io import parse_single_example
                        parsed = parse_single_example(raw, spec)
                        row = {k: _jsonable(parsed[k], args.bytes) for k in sorted(parsed)}
                    else:
                        row = example_as_dict(raw, args.bytes)
                    if args.with_position:
                        row = {"file": name, "index": index, "offset": offset,
                               "features": row}
                    out.write(json.dumps(row, ensure_ascii=False) + "\n")
                    shown += 1
        except errors.NotFoundError:
            raise
        except errors.OpError as e:
            status = 1
            sys.stderr.write("tfnano %s: %s: %s\n" % (args.command, name, e))
    return status


class _Seen:
    def __init__(self):
        self.kinds = set()
        self.lengths = set()
        self.present = 0


def infer_schema(files, compression="AUTO", max_records=1000):
    """{name: _Seen} over the first max_records Example records, and how many were read."""
    seen = {}
    n = 0
    for name in files:
        with RecordFile(name, compression) as rf:
            for _, _, raw in rf:
                if n >= max_records:
                    return seen, n
                ex = _example(raw)
                if ex is None:
                    raise UsageError("%s: record %d is not a tf.train.Example" % (name, n))
                n += 1
                for key, f in ex.features.feature.items():
                    s = seen.setdefault(key, _Seen())
                    kind = f.WhichOneof("kind")
                    # an empty Feature (no kind) is missing to parse_example
                    length = len(getattr(f, kind).value) if kind is not None else 0
                    s.lengths.add(length)
                    if kind is not None:
                        s.kinds.add(kind)
                        s.present += 1
    return seen, n


def feature_line(key, s, n):
    """The parse_example config for one feature, and a comment when it is a guess."""
    if len(s.kinds) != 1:
        what = "no values in any record" if not s.kinds else "mixed kinds " + "/".join(
            sorted(s.kinds))
        return None, what
    dtype = "tf." + KINDS[next(iter(s.kinds))]
    if s.present == n and len(s.lengths) == 1 and 0 not in s.lengths:
        length = next(iter(s.lengths))
        shape = "[]" if length == 1 else "[%d]" % length
        return "tf.io.FixedLenFeature(%s, %s)" % (shape, dtype), None
    return "tf.io.FixedLenSequenceFeature([], %s, allow_missing=True)" % dtype, None


def cmd_schema(args, files, out):
    seen, n = infer_schema(files, args.compression, args.records)
    if n == 0:
        raise UsageError("no records in %s" % ", ".join(files))
    out.write("# %d records read from %s\n" % (n, files[0] if len(files) == 1
                                                else "%d files" % len(files)))
    out.write("# %-24s %-11s %-9s %s\n" % ("feature", "kind", "present", "values per record"))
    for key in sorted(seen):
        s = seen[key]
        kind = "/".join(KINDS[k] for k in sorted(s.kinds)) or "(empty)"
        lens = sorted(s.lengths)
        span = "-" if not lens else (str(lens[0]) if len(lens) == 1
                                     else "%d..%d" % (lens[0], lens[-1]))
        out.write("# %-24s %-11s %-9s %s\n" % (key, kind, "%d/%d" % (s.present, n), span))
    out.write("features = {\n")
    for key in sorted(seen):
        line, why = feature_line(key, seen[key], n)
        if line is None:
            out.write("    # %r: left out (%s)\n" % (key, why))
        else:
            out.write("    %r: %s,\n" % (key, line))
    out.write("}\n")
    return 0
