# Metadata lives in pyproject.toml; this file only adds the cffi extension and tags the
# wheel cp38-abi3: cffi builds _native against Python's limited API (py_limited_api),
# so one wheel loads on every CPython from 3.8 on.
from setuptools import setup

setup(cffi_modules=["bindings/python/build_ffi.py:ffibuilder"],
      options={"bdist_wheel": {"py_limited_api": "cp38"}})
