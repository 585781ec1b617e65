"""The scale adapters' tests (tfnano.arrow, tfnano.dask, tfnano.beam) run in
build/venv-scale (make test-scale / make test-beam) with the in-tree package
(bindings/python, its extension built by make python)."""
import os
import sys

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
sys.path.insert(0, os.path.join(ROOT, "bindings", "python"))
