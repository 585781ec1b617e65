"""The ``tfnano`` command (also ``python -m tfnano``): look at, check and reshape
TFRecord shards without writing Python.

  tfnano count FILES...            records per file (TensorFlow's reading: stops at damage)
  tfnano head [-n 10] FILES...     the first records as JSON lines (cat: all of them)
  tfnano schema FILES...           feature names, kinds, lengths, and a `features = {...}`
  tfnano verify FILES...           every CRC; each damaged region's file and offset
  tfnano index FILES...            "offset length" lines (DALI / vahidk tfrecord2idx format)
  tfnano split / merge / recompress   rewrite shards (progress on a terminal)

FILES may be paths, globs (quoted: 'data/train-*') or URLs (gs://, s3://, memory://,
https://: through fsspec). Compression is detected from the first bytes unless
--compression says otherwise. Exit status: 0 fine, 1 damage or a read error, 2 a bad
command line or a missing file."""
import argparse
import sys

from .. import errors
from ._sources import UsageError, expand

__all__ = ["main", "build_parser"]


def _common(p, compression=True):
    p.add_argument("files", nargs="+", metavar="FILE",
                   help="TFRecord files: paths, globs or URLs")
    if compression:
        p.add_argument("-c", "--compression", default="AUTO",
                       help="input compression: AUTO (detect, the default), NONE, GZIP, ZLIB")
    p.add_argument("--max-record-size", metavar="SIZE", default=None,
                   help="refuse a record whose header claims more (default 256MiB, "
                        "at most 2GiB)")


def _progress(p):
    g = p.add_mutually_exclusive_group()
    g.add_argument("--progress", dest="progress", action="store_true", default=None,
                   help="always show progress (default: on a terminal, after 1 s)")
    g.add_argument("--no-progress", dest="progress", action="store_false")


def _output_compression(p, default="NONE"):
    p.add_argument("-z", "--output-compression", default=default,
                   choices=["NONE", "GZIP", "ZLIB", "none", "gzip", "zlib"],
                   help="compression of what is written (default %s)" % default)


def build_parser():
    from .. import __version__
    parser = argparse.ArgumentParser(
        prog="tfnano", description="Look at, check and reshape TFRecord files.",
        epilog="Exit status: 0 fine, 1 damage or a read error, 2 usage error.")
    parser.add_argument("--version", action="version", version="tfnano " + __version__)
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    sub.required = True

    p = sub.add_parser("count", help="count records")
    _common(p)
    p.add_argument("--skip-damage", action="store_true",
                   help="step over damaged regions and count every valid record")

    for name, what in (("head", "the first records"), ("cat", "every record")):
        p = sub.add_parser(name, help="print %s as JSON lines" % what)
        _common(p)
        if name == "head":
            p.add_argument("-n", type=int, default=10, help="how many records (default 10)")
        p.add_argument("--spec", metavar="FILE.py",
                       help="parse with the `features` dict of a Python file (as "
                            "`tfnano schema` prints it) instead of showing raw lists")
        p.add_argument("--bytes", choices=["auto", "base64", "hex"], default="auto",
                       help="bytes values: text when UTF-8 (auto), else base64")
        p.add_argument("--with-position", action="store_true",
                       help="wrap each line as {file, index, offset, features}")
        p.add_argument("--skip-damage", action="store_true")
        if name == "head":
            p.add_argument("--full", action="store_true",
                           help="show whole values (default: bytes values are cut at "
                                "64 bytes, with their length)")

    p = sub.add_parser("schema", help="infer the features and print a parse_example spec")
    _common(p)
    p.add_argument("--records", type=int, default=1000,
                   help="records to look at (default 1000)")

    p = sub.add_parser("verify", help="check every record's CRCs; report each damage")
    _common(p)
    p.add_argument("--json", action="store_true", help="one JSON line per file")

    p = sub.add_parser("index", help="write FILE.idx: one 'offset length' line per record")
    _common(p, compression=False)
    p.add_argument("-o", "--output", help="index path ('-' for stdout; default FILE.idx)")

    p = sub.add_parser("split", help="split into numbered shards")
    _common(p)
    p.add_argument("-o", "--output", required=True, metavar="PATTERN",
                   help="e.g. 'out/train-{shard:05d}-of-{num_shards:05d}.tfrec'")
    g = p.add_mutually_exclusive_group()
    g.add_argument("--shards", type=int, help="this many shards of equal record counts")
    g.add_argument("--records-per-shard", type=int)
    g.add_argument("--bytes-per-shard", help="e.g. 100MB (the default), 64MiB")
    _output_compression(p)
    _progress(p)

    p = sub.add_parser("merge", help="concatenate files into one")
    _common(p)
    p.add_argument("-o", "--output", required=True)
    _output_compression(p)
    _progress(p)

    p = sub.add_parser("recompress", help="rewrite a file with another compression")
    _common(p)
    p.add_argument("-o", "--output", required=True)
    _output_compression(p, default="GZIP")
    _progress(p)
    return parser


def _handler(command):
    from . import _check, _reshard, _show
    return {"count": _show.cmd_count, "head": _show.cmd_head, "cat": _show.cmd_head,
            "schema": _show.cmd_schema, "verify": _check.cmd_verify,
            "index": _check.cmd_index, "split": _reshard.cmd_split,
            "merge": _reshard.cmd_merge, "recompress": _reshard.cmd_recompress}[command]


class _Terminated(BaseException):
    """SIGTERM, raised in the main thread so that `finally` blocks remove temporary
    files (`*.tmp-PID`) as they do on Ctrl-C."""


def _on_sigterm(signum, frame):
    raise _Terminated()


def main(argv=None, out=None):
    """Runs one command; returns the exit status (the console script exits with it)."""
    args = build_parser().parse_args(argv)
    out = out or sys.stdout
    import signal
    import threading
    previous = None
    if threading.current_thread() is threading.main_thread():
        previous = signal.signal(signal.SIGTERM, _on_sigterm)
    try:
        return _run(args, out)
    except _Terminated:
        sys.stderr.write("\ntfnano %s: terminated\n" % args.command)
        return 143
    finally:
        if previous is not None:
            signal.signal(signal.SIGTERM, previous)


def _run(args, out):
    try:
        from ._sources import set_max_record_size
        set_max_record_size(args.max_record_size)
        files = expand(args.files)
        return _handler(args.command)(args, files, out)
    except UsageError as e:
        sys.stderr.write("tfnano %s: %s\n" % (args.command, e))
        return 2
    except errors.NotFoundError as e:
        sys.stderr.write("tfnano %s: %s\n" % (args.command, e))
        return 2
    except BrokenPipeError:  # `tfnano cat f | head` (before OSError, its base class)
        try:
            sys.stdout = None
        finally:
            return 0
    except (errors.OpError, OSError) as e:
        sys.stderr.write("tfnano %s: %s\n" % (args.command, e))
        return 1
    except KeyboardInterrupt:
        sys.stderr.write("\ntfnano %s: interrupted\n" % args.command)
        return 130
