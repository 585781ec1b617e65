"""TensorFlow's file-system errors and texts, each also the OSError subclass a plain
``except`` would use (``FailedPreconditionError`` for a directory is an
``IsADirectoryError``, ``NotFoundError`` a ``FileNotFoundError``...)."""
import errno as _errno

from . import errors

_MADE = {}


def _both(tf_cls, os_cls):
    """A class that is tf_cls and os_cls at once (named as TensorFlow's)."""
    if issubclass(tf_cls, os_cls):
        return tf_cls
    key = (tf_cls, os_cls)
    cls = _MADE.get(key)
    if cls is None:
        cls = type(tf_cls.__name__, (tf_cls, os_cls),
                   {"__module__": errors.__name__, "__doc__": tf_cls.__doc__,
                    "__str__": errors.OpError.__str__, "__init__": errors.OpError.__init__,
                    "__reduce__": errors.OpError.__reduce__})
        _MADE[key] = cls
    return cls


def _make(tf_cls, os_cls, errno, path, text):
    exc = _both(tf_cls, os_cls)(None, None, text)
    exc.errno = errno
    exc.strerror = text
    exc.filename = path
    return exc


def is_a_directory(path):
    """TensorFlow's "<path>; Is a directory" (FailedPreconditionError, IsADirectoryError)."""
    return _make(errors.FailedPreconditionError, IsADirectoryError, _errno.EISDIR, path,
                 "%s; Is a directory" % path)


def not_a_directory(path, text=None):
    return _make(errors.FailedPreconditionError, NotADirectoryError, _errno.ENOTDIR, path,
                 text or "%s is not a directory" % path)


def not_found(path, text=None):
    return _make(errors.NotFoundError, FileNotFoundError, _errno.ENOENT, path,
                 text or "%s; No such file or directory" % path)


def already_exists(path, text="file already exists"):
    return _make(errors.AlreadyExistsError, FileExistsError, _errno.EEXIST, path, text)


def from_oserror(e, path):
    """The TensorFlow error for an OSError met on path."""
    if isinstance(e, errors.OpError):
        return e
    if isinstance(e, FileNotFoundError):
        return not_found(path)
    if isinstance(e, IsADirectoryError):
        return is_a_directory(path)
    if isinstance(e, NotADirectoryError):
        return not_a_directory(path)
    if isinstance(e, FileExistsError):
        return already_exists(path)
    if isinstance(e, PermissionError):
        return _make(errors.PermissionDeniedError, PermissionError, e.errno, path,
                     "%s; Permission denied" % path)
    return _make(errors.UnknownError, OSError, e.errno, path,
                 "%s; %s" % (path, e.strerror or e))
