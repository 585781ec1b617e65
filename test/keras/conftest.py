"""The Keras tests run in build/venv-keras (make test-keras) with the in-tree package
(bindings/python, its extension built by make python)."""
import os
import sys

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
sys.path.insert(0, os.path.join(ROOT, "bindings", "python"))
# Keras picks its backend at import and defaults to TensorFlow, which this virtualenv
# does not have: the in-process tests use JAX (fit_run.py sets each backend itself).
os.environ.setdefault("KERAS_BACKEND", "jax")
