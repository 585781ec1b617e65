"""``tf.io.gfile``: file helpers for local paths and, through fsspec, URLs."""
import glob as _glob
import os as _os


class gfile:  # noqa: N801 - TensorFlow's name; a namespace of file helpers
    """``tf.io.gfile`` for local paths (and anything Python's own functions accept)."""

    @staticmethod
    def glob(pattern):
        """Paths matching a pattern (or a list of patterns), sorted like TensorFlow's."""
        pats = [pattern] if isinstance(pattern, (str, bytes, _os.PathLike)) else pattern
        out = []
        for p in pats:
            p = _os.fsdecode(p)
            if "://" in p and not p.startswith("file://"):
                import fsspec  # URLs (gs://, s3://, memory://) need fsspec
                fs, _, _ = fsspec.get_fs_token_paths(p)
                proto = p.split("://", 1)[0]
                out.extend(m if "://" in m else "%s://%s" % (proto, m.lstrip("/"))
                           for m in fs.glob(p))
            else:
                out.extend(_glob.glob(p[len("file://"):] if p.startswith("file://") else p))
        return sorted(set(out))

    exists = staticmethod(_os.path.exists)
    isdir = staticmethod(_os.path.isdir)
    listdir = staticmethod(_os.listdir)
    remove = staticmethod(_os.remove)
    rename = staticmethod(lambda src, dst, overwrite=False: _os.replace(src, dst)
                          if overwrite or not _os.path.exists(dst)
                          else (_ for _ in ()).throw(FileExistsError(dst)))

    @staticmethod
    def makedirs(path):
        _os.makedirs(path, exist_ok=True)

    mkdir = staticmethod(_os.mkdir)

    @staticmethod
    def GFile(name, mode="r"):  # noqa: N802
        return open(name, mode)
