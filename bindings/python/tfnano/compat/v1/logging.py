"""``tf.compat.v1.logging``: TF1's logging functions on the "tensorflow" logger of
Python's logging module (levels DEBUG=10 ... FATAL=50, as TensorFlow's)."""
import logging as _logging

DEBUG = _logging.DEBUG
INFO = _logging.INFO
WARN = WARNING = _logging.WARNING
ERROR = _logging.ERROR
FATAL = _logging.FATAL

_LOG = _logging.getLogger("tensorflow")


def set_verbosity(v):
    _LOG.setLevel(v)


def get_verbosity():
    return _LOG.getEffectiveLevel()


def log(level, msg, *args, **kwargs):
    _LOG.log(level, msg, *args, **kwargs)


def debug(msg, *args, **kwargs):
    _LOG.debug(msg, *args, **kwargs)


def info(msg, *args, **kwargs):
    _LOG.info(msg, *args, **kwargs)


def warning(msg, *args, **kwargs):
    _LOG.warning(msg, *args, **kwargs)


warn = warning


def error(msg, *args, **kwargs):
    _LOG.error(msg, *args, **kwargs)


def fatal(msg, *args, **kwargs):
    _LOG.fatal(msg, *args, **kwargs)


def vlog(level, msg, *args, **kwargs):
    _LOG.log(level, msg, *args, **kwargs)


_COUNTS = {}


def log_every_n(level, msg, n, *args):
    key = (level, msg)
    count = _COUNTS.get(key, 0)
    _COUNTS[key] = count + 1
    if count % n == 0:
        _LOG.log(level, msg, *args)


def log_first_n(level, msg, n, *args):
    key = (level, msg, "first")
    count = _COUNTS.get(key, 0)
    _COUNTS[key] = count + 1
    if count < n:
        _LOG.log(level, msg, *args)


def log_if(level, msg, condition, *args):
    if condition:
        _LOG.log(level, msg, *args)
