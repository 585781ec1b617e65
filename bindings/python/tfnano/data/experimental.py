"""``tf.data.experimental``: AUTOTUNE, ignore_errors, cardinality, debug mode."""
from .plan import AUTOTUNE, INFINITE, UNKNOWN
from .structured_function import (TracingFallbackWarning,  # noqa: F401
                                  disable_debug_mode, enable_debug_mode)

INFINITE_CARDINALITY = INFINITE
UNKNOWN_CARDINALITY = UNKNOWN


def ignore_errors(log_warning=False):
    return lambda ds: ds.ignore_errors(log_warning)


def cardinality(dataset):
    return dataset.cardinality()


__all__ = ["AUTOTUNE", "INFINITE_CARDINALITY", "UNKNOWN_CARDINALITY", "ignore_errors",
           "cardinality", "enable_debug_mode", "disable_debug_mode"]
