"""``tf.io.gfile``: file helpers with TensorFlow's semantics and errors, for local paths
(``os``) and URLs (gs://, s3://, memory://, http(s)://... through fsspec, installed
with ``pip install tfnano[gcs]`` / ``tfnano[s3]`` / ``fsspec``). ``file://`` URLs are
local paths.

Errors are TensorFlow's classes and texts (NotFoundError "<path>; No such file or
directory", AlreadyExistsError "file already exists", FailedPreconditionError
"<path>; Is a directory"), each also the matching OSError subclass."""
import fnmatch as _fnmatch
import os as _os
import shutil as _shutil

from .. import _fserrors, errors


def _str(path):
    return _os.fsdecode(_os.fspath(path))


def _scheme(path):
    return path.split("://", 1)[0] if "://" in path else ""


def _local(path):
    """The local path for a path or file:// URL; None for other URLs."""
    scheme = _scheme(path)
    if not scheme:
        return path
    if scheme == "file":
        return path[len("file://"):]
    return None


def _fs(url):
    """(fsspec file system, path inside it) for a URL; a clear error without fsspec."""
    try:
        import fsspec
    except ImportError:
        raise errors.UnimplementedError(
            None, None, "File system scheme '%s' not implemented (file: '%s'): "
            "URLs need fsspec (pip install fsspec, or tfnano[gcs] / tfnano[s3])"
            % (_scheme(url), url)) from None
    try:
        fs, path = fsspec.core.url_to_fs(url)
    except (ImportError, ValueError) as e:
        raise errors.UnimplementedError(
            None, None, "File system scheme '%s' not implemented (file: '%s'): %s"
            % (_scheme(url), url, e)) from None
    return fs, path


def _url(proto, found):
    """fsspec gives paths without their scheme: put it back."""
    return found if "://" in found else "%s://%s" % (proto, found.lstrip("/"))


class FileStatistics:
    """What ``gfile.stat`` returns: ``length``, ``mtime_nsec``, ``is_directory``."""

    __slots__ = ("length", "mtime_nsec", "is_directory")

    def __init__(self, length, mtime_nsec, is_directory):
        self.length = length
        self.mtime_nsec = mtime_nsec
        self.is_directory = is_directory

    def __repr__(self):
        return "FileStatistics(length=%d, mtime_nsec=%d, is_directory=%s)" % (
            self.length, self.mtime_nsec, self.is_directory)


def _has_magic(part):
    return any(c in part for c in "*?[")


def _glob_local(pattern):
    """TensorFlow's matching: every component may hold * ? [..] (which match names
    starting with a dot too), results in directory order (os.listdir's, TensorFlow's
    for one level; for several levels TensorFlow's own order varies between runs),
    "./" before the matches of a pattern with no folder."""
    head, tail = _os.path.split(pattern)
    if not _has_magic(pattern):
        return [pattern] if _os.path.lexists(pattern) else []
    if not head:
        head = "."
        prefix = "./"
    else:
        prefix = None
    if _has_magic(head):
        dirs = [d for d in _glob_local(head) if _os.path.isdir(d)]
    else:
        dirs = [head] if _os.path.isdir(head) else []
    out = []
    for d in dirs:
        if not _has_magic(tail):
            p = _os.path.join(d, tail)
            if _os.path.lexists(p):
                out.append(p)
            continue
        try:
            names = _os.listdir(d)
        except OSError:
            continue
        for name in names:
            if _fnmatch.fnmatchcase(name, tail):
                out.append(prefix + name if prefix else _os.path.join(d, name))
    return out


def _source_and_target(src, dst, overwrite):
    """rename's and copy's checks (src exists; dst absent unless overwrite), as
    TensorFlow makes them; returns the names and their local paths (None for URLs)."""
    src, dst = _str(src), _str(dst)
    if not gfile.exists(src):
        raise _fserrors.not_found(src)
    if not overwrite and gfile.exists(dst):
        raise _fserrors.already_exists(dst)
    return src, dst, _local(src), _local(dst)


class gfile:  # noqa: N801 - TensorFlow's name; a namespace of file helpers
    """``tf.io.gfile``: paths through ``os``, URLs through fsspec."""

    FileStatistics = FileStatistics

    @staticmethod
    def glob(pattern):
        """Paths matching a pattern or a list of patterns (their matches one after the
        other, as TensorFlow). Local matches come in directory order as TensorFlow's
        do (not sorted: sort them for a fixed order); URL matches in fsspec's sorted
        order. Hidden files match * as in TensorFlow."""
        pats = [pattern] if isinstance(pattern, (str, bytes, _os.PathLike)) else pattern
        out = []
        for p in pats:
            p = _str(p)
            local = _local(p)
            if local is not None:
                found = _glob_local(local)
                out.extend(found if local == p else ["file://" + f for f in found])
                continue
            fs, path = _fs(p)
            proto = _scheme(p)
            out.extend(_url(proto, m) for m in fs.glob(path))
        return out

    @staticmethod
    def exists(path):
        path = _str(path)
        local = _local(path)
        if local is not None:
            return _os.path.exists(local)
        fs, p = _fs(path)
        return bool(fs.exists(p))

    @staticmethod
    def isdir(path):
        path = _str(path)
        local = _local(path)
        if local is not None:
            return _os.path.isdir(local)
        fs, p = _fs(path)
        return bool(fs.isdir(p))

    @staticmethod
    def listdir(path):
        """Names in the folder (not full paths), in directory order as TensorFlow."""
        path = _str(path)
        local = _local(path)
        if local is not None:
            if not _os.path.isdir(local):
                raise errors.make(errors.NotFoundError, "Could not find directory %s" % path)
            return _os.listdir(local)
        fs, p = _fs(path)
        if not fs.isdir(p):
            raise errors.make(errors.NotFoundError, "Could not find directory %s" % path)
        return [e.rstrip("/").rsplit("/", 1)[-1] for e in fs.ls(p, detail=False)
                if e.rstrip("/") != p.rstrip("/")]

    @staticmethod
    def makedirs(path):
        """Creates the folder and its parents; an existing folder is fine."""
        path = _str(path)
        local = _local(path)
        if local is None:
            fs, p = _fs(path)
            fs.makedirs(p, exist_ok=True)
            return
        try:
            _os.makedirs(local, exist_ok=True)
        except (FileExistsError, NotADirectoryError):
            raise _fserrors.not_a_directory(path, _first_file_in(local) + " is not a directory")
        except OSError as e:
            raise _fserrors.from_oserror(e, path) from None

    @staticmethod
    def mkdir(path):
        """Creates one folder (the parent must exist); an existing folder is fine."""
        path = _str(path)
        local = _local(path)
        if local is None:
            fs, p = _fs(path)
            fs.mkdir(p, create_parents=False)
            return
        if _os.path.isdir(local):
            return
        try:
            _os.mkdir(local)
        except OSError as e:
            raise _fserrors.from_oserror(e, path) from None

    @staticmethod
    def remove(path):
        path = _str(path)
        local = _local(path)
        if local is None:
            fs, p = _fs(path)
            if not fs.exists(p):
                raise _fserrors.not_found(path)
            if fs.isdir(p):
                raise _fserrors.is_a_directory(path)
            fs.rm_file(p)
            return
        if _os.path.isdir(local):
            raise _fserrors.is_a_directory(path)
        try:
            _os.remove(local)
        except OSError as e:
            raise _fserrors.from_oserror(e, path) from None

    @staticmethod
    def rmtree(path):
        path = _str(path)
        local = _local(path)
        if local is None:
            fs, p = _fs(path)
            if not fs.exists(p):
                raise _fserrors.not_found(path)
            fs.rm(p, recursive=True)
            return
        if not _os.path.exists(local):
            raise _fserrors.not_found(path)
        _shutil.rmtree(local)

    @staticmethod
    def rename(src, dst, overwrite=False):
        """Moves src to dst; AlreadyExistsError when dst exists unless overwrite."""
        src, dst, ls, ld = _source_and_target(src, dst, overwrite)
        if ls is not None and ld is not None:
            try:
                _os.replace(ls, ld)
            except OSError as e:
                raise _fserrors.from_oserror(e, src) from None
            return
        if _scheme(src) == _scheme(dst):
            fs, ps = _fs(src)
            fs.mv(ps, _fs(dst)[1])
            return
        gfile.copy(src, dst, overwrite=True)
        gfile.remove(src)

    @staticmethod
    def copy(src, dst, overwrite=False):
        """Copies a file; AlreadyExistsError when dst exists unless overwrite."""
        src, dst, ls, ld = _source_and_target(src, dst, overwrite)
        if ls is not None and ld is not None:
            try:
                _shutil.copyfile(ls, ld)
            except OSError as e:
                raise _fserrors.from_oserror(e, src) from None
            return
        with gfile.GFile(src, "rb") as fin, gfile.GFile(dst, "wb") as fout:
            _shutil.copyfileobj(fin, fout, 1 << 20)

    @staticmethod
    def stat(path):
        path = _str(path)
        local = _local(path)
        if local is not None:
            try:
                st = _os.stat(local)
            except OSError as e:
                raise _fserrors.from_oserror(e, path) from None
            is_dir = _os.path.isdir(local)
            return FileStatistics(0 if is_dir else st.st_size, int(st.st_mtime) * 10**9,
                                  is_dir)
        fs, p = _fs(path)
        try:
            info = fs.info(p)
        except FileNotFoundError:
            raise _fserrors.not_found(path) from None
        mtime = info.get("mtime") or info.get("LastModified") or info.get("updated") or 0
        if hasattr(mtime, "timestamp"):
            mtime = mtime.timestamp()
        try:
            mtime = float(mtime)
        except (TypeError, ValueError):
            mtime = 0.0
        is_dir = info.get("type") == "directory"
        return FileStatistics(0 if is_dir else int(info.get("size") or 0),
                              int(mtime) * 10**9, is_dir)

    @staticmethod
    def walk(top, topdown=True, onerror=None):
        """(folder, subfolder names, file names) for top and every folder under it;
        a missing top yields nothing (as TensorFlow)."""
        top = _str(top)
        try:
            names = gfile.listdir(top)
        except errors.NotFoundError as e:
            if onerror is not None:
                onerror(e)
            return
        sep = "/" if "://" in top else _os.sep
        join = (lambda a, b: a.rstrip("/") + "/" + b) if sep == "/" else _os.path.join
        subdirs, files = [], []
        for name in names:
            (subdirs if gfile.isdir(join(top, name)) else files).append(name)
        if topdown:
            yield top, subdirs, files
        for name in subdirs:
            for item in gfile.walk(join(top, name), topdown, onerror):
                yield item
        if not topdown:
            yield top, subdirs, files

    @staticmethod
    def GFile(name, mode="r"):  # noqa: N802
        """A file object for a path or URL (text or binary as the mode says)."""
        name = _str(name)
        local = _local(name)
        if local is not None:
            if _os.path.isdir(local):
                raise _fserrors.is_a_directory(name)
            try:
                return open(local, mode)
            except OSError as e:
                raise _fserrors.from_oserror(e, name) from None
        fs, p = _fs(name)
        if "r" in mode and not fs.exists(p):
            raise _fserrors.not_found(name)
        return fs.open(p, mode)

    Open = GFile


def _first_file_in(path):
    """The first existing non-folder on the way to path (what makedirs trips over)."""
    parts = _os.path.abspath(path).split(_os.sep)
    for i in range(2, len(parts) + 1):
        p = _os.sep.join(parts[:i])
        if _os.path.exists(p) and not _os.path.isdir(p):
            return p
    return path


# Module-level names, as ``tf.io.gfile.exists`` is a function of a module.
glob = gfile.glob
exists = gfile.exists
isdir = gfile.isdir
listdir = gfile.listdir
makedirs = gfile.makedirs
mkdir = gfile.mkdir
remove = gfile.remove
rmtree = gfile.rmtree
rename = gfile.rename
copy = gfile.copy
stat = gfile.stat
walk = gfile.walk
GFile = gfile.GFile
Open = gfile.GFile
