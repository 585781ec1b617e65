# Metadata lives in pyproject.toml; this file only adds the cffi extension.
from setuptools import setup

setup(cffi_modules=["bindings/python/build_ffi.py:ffibuilder"])
