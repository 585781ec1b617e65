"""TensorFlow's error classes (``tf.errors``), carrying TensorFlow's messages.

Each class also derives from the Python builtin a plain ``except`` would use:
``InvalidArgumentError`` is a ``ValueError``, ``DataLossError`` and ``NotFoundError``
are ``OSError`` s, ``ResourceExhaustedError`` a ``MemoryError``, and so on.
"""

OK = 0
CANCELLED = 1
UNKNOWN = 2
INVALID_ARGUMENT = 3
DEADLINE_EXCEEDED = 4
NOT_FOUND = 5
ALREADY_EXISTS = 6
PERMISSION_DENIED = 7
RESOURCE_EXHAUSTED = 8
FAILED_PRECONDITION = 9
ABORTED = 10
OUT_OF_RANGE = 11
UNIMPLEMENTED = 12
INTERNAL = 13
UNAVAILABLE = 14
DATA_LOSS = 15
UNAUTHENTICATED = 16


class OpError(Exception):
    """Base of TensorFlow's errors: ``message``, ``error_code``, ``op``, ``node_def``.

    tfnano adds ``offset`` and ``record_index`` (where in the input the problem is,
    when known) and ``status`` (the C library's tfn_status, or None). ``message`` is
    TensorFlow's text; ``str()`` adds where the problem is when tfnano knows it
    ("<TensorFlow's text>; file f, record 3, offset 120"), kept in ``detail``."""

    error_code = UNKNOWN

    def __init__(self, node_def=None, op=None, message="", *args, **kwargs):
        self._message = message
        self.node_def = node_def
        self.op = op
        self.offset = kwargs.pop("offset", None)
        self.record_index = kwargs.pop("record_index", None)
        self.status = kwargs.pop("status", None)
        Exception.__init__(self, message)
        self.args = (node_def, op, message) + args

    @property
    def message(self):
        return self._message

    def __str__(self):
        return getattr(self, "detail", None) or self._message

    def __reduce__(self):
        return (type(self), (self.node_def, self.op, self._message))


def _make(name, code, builtin, doc):
    bases = (OpError,) if builtin is None else (OpError, builtin)
    return type(name, bases, {"error_code": code, "__doc__": doc, "__module__": __name__,
                              "__str__": OpError.__str__, "__init__": OpError.__init__})


CancelledError = _make("CancelledError", CANCELLED, None, "The operation was cancelled.")
UnknownError = _make("UnknownError", UNKNOWN, RuntimeError, "Unknown error.")
InvalidArgumentError = _make("InvalidArgumentError", INVALID_ARGUMENT, ValueError,
                             "An argument or the data is invalid (also a ValueError).")
DeadlineExceededError = _make("DeadlineExceededError", DEADLINE_EXCEEDED, TimeoutError,
                              "A deadline expired.")
NotFoundError = _make("NotFoundError", NOT_FOUND, FileNotFoundError,
                      "A file or entity was not found (also a FileNotFoundError).")
AlreadyExistsError = _make("AlreadyExistsError", ALREADY_EXISTS, FileExistsError,
                           "The entity already exists.")
PermissionDeniedError = _make("PermissionDeniedError", PERMISSION_DENIED, PermissionError,
                              "Permission denied (also a PermissionError).")
UnauthenticatedError = _make("UnauthenticatedError", UNAUTHENTICATED, PermissionError,
                             "No valid credentials.")
ResourceExhaustedError = _make("ResourceExhaustedError", RESOURCE_EXHAUSTED, MemoryError,
                               "Out of memory or another resource (also a MemoryError).")
FailedPreconditionError = _make("FailedPreconditionError", FAILED_PRECONDITION, ValueError,
                                "The object is not in a state for the call, e.g. "
                                "writing to a closed writer (also a ValueError).")
AbortedError = _make("AbortedError", ABORTED, RuntimeError, "The operation was aborted.")
OutOfRangeError = _make("OutOfRangeError", OUT_OF_RANGE, IndexError,
                        "Iterated or read past the end (also an IndexError).")
UnimplementedError = _make("UnimplementedError", UNIMPLEMENTED, NotImplementedError,
                           "Not implemented (also a NotImplementedError).")
InternalError = _make("InternalError", INTERNAL, RuntimeError, "Internal error.")
UnavailableError = _make("UnavailableError", UNAVAILABLE, OSError, "Unavailable.")
DataLossError = _make("DataLossError", DATA_LOSS, OSError,
                      "Unrecoverable data loss or corruption, e.g. a bad TFRecord "
                      "(also an OSError).")

_BY_CODE = {c.error_code: c for c in (
    CancelledError, UnknownError, InvalidArgumentError, DeadlineExceededError,
    NotFoundError, AlreadyExistsError, PermissionDeniedError, UnauthenticatedError,
    ResourceExhaustedError, FailedPreconditionError, AbortedError, OutOfRangeError,
    UnimplementedError, InternalError, UnavailableError, DataLossError)}


def locate(exc, file=None, record=None, offset=None, record_label="record"):
    """Makes str(exc) name where the problem is: TensorFlow's text, then "; file f,
    record i, offset o" (the parts known). Returns exc. A caller that knows more
    (a dataset knows the file of a parse error) calls it again."""
    where = []
    if file is not None:
        where.append("file %s" % (file,))
    if record is not None:
        where.append("%s %d" % (record_label, record))
    if offset is not None:
        where.append("offset %d" % offset)
    if where:
        exc.detail = "%s; %s" % (exc.message, ", ".join(where))
    return exc


_locate = locate  # the name the package's modules have used


_OS_VARIANTS = {}


def _os_variant(cls):
    """cls made an OSError too (e.g. ResourceExhaustedError for ENOSPC), so that an
    I/O failure carries errno and filename whatever TensorFlow's class for it is."""
    if issubclass(cls, OSError):
        return cls
    v = _OS_VARIANTS.get(cls)
    if v is None:
        name = "_OS" + cls.__name__
        v = type(cls.__name__, (cls, OSError),
                 {"__module__": __name__, "__qualname__": name, "__doc__": cls.__doc__,
                  "__str__": OpError.__str__, "__init__": OpError.__init__})
        globals()[name] = v  # importable by that name, so instances pickle
        _OS_VARIANTS[cls] = v
    return v


def make(cls, message, **where):
    """An instance of the tfnano error class `cls` carrying TensorFlow's `message` (no
    node_def, no op: tfnano has no graph); `where` takes offset / record_index / status."""
    return cls(None, None, message, **where)


def invalid(message):
    """InvalidArgumentError(message): the one way Python code builds the most common
    error, so every module spells it the same."""
    return InvalidArgumentError(None, None, message)


def exception_type_from_error_code(error_code):
    return _BY_CODE[error_code]


def error_code_from_exception_type(cls):
    return cls.error_code


__all__ = [n for n in list(globals()) if n.endswith("Error") or n.isupper()] + [
    "exception_type_from_error_code", "error_code_from_exception_type"]
