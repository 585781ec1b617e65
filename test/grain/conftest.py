"""The Grain tests run in build/venv-grain (make test-grain) with the in-tree package
(bindings/python, its extension built by make python)."""
import os
import sys

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
sys.path.insert(0, os.path.join(ROOT, "bindings", "python"))
