"""The scale adapters' tests (tfnano.arrow, tfnano.dask: make test-scale; tfnano.beam:
make test-beam) run in their own virtualenvs with the in-tree package (bindings/python,
its extension built by make python), also in the worker processes they start."""
import os
import sys

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
PKG = os.path.join(ROOT, "bindings", "python")
sys.path.insert(0, PKG)
os.environ["PYTHONPATH"] = os.pathsep.join(
    [PKG] + [p for p in os.environ.get("PYTHONPATH", "").split(os.pathsep) if p])
