"""Running unmodified TensorFlow code on tfnano, opt-in.

``tfnano.as_tensorflow()`` makes ``import tensorflow`` (and ``tensorflow.compat.v1``,
``tensorflow.io``, any ``tensorflow.X`` that tfnano has) give tfnano, for code that
cannot be edited (a third-party module). ``python -m tfnano.run script.py [args]``
runs a script that way.

It never shadows a real install: when TensorFlow is importable, nothing is aliased
(a warning says so) and the code gets the real TensorFlow."""
import importlib
import importlib.abc
import importlib.util
import runpy
import sys
import warnings


class _Loader(importlib.abc.Loader):
    def __init__(self, module):
        self._module = module

    def create_module(self, spec):
        return self._module

    def exec_module(self, module):
        pass


class _TensorflowAlias(importlib.abc.MetaPathFinder):
    """Finds ``tensorflow`` and ``tensorflow.X`` as ``tfnano`` and ``tfnano.X``."""

    def find_spec(self, fullname, path=None, target=None):
        if fullname != "tensorflow" and not fullname.startswith("tensorflow."):
            return None
        target_name = "tfnano" + fullname[len("tensorflow"):]
        try:
            module = importlib.import_module(target_name)
        except ImportError:
            parent, _, attr = target_name.rpartition(".")
            try:
                module = getattr(importlib.import_module(parent), attr)
            except (ImportError, AttributeError):
                return None
        return importlib.util.spec_from_loader(fullname, _Loader(module))


_ALIAS = _TensorflowAlias()


def tensorflow_installed():
    """True when a real TensorFlow can be imported (our alias aside)."""
    if _ALIAS in sys.meta_path:
        return False
    mod = sys.modules.get("tensorflow")
    if mod is not None:
        return not getattr(mod, "__name__", "").startswith("tfnano")
    return importlib.util.find_spec("tensorflow") is not None


def as_tensorflow():
    """Makes ``import tensorflow`` give tfnano, unless TensorFlow is installed (then
    warns and changes nothing). Returns True when the alias is active."""
    if _ALIAS in sys.meta_path:
        return True
    if tensorflow_installed():
        warnings.warn("tfnano.as_tensorflow(): TensorFlow is installed, so `import "
                      "tensorflow` keeps giving the real TensorFlow (tfnano never shadows "
                      "it); use `import tfnano as tf` to run on tfnano", stacklevel=2)
        return False
    sys.meta_path.insert(0, _ALIAS)
    return True


def main(argv=None):
    """``python -m tfnano.run script.py [args...]``."""
    argv = list(sys.argv[1:] if argv is None else argv)
    if not argv or argv[0] in ("-h", "--help"):
        sys.stderr.write("usage: python -m tfnano.run script.py [args...]\n"
                         "Runs script.py with `import tensorflow` giving tfnano (unless "
                         "TensorFlow is installed).\n")
        return 2 if not argv else 0
    as_tensorflow()
    sys.argv = argv
    runpy.run_path(argv[0], run_name="__main__")
    return 0


if __name__ == "__main__":
    sys.exit(main())
